"""A small burst end to end: the real game function in virtual time keeps every promise the soak's
checker judges, injected faults cost retries and nothing else, and a seed gives its figures."""

from __future__ import annotations

from typing import Any

import pytest

from bench.burst.dynamodb import Faults
from bench.burst.model import ModelOptions, run
from bench.burst.players import ArrivalProfile
from bench.burst.report import figures

# Twice 40 phones' worth of the real engine (~500 texts): about 20 s of CPU.
pytestmark = pytest.mark.slow

SMALL = ArrivalProfile(phones=40, arrival_seconds=30.0, resend_share=0.5, resend_after_seconds=5.0)


def _without_timings(data: dict[str, Any]) -> dict[str, Any]:
    run_figures = {name: value for name, value in data["run"].items() if "seconds" not in name}
    return {**data, "run": run_figures}


def test_a_small_burst_keeps_every_promise_pays_its_faults_in_retries_and_repeats_by_seed() -> None:
    options = ModelOptions(seed=3, profile=SMALL, faults=Faults(throttle_rate=0.01, conflict_rate=0.05))

    first = figures(run(options))
    second = figures(run(options))

    assert first["checker (bench/chaos/checker.py)"]["violations"] == 0
    assert first["reply delay, inbound to reply sent (s)"]["texts never answered"] == 0
    assert first["dead letters"] == {"redriven after maxReceiveCount": 0, "poison parked by the handler": 5}
    faults = first["DynamoDB"]["faults injected"]
    assert faults["TransactionConflict"] > 0
    assert first["retries by cause (records failed)"]["StoreUnavailable"] >= faults["TransactionConflict"]
    assert first["DynamoDB"]["HTTP attempts (SDK retries included)"] > first["DynamoDB"]["requests"]
    assert _without_timings(first) == _without_timings(second)
