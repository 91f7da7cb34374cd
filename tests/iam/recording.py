"""Every AWS call the shipped code makes while the tests run, written down for the least-privilege proof.

`make test` runs the suite with RPS_AWS_CALLS naming a directory and tests/iam/inject/ first on
PYTHONPATH: every Python process the tests start (the pytest workers, the local stack's execution
environments, the operator's tool run as a command, the chaos soak's workers) then imports that
directory's sitecustomize, which installs the recorder before botocore makes its first session.

The recorder is a botocore handler of `before-parameter-build`, which every client call emits once
(however often the SDK retries it), with the parameters as the caller gave them. It keeps a call
only if the code that made it is shipped: the innermost frame outside the libraries (botocore,
boto3, the standard library, anything under site-packages) belongs to `serverless_rps`, or to
`serverless_rps_local.event_source`, which plays the event source mapping that polls the queue with
the game function's role. A test's own calls (creating tables, reading what the game wrote) are not
kept. What is kept of a call:

* the service and the operation (`dynamodb`, `TransactWriteItems`);
* `named`: the parameters that name resources (tables, each item of a transaction and each table
  of a batch with the key attributes it names, queue URLs, parameter names, stacks, functions);
* `stack`: the frames of `serverless_rps` (and of the event source) from the call site outwards,
  up to the first frame of other code than the libraries' (a test standing in for an HTTP request
  or a Lambda invocation), listed outermost first as `module:qualified name`: which principal made
  the call is read from them later (tests/iam/principals.py), not guessed here.

Each process appends one JSON line per distinct call to `<directory>/calls-<pid>.jsonl`, with one
`os.write` each, so a line written before a SIGKILL (the chaos soak kills workers) is never lost.

This module is loaded by path from sitecustomize in processes where `tests` is not importable: it
imports nothing of the project's and only the standard library at import time.
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["ENVIRONMENT_VARIABLE", "CallRecorder", "install", "named_resources", "read_calls"]

# Names the directory the calls are written to; unset, nothing is recorded.
ENVIRONMENT_VARIABLE = "RPS_AWS_CALLS"

# The modules whose calls are kept: the shipped package, and the local event source mapping,
# which makes the calls Lambda's own poller makes in production with the game function's role.
SHIPPED = "serverless_rps"
EVENT_SOURCE = "serverless_rps_local.event_source"

# The parameters of any service that name the resource a call acts on.
_NAMING_PARAMETERS = (
    "TableName",
    "IndexName",
    "QueueUrl",
    "QueueName",
    "Name",
    "Names",
    "Path",
    "StackName",
    "FunctionName",
    "KeyId",
    "logGroupName",
    "logGroupIdentifier",
    "TopicArn",
    "Namespace",
)


def named_resources(params: Mapping[str, Any]) -> dict[str, Any]:
    """What a call's parameters name: the naming parameters as given, DynamoDB's key attributes
    (`Key`), each table of a batch (`RequestItems`) and each item of a transaction (`TransactItems`,
    as [part, table, key attributes])."""
    named: dict[str, Any] = {name: params[name] for name in _NAMING_PARAMETERS if name in params}
    if isinstance(params.get("Key"), Mapping):
        named["Key"] = sorted(params["Key"])
    if isinstance(params.get("RequestItems"), Mapping):
        named["RequestItems"] = {
            table: sorted({attribute for key in request.get("Keys", []) for attribute in key})
            for table, request in params["RequestItems"].items()
            if isinstance(request, Mapping)
        } or {table: [] for table in params["RequestItems"]}
    if isinstance(params.get("TransactItems"), list):
        named["TransactItems"] = [
            [part, body.get("TableName"), sorted(body.get("Key", {}))]
            for item in params["TransactItems"]
            for part, body in item.items()
        ]
    return named


def _library_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    places = {paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib") if name in paths}
    return tuple(sorted(places | {os.path.realpath(place) for place in places}))


class CallRecorder:
    """A `before-parameter-build` handler that writes the shipped code's calls to `directory`."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self._directory = Path(directory)
        self._libraries = _library_prefixes()
        self._seen: set[tuple[Any, ...]] = set()
        self._lock = threading.Lock()
        self._file: int | None = None
        os.register_at_fork(after_in_child=self._forget_the_parents_file)

    def __call__(self, params: Mapping[str, Any], model: Any, **_: Any) -> None:
        stack = self._shipped_stack(sys._getframe(1))
        if stack is None:
            return
        call = {
            "service": model.service_model.service_name,
            "operation": model.name,
            "named": named_resources(params),
            "stack": stack,
        }
        key = (call["service"], call["operation"], json.dumps(call["named"], sort_keys=True), tuple(stack))
        with self._lock:
            if key in self._seen:
                return
            self._seen.add(key)
            os.write(self._open(), (json.dumps(call, sort_keys=True) + "\n").encode())

    def attach(self, events: Any) -> None:
        """Record the calls of every client of one session (or one client): `session.events`."""
        events.register("before-parameter-build", self)

    def _shipped_stack(self, frame: Any) -> list[str] | None:
        """The shipped frames from the outermost to the call site, or None if the innermost frame
        outside the libraries is not shipped code's (a test's own call).

        The frames stop at the first one outside the libraries that is not shipped: above it is
        a test or the local stack standing in for what production does between processes (an HTTP
        request to the webhook, Lambda invoking a handler), not the same principal's code."""
        frames: list[str] = []
        while frame is not None:
            module = str(frame.f_globals.get("__name__", ""))
            if _traced(module):
                frames.append(f"{module}:{frame.f_code.co_qualname}")
            elif not self._in_a_library(frame.f_code.co_filename):
                break
            frame = frame.f_back
        return frames[::-1] or None

    def _in_a_library(self, filename: str) -> bool:
        return filename.startswith("<") or filename.startswith(self._libraries)

    def _open(self) -> int:
        if self._file is None:
            self._directory.mkdir(parents=True, exist_ok=True)
            path = self._directory / f"calls-{os.getpid()}.jsonl"
            self._file = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        return self._file

    def _forget_the_parents_file(self) -> None:
        # A forked child writes its own file; what the parent already wrote stays seen.
        self._file = None
        self._lock = threading.Lock()


def _traced(module: str) -> bool:
    return module in (SHIPPED, EVENT_SOURCE) or module.startswith(SHIPPED + ".")


def install(directory: str) -> None:
    """Record in every botocore session made from now on in this process (botocore gives each new
    session its BUILTIN_HANDLERS); botocore is imported when the process first needs it."""
    recorder = CallRecorder(directory)
    if "botocore.handlers" in sys.modules:
        _add_builtin_handler(recorder)
    else:
        sys.meta_path.insert(0, _AfterImport("botocore.handlers", lambda: _add_builtin_handler(recorder)))


def _add_builtin_handler(recorder: CallRecorder) -> None:
    from botocore import handlers

    handlers.BUILTIN_HANDLERS.append(("before-parameter-build", recorder))


class _AfterImport:
    """A meta path finder that runs `then` right after the module `name` has been executed."""

    def __init__(self, name: str, then: Any) -> None:
        self._name = name
        self._then = then

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self._name:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        execute = spec.loader.exec_module
        then = self._then

        def exec_module(module: Any) -> None:
            execute(module)
            then()

        spec.loader.exec_module = exec_module
        return spec


def read_calls(directory: Path) -> list[dict[str, Any]]:
    """Every call recorded under `directory`, each once (several processes record the same call)."""
    calls: dict[str, dict[str, Any]] = {}
    for path in sorted(directory.glob("calls-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                calls.setdefault(line, json.loads(line))
    return list(calls.values())
