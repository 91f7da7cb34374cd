"""The game function's SQS event source mapping and its execution environments, as Lambda runs them
(docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html, "with-sqs.html"):

* pollers take up to BatchSize visible messages; a batch smaller than that waits up to
  MaximumBatchingWindowInSeconds for more, then the function is invoked with it;
* when messages are available Lambda starts with five concurrent batches and adds up to 300 a
  minute while messages are still available, never more than MaximumConcurrency;
* an invocation runs the real handler (`GameFunction.handle_batch`) in an execution environment,
  warm if one is free, else after a cold start; it is stopped at the function's Timeout;
* with ReportBatchItemFailures the records it does not list are deleted; the listed ones, and
  every record of an invocation that failed or timed out, stay for their visibility timeout (or
  what the handler's ChangeMessageVisibility set);
* an environment whose invocation timed out is not reused (the runtime restarts: a cold start).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.burst.latencies import Latencies
from bench.burst.observations import InvocationContext, Observations, ObservedInvocation
from bench.burst.sqs import QueuedMessage, SimulatedQueue
from bench.burst.virtual_time import Actor, Killed, Scheduler
from serverless_rps.app import GameFunction

__all__ = ["EventSourceMapping", "Scaling"]

# Lambda's SQS scaling: five concurrent batches at first, then up to 300 more a minute.
_FIRST_BATCHES = 5
_MORE_PER_MINUTE = 300
_EVENT_SOURCE_MAXIMUM = 1000  # batches an event source mapping processes at once, at most


@dataclass(frozen=True)
class Scaling:
    batch_size: int
    batching_window_seconds: float
    maximum_concurrency: int
    function_timeout_seconds: float
    first_batches: int = _FIRST_BATCHES
    more_per_minute: float = _MORE_PER_MINUTE


@dataclass
class _Environment:
    number: int
    function: GameFunction
    context: InvocationContext


@dataclass
class EventSourceMapping:
    scheduler: Scheduler
    queue: SimulatedQueue
    scaling: Scaling
    build_function: Callable[[InvocationContext], GameFunction]
    latencies: Latencies
    observations: Observations
    epoch: float
    queue_arn: str
    allowed: int = 0  # concurrent batches Lambda lets the mapping run now
    busy: int = 0  # batches collecting or being processed
    cold_starts: int = 0
    _warm: list[_Environment] = field(default_factory=list)
    _environments: int = 0
    _collecting: list[QueuedMessage] | None = None
    _scaling_up: bool = False

    def wake(self) -> None:
        """A message may be visible: the long polls return, and idle pollers take batches."""
        if self.allowed == 0 and self.queue.has_visible():
            self.allowed = min(self.scaling.first_batches, self.scaling.maximum_concurrency)
        self._top_up_collecting()
        while self.busy < self.allowed and self._collecting is None and self.queue.has_visible():
            self._start_batch()
        self._scale_up_while_busy()

    # -- batches -----------------------------------------------------------------------------------

    def _start_batch(self) -> None:
        batch = self.queue.receive(self.scaling.batch_size)
        if not batch:
            return
        self.busy += 1
        if len(batch) < self.scaling.batch_size and self.scaling.batching_window_seconds > 0:
            self._collecting = batch
            self.scheduler.call_later(self.scaling.batching_window_seconds, lambda: self._close(batch))
        else:
            self._invoke(batch)

    def _top_up_collecting(self) -> None:
        batch = self._collecting
        if batch is None:
            return
        batch.extend(self.queue.receive(self.scaling.batch_size - len(batch)))
        if len(batch) >= self.scaling.batch_size:
            self._close(batch)

    def _close(self, batch: list[QueuedMessage]) -> None:
        if self._collecting is batch:
            self._collecting = None
            self._invoke(batch)
            self.wake()

    def _scale_up_while_busy(self) -> None:
        """Add a concurrent batch every 60/300 s while messages wait and the limit allows."""
        if self._scaling_up or self.allowed >= self.scaling.maximum_concurrency:
            return
        self._scaling_up = True

        def step() -> None:
            self._scaling_up = False
            if self.queue.has_visible() and self.allowed < self.scaling.maximum_concurrency:
                self.allowed += 1
                self.wake()

        self.scheduler.call_later(60 / self.scaling.more_per_minute, step)

    # -- invocations ---------------------------------------------------------------------------------

    def _invoke(self, batch: list[QueuedMessage]) -> None:
        environment, init_seconds = self._environment()
        start = self.scheduler.now + init_seconds
        deadline = start + self.scaling.function_timeout_seconds
        for message in batch:
            self.observations.received(environment.number, start, message.message_id, message.receive_count)
        event = {"Records": [self._record(message) for message in batch]}
        outcome: dict[str, Any] = {}
        environment.context.records_failed = 0

        def body() -> None:
            outcome["response"] = environment.function.handle_batch(event, None)

        def finished(actor: Actor) -> None:
            self._finished(environment, batch, actor, start, init_seconds, outcome.get("response"))

        actor = Actor(
            self.scheduler,
            f"instance-{environment.number}",
            body,
            start=start,
            deadline=deadline,
            context=environment.context,
            on_finish=finished,
        )
        self.scheduler.start(actor)

    def _finished(
        self,
        environment: _Environment,
        batch: list[QueuedMessage],
        actor: Actor,
        start: float,
        init_seconds: float,
        response: dict[str, Any] | None,
    ) -> None:
        # Past the deadline Lambda stopped it, even between two requests: nothing is deleted, and
        # every record comes back; those that had not failed already come back for the timeout.
        timed_out = actor.killed or actor.now > actor.deadline
        ended_at = min(actor.now, actor.deadline)
        if timed_out:
            self.observations.record_failed(
                "killed at the function's timeout", len(batch) - environment.context.records_failed
            )
        if actor.error is not None and not isinstance(actor.error, Killed):
            raise actor.error  # the handler reports every record; an escape is the model's bug
        if response is not None and not timed_out:
            failed = {failure["itemIdentifier"] for failure in response["batchItemFailures"]}
            for message in batch:
                if message.message_id not in failed:
                    self.queue.delete(message, message.receipt)
        self.observations.invocation(
            ObservedInvocation(environment.number, start, ended_at, init_seconds, len(batch), timed_out)
        )
        # The actor may finish ahead of the scheduler (a request's answer comes back after its
        # turn, with no turn after it): its environment is free only when its invocation has ended,
        # or a new batch would start there, and count against the concurrency, in the past.
        self.scheduler.call_at(ended_at, functools.partial(self._free, environment, timed_out))

    def _free(self, environment: _Environment, timed_out: bool) -> None:
        if not timed_out:
            self._warm.append(environment)
        self.busy -= 1
        self.wake()

    def _environment(self) -> tuple[_Environment, float]:
        """A warm environment, or a new one after its cold start."""
        if self._warm:
            return self._warm.pop(), 0.0
        self._environments += 1
        self.cold_starts += 1
        context = InvocationContext(instance=self._environments)
        environment = _Environment(self._environments, self.build_function(context), context)
        return environment, self.latencies.cold_start()

    def _record(self, message: QueuedMessage) -> dict[str, Any]:
        """The record as Lambda hands it to the function."""
        return {
            "messageId": message.message_id,
            "receiptHandle": message.receipt,
            "body": message.body,
            "attributes": {
                "ApproximateReceiveCount": str(message.receive_count),
                "SentTimestamp": str(math.floor((self.epoch + message.sent_at) * 1000)),
                "ApproximateFirstReceiveTimestamp": str(
                    math.floor((self.epoch + (message.first_received_at or message.sent_at)) * 1000)
                ),
            },
            "messageAttributes": {},
            "md5OfBody": "",
            "eventSource": "aws:sqs",
            "eventSourceARN": self.queue_arn,
            "awsRegion": "us-east-1",
        }


def sid_of(body: str) -> str | None:
    """The inbound SMS id a queued body carries (None for poison)."""
    try:
        fields = json.loads(body)
    except ValueError:
        return None
    sid = fields.get("MessageSid") if isinstance(fields, dict) else None
    return sid if isinstance(sid, str) else None
