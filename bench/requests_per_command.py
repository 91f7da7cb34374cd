"""DynamoDB requests and capacity units per message, by command, at 0/5/20/50 pending challenges.

Run: `python -m bench.requests_per_command`. In-process moto; see bench/capacity.py for how the
units are computed (moto does not compute them). With `DYNAMODB=local` the tables are in DynamoDB
Local, which reports consumed capacity by AWS's rules: the output then sets its figures beside ours.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from bench.capacity import CapacityMeter, Tally
from bench.environment import NullSms, in_process_aws, sqs_event, sqs_record
from serverless_rps.model import lobby_shard
from serverless_rps.observability import logger
from serverless_rps_local.dynamodb_local import DynamoDbEngine, DynamoDbLocal, selected_engine

__all__ = ["PENDING_LEVELS", "CommandRow", "measure", "render", "render_reported_units"]

PENDING_LEVELS = (0, 5, 20, 50)
PLAYER = "+15551000000"
OPPONENT = "+15552000000"
NEWCOMER = "+15553000000"


def _challenger(index: int) -> str:
    return f"+1555400{index:04d}"


def _roommate(phone: str) -> str:
    """A phone whose lobby throws wait in the same room as `phone`'s (model.lobby_shard): the one
    a throw plays at once, without waiting for LOBBY_SWEEP_SECONDS."""
    return next(
        candidate
        for candidate in (f"+1555700{index:04d}" for index in range(10_000))
        if lobby_shard(candidate) == lobby_shard(phone)
    )


@dataclass(frozen=True)
class CommandRow:
    command: str
    pending: int
    requests: int
    by_operation: str
    read_units: float
    write_units: float
    moto_reported_units: float
    largest_item_bytes: int

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def measure(
    levels: tuple[int, ...] = PENDING_LEVELS, dynamodb_endpoint: str | None = None
) -> list[CommandRow]:
    """In-process moto, or DynamoDB Local at `dynamodb_endpoint` for the tables."""
    logger.setLevel("WARNING")
    rows: list[CommandRow] = []
    for pending in levels:
        rows.extend(_measure_level(pending, dynamodb_endpoint))
    return rows


def _measure_level(pending: int, dynamodb_endpoint: str | None) -> list[CommandRow]:
    rows: list[CommandRow] = []
    with in_process_aws(dynamodb_endpoint) as aws:
        meter = CapacityMeter(aws.dynamodb, aws.raw_dynamodb)
        sms = NullSms()
        function = aws.game_function(sms)

        def text(sender: str, body: str, sid: str | None = None) -> Tally:
            meter.reset()
            response = function.handle_batch(sqs_event([sqs_record(sender, body, sid)]), None)
            assert not response.get("batchItemFailures"), response
            return meter.reset()

        def row(command: str, tally: Tally) -> None:
            rows.append(
                CommandRow(
                    command,
                    pending,
                    tally.total_requests,
                    tally.summary(),
                    tally.read_units,
                    tally.write_units,
                    tally.moto_reported_units,
                    tally.largest_item_bytes,
                )
            )

        # Set-up: the player, an idle opponent, and `pending` challengers who threw at the player
        # (at least one, so there is a game to resolve).
        text(PLAYER, "nick player")
        text(OPPONENT, "nick opponent")
        text(_roommate(OPPONENT), "nick roommate")
        for index in range(max(pending, 1)):
            text(_challenger(index), f"nick chal{index:04d}")
            text(_challenger(index), "throw rock player")

        if pending == 0:
            row("nick (register)", text(NEWCOMER, "nick newcomer"))
        row("help", text(PLAYER, "help"))
        row("unknown word", text(PLAYER, "hello there"))
        row("score", text(PLAYER, "score"))
        row("games", text(PLAYER, "games"))
        row("nick (rename)", text(PLAYER, "nick player2"))
        row("throw that waits", text(PLAYER, "throw paper opponent", sid="SM-waiting"))
        row("duplicate (same MessageSid)", text(PLAYER, "throw paper opponent", sid="SM-waiting"))
        row("throw that resolves", text(PLAYER, "throw paper chal0000"))
        if pending == 0:
            # The leaderboard full (Limits.leaderboard_size lines): what a result costs at most.
            for index in range(20):
                winner, loser = f"+1555500{index:04d}", f"+1555600{index:04d}"
                text(winner, f"nick win{index:04d}")
                text(loser, f"nick lose{index:04d}")
                text(loser, f"scissors win{index:04d}")
                text(winner, f"rock lose{index:04d}")
            text(OPPONENT, "rock chal0000")
            row("throw that resolves (leaderboard full)", text(_challenger(0), "paper opponent"))
            row("top (leaderboard full)", text(PLAYER, "top"))
        # The player's last opponent is now chal0000: AGAIN throws at them (a throw that waits).
        row("again (rematch)", text(PLAYER, "again rock"))
        row("lobby throw that waits", text(OPPONENT, "throw rock"))
        row("lobby throw that plays", text(_roommate(OPPONENT), "paper"))
        row("STOP", text(PLAYER, "stop"))
    return rows


def render(rows: list[CommandRow]) -> str:
    commands = list(dict.fromkeys(row.command for row in rows))
    levels = sorted({row.pending for row in rows})
    by_key = {(row.command, row.pending): row for row in rows}
    lines = [
        "| command | " + " | ".join(f"{level} pending: req / RRU / WRU" for level in levels) + " |",
        "|---|" + "---|" * len(levels),
    ]
    for command in commands:
        cells = []
        for level in levels:
            row = by_key.get((command, level))
            cells.append("-" if row is None else f"{row.requests} / {row.read_units:g} / {row.write_units:g}")
        lines.append(f"| {command} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Requests by operation (0 pending):")
    lines.append("")
    for command in commands:
        row = by_key.get((command, levels[0])) or by_key.get((command, levels[-1]))
        if row is not None:
            lines.append(f"- {command}: {row.by_operation}")
    return "\n".join(lines)


def render_reported_units(rows: list[CommandRow]) -> str:
    """Our units beside the engine's own report (DynamoDB Local's follow AWS's rules)."""
    lines = [
        "| command | pending | our RRU + WRU | engine-reported units |",
        "|---|---|---|---|",
    ]
    for row in rows:
        ours = row.read_units + row.write_units
        lines.append(f"| {row.command} | {row.pending} | {ours:g} | {row.moto_reported_units:g} |")
    return "\n".join(lines)


def main() -> None:
    if selected_engine() is DynamoDbEngine.LOCAL:
        dynamodb_local = DynamoDbLocal()
        try:
            rows = measure(dynamodb_endpoint=dynamodb_local.start())
        finally:
            dynamodb_local.stop()
        print(render(rows))
        print()
        print(render_reported_units(rows))
    else:
        rows = measure()
        print(render(rows))
    if "--json" in sys.argv:
        print(json.dumps([row.as_dict() for row in rows], indent=2))


if __name__ == "__main__":
    main()
