"""Erasure and the reply budget through the deployed entry point (`lambda_handler`, wired only by
environment variables: moto for DynamoDB and SQS, the real Twilio client against the local
Twilio API), as a player on a public number would meet them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from serverless_rps import app, replies
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import ALICE, BOB, TABLES
from tests.protocol.test_lambda_handler import LambdaContext, _event, deployed

__all__ = ["deployed"]


def _sids() -> Any:
    return iter(f"SM{n:032x}" for n in range(1000, 100000))


def test_after_stop_through_the_handler_no_table_holds_the_number(
    deployed: Any, dynamodb: Any, twilio: LocalTwilioApi
) -> None:
    sid = _sids()
    context = LambdaContext()
    for sender, body in [
        (ALICE, "nick alice"),
        (BOB, "nick bob"),
        (ALICE, "rock bob"),
        (BOB, "paper alice"),
        (BOB, "rock alice"),
        (ALICE, "STOP"),
    ]:
        assert app.lambda_handler(_event((next(sid), sender, body)), context) == {"batchItemFailures": []}

    for table in (TABLES.game_state, TABLES.nickname, TABLES.idempotency):
        for item in dynamodb.scan(TableName=table)["Items"]:
            assert ALICE not in json.dumps(item), (table, item)
    assert any(BOB in json.dumps(item) for item in dynamodb.scan(TableName=TABLES.game_state)["Items"])


def test_a_flood_through_the_handler_is_answered_within_the_budget(
    deployed: Any, twilio: LocalTwilioApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REPLY_BUDGET_BURST", "5")  # as template.yaml's ReplyBudgetBurst would set it
    app._cold_start.cache_clear()
    sid = _sids()
    for _ in range(3):  # batches of 10, as the event source mapping delivers them
        batch = [(next(sid), ALICE, "help") for _ in range(10)]
        assert app.lambda_handler(_event(*batch), LambdaContext()) == {"batchItemFailures": []}

    bodies = [message["body"] for message in twilio.sent_messages() if message["to"] == ALICE]
    assert len(bodies) == 6, "five replies, then one notice, then silence"
    assert bodies[-1].startswith("That's a lot of texts!")


def _opt_out_event(sid: str, sender: str, body: str, opt_out_type: str | None) -> dict[str, Any]:
    event = _event((sid, sender, body))
    if opt_out_type is not None:
        fields = json.loads(event["Records"][0]["body"])
        event["Records"][0]["body"] = json.dumps({**fields, "OptOutType": opt_out_type})
    return event


@pytest.mark.parametrize(
    ("body", "opt_out_type", "confirmations"),
    [
        # Twilio may not have matched these itself: the bot sends the one confirmation.
        ("Stop.", None, 1),
        ("ＳＴＯＰ", None, 1),
        ("ST\u200bOP", None, 1),
        ("BAJA", "STOP", 0),  # Twilio matched it (Advanced Opt-Out) and answered
    ],
)
def test_an_opt_out_as_typed_or_as_twilio_matched_it_erases_through_the_handler(
    deployed: Any,
    dynamodb: Any,
    twilio: LocalTwilioApi,
    body: str,
    opt_out_type: str | None,
    confirmations: int,
) -> None:
    sid = _sids()
    app.lambda_handler(_event((next(sid), ALICE, "nick alice")), LambdaContext())
    sent_before = len(twilio.sent_messages())

    response = app.lambda_handler(_opt_out_event(next(sid), ALICE, body, opt_out_type), LambdaContext())

    assert response == {"batchItemFailures": []}
    sent = [message["body"] for message in twilio.sent_messages()[sent_before:]]
    assert sent == [replies.opt_out_confirmation(replies.Program())] * confirmations
    for table in (TABLES.game_state, TABLES.nickname):
        assert all(ALICE not in json.dumps(item) for item in dynamodb.scan(TableName=table)["Items"])


@pytest.mark.parametrize("opt_out_type", ["HELP", "START"])
def test_a_keyword_twilio_answered_itself_gets_no_second_answer(
    deployed: Any, twilio: LocalTwilioApi, opt_out_type: str
) -> None:
    sid = _sids()
    response = app.lambda_handler(_opt_out_event(next(sid), BOB, "AYUDA", opt_out_type), LambdaContext())

    assert response == {"batchItemFailures": []}
    assert twilio.sent_messages() == []
