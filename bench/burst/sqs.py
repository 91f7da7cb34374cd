"""The incoming queue and its dead-letter queue, as SQS keeps them, in virtual time; and the game
function's SQS client, answered by them.

A standard queue: a message is received by one consumer at a time, invisible for the visibility
timeout from its receive (or for what ChangeMessageVisibility sets), then visible again unless
deleted. Each receive counts; a receive that would pass maxReceiveCount moves the message to the
dead-letter queue instead (the redrive policy). Visible messages are handed out oldest visible
first: SQS promises only best-effort order, so this is the kindest order for the oldest message.
Deleting with a receipt handle that is not the latest receive's deletes nothing, as SQS may do.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from botocore.awsrequest import AWSResponse, HTTPHeaders

from bench.burst.latencies import Latencies
from bench.burst.observations import Observations
from bench.burst.virtual_time import Scheduler, current_actor

__all__ = ["DeadLetter", "QueuedMessage", "SimulatedQueue", "SqsEndpoint"]

_PARAMS = "burst.sqs.params"


@dataclass
class QueuedMessage:
    message_id: str
    body: str
    sent_at: float
    visible_at: float
    receive_count: int = 0
    receipt: str = ""
    first_received_at: float | None = None
    deleted: bool = False


@dataclass(frozen=True)
class DeadLetter:
    body: str
    attributes: dict[str, str]  # a parked poison message's reason; nothing for a redriven one
    at: float
    source_message_id: str | None
    redriven: bool


@dataclass
class SimulatedQueue:
    scheduler: Scheduler
    visibility_timeout: float
    max_receive_count: int
    new_id: Callable[[], str]
    # Told when a message may have become visible (the event source's long poll returns).
    on_visible: Callable[[], None] = lambda: None
    messages: dict[str, QueuedMessage] = field(default_factory=dict)
    dead_letters: list[DeadLetter] = field(default_factory=list)
    sent: int = 0
    _visible: list[tuple[float, int, str]] = field(default_factory=list)
    _order: itertools.count[int] = field(default_factory=itertools.count)
    _receipts: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _by_receipt: dict[str, str] = field(default_factory=dict)  # the latest receipt -> message id

    def send(self, body: str, delay: float = 0.0) -> QueuedMessage:
        now = self.scheduler.time_of_this_thread()
        message = QueuedMessage(self.new_id(), body, sent_at=now, visible_at=now + delay)
        self.messages[message.message_id] = message
        self.sent += 1
        self._make_visible_at(message, message.visible_at)
        return message

    def receive(self, limit: int) -> list[QueuedMessage]:
        """Up to `limit` visible messages, now invisible for the visibility timeout."""
        now = self.scheduler.now
        received: list[QueuedMessage] = []
        while self._visible and self._visible[0][0] <= now and len(received) < limit:
            visible_at, _, message_id = heapq.heappop(self._visible)
            message = self.messages.get(message_id)
            if message is None or message.visible_at != visible_at:
                continue  # deleted, or its visibility changed since
            if message.receive_count >= self.max_receive_count:
                self._redrive(message, now)
                continue
            message.receive_count += 1
            self._by_receipt.pop(message.receipt, None)
            message.receipt = f"receipt-{next(self._receipts)}"
            self._by_receipt[message.receipt] = message_id
            message.first_received_at = message.first_received_at or now
            self._make_visible_at(message, now + self.visibility_timeout)
            received.append(message)
        return received

    def delete(self, message: QueuedMessage, receipt: str) -> None:
        if message.receipt == receipt and message.message_id in self.messages:
            del self.messages[message.message_id]
            del self._by_receipt[receipt]
            message.deleted = True

    def change_visibility(self, receipt: str, seconds: float) -> bool:
        """ChangeMessageVisibility: visible `seconds` from now. False for a stale receipt handle."""
        message = self.messages.get(self._by_receipt.get(receipt, ""))
        if message is None:
            return False
        self._make_visible_at(message, self.scheduler.time_of_this_thread() + seconds)
        return True

    def park(self, body: str, attributes: dict[str, str], source_message_id: str | None) -> None:
        """SendMessage to the dead-letter queue (the handler parking poison)."""
        at = self.scheduler.time_of_this_thread()
        self.dead_letters.append(DeadLetter(body, attributes, at, source_message_id, redriven=False))

    # -- what CloudWatch would show -------------------------------------------------------------

    def oldest_age(self) -> float:
        """ApproximateAgeOfOldestMessage: the oldest message not yet deleted, received or not."""
        now = self.scheduler.now
        return max((now - message.sent_at for message in self.messages.values()), default=0.0)

    def depth(self) -> tuple[int, int]:
        """(visible, in flight) now."""
        now = self.scheduler.now
        visible = sum(1 for message in self.messages.values() if message.visible_at <= now)
        return visible, len(self.messages) - visible

    def has_visible(self) -> bool:
        while self._visible:
            visible_at, _, message_id = self._visible[0]
            message = self.messages.get(message_id)
            if message is not None and message.visible_at == visible_at:
                return visible_at <= self.scheduler.now
            heapq.heappop(self._visible)  # deleted, or its visibility changed since
        return False

    # -- inside -----------------------------------------------------------------------------------

    def _make_visible_at(self, message: QueuedMessage, at: float) -> None:
        message.visible_at = at
        heapq.heappush(self._visible, (at, next(self._order), message.message_id))
        self.scheduler.call_at(at, self.on_visible)

    def _redrive(self, message: QueuedMessage, now: float) -> None:
        del self.messages[message.message_id]
        self._by_receipt.pop(message.receipt, None)
        self.dead_letters.append(DeadLetter(message.body, {}, now, message.message_id, redriven=True))


class SqsEndpoint:
    """The engine's SQS client, answered by the simulated queues at the caller's turn."""

    def __init__(
        self,
        incoming: SimulatedQueue,
        urls: dict[str, str],
        latencies: Latencies,
        observations: Observations,
    ) -> None:
        self._incoming = incoming
        self._urls = urls  # "incoming" and "dead_letters" -> their queue URLs
        self._latencies = latencies
        self._observations = observations

    def attach(self, events: Any) -> None:
        events.register("before-parameter-build.sqs", _remember_params)
        events.register_first("before-call.sqs", self._before_call)

    def _before_call(
        self, model: Any, context: dict[str, Any], **_: Any
    ) -> tuple[AWSResponse, dict[str, Any]]:
        actor = current_actor()
        if actor is None:
            raise RuntimeError("the simulated SQS answers the game function only")
        operation, params = model.name, context[_PARAMS]
        self._observations.sqs_requests[operation] += 1
        return actor.round_trip(self._latencies.sqs(), lambda: self._apply(operation, params))

    def _apply(self, operation: str, params: dict[str, Any]) -> tuple[AWSResponse, dict[str, Any]]:
        url = params.get("QueueUrl")
        if operation == "ChangeMessageVisibility" and url == self._urls["incoming"]:
            if self._incoming.change_visibility(params["ReceiptHandle"], float(params["VisibilityTimeout"])):
                return _answer(200, {})
            return _answer(
                400,
                {"Error": {"Code": "ReceiptHandleIsInvalid", "Message": "the receipt handle has expired"}},
            )
        if operation == "SendMessage" and url in self._urls.values():
            body = params["MessageBody"]
            if url == self._urls["incoming"]:
                message_id = self._incoming.send(body, float(params.get("DelaySeconds", 0))).message_id
            else:
                attributes = {
                    name: value.get("StringValue", "")
                    for name, value in params.get("MessageAttributes", {}).items()
                }
                self._incoming.park(body, attributes, attributes.get("source_message_id"))
                message_id = f"dead-letter-{len(self._incoming.dead_letters)}"
            return _answer(200, {"MessageId": message_id, "MD5OfMessageBody": _md5(body)})
        raise NotImplementedError(f"the simulated SQS has no {operation} on {url}")


def _remember_params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    context[_PARAMS] = params


def _answer(status: int, parsed: dict[str, Any]) -> tuple[AWSResponse, dict[str, Any]]:
    return AWSResponse("https://sqs.simulated", status, HTTPHeaders(), None), {
        **parsed,
        "ResponseMetadata": {"HTTPStatusCode": status},
    }


def _md5(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()
