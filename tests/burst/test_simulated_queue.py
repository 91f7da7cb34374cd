"""The simulated incoming queue keeps SQS's rules: visibility, receive counts, the redrive policy,
receipt handles."""

from __future__ import annotations

import itertools

from bench.burst.sqs import SimulatedQueue
from bench.burst.virtual_time import Scheduler

VISIBILITY = 90.0


def _queue(max_receive_count: int = 8) -> tuple[Scheduler, SimulatedQueue]:
    scheduler = Scheduler()
    ids = itertools.count(1)
    return scheduler, SimulatedQueue(scheduler, VISIBILITY, max_receive_count, new_id=lambda: f"m{next(ids)}")


def _at(scheduler: Scheduler, at: float) -> None:
    scheduler.call_at(at, lambda: None)
    scheduler.run(until=at)


def test_a_received_message_is_invisible_for_the_visibility_timeout_then_comes_back_counted() -> None:
    scheduler, queue = _queue()
    queue.send("hello")
    [first] = queue.receive(10)

    _at(scheduler, VISIBILITY - 1)
    assert queue.receive(10) == []
    _at(scheduler, VISIBILITY)
    [again] = queue.receive(10)

    assert again is first
    assert again.receive_count == 2


def test_a_message_received_more_often_than_max_receive_count_goes_to_the_dead_letter_queue() -> None:
    scheduler, queue = _queue(max_receive_count=2)
    queue.send("poisonous")
    for receive in range(2):
        _at(scheduler, receive * VISIBILITY)
        assert len(queue.receive(10)) == 1

    _at(scheduler, 2 * VISIBILITY)

    assert queue.receive(10) == []
    [letter] = queue.dead_letters
    assert (letter.body, letter.redriven) == ("poisonous", True)
    assert queue.messages == {}


def test_a_shorter_visibility_from_the_handler_brings_the_message_back_sooner() -> None:
    scheduler, queue = _queue()
    queue.send("retry me")
    [message] = queue.receive(10)

    assert queue.change_visibility(message.receipt, 2)
    _at(scheduler, 2)

    assert queue.receive(10) == [message]


def test_a_stale_receipt_handle_changes_and_deletes_nothing() -> None:
    scheduler, queue = _queue()
    queue.send("twice received")
    [message] = queue.receive(10)
    stale = message.receipt
    _at(scheduler, VISIBILITY)
    queue.receive(10)

    assert not queue.change_visibility(stale, 1)
    queue.delete(message, stale)
    assert "m1" in queue.messages
    queue.delete(message, message.receipt)
    assert queue.messages == {}


def test_the_oldest_message_counts_messages_in_flight_too() -> None:
    scheduler, queue = _queue()
    queue.send("first")
    _at(scheduler, 30)
    queue.send("second")
    queue.receive(1)
    _at(scheduler, 45)

    assert queue.oldest_age() == 45
    assert queue.depth() == (1, 1)
