"""The exploration can fail: each deliberately broken engine is caught, with a short schedule that
the real engine survives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.simulation.engines import MUTANTS
from tests.simulation.explore import Explorer, format_schedule
from tests.simulation.harness import Harness
from tests.simulation.scenarios import scenario_named

# Slow: explores scenarios once per planted mutant.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness() as harness:
        yield harness


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_the_exploration_catches_a_broken_engine(harness: Harness, mutant: str) -> None:
    engine, scenario, bound, kinds = MUTANTS[mutant]

    report = Explorer(harness, scenario_named(scenario), engine=engine, bound=bound).explore(
        stop_at_first=True
    )

    assert report.violating == 1, f"{mutant} went unnoticed in {report.schedules} schedules"
    assert set(report.findings) & kinds, (
        f"{mutant} showed up as {set(report.findings)}, not as one of {kinds}"
    )
    for finding in report.findings.values():
        real_engine = Explorer(harness, scenario_named(scenario)).replay(finding.schedule)
        assert real_engine.violations == [], (
            f"the real engine fails the schedule that exposed {mutant!r}: {format_schedule(finding.schedule)}"
        )
