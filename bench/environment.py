"""An in-process AWS (moto) with the game's tables and queues, and the game function built on it.

DynamoDB may instead be DynamoDB Local (`in_process_aws(dynamodb_endpoint=...)`; SQS stays on
moto): the tables are then created in it and deleted again at the end.

The game function is assembled from the same public pieces `app.build_game_function` uses, but
with an SMS sender chosen by the benchmark: a null sender (measures engine + DynamoDB only) or the
real Twilio client pointed at an in-process `LocalTwilioApi` (adds a loopback HTTP request per SMS).
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import boto3
from moto import mock_aws

from serverless_rps.app import GameFunction
from serverless_rps.game import Limits
from serverless_rps.game_store import DynamoGameStore, TableNames
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps.ports import OutboundSms, SmsSender
from serverless_rps.processing import MessageProcessor
from serverless_rps.reply_budget import BudgetPolicy

__all__ = [
    "BOT_NUMBER",
    "CONTACT_KEY",
    "TABLES",
    "InProcessAws",
    "NullSms",
    "create_tables",
    "delete_tables",
    "in_process_aws",
    "sqs_event",
    "sqs_record",
]

REGION = "us-east-1"
TABLES = TableNames("rps-game-state", "rps-nicknames", "rps-idempotency")
# The key of the keyed hash naming contact records (derived from the Twilio token when deployed).
CONTACT_KEY = b"local-contact-key"
BOT_NUMBER = "+15550000000"
# The template's values (template.yaml): lease 25 s, in-progress 30 s, completed 18 days.
LEASE_SECONDS = 25.0
IN_PROGRESS_SECONDS = 30.0
COMPLETED_SECONDS = 18 * 24 * 3600.0


@dataclass
class NullSms:
    """Accepts every SMS instantly, so a measurement sees only the engine and DynamoDB."""

    sent: list[OutboundSms] = field(default_factory=list)
    _sids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def send(self, message: OutboundSms) -> str:
        self.sent.append(message)
        return f"SM{next(self._sids):032x}"


@dataclass
class InProcessAws:
    dynamodb: Any
    raw_dynamodb: Any
    sqs: Any
    incoming_url: str
    dead_letter_url: str

    def game_function(
        self, sender: SmsSender, *, lock_wait_seconds: float = 1.5, budget: BudgetPolicy | None = None
    ) -> GameFunction:
        store = DynamoGameStore(
            self.dynamodb,
            TABLES,
            lock_lease_seconds=LEASE_SECONDS,
            in_progress_expiry_seconds=IN_PROGRESS_SECONDS,
            completed_record_seconds=COMPLETED_SECONDS,
            contact_key=CONTACT_KEY,
        )
        processor = MessageProcessor(
            store,
            sender,
            limits=Limits(),
            lock_wait_seconds=lock_wait_seconds,
            budget=budget or BudgetPolicy(),
        )
        return GameFunction(
            processor,
            IncomingQueue(self.sqs, self.incoming_url),
            DeadLetterQueue(self.sqs, self.dead_letter_url),
        )

    def item_count(self, table: str) -> int:
        return int(self.raw_dynamodb.describe_table(TableName=table)["Table"].get("ItemCount", 0))


def create_tables(dynamodb: Any, tables: TableNames = TABLES) -> None:
    """The game's three tables as template.yaml declares their keys (tests use it too)."""
    for name, key in (
        (tables.game_state, "phone_number"),
        (tables.nickname, "nickname"),
        (tables.idempotency, "messageId"),
    ):
        dynamodb.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": key, "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": key, "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )


def delete_tables(dynamodb: Any, tables: TableNames = TABLES) -> None:
    """Drop the game's tables: DynamoDB Local outlives a test, moto's in-process state does not."""
    for name in (tables.game_state, tables.nickname, tables.idempotency):
        dynamodb.delete_table(TableName=name)


@contextmanager
def in_process_aws(dynamodb_endpoint: str | None = None) -> Iterator[InProcessAws]:
    """moto in this process, with empty tables and queues; DynamoDB at `dynamodb_endpoint` if given."""
    saved = {name: os.environ.get(name) for name in _FAKE_CREDENTIALS}
    os.environ.update(_FAKE_CREDENTIALS)
    os.environ.pop("AWS_ENDPOINT_URL", None)
    try:
        with mock_aws():
            session = boto3.session.Session(region_name=REGION)
            dynamodb = session.client("dynamodb", endpoint_url=dynamodb_endpoint)
            create_tables(dynamodb)
            sqs = session.client("sqs")
            dead_letter_url = sqs.create_queue(QueueName="rps-dead-letters")["QueueUrl"]
            incoming_url = sqs.create_queue(QueueName="rps-incoming")["QueueUrl"]
            try:
                yield InProcessAws(
                    dynamodb,
                    session.client("dynamodb", endpoint_url=dynamodb_endpoint),
                    sqs,
                    incoming_url,
                    dead_letter_url,
                )
            finally:
                if dynamodb_endpoint is not None:
                    delete_tables(dynamodb)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
}


def sqs_record(sender: str, body: str, sid: str | None = None) -> dict[str, Any]:
    """One SQS record as Lambda's event source delivers it, carrying the webhook's message body."""
    message_id = str(uuid.uuid4())
    fields = {"From": sender, "To": BOT_NUMBER, "Body": body, "MessageSid": sid or f"SM{uuid.uuid4().hex}"}
    return {
        "messageId": message_id,
        "receiptHandle": "",
        "body": json.dumps(fields, sort_keys=True),
        "attributes": {"ApproximateReceiveCount": "1"},
        "messageAttributes": {},
        "md5OfBody": "",
        "eventSource": "aws:sqs",
        "eventSourceARN": f"arn:aws:sqs:{REGION}:123456789012:rps-incoming",
        "awsRegion": REGION,
    }


def sqs_event(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Records": records}
