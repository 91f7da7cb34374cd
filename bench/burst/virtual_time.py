"""Virtual time for real code on threads: exactly one thread runs at a time, the earliest first.

    scheduler (the main thread)            actors (threads running the real handler)
    pop the earliest event ─── resume ───► run until the next request: pass its latency, take a turn
          ▲                                                              │
          └──────────────── parked, blocked or finished ◄────────────────┘

An actor's clock moves only when it says so (a request's latency, a sleep, its own CPU), and it
runs only when the scheduler resumes it, earliest first; so requests reach the simulated services
in the order of their virtual times, whatever the threads' real speeds, and a run is a function of
its seed alone. The model's own events (a text arriving, a batching window closing) are callbacks
on the scheduler's thread, in the same order of time.

An invocation that outlives its deadline is killed at its next turn: `Killed` is raised there and
at every turn its `finally` blocks try, so none of them reaches a service, as when Lambda stops a
function at its timeout.

Concurrency inside an invocation (`cooperative_threads`): a task an actor submits to a
`ThreadPoolExecutor` runs as a child actor from the parent's time, and a `Condition.wait` on an
actor's thread (a `Future.result()`, `concurrent.futures.wait`) parks the actor until another
actor's notify releases it, instead of blocking the thread the scheduler waits for.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import heapq
import itertools
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Actor", "Killed", "Scheduler", "Timer", "cooperative_threads", "current_actor"]

# A thread that neither parks nor finishes within this long (real time) is stuck on something the
# model does not control (a lock, a queue): better a clear error than a hang.
_HANDOFF_TIMEOUT_SECONDS = 600.0

_local = threading.local()


def current_actor() -> Actor | None:
    """The actor whose code runs on this thread; None on the scheduler's own thread."""
    actor: Actor | None = getattr(_local, "actor", None)
    return actor


class Killed(BaseException):
    """The invocation was stopped at its deadline: raised at every turn it tries from then on.

    A BaseException, so that the engine's `except Exception` clean-ups do not swallow it."""


@dataclass(order=True)
class Timer:
    """A callback on the scheduler's thread at a virtual time; `cancel` makes it a no-op."""

    at: float
    sequence: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class Actor:
    """One thread of real code in virtual time: an invocation, or a task it runs beside itself.

    `context` is the model's own (which instance, which message): children inherit it.
    """

    def __init__(
        self,
        scheduler: Scheduler,
        name: str,
        body: Callable[[], object],
        *,
        start: float,
        deadline: float = math.inf,
        context: Any = None,
        on_finish: Callable[[Actor], None] | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.name = name
        self.now = start
        self.deadline = deadline
        self.context = context
        self.finished = False
        self.killed = False
        self.error: BaseException | None = None
        self._body = body
        self._on_finish = on_finish
        self._go = _signal()
        self._dying = False
        self._waiting_on: Any = None  # the lock a Condition.wait released, while parked on it

    # -- on the actor's own thread -------------------------------------------------------------

    def pass_time(self, seconds: float) -> None:
        """Move this actor's clock on, touching nothing shared: no turn is needed."""
        self.now += max(0.0, seconds)

    def take_turn(self) -> None:
        """Park until every earlier event has happened, then go on at `now`: call it before
        anything shared (a request reaching a service). Raises Killed past the deadline."""
        if self.killed:
            raise Killed(self.name)
        if self.now > self.deadline:
            self.now, self._dying = self.deadline, True
        self.scheduler._schedule_resume(self)
        self._park()

    def round_trip[T](self, seconds: float, effect: Callable[[], T]) -> T:
        """A request that takes `seconds` there and back: it takes effect halfway, at this actor's
        turn (nothing else happens meanwhile), and its answer is back `seconds` after it left."""
        self.pass_time(seconds / 2)
        self.take_turn()
        answer = effect()
        self.pass_time(seconds / 2)
        return answer

    def spawn(self, name: str, body: Callable[[], object]) -> Actor:
        """A child actor that starts at this actor's time, with its deadline and context."""
        child = Actor(
            self.scheduler, name, body, start=self.now, deadline=self.deadline, context=self.context
        )
        self.scheduler.start(child)
        return child

    def wait_for_release(self, waiter: Any, timeout: float | None) -> bool:
        """Park until another actor releases `waiter` (a Condition's notify) or `timeout` virtual
        seconds pass; True if it was released."""
        if self.killed:
            raise Killed(self.name)
        self._waiting_on = waiter
        until = self.deadline if timeout is None else min(self.now + max(0.0, timeout), self.deadline)
        self.scheduler._block(self, until)
        self._park()
        return not waiter.locked()

    def _park(self) -> None:
        self.scheduler._returned.release()
        self._go.acquire()
        self._waiting_on = None
        if self._dying:
            self.killed = True
            raise Killed(self.name)

    def _main(self) -> None:
        _local.actor = self
        self._go.acquire()
        try:
            self._body()
        except Killed:
            self.killed = True
        except BaseException as exc:  # noqa: BLE001 - the model decides what an error means
            self.error = exc
        finally:
            self.finished = True
            self.scheduler._returned.release()


class Scheduler:
    """The event loop: timers and actors' turns, in order of virtual time (ties: first come)."""

    def __init__(self) -> None:
        self.now = 0.0
        self._events: list[tuple[float, int, Timer | Actor]] = []
        self._sequence = itertools.count()
        self._returned = _signal()
        self._blocked: dict[Actor, Timer] = {}

    def call_at(self, at: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(max(at, self.now), next(self._sequence), callback)
        heapq.heappush(self._events, (timer.at, timer.sequence, timer))
        return timer

    def call_later(self, seconds: float, callback: Callable[[], None]) -> Timer:
        return self.call_at(self.now + seconds, callback)

    def start(self, actor: Actor) -> None:
        """Run `actor` from its start time on (its thread waits for its first turn)."""
        thread = threading.Thread(target=actor._main, name=actor.name, daemon=True)
        # Thread.start waits until the new thread runs: a real wait of a moment, not a turn, even
        # when an actor starts a task (cooperative_threads would otherwise park it there).
        starter, _local.actor = current_actor(), None
        try:
            thread.start()
        finally:
            _local.actor = starter
        self._schedule_resume(actor)

    def time_of_this_thread(self) -> float:
        """The virtual time as the running code sees it: its actor's clock, or the scheduler's."""
        actor = current_actor()
        return actor.now if actor is not None else self.now

    def run(self, until: float = math.inf) -> None:
        """Process events up to `until` (virtual seconds) or until none is left."""
        while self._events and self._events[0][0] <= until:
            at, _, event = heapq.heappop(self._events)
            self.now = max(self.now, at)
            if isinstance(event, Timer):
                if not event.cancelled:
                    event.callback()
            else:
                self._resume(event)

    @property
    def idle(self) -> bool:
        return not self._events

    # -- hand-offs ---------------------------------------------------------------------------

    def _schedule_resume(self, actor: Actor) -> None:
        heapq.heappush(self._events, (actor.now, next(self._sequence), actor))

    def _resume(self, actor: Actor) -> None:
        actor.now = max(actor.now, self.now)
        actor._go.release()
        if not self._returned.acquire(timeout=_HANDOFF_TIMEOUT_SECONDS):
            raise RuntimeError(f"{actor.name} neither took a turn nor finished: blocked outside the model?")
        if actor.finished and actor._on_finish is not None:
            actor._on_finish(actor)
        self._wake_released()

    def _block(self, actor: Actor, until: float) -> None:
        """`actor` parks on a lock: resumed when another actor releases it, or at `until`."""

        def time_out() -> None:
            if self._blocked.pop(actor, None) is not None:
                actor.now = max(actor.now, until)
                if actor.now >= actor.deadline:
                    actor._dying = True
                self._resume(actor)

        self._blocked[actor] = self.call_at(until, time_out)

    def _wake_released(self) -> None:
        """Blocked actors whose lock the actor that just ran released go on from now."""
        for actor in [actor for actor in self._blocked if not actor._waiting_on.locked()]:
            self._blocked.pop(actor).cancel()
            actor.now = max(actor.now, self.now)
            self._schedule_resume(actor)


def _signal() -> threading.Lock:
    """A hand-off between two threads: `release` signals, `acquire` waits for the signal. A plain
    lock, not a Semaphore: those wait on a Condition, which `cooperative_threads` takes over."""
    signal = threading.Lock()
    signal.acquire()
    return signal


@contextmanager
def cooperative_threads() -> Iterator[None]:
    """While this lasts, concurrency inside an actor stays in virtual time (see the module's
    docstring); threads that are not actors keep the standard behaviour."""
    submit = concurrent.futures.ThreadPoolExecutor.submit
    wait = threading.Condition.wait

    def actor_submit(
        executor: concurrent.futures.ThreadPoolExecutor, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[Any]:
        parent = current_actor()
        if parent is None:
            return submit(executor, fn, *args, **kwargs)
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def task() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except Killed as killed:
                future.set_exception(killed)
                raise
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
                future.set_exception(exc)
            else:
                future.set_result(result)

        parent.spawn(f"{parent.name}/task", task)
        return future

    def actor_wait(condition: threading.Condition, timeout: float | None = None) -> bool:
        actor = current_actor()
        if actor is None:
            return wait(condition, timeout)
        # threading.Condition.wait, with the actor parked where the thread would block.
        if not condition._is_owned():  # type: ignore[attr-defined]
            raise RuntimeError("cannot wait on un-acquired lock")
        waiter = threading.Lock()
        waiter.acquire()
        condition._waiters.append(waiter)  # type: ignore[attr-defined]
        saved = condition._release_save()  # type: ignore[attr-defined]
        released = False
        try:
            released = actor.wait_for_release(waiter, timeout)
            return released
        finally:
            condition._acquire_restore(saved)  # type: ignore[attr-defined]
            if not released:
                with contextlib.suppress(ValueError):
                    condition._waiters.remove(waiter)  # type: ignore[attr-defined]

    concurrent.futures.ThreadPoolExecutor.submit = actor_submit  # type: ignore[method-assign,assignment]
    threading.Condition.wait = actor_wait  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        concurrent.futures.ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]
        threading.Condition.wait = wait  # type: ignore[method-assign]
