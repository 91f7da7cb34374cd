"""Depth-first search over the schedules of a scenario, up to a bound on injected faults.

Stateless model checking: each schedule is run from scratch (the setup state restored), following
the choices of the path so far, then extended; backtracking takes the next choice still to try at
the deepest node that has one. Two reductions keep the number of runs down without losing any
behaviour (proofs in the papers; a test checks them against the plain search):

* Dynamic partial-order reduction (Flanagan and Godefroid, POPL 2005). Letting invocation p go
  first at some node matters only if one of p's calls *races* with an earlier step: the two touch
  the same item (one writes it) and nothing orders them. Each new node looks back for such races
  and asks, at the node before the racing step, for p to be tried there too. An invocation's
  faults (dying, a failed call) are tried wherever it is tried or its going sleeps, so at every
  one of its calls in every order explored; time passing at every node; a redelivery at the
  start, with nothing asleep below it (it touches nothing, so it may as well come first).
* Sleep sets (Godefroid). A choice fully explored at a node sleeps in the sibling branches after it
  until a step that conflicts with it; a run in which every remaining choice sleeps is cut short
  ("pruned"): whatever it could become is equivalent to a schedule explored elsewhere.

`exhaustive=True` turns off the partial-order reduction (every choice at every node, sleep sets
only); it is slower and exists to check the reduction.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tests.simulation.engines import ENGINES
from tests.simulation.harness import Harness
from tests.simulation.invariants import Outcome, Violation, observe, outcome
from tests.simulation.scenarios import ALL_FAULTS, Scenario, scenario_named
from tests.simulation.world import Choice, Engine, Transition, World, independent

__all__ = [
    "Explorer",
    "Finding",
    "Report",
    "explore_in_parallel",
    "explore_named",
    "format_schedule",
    "parse_schedule",
    "trace_signature",
]


class Nondeterminism(Exception):
    """Re-running a schedule offered different choices: the harness leaks state between runs."""


@dataclass
class Node:
    """A point of a schedule where a choice is made: what could happen, what must be tried."""

    options: list[Transition]
    asleep: list[Transition]
    to_try: set[Choice] = field(default_factory=set)
    done: list[Transition] = field(default_factory=list)
    taken: int = -1

    @property
    def transition(self) -> Transition:
        return self.options[self.taken]

    def next_to_try(self) -> int | None:
        skipped = {transition.choice for transition in self.asleep + self.done}
        return next(
            (
                i
                for i, option in enumerate(self.options)
                if self._wanted(option) and option.choice not in skipped
            ),
            None,
        )

    def _wanted(self, option: Transition) -> bool:
        # An invocation's own faults (dying or failing at this call) are tried wherever it may go,
        # and wherever its going sleeps: that branch tried them before the steps since, and one of
        # those may have woken them (a send, then a refusal of that phone).
        if option.choice in self.to_try:
            return True
        if not option.fault or option.owner is None:
            return False
        go = Choice("go", option.owner)
        return go in self.to_try or go in {transition.choice for transition in self.asleep}

    def sleep_for_child(self) -> list[Transition]:
        # A choice explored here before this one may sleep below it only if its own branch covered
        # this one after it. A redelivery is tried at the start only, so nothing sleeps below it.
        if self.transition.choice.action == "redeliver":
            return []
        return [
            transition for transition in self.asleep + self.done if independent(transition, self.transition)
        ]


class Clocks:
    """Vector clocks of the steps of one schedule, for "nothing orders these two steps"."""

    def __init__(self) -> None:
        self._steps: list[dict[str, int]] = []
        self._processes: dict[str, dict[str, int]] = {}

    def record(self, path: list[Node], index: int, spawned: str | None) -> None:
        transition = path[index].transition
        owner = _process(transition)
        clock = dict(self._processes.get(owner, {}))
        for earlier in range(index):
            if not independent(path[earlier].transition, transition):
                for process, step in self._steps[earlier].items():
                    clock[process] = max(clock.get(process, -1), step)
        clock[owner] = index
        self._steps.append(clock)
        self._processes[owner] = clock
        if spawned is not None:
            self._processes[spawned] = dict(clock)

    def ordered(self, index: int, path: list[Node], process: str) -> bool:
        """Does step `index` happen before whatever `process` does next?"""
        return self._processes.get(process, {}).get(_process(path[index].transition), -1) >= index


@dataclass(frozen=True)
class Finding:
    violation: Violation
    schedule: tuple[Choice, ...]
    trace: tuple[str, ...] = ()


@dataclass
class Report:
    scenario: str
    bound: int
    schedules: int = 0  # runs judged (to quiescence, or up to a violation)
    pruned: int = 0  # runs cut short because every remaining choice commuted with an explored one
    violating: int = 0
    end_states: set[Any] = field(default_factory=set)  # distinct final states (tables and SMS sent)
    traces: set[Any] = field(default_factory=set)  # with record_traces: each schedule, up to commuting steps
    findings: dict[str, Finding] = field(default_factory=dict)  # first of each kind, minimized
    seconds: float = 0.0
    complete: bool = True  # False if stopped early (first violation or a run limit)

    def line(self) -> str:
        status = "" if self.complete else "  (stopped early)"
        seconds = f"{self.seconds:.0f}s"
        return (
            f"{self.scenario:<30} bound {self.bound} {self.schedules:>7} schedules {self.pruned:>6} pruned "
            f"{len(self.end_states):>5} end states {self.violating:>5} violations {seconds:>6}{status}"
        )


def parse_schedule(text: str | Sequence[str]) -> list[Choice]:
    parts = text.split(";") if isinstance(text, str) else list(text)
    return [Choice.parse(part) for part in parts if part.strip()]


def format_schedule(schedule: Sequence[Choice]) -> str:
    return "; ".join(str(choice) for choice in schedule)


class Explorer:
    """Explores one scenario against one engine. Builds the setup state and the oracle once."""

    def __init__(
        self,
        harness: Harness,
        scenario: Scenario,
        *,
        engine: Engine | None = None,
        bound: int | None = None,
        exhaustive: bool = False,
    ) -> None:
        self.harness = harness
        self.exhaustive = exhaustive
        self.scenario = scenario
        self.engine = engine or Engine()
        self.bound = scenario.bound if bound is None else bound
        with World(harness, scenario, deliver_at_start=False) as world:
            self.initial = world.run_setup()
        self.expected = self._sequential_outcomes()

    def world(self, *, any_fault: bool = False) -> World:
        return World(
            self.harness,
            self.scenario,
            engine=self.engine,
            bound=99 if any_fault else self.bound,
            faults=ALL_FAULTS if any_fault else None,
            initial=self.initial,
            expected=self.expected,
        )

    def explore(
        self,
        *,
        stop_at_first: bool = False,
        max_schedules: int | None = None,
        record_traces: bool = False,
        progress_seconds: float | None = None,
    ) -> Report:
        """Every schedule within the bound. `progress_seconds`: print the counts so far that often."""
        report = Report(self.scenario.name, self.bound)
        started = last_progress = time.monotonic()
        first: dict[str, tuple[Violation, list[Choice]]] = {}
        path: list[Node] = []
        while True:
            violations, schedule, pruned, end_state = self._run_path(path)
            if end_state is not None:
                report.end_states.add(end_state)
            if record_traces and not pruned:
                report.traces.add(trace_signature([node.transition for node in path]))
            if pruned:
                report.pruned += 1
            else:
                report.schedules += 1
            if violations:
                report.violating += 1
                for violation in violations:
                    first.setdefault(violation.kind, (violation, schedule))
                if stop_at_first:
                    report.complete = False
                    break
            if max_schedules is not None and report.schedules >= max_schedules:
                report.complete = False
                break
            if progress_seconds is not None and time.monotonic() - last_progress >= progress_seconds:
                last_progress = time.monotonic()
                report.seconds = last_progress - started
                print(f"{report.line()}  (running)", file=sys.stderr, flush=True)
            if not _backtrack(path):
                break
        for kind, (violation, schedule) in first.items():
            report.findings[kind] = self.minimize(schedule, violation)
        report.seconds = time.monotonic() - started
        return report

    def _run_path(self, path: list[Node]) -> tuple[list[Violation], list[Choice], bool, Any]:
        """Run the path's choices, then extend it; returns the violations, the schedule, whether
        the run was pruned (every choice left was asleep), and the state it ended in."""
        clocks = Clocks()
        with self.world() as world:
            for depth, node in enumerate(path):
                offered = [option.choice for option in world.transitions()]
                if offered != [option.choice for option in node.options]:
                    raise Nondeterminism(f"at step {depth} of {format_schedule(_schedule(path))}")
                self._take(world, path, depth, clocks)
            while world.live and not world.violations:
                node = Node(world.transitions(), path[-1].sleep_for_child() if path else [])
                self._ask_for_races(path, node, clocks)
                node.to_try = self._first_choices(node, at_start=not path)
                following = node.next_to_try()
                if following is None:
                    return [], _schedule(path), True, None
                node.taken = following
                path.append(node)
                self._take(world, path, len(path) - 1, clocks)
            if not world.violations:
                world.finish()
            return list(world.violations), _schedule(path), False, world.end_state

    def _first_choices(self, node: Node, at_start: bool) -> set[Choice]:
        """What a new node tries before races ask for more: one awake choice; time passing (which
        conflicts with everything); a redelivery, at the start only (it touches nothing, so it may as
        well come first: its invocation's steps are then ordered against the others like any)."""
        if self.exhaustive:
            return {option.choice for option in node.options}
        asleep = {transition.choice for transition in node.asleep}
        first_awake = next((option.choice for option in node.options if option.choice not in asleep), None)
        wanted = {option.choice for option in node.options if option.everything}
        if at_start:
            wanted |= {option.choice for option in node.options if option.choice.action == "redeliver"}
        return wanted | ({first_awake} if first_awake else set())

    @staticmethod
    def _take(world: World, path: list[Node], index: int, clocks: Clocks) -> None:
        choice = path[index].transition.choice
        world.apply(choice)
        spawned = world.deliveries[-1].name if choice.action == "redeliver" else None
        clocks.record(path, index, spawned)

    @staticmethod
    def _ask_for_races(path: list[Node], node: Node, clocks: Clocks) -> None:
        """For each invocation that could move now: if its next step races with an earlier step
        (conflicts, from another invocation, not ordered by the steps between), it must also be
        tried before that step: ask the node there to try it (or everything, if it was not there)."""
        for option in node.options:
            if option.owner is None:
                continue
            for index in range(len(path) - 1, -1, -1):
                earlier = path[index]
                if earlier.transition.owner == option.owner or independent(earlier.transition, option):
                    continue
                if option.owner not in {other.owner for other in earlier.options}:
                    continue  # it did not exist yet: only the redelivery fault, tried everywhere, moves it
                if clocks.ordered(index, path, option.owner):
                    continue
                go = Choice("go", option.owner)
                if any(other.choice == go for other in earlier.options):
                    earlier.to_try.add(go)
                else:
                    earlier.to_try.update(other.choice for other in earlier.options)
                break

    def replay(self, schedule: Sequence[Choice]) -> World:
        """Run `schedule`, then the default (the first invocation by name goes) to quiescence.

        Any fault may be asked for, within the scenario's bound or not. Returns the finished world
        (its `violations`, `trace`, `ledger`); raises InvalidChoice if a choice is not possible where
        the schedule puts it.
        """
        with self.world(any_fault=True) as world:
            for choice in schedule:
                if world.violations:
                    break
                world.apply(choice)
            while world.live and not world.violations:
                world.apply(world.transitions()[0].choice)
            if not world.violations:
                world.finish()
            return world

    def minimize(self, schedule: Sequence[Choice], violation: Violation) -> Finding:
        """The shortest prefix that still shows the same kind of violation, then drop choices one by
        one while it still does (what is left is needed; the rest is the default order)."""

        def shows(candidate: list[Choice]) -> World | None:
            try:
                world = self.replay(candidate)
            except Exception:
                return None
            return world if any(found.kind == violation.kind for found in world.violations) else None

        current = list(schedule)
        low, high = 0, len(current)
        while low < high:
            middle = (low + high) // 2
            if shows(current[:middle]):
                high = middle
            else:
                low = middle + 1
        if shows(current[:high]):
            current = current[:high]
        index = len(current) - 1
        while index >= 0:
            candidate = current[:index] + current[index + 1 :]
            if shows(candidate):
                current = candidate
            index -= 1
        world = shows(current)
        if world is None:  # cannot happen unless a run is not deterministic
            return Finding(violation, tuple(schedule))
        shown = next(found for found in world.violations if found.kind == violation.kind)
        return Finding(shown, tuple(current), tuple(world.trace))

    def _sequential_outcomes(self) -> frozenset[Outcome]:
        """The outcome of processing the scenario's texts one at a time, in every order."""
        outcomes = set()
        for order in itertools.permutations(self.scenario.labels):
            world = World(
                self.harness,
                self.scenario,
                engine=self.engine,
                initial=self.initial,
                deliver_at_start=False,
            )
            with world:
                for label in order:
                    delivery = world.deliver(label)
                    delivery.run_inline()
                    if not delivery.succeeded:
                        raise RuntimeError(f"{label} failed even alone: {delivery.error!r}")
                outcomes.add(outcome(observe(self.harness), self.scenario.labels, world.ledger.outboxes))
        return frozenset(outcomes)


def trace_signature(transitions: Sequence[Transition]) -> tuple[frozenset[str], ...]:
    """The schedule's Foata normal form: the same for every order of its commuting steps (layer
    by layer, each step in the first layer after every earlier step it conflicts with)."""
    layer_of: list[int] = []
    for index, transition in enumerate(transitions):
        after = [
            layer_of[earlier] for earlier in range(index) if not independent(transitions[earlier], transition)
        ]
        layer_of.append(max(after, default=-1) + 1)
    layers: list[set[str]] = [set() for _ in range(max(layer_of, default=-1) + 1)]
    for transition, layer in zip(transitions, layer_of, strict=True):
        where = transition.call.summary if transition.call else ""
        layers[layer].add(f"{transition.choice} {where}")
    return tuple(frozenset(layer) for layer in layers)


def _process(transition: Transition) -> str:
    return transition.owner or "world"


def _schedule(path: list[Node]) -> list[Choice]:
    return [node.transition.choice for node in path]


def _backtrack(path: list[Node]) -> bool:
    """Move to the next schedule: the next choice to try at the deepest node that has one."""
    while path:
        node = path[-1]
        node.done.append(node.transition)
        following = node.next_to_try()
        if following is not None:
            node.taken = following
            return True
        path.pop()
    return False


def explore_named(
    scenario: str,
    bound: int | None = None,
    engine: str = "real",
    exhaustive: bool = False,
    progress_seconds: float | None = None,
) -> Report:
    """Explore one scenario with a harness of its own: a unit of work for a separate process."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ[name] = "testing"  # never a real account
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with Harness() as harness:
        explorer = Explorer(
            harness, scenario_named(scenario), engine=ENGINES[engine], bound=bound, exhaustive=exhaustive
        )
        return explorer.explore(progress_seconds=progress_seconds)


def explore_in_parallel(
    bounds: dict[str, int | None],
    jobs: int,
    engine: str = "real",
    exhaustive: bool = False,
    progress_seconds: float | None = None,
) -> Iterator[Report]:
    """Each scenario in its own fresh process, `jobs` at a time; reports in the order given."""
    context = multiprocessing.get_context("spawn")  # no moto or threads inherited mid-flight
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [
            pool.submit(explore_named, name, bound, engine, exhaustive) for name, bound in bounds.items()
        ]
        for future in futures:
            yield future.result()
