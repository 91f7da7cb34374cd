"""The local stack's state between runs, as JSON files in one directory (`.local-state/` by default).

moto keeps everything in memory and has no snapshot of its own (its recorder replays requests,
which cannot reproduce receipt handles or anything time-dependent), so on a clean stop the stack
writes out what it holds and loads it into the fresh moto of the next run:

* `dynamodb.json`: every item of every table, in DynamoDB's typed JSON, by logical id;
* `sqs.json`: every message of every queue, including those in flight, by logical id. Restored
  messages get new message ids and a receive count of zero;
* `twilio.json`: the SMS the local Twilio API accepted, and the opted-out phones;
* `simulator.json`: the simulator's phones and their conversations.

A run holds `lock` (an `flock`) on the directory, so two stacks cannot overwrite each other's state.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

__all__ = [
    "STATE_DIRECTORY_VARIABLE",
    "StateDirectory",
    "StateInUse",
    "export_queues",
    "export_tables",
    "import_queues",
    "import_tables",
    "local_stack_running",
]

# Among the variables a running stack writes for the operator's tool (`game-function.env`): its state
# directory, so that whoever reads the file can ask whether the stack that wrote it still runs. A
# stack killed with -9 leaves the file behind; its ports are gone.
STATE_DIRECTORY_VARIABLE = "LOCAL_STACK_STATE_DIRECTORY"


class StateInUse(Exception):
    """Another local stack is running on the same state directory."""


class StateDirectory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock_file: TextIO | None = None

    def lock(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        lock_file = (self.path / "lock").open("w")
        try:
            fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock_file.close()
            raise StateInUse(f"another local stack is using {self.path}; stop it first") from None
        self._lock_file = lock_file

    def in_use(self) -> bool:
        """Whether a stack holds the lock now. A process that ended, however it ended (`kill -9`
        included), holds none: the kernel drops an `flock` with its last open file."""
        try:
            lock_file = (self.path / "lock").open("a")
        except FileNotFoundError:
            return False
        with lock_file:
            try:
                fcntl.flock(lock_file, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(lock_file, fcntl.LOCK_UN)
            return False

    def unlock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    @property
    def logs(self) -> Path:
        return self.path / "logs"

    def read(self, name: str) -> Any:
        try:
            return json.loads((self.path / f"{name}.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def write(self, name: str, data: Any) -> None:
        target = self.path / f"{name}.json"
        partial = target.with_suffix(".json.partial")
        partial.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(partial, target)


def local_stack_running(state_directory: Path) -> bool:
    """Whether a local stack (`play`, `invoke`) runs on this state directory now: it holds the
    directory's lock for as long as it runs, and loses it when its process ends, however it ends."""
    return StateDirectory(state_directory).in_use()


def _encode_binary(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return {"$base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, list):
        return [_encode_binary(item) for item in value]
    if isinstance(value, dict):
        return {key: _encode_binary(item) for key, item in value.items()}
    return value


def _decode_binary(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$base64"}:
            return base64.b64decode(value["$base64"])
        return {key: _decode_binary(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode_binary(item) for item in value]
    return value


def export_tables(dynamodb: Any, table_names: Mapping[str, str]) -> dict[str, list[dict[str, Any]]]:
    """All items of each table (`logical id -> table name`), by logical id."""
    exported: dict[str, list[dict[str, Any]]] = {}
    for logical_id, table_name in table_names.items():
        items: list[dict[str, Any]] = []
        for page in dynamodb.get_paginator("scan").paginate(TableName=table_name, ConsistentRead=True):
            items.extend(_encode_binary(page["Items"]))
        exported[logical_id] = items
    return exported


def import_tables(dynamodb: Any, table_names: Mapping[str, str], exported: Mapping[str, Any]) -> int:
    """Put the exported items back; tables the template no longer declares are skipped."""
    count = 0
    for logical_id, items in exported.items():
        table_name = table_names.get(logical_id)
        if table_name is None:
            continue
        for start in range(0, len(items), 25):
            requests = [{"PutRequest": {"Item": _decode_binary(item)}} for item in items[start : start + 25]]
            pending: dict[str, Any] = {table_name: requests}
            while pending:
                pending = dynamodb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        count += len(items)
    return count


def export_queues(
    messages_by_queue_name: Mapping[str, list[dict[str, Any]]], queue_names: Mapping[str, str]
) -> dict[str, list[dict[str, Any]]]:
    """The messages of the template's queues (`logical id -> queue name`), by logical id."""
    return {
        logical_id: list(messages_by_queue_name.get(queue_name, []))
        for logical_id, queue_name in queue_names.items()
    }


def import_queues(sqs: Any, queue_urls: Mapping[str, str], exported: Mapping[str, Any]) -> int:
    count = 0
    for logical_id, messages in exported.items():
        queue_url = queue_urls.get(logical_id)
        if queue_url is None:
            continue
        for message in messages:
            arguments: dict[str, Any] = {"QueueUrl": queue_url, "MessageBody": message["body"]}
            if message.get("message_attributes"):
                arguments["MessageAttributes"] = message["message_attributes"]
            sqs.send_message(**arguments)
            count += 1
    return count
