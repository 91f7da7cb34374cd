"""Lambda's SQS event source as the model plays it: batches, the batching window, concurrency,
partial batch responses, the function's timeout, warm and cold execution environments."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.burst.event_source import EventSourceMapping, Scaling
from bench.burst.latencies import Latencies
from bench.burst.observations import InvocationContext, Observations
from bench.burst.sqs import SimulatedQueue
from bench.burst.virtual_time import Scheduler, current_actor

VISIBILITY = 90.0
TIMEOUT = 15.0


@dataclass
class StandIn:
    """A function that takes `seconds` per batch and fails the records `fails` picks."""

    seconds: float = 0.5
    fails: Callable[[dict[str, Any]], bool] = lambda record: False
    batches: list[tuple[float, list[str]]] = field(default_factory=list)
    # True: its last turn comes first and its time passes after (as a request's answer does), so
    # the invocation ends ahead of the scheduler.
    ends_ahead: bool = False
    during: Callable[[], None] = lambda: None

    def handle_batch(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        actor = current_actor()
        assert actor is not None
        self.batches.append((actor.now, [record["body"] for record in event["Records"]]))
        if self.ends_ahead:
            actor.take_turn()
            self.during()
            actor.pass_time(self.seconds)
        else:
            actor.pass_time(self.seconds)
            actor.take_turn()
        return {
            "batchItemFailures": [
                {"itemIdentifier": record["messageId"]} for record in event["Records"] if self.fails(record)
            ]
        }


def _mapping(
    function: StandIn, maximum_concurrency: int = 10, window: float = 1.0
) -> tuple[Scheduler, SimulatedQueue, EventSourceMapping]:
    scheduler = Scheduler()
    ids = itertools.count(1)
    queue = SimulatedQueue(scheduler, VISIBILITY, 8, new_id=lambda: f"m{next(ids)}")
    observations = Observations()
    built: list[InvocationContext] = []

    def build(context: InvocationContext) -> Any:
        built.append(context)
        return function

    mapping = EventSourceMapping(
        scheduler,
        queue,
        Scaling(10, window, maximum_concurrency, TIMEOUT),
        build,
        Latencies(random.Random(1), 256),
        observations,
        epoch=0.0,
        queue_arn="arn:aws:sqs:us-east-1:123456789012:incoming",
    )
    queue.on_visible = mapping.wake
    return scheduler, queue, mapping


def test_a_small_batch_waits_for_the_batching_window_then_goes_with_what_came_meanwhile() -> None:
    function = StandIn()
    scheduler, queue, _ = _mapping(function)
    scheduler.call_at(0.0, lambda: queue.send("first"))
    scheduler.call_at(0.4, lambda: queue.send("second"))

    scheduler.run()

    [(started, bodies)] = function.batches
    assert bodies == ["first", "second"]
    assert started >= 1.0  # the window, then a cold start


def test_a_full_batch_goes_at_once() -> None:
    function = StandIn()
    scheduler, queue, mapping = _mapping(function)
    scheduler.call_at(0.0, lambda: [queue.send(f"text {n}") for n in range(10)])

    scheduler.run()

    [(started, bodies)] = function.batches
    assert len(bodies) == 10
    assert started == mapping.latencies.cold_start()


def test_records_the_function_reports_failed_come_back_after_the_visibility_timeout_and_others_go() -> None:
    function = StandIn(
        fails=lambda record: (
            record["body"] == "fails" and record["attributes"]["ApproximateReceiveCount"] == "1"
        )
    )
    scheduler, queue, _ = _mapping(function)
    scheduler.call_at(0.0, lambda: [queue.send(body) for body in ("fails", *(f"ok {n}" for n in range(9)))])

    scheduler.run()

    assert [bodies for _, bodies in function.batches][1] == ["fails"]
    assert function.batches[1][0] >= VISIBILITY
    assert queue.messages == {}


def test_a_batch_past_the_function_timeout_is_retried_whole_in_a_new_environment() -> None:
    function = StandIn(seconds=TIMEOUT + 1)
    scheduler, queue, mapping = _mapping(function)
    scheduler.call_at(0.0, lambda: [queue.send(f"text {n}") for n in range(10)])

    scheduler.run(until=VISIBILITY + 30)

    assert len(function.batches) == 2
    assert function.batches[1][1] == function.batches[0][1]
    assert mapping.cold_starts == 2
    assert [invocation.timed_out for invocation in mapping.observations.invocations] == [True, True]
    assert mapping.observations.retries["killed at the function's timeout"] == 20


def test_never_more_batches_at_once_than_the_maximum_concurrency() -> None:
    function = StandIn(seconds=5.0)
    scheduler, queue, mapping = _mapping(function, maximum_concurrency=3)
    scheduler.call_at(0.0, lambda: [queue.send(f"text {n}") for n in range(100)])
    most: list[int] = []
    for at in range(1, 60):
        scheduler.call_at(at, lambda: most.append(mapping.busy))

    scheduler.run()

    assert max(most) == 3
    assert sum(len(bodies) for _, bodies in function.batches) == 100


def test_an_environment_takes_its_next_batch_only_once_its_invocation_has_ended() -> None:
    """A text arrives while the only invocation waits for its last answer: it goes in a batch that
    starts when that invocation has ended, never earlier, and never two batches at once."""
    function = StandIn(seconds=0.5, ends_ahead=True)
    scheduler, queue, _ = _mapping(function, maximum_concurrency=1, window=0.0)

    def a_text_arrives_meanwhile() -> None:
        if len(function.batches) == 1:  # during the first invocation only
            scheduler.call_later(0.1, lambda: queue.send("second"))

    function.during = a_text_arrives_meanwhile
    scheduler.call_at(0.0, lambda: queue.send("first"))

    scheduler.run()

    [(first_at, first), (second_at, second)] = function.batches
    assert (first, second) == (["first"], ["second"])
    assert second_at >= first_at + function.seconds
