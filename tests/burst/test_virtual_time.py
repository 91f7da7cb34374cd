"""The scheduler runs real code on threads one at a time, earliest first, in virtual time."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable

import pytest

from bench.burst.virtual_time import Actor, Killed, Scheduler, cooperative_threads, current_actor


def _actor(
    scheduler: Scheduler, name: str, body: Callable[[], object], start: float = 0.0, deadline: float = 1e9
) -> Actor:
    actor = Actor(scheduler, name, body, start=start, deadline=deadline)
    scheduler.start(actor)
    return actor


def _effects_at(seen: list[tuple[str, float]], name: str, *latencies: float) -> Callable[[], None]:
    """A body that makes one 'request' per latency: the effect happens at its turn."""

    def body() -> None:
        actor = current_actor()
        assert actor is not None
        for latency in latencies:
            actor.pass_time(latency)
            actor.take_turn()
            seen.append((name, actor.now))

    return body


def test_requests_take_effect_in_the_order_of_their_virtual_times_whoever_started_first() -> None:
    scheduler = Scheduler()
    seen: list[tuple[str, float]] = []
    _actor(scheduler, "a", _effects_at(seen, "a", 0.3, 0.2))  # effects at 0.3 and 0.5
    _actor(scheduler, "b", _effects_at(seen, "b", 0.1, 0.3))  # effects at 0.1 and 0.4

    scheduler.run()

    assert seen == [("b", 0.1), ("a", 0.3), ("b", 0.4), ("a", 0.5)]


def test_timers_and_actors_share_one_order_of_time() -> None:
    scheduler = Scheduler()
    seen: list[tuple[str, float]] = []
    _actor(scheduler, "a", _effects_at(seen, "a", 0.1, 0.2))
    scheduler.call_at(0.2, lambda: seen.append(("timer", scheduler.now)))

    scheduler.run()

    assert seen == [("a", 0.1), ("timer", 0.2), ("a", pytest.approx(0.3))]


def test_an_actor_past_its_deadline_is_killed_at_its_next_turn_and_every_turn_after() -> None:
    scheduler = Scheduler()
    tried: list[str] = []

    def body() -> None:
        actor = current_actor()
        assert actor is not None
        try:
            actor.pass_time(2.0)
            actor.take_turn()
            tried.append("the request after the deadline")
        finally:
            try:
                actor.take_turn()
                tried.append("a clean-up request")
            except Killed:
                tried.append("clean-up killed too")

    actor = _actor(scheduler, "late", body, deadline=1.5)
    scheduler.run()

    assert tried == ["clean-up killed too"]
    assert actor.killed
    assert actor.now == 1.5


def test_an_actor_that_finishes_hands_back_its_error_and_is_not_killed() -> None:
    scheduler = Scheduler()

    def body() -> None:
        raise ValueError("a bug in the code under test")

    actor = _actor(scheduler, "broken", body)
    scheduler.run()

    assert actor.finished
    assert not actor.killed
    assert isinstance(actor.error, ValueError)


def test_tasks_on_a_thread_pool_run_beside_their_actor_in_virtual_time() -> None:
    scheduler = Scheduler()
    finished_at: list[float] = []

    def request(latency: float) -> float:
        actor = current_actor()
        assert actor is not None
        actor.pass_time(latency)
        actor.take_turn()
        return actor.now

    def body() -> None:
        actor = current_actor()
        assert actor is not None
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            done = list(pool.map(request, [0.2, 0.3]))
        finished_at.extend([*done, actor.now])

    with cooperative_threads():
        _actor(scheduler, "parent", body)
        scheduler.run()

    # Side by side: both tasks start at 0 and the parent goes on when the later one is done.
    assert finished_at == [pytest.approx(0.2), pytest.approx(0.3), pytest.approx(0.3)]


def test_a_wait_that_nobody_ends_times_out_in_virtual_time() -> None:
    scheduler = Scheduler()
    outcome: list[tuple[bool, float]] = []

    def body() -> None:
        actor = current_actor()
        assert actor is not None
        condition = threading.Condition()
        with condition:
            outcome.append((condition.wait(timeout=0.5), actor.now))

    with cooperative_threads():
        _actor(scheduler, "waiter", body, start=1.0)
        scheduler.run()

    assert outcome == [(False, 1.5)]


def test_threads_that_are_not_actors_keep_the_standard_thread_pool() -> None:
    with cooperative_threads(), concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(lambda n: n * n, [2, 3])) == [4, 9]
