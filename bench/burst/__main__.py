"""`python -m bench.burst`: the reference burst (or another) through the real game function in
virtual time; prints a summary and, with --json, writes every figure. docs/capacity.md, "The
day it goes viral: the burst model", has the figures and what they mean."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from bench.burst.client_cpu import measure_client_cpu
from bench.burst.deployment import Deployment
from bench.burst.dynamodb import Faults
from bench.burst.model import ModelOptions, run
from bench.burst.players import ArrivalProfile
from bench.burst.report import figures, summary

# The phones a run plays in full, at most, when --sample is not given: the reference burst's
# 20,000 then run as a 1/5 replica, about ten minutes of CPU here.
PHONES_BUDGET = 4_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.burst", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0, help="the burst's size; 1 = 20,000 phones")
    parser.add_argument("--sample", type=int, help="play a 1/k replica (default: chosen to fit the budget)")
    parser.add_argument("--twilio-latency-factor", type=float, default=1.0)
    parser.add_argument(
        "--sender-rate", type=float, default=100.0, help="messages a second (short code: 100)"
    )
    parser.add_argument("--concurrency", type=int, help="MaximumConcurrency instead of the template's")
    parser.add_argument("--window", type=float, help="only the phones arriving in the first SECONDS")
    parser.add_argument(
        "--horizon", type=float, default=8 * 3600.0, help="stop after SECONDS of virtual time"
    )
    parser.add_argument("--throttle-rate", type=float, default=Faults.throttle_rate)
    parser.add_argument("--conflict-rate", type=float, default=Faults.conflict_rate)
    parser.add_argument(
        "--setting", action="append", default=[], metavar="NAME=VALUE", help="an engine setting, changed"
    )
    parser.add_argument(
        "--scaled-setting", action="append", default=[], metavar="NAME", help="a hot-item count, divided by k"
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--measure-client-cpu", action="store_true", help="measure the SDKs' CPU and stop")
    arguments = parser.parse_args(argv)
    if arguments.measure_client_cpu:
        print(json.dumps(measure_client_cpu(), indent=2))
        return 0
    deployment = Deployment.from_template()
    concurrency = arguments.concurrency or deployment.maximum_concurrency or 1000
    phones = ArrivalProfile().phones * arguments.scale
    sample = arguments.sample or replica_share(phones, concurrency)
    if concurrency % sample:
        parser.error(f"--sample {sample} must divide MaximumConcurrency {concurrency}")
    options = ModelOptions(
        seed=arguments.seed,
        scale=arguments.scale,
        sample=sample,
        twilio_latency_factor=arguments.twilio_latency_factor,
        sender_rate=arguments.sender_rate,
        concurrency=arguments.concurrency,
        faults=Faults(arguments.throttle_rate, arguments.conflict_rate),
        horizon_seconds=arguments.horizon,
        window_seconds=arguments.window,
        settings=dict(setting.split("=", 1) for setting in arguments.setting),
        scaled_settings=tuple(arguments.scaled_setting),
    )
    print(
        f"burst model: {phones / sample:,.0f} phones (1/{sample} of {phones:,.0f}), seed {options.seed} ..."
    )
    data = figures(run(options))
    print(summary(data))
    if arguments.json:
        arguments.json.write_text(json.dumps(data, indent=1, default=str) + "\n")
    return 0


def replica_share(phones: float, concurrency: int) -> int:
    """The smallest k that brings the phones within the budget and divides the concurrency (so the
    replica's MaximumConcurrency is whole); past the concurrency's largest divisor, that one."""
    wanted = max(1, math.ceil(phones / PHONES_BUDGET))
    divisors = [k for k in range(1, concurrency + 1) if concurrency % k == 0]
    return next((k for k in divisors if k >= wanted), divisors[-1])


if __name__ == "__main__":
    sys.exit(main())
