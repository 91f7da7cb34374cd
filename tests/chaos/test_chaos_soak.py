"""The short chaos soak: real games on the local stack under kills, duplicates and failures.

About two minutes on two cores. `python -m bench.chaos --messages 5000` is the long version;
docs/reliability.md ("Chaos soak") says what is injected and what each check means.
"""

from __future__ import annotations

import pytest

from bench.chaos.soak import SoakOptions, run_soak


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_every_promise_holds_while_workers_are_killed_and_dependencies_fail() -> None:
    result = run_soak(SoakOptions(messages=300, players=12, workers=3, seed=11, log=lambda _: None))
    print(result.report())
    figures = result.verdict.figures
    assert result.verdict.violations == [], result.report()
    # The soak proves something only if the chaos happened.
    kills = figures["worker self-SIGKILLs"] + figures.get("external SIGKILLs of a worker", 0)
    assert kills >= 3, result.report()
    assert (
        figures["duplicates injected: concurrent"]
        + figures["duplicates injected: late (after the claim expiry)"]
        > 0
    )
    assert figures["DynamoDB requests failed by injection (throttling / 500)"] > 0, result.report()
    assert figures["messages completed"] == figures["messages (distinct MessageSids)"], result.report()
    assert figures["games resolved between stable players (checked exactly once)"] > 0, result.report()
