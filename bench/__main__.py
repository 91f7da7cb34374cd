"""Run every benchmark and write bench/results/latest.md and bench/results/latest.json.

    python -m bench            # everything (about 30-45 minutes on 2 cores)
    python -m bench --quick    # fewer configurations and repeats (a few minutes)
    python -m bench --only requests,cold_start   # re-run some sections, keep the others' results

Benchmarks print numbers; none of them passes or fails.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import (
    cold_path,
    cold_start,
    contention,
    cost,
    handler_time,
    latency,
    machine,
    package_size,
    requests_per_command,
)

RESULTS = Path(__file__).resolve().parent / "results"

SECTIONS = (
    "requests",
    "handler_time",
    "latency",
    "contention",
    "cold_path",
    "cold_start",
    "package_size",
    "cost",
)
TITLES = {
    "requests": "DynamoDB requests and capacity units per message (in-process moto; units by AWS rules)",
    "handler_time": "Per-message handler time, scripted 1,000-message game (in-process moto; DynamoDB Local)",
    "latency": "End-to-end latency on the local stack",
    "contention": "Contention, measured with real processes (DynamoDB Local, 10 ms waited a request)",
    "cold_path": "Cold path: import, build and answer one help, against bare boto3 + urllib",
    "cold_start": "Cold start (fresh interpreter per sample)",
    "package_size": "Deployment size",
    "cost": "Cost per 1,000 games",
}
COMMANDS = {
    "requests": "python -m bench.requests_per_command",
    "handler_time": "python -m bench.handler_time",
    "latency": "python -m bench.latency",
    "contention": "python -m bench.contention",
    "cold_path": "python -m bench.cold_path",
    "cold_start": "python -m bench.cold_start",
    "package_size": "python -m bench.package_size",
    "cost": "python -m bench (needs the requests and handler_time sections)",
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--output", type=Path, default=RESULTS / "latest")
    arguments = parser.parse_args()
    wanted = [section for section in arguments.only.split(",") if section]
    quick = arguments.quick

    data: dict[str, Any] = {"machine": machine.describe(), "quick": quick}
    previous = arguments.output.with_suffix(".json")
    if set(wanted) != set(SECTIONS) and previous.exists():
        # Only some sections are re-run: keep the others' results (and note both machines' loads).
        kept = json.loads(previous.read_text())
        data = {**kept, **data, "earlier_run": kept.get("machine")}
    rendered: dict[str, str] = {}
    runners: dict[str, tuple[Callable[[], Any], Callable[[Any], str]]] = {
        "requests": (
            lambda: [row.as_dict() for row in requests_per_command.measure()],
            lambda rows: requests_per_command.render(
                [requests_per_command.CommandRow(**row) for row in rows]
            ),
        ),
        "handler_time": (lambda: handler_time.measure(quick=quick), handler_time.render),
        "latency": (lambda: latency.measure(quick=quick), latency.render),
        "contention": (
            lambda: contention.measure((1, 8) if quick else (1, 2, 4, 8), seconds=10 if quick else 20),
            contention.render,
        ),
        "cold_path": (lambda: cold_path.measure(repeats=5 if quick else 15), cold_path.render),
        "cold_start": (lambda: cold_start.measure(repeats=3 if quick else 7), cold_start.render),
        "package_size": (package_size.measure, package_size.render),
    }
    for section in wanted:
        if section == "cost":
            continue
        print(f"== {TITLES[section]} ...", flush=True)
        started = time.monotonic()
        data[section] = runners[section][0]()
        data[f"{section}_seconds"] = time.monotonic() - started
        print(runners[section][1](data[section]), flush=True)
    for section, (_, render) in runners.items():
        if section in data:
            rendered[section] = render(data[section])
    if "requests" in data:
        cpu_ms = 1.5
        if "handler_time" in data:
            light = [run for run in data["handler_time"]["runs"] if "light" in run["configuration"]]
            cpu_ms = light[0]["per_message_outside_calls"]["median_ms"] if light else cpu_ms
        data["cost"] = cost.estimate(data["requests"], engine_cpu_ms=cpu_ms)
        rendered["cost"] = cost.render(data["cost"])
        print(rendered["cost"])

    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    arguments.output.with_suffix(".json").write_text(json.dumps(data, indent=2, default=str) + "\n")
    markdown = ["# serverless-rps benchmark results", "", machine.render(data["machine"]), ""]
    if data.get("earlier_run"):
        markdown += [
            f"Sections not re-run this time come from the run of {data['earlier_run']['date_utc']} UTC.",
            "",
        ]
    if quick:
        markdown += ["(quick run: fewer configurations and repeats)", ""]
    for section in SECTIONS:
        if section in rendered:
            markdown += [f"## {TITLES[section]}", "", f"`{COMMANDS[section]}`", "", rendered[section], ""]
    arguments.output.with_suffix(".md").write_text("\n".join(markdown))
    print(f"wrote {arguments.output.with_suffix('.md')} and {arguments.output.with_suffix('.json')}")


if __name__ == "__main__":
    main()
