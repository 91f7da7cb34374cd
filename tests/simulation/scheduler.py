"""Invocations on their own threads, exactly one of them running at any moment.

An invocation runs real code until it is about to make an external call, then parks at a *gate*
(`Invocation.gate`). The scheduler, on the main thread, sees every invocation parked or finished
and decides what happens next: one call goes ahead, fails, or its invocation is killed there.
Nothing else is shared between the threads, so a run is a pure function of its decisions.

A killed invocation never makes another external call: `Killed` (a BaseException, so the
engine's `except Exception` clean-ups do not swallow it) is raised at the gate, and again at every
gate its `finally` blocks reach. That is a crash with no `finally`, as far as the world can tell.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["GO", "KILL", "Call", "Invocation", "Killed", "Scheduler", "current_invocation"]

GO = "go"
KILL = "kill"
_HANDOFF_TIMEOUT_SECONDS = 60.0

_local = threading.local()


def current_invocation() -> Invocation | None:
    """The invocation whose code is running on this thread (None on the scheduler's thread)."""
    invocation: Invocation | None = getattr(_local, "invocation", None)
    return invocation


class Killed(BaseException):
    """The invocation died here: raised at each external call it tries from now on."""


@dataclass(frozen=True)
class Call:
    """An external call waiting at a gate, and the shared things it reads and writes."""

    service: str
    summary: str
    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()

    def conflicts_with(self, other: Call) -> bool:
        """Two calls commute unless one writes something the other touches ("*": everything)."""
        if "*" in self.writes | other.writes:
            return True
        return bool(self.writes & (other.reads | other.writes) or other.writes & self.reads)

    @property
    def has_effect(self) -> bool:
        return bool(self.writes)


class Invocation:
    """One logical Lambda invocation running `body` on its own thread."""

    def __init__(self, name: str, body: Callable[[], object]) -> None:
        self.name = name
        self.pending: Call | None = None
        self.finished = False
        self.killed = False
        self.error: BaseException | None = None
        self._body = body
        self._scheduler: Scheduler | None = None
        self._resume = threading.Semaphore(0)
        self._verdict = GO

    def gate(self, call: Call) -> str:
        """Called on this invocation's thread before `call`: wait for the scheduler's verdict.

        Returns GO or the name of a failure to inject; raises Killed.
        """
        if self.killed:
            raise Killed(self.name)
        scheduler = self._scheduler
        if scheduler is None:  # running inline, nobody to wait for
            return GO
        self.pending = call
        scheduler.parked.release()
        if not self._resume.acquire(timeout=_HANDOFF_TIMEOUT_SECONDS):
            raise RuntimeError(f"{self.name} was never resumed")
        self.pending = None
        if self._verdict == KILL:
            self.killed = True
            raise Killed(self.name)
        return self._verdict

    def run_inline(self) -> None:
        """Run to the end on the calling thread, every call going ahead (no scheduling)."""
        previous = current_invocation()
        _local.invocation = self
        try:
            self._run()
        finally:
            _local.invocation = previous

    def _thread_main(self) -> None:
        _local.invocation = self
        try:
            self._run()
        finally:
            assert self._scheduler is not None
            self._scheduler.parked.release()

    def _run(self) -> None:
        try:
            self._body()
        except Killed:
            self.killed = True
        except BaseException as exc:  # the world decides which outcomes are acceptable
            self.error = exc
        finally:
            self.pending = None
            self.finished = True


class Scheduler:
    """Starts invocations and resumes one at a time; each step returns once all are parked again."""

    def __init__(self) -> None:
        self.parked = threading.Semaphore(0)
        self.invocations: dict[str, Invocation] = {}

    def start(self, invocation: Invocation) -> None:
        """Run a new invocation up to its first external call (or its end)."""
        invocation._scheduler = self
        self.invocations[invocation.name] = invocation
        threading.Thread(target=invocation._thread_main, name=invocation.name, daemon=True).start()
        self._wait_for_park(invocation)

    def resume(self, invocation: Invocation, verdict: str) -> None:
        """Let `invocation` act on `verdict` at its gate and run up to its next call (or its end)."""
        assert invocation.pending is not None, f"{invocation.name} is not waiting at a gate"
        invocation._verdict = verdict
        invocation._resume.release()
        self._wait_for_park(invocation)

    def parked_invocations(self) -> list[Invocation]:
        return sorted(
            (invocation for invocation in self.invocations.values() if invocation.pending is not None),
            key=lambda invocation: invocation.name,
        )

    def kill_all(self) -> None:
        """End a run early: every parked invocation dies where it stands."""
        for invocation in self.parked_invocations():
            self.resume(invocation, KILL)

    def _wait_for_park(self, invocation: Invocation) -> None:
        if not self.parked.acquire(timeout=_HANDOFF_TIMEOUT_SECONDS):
            raise RuntimeError(f"{invocation.name} neither reached a gate nor finished")
