"""The countries the bot serves (template.yaml's AllowedCountryCodes, NANP by default), as a sender
meets them: a text from anywhere else is not played and gets no reply, the message is acknowledged,
and nothing is written but its completed record; an opt-out still erases the number, which may be
in the tables from before the list changed, and no reply ever goes to a number outside the list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from serverless_rps import app, replies
from serverless_rps.countries import ServedCountries
from serverless_rps.processing import Result
from serverless_rps_local.in_process import TABLES
from tests.conftest import ALICE, BOB, FakeSms, Game
from tests.protocol.test_failure_visibility import json_log_lines
from tests.protocol.test_lambda_handler import LambdaContext, _event, deployed
from tests.protocol.test_metrics import Emitted, _no_metrics_from_earlier_tests

__all__ = ["_no_metrics_from_earlier_tests", "deployed"]

BRIT = "+447700900123"
NOT_SERVED = {
    "a number with no +": "15551110001",
    "a short code": "12345",
    "a six-digit short code": "898211",
    "an alphanumeric sender": "ACME",
    "a whatsapp: address": "whatsapp:+15551110001",
    "a number of another country": BRIT,
    "an over-long number": "+1555111000123",
}
CONFIRMATION = replies.opt_out_confirmation(replies.Program())


@pytest.mark.parametrize("sender", list(NOT_SERVED.values()), ids=list(NOT_SERVED))
def test_a_text_from_a_sender_not_served_is_neither_played_nor_answered(game: Game, sender: str) -> None:
    assert game.text(sender, "nick someone", sid="SM" + "a" * 32) is Result.NOT_SERVED

    assert game.sms.sent == []
    assert game.items(TABLES.game_state) == [], "no player, no lock"
    assert game.items(TABLES.nickname) == []
    [record] = game.items(TABLES.idempotency)
    assert record["messageId"]["S"] == "SM" + "a" * 32
    assert (record["status"]["S"], record["outbox"]["L"]) == ("COMPLETED", []), "completed, nothing to send"


def test_a_redelivered_text_from_a_country_not_served_is_recognised_and_costs_one_request(game: Game) -> None:
    sid = "SM" + "b" * 32
    game.text(BRIT, "rock", sid=sid)
    calls: list[str] = []
    game.dynamodb.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))

    assert game.text(BRIT, "rock", sid=sid) is Result.DUPLICATE
    assert calls == ["PutItem"], "the claim finds it completed, with nothing to send"
    assert game.sms.sent == []


def test_a_text_not_served_is_acknowledged_logged_masked_and_counted(
    deployed: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    sid = "SM" + "c" * 32
    with json_log_lines() as lines:
        response = app.lambda_handler(_event((sid, BRIT, "nick brit")), LambdaContext())

    assert response == {"batchItemFailures": []}, "acknowledged: SQS deletes it"
    [line] = [line for line in lines if "outside the served countries" in line["message"]]
    assert (line["level"], line["sender"]) == ("WARNING", "+********0123")
    assert BRIT not in json.dumps(lines), "the number is masked in every line"
    emitted = Emitted(capsys.readouterr().out)
    assert emitted.totals["NotServed"] == 1
    assert emitted.messages[("SetNickname", "not_served")] == 1


def _brit_played_when_the_list_was_wider(dynamodb: Any, sms: FakeSms) -> None:
    """Alice and Bob (US) and a UK number that registered while the list had 44, with a throw of
    Alice's waiting on the UK player and one of the UK player's waiting on Bob."""
    wider = Game(dynamodb, sms, countries=ServedCountries(("1", "44")), sid_prefix="w")
    wider.register((ALICE, "alice"), (BOB, "bob"), (BRIT, "brit"))
    wider.text(ALICE, "rock brit")
    wider.text(BRIT, "paper bob")


def test_an_opt_out_from_a_country_no_longer_served_erases_the_number_and_sends_it_nothing(
    game: Game, dynamodb: Any
) -> None:
    """Erasure cannot wait on the list (promise 13); a confirmation to an unserved number would be
    the very SMS the list refuses to pay for (and a way to pump: one STOP per number)."""
    _brit_played_when_the_list_was_wider(dynamodb, game.sms)
    before = len(game.sms.sent)

    assert game.text(BRIT, "please stop texting me") is Result.PROCESSED

    assert game.items_holding(BRIT) == [], "erased from every table"
    sent = game.sms.sent[before:]
    assert [(sms.to, sms.body) for sms in sent] == [(ALICE, replies.opponent_left("brit"))]
    assert CONFIRMATION not in game.sms.to(BRIT)


def test_no_reply_goes_to_a_number_outside_the_served_countries(game: Game, dynamodb: Any) -> None:
    _brit_played_when_the_list_was_wider(dynamodb, game.sms)
    before = len(game.sms.sent)

    game.text(BOB, "scissors brit")  # the UK player's throw at Bob resolves: both would be told

    assert [sms.to for sms in game.sms.sent[before:]] == [BOB], "Bob hears the result; the UK number nothing"
    bob = game.player(BOB)
    assert bob is not None
    assert bob["wins"]["N"] == "1", "the game is played all the same"
