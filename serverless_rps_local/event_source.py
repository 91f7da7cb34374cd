"""Lambda's SQS event source mapping, locally: poll the queue, invoke the function, delete what succeeded.

The rules it follows are Lambda's (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html):

* Each poller receives up to `BatchSize` messages (10 per ReceiveMessage call) and invokes the
  function with them as one event. Received messages stay invisible for the queue's visibility
  timeout; the event source does not change it.
* The function returns normally: with `ReportBatchItemFailures`, every message *not* listed in
  `batchItemFailures` is deleted; without it, all are. A response that lists an id that was not in
  the batch, or is not the documented shape, fails the whole batch, as Lambda does.
* The function raises, times out or its process dies: nothing is deleted. The messages come back
  after their visibility timeout (sooner if the function shortened it).
* Dead-lettering after `maxReceiveCount` receives is SQS's job, not the event source's; moto's SQS
  does it on receive (checked by tests/local/test_event_source.py).
* `concurrency` pollers run at once (the template's `ScalingConfig.MaximumConcurrency`, or fewer),
  each with its own execution environment.

What it does differently: it polls without long polling (moto answers one request at a time,
see aws.py), pausing a tenth of a second when the queue is empty. It does not imitate Lambda's
batching window (`MaximumBatchingWindowInSeconds`), which would only add latency locally, nor its
scaling of pollers with queue depth.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from serverless_rps_local.lambda_runtime import Invocation

__all__ = ["ProcessingError", "SqsEventSource", "build_sqs_event", "sqs_record"]

# moto answers one request at a time, so a long poll would hold up every other caller: poll
# briefly instead, and pause when the queue is empty.
_EMPTY_QUEUE_PAUSE_SECONDS = 0.1
_ERROR_HISTORY = 50


class _BatchFunction(Protocol):
    name: str

    def invoke(self, event: Any) -> Invocation: ...


@dataclass(frozen=True)
class ProcessingError:
    """Something an operator would want to see: a failed message or a failed invocation."""

    at: float
    kind: str
    message_ids: tuple[str, ...]
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "kind": self.kind,
            "message_ids": list(self.message_ids),
            "detail": self.detail,
        }


def sqs_record(message: dict[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    """One received SQS message as Lambda puts it in the event's `Records`."""
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes", {})),
        "messageAttributes": {
            name: {
                "stringValue": value.get("StringValue"),
                "binaryValue": value.get("BinaryValue"),
                "stringListValues": [],
                "binaryListValues": [],
                "dataType": value["DataType"],
            }
            for name, value in message.get("MessageAttributes", {}).items()
        },
        "md5OfBody": message["MD5OfBody"],
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def build_sqs_event(messages: Sequence[dict[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    return {"Records": [sqs_record(message, queue_arn, region) for message in messages]}


def failed_message_ids(response: Any, batch_ids: set[str]) -> set[str] | None:
    """The ids the function reported as failed, or None if the response fails the whole batch."""
    if response is None:
        return set()
    if not isinstance(response, dict):
        return None
    failures = response.get("batchItemFailures")
    if failures is None:
        return set()
    if not isinstance(failures, list):
        return None
    failed = set()
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
        if not isinstance(identifier, str) or identifier not in batch_ids:
            return None
        failed.add(identifier)
    return failed


class SqsEventSource:
    """Pollers that feed a queue's messages to a function; `start()`, then `stop()`."""

    def __init__(
        self,
        function: _BatchFunction,
        sqs_client: Any,
        queue_url: str,
        queue_arn: str,
        region: str,
        batch_size: int = 10,
        concurrency: int = 1,
        report_batch_item_failures: bool = True,
        on_invocation: Callable[[Invocation, Sequence[str], set[str]], None] | None = None,
    ) -> None:
        self._function = function
        self._sqs = sqs_client
        self._queue_url = queue_url
        self._queue_arn = queue_arn
        self._region = region
        self._batch_size = max(1, batch_size)
        self._concurrency = concurrency
        self._report_batch_item_failures = report_batch_item_failures
        self._on_invocation = on_invocation
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._errors: collections.deque[ProcessingError] = collections.deque(maxlen=_ERROR_HISTORY)
        self._busy = 0
        self.invocations = 0
        self.deleted = 0

    def start(self) -> None:
        for number in range(self._concurrency):
            thread = threading.Thread(target=self._poll, name=f"sqs-poller-{number + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Stop receiving; invocations in progress finish and have their messages deleted."""
        self._stopping.set()
        for thread in self._threads:
            thread.join()
        self._threads.clear()

    @property
    def busy(self) -> bool:
        """True while an invocation is running (or its messages are being deleted)."""
        with self._lock:
            return self._busy > 0

    def recent_errors(self) -> list[ProcessingError]:
        with self._lock:
            return list(self._errors)

    def _poll(self) -> None:
        while not self._stopping.is_set():
            try:
                if self.poll_once() is None:
                    self._stopping.wait(_EMPTY_QUEUE_PAUSE_SECONDS)
            except Exception as exc:  # noqa: BLE001 - a poller keeps polling, as Lambda's does
                self._record("poller failed", (), repr(exc))
                self._stopping.wait(1)

    def poll_once(self) -> Invocation | None:
        """One receive and, if it got messages, one invocation with them."""
        messages = self._receive()
        if not messages:
            return None
        with self._lock:
            self._busy += 1
        try:
            return self.process_batch(messages)
        finally:
            with self._lock:
                self._busy -= 1

    def _receive(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        while len(messages) < self._batch_size:
            response = self._sqs.receive_message(
                QueueUrl=self._queue_url,
                MaxNumberOfMessages=min(10, self._batch_size - len(messages)),
                WaitTimeSeconds=0,
                MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"],
            )
            received = response.get("Messages", [])
            messages.extend(received)
            if not received:
                break
        return messages

    def process_batch(self, messages: Sequence[dict[str, Any]]) -> Invocation:
        """Invoke the function with one batch and delete the messages it handled."""
        event = build_sqs_event(messages, self._queue_arn, self._region)
        ids = [message["MessageId"] for message in messages]
        invocation = self._function.invoke(event)
        with self._lock:
            self.invocations += 1
        if invocation.error is not None:
            self._record(
                "function error",
                ids,
                f"{invocation.error.get('errorType')}: {invocation.error.get('errorMessage')}",
            )
            failed = set(ids)
        elif not self._report_batch_item_failures:
            failed = set()
        else:
            reported = failed_message_ids(invocation.response, set(ids))
            if reported is None:
                self._record("invalid batch response", ids, repr(invocation.response)[:500])
                failed = set(ids)
            else:
                failed = reported
                if failed:
                    self._record("batch item failures", sorted(failed), f"{len(failed)} of {len(ids)} failed")
        succeeded = [message for message in messages if message["MessageId"] not in failed]
        self._delete(succeeded)
        if self._on_invocation is not None:
            self._on_invocation(invocation, ids, failed)
        return invocation

    def _delete(self, messages: Sequence[dict[str, Any]]) -> None:
        for start in range(0, len(messages), 10):
            chunk = messages[start : start + 10]
            response = self._sqs.delete_message_batch(
                QueueUrl=self._queue_url,
                Entries=[
                    {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
                    for index, message in enumerate(chunk)
                ],
            )
            failed = response.get("Failed", [])
            if failed:
                self._record("delete failed", (), repr(failed)[:500])
            with self._lock:
                self.deleted += len(chunk) - len(failed)

    def _record(self, kind: str, message_ids: Sequence[str], detail: str) -> None:
        with self._lock:
            self._errors.append(ProcessingError(time.time(), kind, tuple(message_ids), detail))
