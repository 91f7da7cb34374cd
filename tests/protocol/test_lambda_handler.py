"""The deployed entry point, `serverless_rps.app.lambda_handler`, wired only by environment
variables: moto for DynamoDB and SQS, the real Twilio client against the local Twilio API."""

from __future__ import annotations

import io
import itertools
import json
import logging
import os
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from serverless_rps import app, observability, replies
from serverless_rps.bootstrap import Clockwork
from serverless_rps.config import GameSettings
from serverless_rps.game_store import OutboxRecords
from serverless_rps.rules import Move, Outcome
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import (
    ALICE,
    BOB,
    BOT_NUMBER,
    LEASE_SECONDS,
    PROOF_KEY,
    PROOF_TABLE,
    REGION,
    TABLES,
    TWILIO_ACCOUNT,
    TWILIO_TOKEN,
    new_store,
)

# The proof key's SSM parameter in the deployed fixture (tests/iam maps `*proof-key*` names to it).
PROOF_KEY_PARAMETER = "/rps/proof-key"


class LambdaContext:
    function_name = "GameFunction"
    memory_limit_in_mb = 256
    invoked_function_arn = f"arn:aws:lambda:{REGION}:123456789012:function:GameFunction"
    aws_request_id = "request-1"


@pytest.fixture
def deployed(monkeypatch: pytest.MonkeyPatch, dynamodb: Any, twilio: LocalTwilioApi) -> Iterator[Any]:
    sqs = boto3.client("sqs", region_name=REGION)
    dead_letters = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    incoming = sqs.create_queue(QueueName="incoming")["QueueUrl"]
    # The proof key as deployed: an SSM SecureString the game function reads, every version of it
    # (here one: the fixed test key, so that tests find the records under PROOF_KEY).
    boto3.client("ssm", region_name=REGION).put_parameter(
        Name=PROOF_KEY_PARAMETER, Value=PROOF_KEY.secret.hex(), Type="SecureString"
    )
    for name, value in {
        "GAME_STATE_TABLE": TABLES.game_state,
        "NICKNAME_TABLE": TABLES.nickname,
        "IDEMPOTENCY_TABLE": TABLES.idempotency,
        "INCOMING_QUEUE_URL": incoming,
        "DEAD_LETTER_QUEUE_URL": dead_letters,
        "TWILIO_ACCOUNT_SID": TWILIO_ACCOUNT,
        "TWILIO_AUTH_TOKEN": TWILIO_TOKEN,
        "TWILIO_API_URL": twilio.base_url,
        "PROOF_TABLE": PROOF_TABLE,
        "PROOF_KEY_PARAMETER": PROOF_KEY_PARAMETER,
    }.items():
        monkeypatch.setenv(name, value)
    app._cold_start.cache_clear()
    yield sqs
    app._cold_start.cache_clear()


def _event(*messages: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": f"sqs-{sid}",
                "receiptHandle": "",
                "body": json.dumps({"MessageSid": sid, "From": sender, "To": BOT_NUMBER, "Body": body}),
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "eventSource": "aws:sqs",
                "awsRegion": REGION,
            }
            for sid, sender, body in messages
        ]
    }


def test_a_whole_game_through_the_lambda_handler_reaches_twilio(
    deployed: Any, twilio: LocalTwilioApi
) -> None:
    context = LambdaContext()
    sid = iter(f"SM{n:032x}" for n in range(100, 200))
    response = app.lambda_handler(
        _event(
            (next(sid), ALICE, "nick alice"), (next(sid), BOB, "nick bob"), (next(sid), ALICE, "rock bob")
        ),
        context,
    )
    assert response == {"batchItemFailures": []}
    app.lambda_handler(_event((next(sid), BOB, "scissors alice")), context)

    sent = [(message["to"], message["from"], message["body"]) for message in twilio.sent_messages()]
    assert (ALICE, BOT_NUMBER, replies.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "bob")) in sent
    assert (BOB, BOT_NUMBER, replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "alice")) in sent
    assert len(sent) == 8  # each new player's opt-in confirmation, then the game's six


def test_the_deployed_engine_finds_a_reply_twilio_took_before_the_invocation_died(
    deployed: Any, twilio: LocalTwilioApi, monkeypatch: pytest.MonkeyPatch, clock: Any
) -> None:
    """bootstrap.py gives the handler's outbox Twilio's Messages list: the redelivery looks before
    re-sending, so a reply Twilio accepted just before the invocation died still goes once."""
    record_delivery = OutboxRecords.record_delivery
    deaths: list[str] = []

    def dies_recording_the_first(self: OutboxRecords, record: Any, index: int, outcome: str) -> None:
        if not deaths:
            deaths.append(outcome)
            raise RuntimeError("the invocation died after Twilio accepted its first reply")
        record_delivery(self, record, index, outcome)

    monkeypatch.setattr(OutboxRecords, "record_delivery", dies_recording_the_first)
    help_text = ("SM" + "e" * 32, ALICE, "help")

    first = app.lambda_handler(_event(help_text), LambdaContext())
    clock.tick(LEASE_SECONDS + 1)  # SQS redelivers once the dead attempt's outbox lease is over
    again = app.lambda_handler(_event(help_text), LambdaContext())

    assert first == {"batchItemFailures": [{"itemIdentifier": "sqs-" + help_text[0]}]}
    assert again == {"batchItemFailures": []}
    program = replies.Program()
    assert [message["body"] for message in twilio.sent_messages()] == [
        replies.opt_in_confirmation(program),  # found in Twilio's list, not sent again
        replies.program_help(program),
        replies.help_overview(),
    ]


def test_a_reply_to_an_opted_out_phone_is_recorded_and_the_message_succeeds(
    deployed: Any, twilio: LocalTwilioApi
) -> None:
    twilio.opt_out(ALICE)
    response = app.lambda_handler(_event(("SM" + "7" * 32, ALICE, "help")), LambdaContext())
    assert response == {"batchItemFailures": []}
    assert twilio.sent_messages() == []


def test_twilio_throttling_fails_only_that_message(deployed: Any, twilio: LocalTwilioApi) -> None:
    twilio.fail_next(status=429, retry_after=3)
    response = app.lambda_handler(
        _event(("SM" + "8" * 32, ALICE, "score"), ("SM" + "9" * 32, BOB, "score")), LambdaContext()
    )
    assert response == {"batchItemFailures": [{"itemIdentifier": "sqs-SM" + "8" * 32}]}
    assert [message["to"] for message in twilio.sent_messages()] == [BOB, BOB]  # opt-in, then the answer


def test_full_phone_numbers_and_the_token_never_reach_the_logs(
    deployed: Any, twilio: LocalTwilioApi, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO")  # the deployed level; botocore at DEBUG logs request bodies
    # Our JSON lines, `extra` fields included, exactly as CloudWatch would receive them.
    json_lines = io.StringIO()
    handler = logging.StreamHandler(json_lines)
    handler.setFormatter(observability.logger.registered_formatter)
    observability.logger.addHandler(handler)
    try:
        twilio.fail_next(status=503)
        app.lambda_handler(
            _event(("SM" + "a1" * 16, ALICE, "nick alice"), ("SM" + "b2" * 16, BOB, "throw rock alice")),
            LambdaContext(),
        )
    finally:
        observability.logger.removeHandler(handler)
    written = json_lines.getvalue() + caplog.text
    assert '"sender":"+*******0001"' in written, "no masked sender logged: the check below would be blind"
    for secret in (ALICE, BOB, ALICE[1:], BOB[1:], TWILIO_TOKEN):
        assert secret not in written


def test_the_built_function_brings_a_message_whose_player_is_busy_back_when_the_lock_expires(
    deployed: Any, dynamodb: Any, twilio: LocalTwilioApi
) -> None:
    """The game function as the composition root builds it, on the real incoming queue: a message
    that must wait gets its visibility shortened to the lock's lease, not the queue's timeout."""
    incoming = os.environ["INCOMING_QUEUE_URL"]
    deployed.send_message(
        QueueUrl=incoming,
        MessageBody=json.dumps(
            {"MessageSid": "SM" + "4" * 32, "From": ALICE, "To": BOT_NUMBER, "Body": "help"}
        ),
    )
    [message] = deployed.receive_message(QueueUrl=incoming, AttributeNames=["All"])["Messages"]
    new_store(dynamodb).lock(ALICE, "another-invocation", time.time())
    session = boto3.session.Session(region_name=REGION)
    shortened: list[int] = []
    session.events.register(
        "provide-client-params.sqs.ChangeMessageVisibility",
        lambda params, **_: shortened.append(params["VisibilityTimeout"]),
    )
    settings = GameSettings.from_environment()
    function = app.build_game_function(settings, session)
    record = {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": message["Attributes"],
    }

    assert function.handle_batch({"Records": [record]}, None) == {
        "batchItemFailures": [{"itemIdentifier": message["MessageId"]}]
    }
    [seconds] = shortened
    assert 0 < seconds <= settings.lock_lease_seconds
    assert twilio.sent_messages() == []


def test_a_game_function_built_with_a_clockwork_keeps_its_time_ids_and_pauses(
    deployed: Any, dynamodb: Any, twilio: LocalTwilioApi
) -> None:
    """A simulation's clock reaches the engine through the composition root (bench/burst runs the
    game function so): leases and records are stamped with its time, ids come from it, and the
    lock backoff sleeps through it, scaled by its jitter."""
    now = [2_000_000_000.0]
    slept: list[float] = []
    ids = (f"id{n:030d}" for n in itertools.count(1))

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    clockwork = Clockwork(clock=lambda: now[0], sleep=sleep, new_id=lambda: next(ids), jitter=lambda: 1.0)
    function = app.build_game_function(
        GameSettings.from_environment(), boto3.session.Session(region_name=REGION), clockwork
    )
    new_store(dynamodb).lock(ALICE, "another-invocation", now[0])  # busy for the whole lock wait
    busy = ("SM" + "6" * 32, ALICE, "help")
    registering = ("SM" + "7" * 32, BOB, "nick bob")

    assert function.handle_batch(_event(busy), None) == {
        "batchItemFailures": [{"itemIdentifier": "sqs-" + busy[0]}]
    }
    assert slept == [0.05, 0.1, 0.2, 0.4, 0.4]  # doubling to the cap, until the 1.5 s lock wait is spent
    assert function.handle_batch(_event(registering), None) == {"batchItemFailures": []}
    player = dynamodb.get_item(TableName=TABLES.game_state, Key={"phone_number": {"S": BOB}})["Item"]
    record = dynamodb.get_item(TableName=TABLES.idempotency, Key={"messageId": {"S": registering[0]}})["Item"]
    assert player["player_id"]["S"].startswith("id")
    assert float(record["completed_at"]["N"]) == now[0]


def test_a_record_without_sqs_attributes_is_still_played(deployed: Any, twilio: LocalTwilioApi) -> None:
    """Hand-made events (`invoke`, a test) may leave out SQS's attributes, SentTimestamp with them."""
    event = _event(("SM" + "5" * 32, ALICE, "help"))
    del event["Records"][0]["attributes"]
    assert app.lambda_handler(event, LambdaContext()) == {"batchItemFailures": []}
    sent = twilio.sent_messages()
    assert sent
    assert {message["to"] for message in sent} == {ALICE}
