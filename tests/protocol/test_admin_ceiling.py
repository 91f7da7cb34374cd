"""`admin ceiling`: today's SMS against the daily ceiling, and `--lift`, which asks first (unless
--yes) and lifts it until midnight UTC, after which the texts held back are played and answered."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.admin import cli, locate
from serverless_rps.admin.operations import Operator
from serverless_rps.rules import Move
from serverless_rps.sms_ceiling import CACHE_SECONDS
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import ALICE, BOB
from tests.protocol.test_admin import _admin, _register, _text, deployed
from tests.protocol.test_failure_visibility import json_log_lines

__all__ = ["deployed"]

# Alice and Bob registering: the opt-in confirmation and the nickname's reply, each.
CEILING = 4
THROW = ("SM" + "d" * 32, ALICE, "rock bob")


@pytest.fixture
def operator(deployed: Any, monkeypatch: pytest.MonkeyPatch, clock: Any) -> Operator:
    """The tool, and the game function, on a stack whose DailySmsCeiling Alice and Bob reach."""
    monkeypatch.setenv("DAILY_SMS_CEILING", str(CEILING))
    _register((ALICE, "alice"), (BOB, "bob"))
    return Operator.connect(replace(locate.from_environment()))


def test_ceiling_shows_todays_sms_against_the_ceiling(operator: Operator) -> None:
    status, output = _admin(operator, "ceiling")

    assert status == 0
    shown = json.loads(output)
    assert {key: shown[key] for key in ("day", "sms_sent", "ceiling", "state")} == {
        "day": "2026-11-21",
        "sms_sent": CEILING,
        "ceiling": CEILING,
        "state": "reached",
    }
    assert shown["resets_in_seconds"] == 12 * 60 * 60, "at midnight UTC"
    assert shown["lifted_at"] is None


def test_lifting_the_ceiling_asks_first_then_the_held_text_is_played(
    operator: Operator, twilio: LocalTwilioApi, clock: Any
) -> None:
    assert _text(THROW) == {"batchItemFailures": []}, "held: acknowledged, a copy waits on the queue"
    challenge = replies.challenged("alice")
    assert challenge not in [message["body"] for message in twilio.sent_messages()]

    assert _admin(operator, "ceiling", "--lift", answer="n")[0] == 1, "declined: nothing changed"
    assert json.loads(_admin(operator, "ceiling")[1])["state"] == "reached"

    status, output = _admin(operator, "ceiling", "--lift", answer="y")

    assert status == 0
    assert {key: json.loads(output)[key] for key in ("state", "lifted_at")} == {
        "state": "lifted",
        "lifted_at": "2026-11-21T12:00:00Z",
    }
    clock.tick(CACHE_SECONDS)  # the game function reads the day's count again
    with json_log_lines() as lines:
        assert _text(THROW) == {"batchItemFailures": []}, "the held text comes back"
        assert _text(("SM" + "e" * 32, BOB, "score")) == {"batchItemFailures": []}
    lifts = [line for line in lines if "lifted by the operator" in line["message"]]
    assert len(lifts) == 1, "logged once a day by each execution environment"
    [logged] = lifts
    assert (logged["level"], logged["day"], logged["sms_sent"]) == ("WARNING", "2026-11-21", CEILING)
    assert logged["lifted_at"] == datetime(2026, 11, 21, 12, tzinfo=UTC).timestamp()
    sent = [(message["to"], message["body"]) for message in twilio.sent_messages()]
    assert (BOB, challenge) in sent
    assert (ALICE, replies.throw_waiting("bob", Move.ROCK)) in sent
    assert json.loads(_admin(operator, "ceiling")[1])["sms_sent"] == CEILING + 3, "counted all the same"


def test_lifting_with_no_terminal_to_ask_on_needs_yes(
    operator: Operator, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_terminal(question: str) -> str:
        raise cli.NoTerminal

    status = cli.main(["ceiling", "--lift"], connect=lambda _: operator, ask=no_terminal)

    assert status == 2
    assert "give --yes" in capsys.readouterr().err
    assert json.loads(_admin(operator, "ceiling")[1])["state"] == "reached"
    assert json.loads(_admin(operator, "--yes", "ceiling", "--lift")[1])["state"] == "lifted"
