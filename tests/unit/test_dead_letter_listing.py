"""`dlq list` and `dlq redrive` on moto's SQS, as the operator reads their rows: each dead letter's
age and receive count, what its body says (or that it says nothing readable), every message moved
with its new ID, and the IDs a redrive could not find, all named."""

from __future__ import annotations

import json
import time
from typing import Any

import boto3
import pytest

from serverless_rps.admin.dead_letters import DeadLetterReview
from serverless_rps.admin.errors import Refused
from serverless_rps.config import GameSettings, TwilioCredentials

PLAYER = "+15551234567"


@pytest.fixture
def queues(aws: None) -> tuple[Any, GameSettings]:
    sqs = boto3.client("sqs", region_name="us-east-1")
    settings = GameSettings(
        game_state_table="games",
        nickname_table="nicknames",
        idempotency_table="messages",
        incoming_queue_url=sqs.create_queue(QueueName="incoming")["QueueUrl"],
        dead_letter_queue_url=sqs.create_queue(QueueName="dlq")["QueueUrl"],
        twilio=TwilioCredentials("AC" + "1" * 32, None, "token", None),
    )
    return sqs, settings


def _park(sqs: Any, settings: GameSettings, body: str) -> str:
    return str(sqs.send_message(QueueUrl=settings.dead_letter_queue_url, MessageBody=body)["MessageId"])


def test_each_dead_letter_shows_its_age_its_receives_and_what_its_body_names(
    queues: tuple[Any, GameSettings],
) -> None:
    sqs, settings = queues
    sms = _park(sqs, settings, json.dumps({"MessageSid": "SM" + "2" * 32, "From": PLAYER, "Body": "help"}))
    no_sender = _park(sqs, settings, json.dumps({"MessageSid": "SM" + "3" * 32, "From": None}))
    a_list = _park(sqs, settings, "[1, 2]")
    listing = DeadLetterReview(settings, sqs, clock=lambda: time.time() + 100)

    rows = {row["id"]: row for row in listing.dead_letters()}

    redrive_policy = "failed every receive allowed (the queue's redrive policy)"
    assert rows[sms] == {
        "id": sms,
        "reason": redrive_policy,
        "message_sid": "SM" + "2" * 32,
        "from": "+*******4567",
        "age_seconds": 100,
        "receive_count": 1,
    }
    assert (rows[no_sender]["message_sid"], rows[no_sender]["from"]) == ("SM" + "3" * 32, None)
    assert (rows[a_list]["message_sid"], rows[a_list]["from"]) == (None, None), "JSON, but not an SMS"
    assert [row["receive_count"] for row in listing.dead_letters()] == [2, 2, 2], "each listed once a time"


def test_a_listing_of_more_than_one_receive_sees_every_dead_letter_once(
    queues: tuple[Any, GameSettings],
) -> None:
    sqs, settings = queues
    parked = {_park(sqs, settings, json.dumps({"MessageSid": f"SM{index:032}"})) for index in range(23)}

    listed = [row["id"] for row in DeadLetterReview(settings, sqs).dead_letters()]

    assert sorted(listed) == sorted(parked)


def test_redrive_all_moves_every_dead_letter_and_names_each_with_its_new_id(
    queues: tuple[Any, GameSettings],
) -> None:
    sqs, settings = queues
    parked = [_park(sqs, settings, json.dumps({"MessageSid": f"SM{index:032}"})) for index in range(3)]

    moved = DeadLetterReview(settings, sqs).redrive(None)

    arrived = sqs.receive_message(QueueUrl=settings.incoming_queue_url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(row["id"] for row in moved) == sorted(parked)
    assert sorted(row["new_id"] for row in moved) == sorted(message["MessageId"] for message in arrived)
    assert "Messages" not in sqs.receive_message(QueueUrl=settings.dead_letter_queue_url)


def test_a_redrive_naming_ids_not_there_names_every_one_and_moves_nothing(
    queues: tuple[Any, GameSettings],
) -> None:
    sqs, settings = queues
    there = _park(sqs, settings, "{}")

    with pytest.raises(Refused) as refusal:
        DeadLetterReview(settings, sqs).redrive([there, "zz-missing", "aa-missing"])

    assert str(refusal.value) == (
        "not on the dead-letter queue: aa-missing, zz-missing; nothing moved (`dlq list` shows the IDs)"
    )
    assert [row["id"] for row in DeadLetterReview(settings, sqs).dead_letters()] == [there]
