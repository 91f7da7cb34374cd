"""What the reply budget bounds, and what it costs: floods and an honest game, with and without it.

Run: `python -m bench.reply_budget`. In-process moto (per-item transaction rollback), the real
handler, a simulated clock. For each scenario: texts processed, SMS sent to each phone, and the
DynamoDB requests, read and write units per text (bench/capacity.py says how units are computed).
"Without" is the same engine with a budget too large to matter: the difference is what the budget
costs (its state is written in the commit each message already makes).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from freezegun import freeze_time

from bench.capacity import CapacityMeter
from bench.environment import NullSms, in_process_aws, sqs_event, sqs_record
from serverless_rps.observability import logger
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps_local.moto_rollback import light_transaction_rollback

__all__ = ["SCENARIOS", "BudgetRow", "measure", "render"]

ALICE, BOB, STRANGER = "+15551000001", "+15552000002", "+15553000003"
UNLIMITED = BudgetPolicy(burst=10**9, per_hour=10**9)

Text = tuple[str, str, float]  # sender, body, seconds to wait after it


def _flood(sender: str, bodies: list[str], count: int = 1_000, minutes: float = 10) -> list[Text]:
    gap = minutes * 60 / count
    return [(sender, bodies[index % len(bodies)], gap) for index in range(count)]


def _honest_game(rounds: int = 60) -> list[Text]:
    texts: list[Text] = []
    for round_ in range(rounds):  # a round a minute, the challenger alternating
        first, second, target, answer = (
            (ALICE, BOB, "bob", "alice") if round_ % 2 else (BOB, ALICE, "alice", "bob")
        )
        texts += [(first, f"rock {target}", 20.0), (second, f"paper {answer}", 40.0)]
    return texts


SCENARIOS: dict[str, Callable[[], list[Text]]] = {
    "1,000 texts from one player in 10 min": lambda: _flood(ALICE, ["help", "score", "games", "hello"]),
    "1,000 texts from a stranger in 10 min": lambda: _flood(STRANGER, ["hello", "help"]),
    "throw at bob / STOP / nick loop, 1,000 texts in 10 min": lambda: _flood(
        ALICE, ["throw rock bob", "STOP", "nick alice"]
    ),
    "honest game: a round a minute for an hour": _honest_game,
}


@dataclass(frozen=True)
class BudgetRow:
    scenario: str
    budget: bool
    texts: int
    sms_to: dict[str, int]
    requests_per_text: float
    read_units_per_text: float
    write_units_per_text: float

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def measure() -> list[BudgetRow]:
    logger.setLevel("WARNING")
    return [_run(name, texts(), budget) for name, texts in SCENARIOS.items() for budget in (True, False)]


def _run(name: str, texts: list[Text], budget: bool) -> BudgetRow:
    with freeze_time("2026-11-21 12:00:00") as clock, light_transaction_rollback(), in_process_aws() as aws:
        sms = NullSms()
        function = aws.game_function(sms, budget=None if budget else UNLIMITED)
        for phone, name_ in ((ALICE, "alice"), (BOB, "bob")):
            function.handle_batch(sqs_event([sqs_record(phone, f"nick {name_}")]), None)
        sms.sent.clear()
        meter = CapacityMeter(aws.dynamodb, aws.raw_dynamodb)
        for sender, body, wait in texts:
            response = function.handle_batch(sqs_event([sqs_record(sender, body)]), None)
            assert not response.get("batchItemFailures"), (body, response)
            clock.tick(wait)
        tally = meter.reset()
    names = {ALICE: "alice", BOB: "bob", STRANGER: "stranger"}
    sent = Counter(names[message.to] for message in sms.sent)
    count = len(texts)
    return BudgetRow(
        name,
        budget,
        count,
        dict(sorted(sent.items())),
        tally.total_requests / count,
        tally.read_units / count,
        tally.write_units / count,
    )


def render(rows: list[BudgetRow]) -> str:
    lines = [
        "| scenario | budget | texts | SMS sent | requests / text | RRU / text | WRU / text |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        sent = ", ".join(f"{count} to {phone}" for phone, count in row.sms_to.items()) or "none"
        lines.append(
            f"| {row.scenario} | {'on' if row.budget else 'off'} | {row.texts} | {sent} | "
            f"{row.requests_per_text:.2f} | {row.read_units_per_text:.2f} | {row.write_units_per_text:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    rows = measure()
    print(render(rows))
    if "--json" in sys.argv:
        print(json.dumps([row.as_dict() for row in rows], indent=2))


if __name__ == "__main__":
    main()
