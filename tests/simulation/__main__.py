"""Explore every schedule of the simulation scenarios, or replay one.

    python -m tests.simulation                                  # every scenario, at its own bound
    python -m tests.simulation --scenario crash_after_commit --bound 2
    python -m tests.simulation --jobs 2                         # scenarios in parallel processes
    python -m tests.simulation --scenario same_message_twice --replay "go b2; kill b1" --verbose
    python -m tests.simulation --engine outbox-sent-without-its-lease   # a deliberately broken engine

Prints, per scenario, the schedules explored and the violations found, each violation with the
shortest schedule that shows it. Exits 1 if any violation was found.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from tests.simulation.engines import ENGINES
from tests.simulation.explore import (
    Explorer,
    Report,
    explore_in_parallel,
    explore_named,
    format_schedule,
    parse_schedule,
)
from tests.simulation.harness import Harness
from tests.simulation.scenarios import SCENARIOS, scenario_named


def _print_report(report: Report) -> None:
    print(report.line(), flush=True)
    for finding in report.findings.values():
        print(f"    VIOLATION {finding.violation}")
        print(
            f'    replay: python -m tests.simulation --scenario {report.scenario} --replay "'
            f'{format_schedule(finding.schedule)}" --verbose'
        )


def _replay(name: str, schedule: str, engine: str, verbose: bool) -> int:
    with Harness() as harness:
        world = Explorer(harness, scenario_named(name), engine=ENGINES[engine]).replay(
            parse_schedule(schedule)
        )
    if verbose:
        print("\n".join(world.trace))
    for violation in world.violations:
        print(f"VIOLATION {violation}")
    print(f"{len(world.trace)} steps, {len(world.violations)} violations")
    return 1 if world.violations else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.simulation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--scenario", default="all", help="a scenario name, or all")
    parser.add_argument("--bound", type=int, help="faults per schedule (default: each scenario's own)")
    parser.add_argument("--jobs", type=int, default=1, help="scenarios explored in parallel")
    parser.add_argument("--exhaustive", action="store_true", help="no partial-order reduction (slow)")
    parser.add_argument("--engine", default="real", choices=sorted(ENGINES), help="the code under test")
    parser.add_argument("--progress", type=float, default=60, help="seconds between progress lines")
    parser.add_argument("--replay", help="a schedule: choices separated by ';'")
    parser.add_argument("--verbose", action="store_true", help="with --replay: print every step")
    arguments = parser.parse_args(argv)
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ[name] = "testing"  # never a real account
    if arguments.replay is not None:
        return _replay(arguments.scenario, arguments.replay, arguments.engine, arguments.verbose)
    names = [s.name for s in SCENARIOS] if arguments.scenario == "all" else [arguments.scenario]
    bounds = dict.fromkeys(names, arguments.bound)
    started = time.monotonic()
    reports: list[Report] = []
    every = arguments.progress
    if arguments.jobs > 1:
        runs = explore_in_parallel(bounds, arguments.jobs, arguments.engine, arguments.exhaustive, every)
    else:
        runs = (
            explore_named(name, bound, arguments.engine, arguments.exhaustive, every)
            for name, bound in bounds.items()
        )
    for report in runs:
        reports.append(report)
        _print_report(report)
    total = sum(report.schedules for report in reports)
    violations = sum(report.violating for report in reports)
    print(f"{total} schedules, {violations} violations, {time.monotonic() - started:.0f}s")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
