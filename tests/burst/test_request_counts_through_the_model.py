"""Calibration: the burst model runs the real engine, so each command costs it exactly the DynamoDB
requests tests/protocol/test_request_counts.py counts on the engine alone (`EXPECTED`), with the
same players set up the same way, each text arriving once the one before is done."""

from __future__ import annotations

import pytest

from bench.burst.dynamodb import Faults
from bench.burst.model import ModelOptions, ScriptedText, run
from serverless_rps.model import LOBBY_SWEEP_SECONDS, board_shard
from serverless_rps.sms_ceiling import CACHE_SECONDS
from tests.conftest import ALICE, BOB
from tests.protocol.test_request_counts import EXPECTED, RESULT_PLAYERS

ZED = "+15557770000"
# tests/protocol/test_request_counts.py's `_alice_with_pending_games`, with no pending games.
SETUP = (
    (ALICE, "nick alice"),
    (BOB, "nick bob"),
    (ZED, "nick zed"),
    (BOB, "rock zed"),
    (ZED, "paper bob"),  # bob's last opponent is zed
    (BOB, "rock alice"),
)
# What some commands need before them, as the protocol test sets it up.
BEFORE = {
    "lobby throw that plays": ((ZED, "throw rock"),),  # zed waits in the lobby
    "games while in the lobby": ((ALICE, "throw rock"),),  # alice's record says she may wait there
}
# Each text is long done (a few hundred ms) before the next arrives, and one left waiting in the
# lobby has waited long enough to be played from any room (as the protocol test's clock ticks).
SPACING_SECONDS = LOBBY_SWEEP_SECONDS + 15


@pytest.mark.parametrize("command", list(EXPECTED))
def test_each_command_costs_the_model_the_requests_it_costs_the_engine(command: str) -> None:
    sender, body, expected = EXPECTED[command]
    texts = [*SETUP, *BEFORE.get(command, ()), (sender, body)]
    script = tuple(ScriptedText(n * SPACING_SECONDS, phone, text) for n, (phone, text) in enumerate(texts))

    result = run(ModelOptions(script=script, faults=Faults(throttle_rate=0, conflict_rate=0)))

    measured = max(result.inbound.values(), key=lambda inbound: inbound.posted_at)
    assert (measured.phone, measured.body) == (sender, body)
    # As the protocol test counts: one more lock when the result's two lines live in two shards.
    ids = [result.record.players[phone]["player_id"]["S"] for phone in RESULT_PLAYERS.get(command, ())]
    expected += max(len({board_shard(player_id) for player_id in ids}) - 1, 0)
    # The protocol test counts a warm environment, whose day's SMS count is fresh. Here each text
    # comes longer than the count's cache after the last: it reads the count again (one request).
    assert SPACING_SECONDS > CACHE_SECONDS
    expected += 1
    assert result.observations.requests_by_sid[measured.sid] == expected
    assert result.verdict is not None
    assert result.verdict.violations == []
