"""Erasure and the reply budget through the deployed entry point (`lambda_handler`, wired only by
environment variables: moto for DynamoDB and SQS, the real Twilio client against the local
Twilio API), as a player on a public number would meet them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from serverless_rps import app
from serverless_rps.local.twilio_api import LocalTwilioApi
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
