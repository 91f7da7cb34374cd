"""An in-process AWS (moto) with the game's tables and queues, and the game function built on it.

DynamoDB may instead be DynamoDB Local (`in_process_aws(dynamodb_endpoint=...)`; SQS stays on
moto): the tables are then created in it and deleted again at the end.

The game function is assembled by the composition root (`serverless_rps.bootstrap`), as
`app.build_game_function` assembles it, but with an SMS sender chosen by the benchmark: a null
sender (measures engine + DynamoDB only) or the real Twilio client pointed at an in-process
`LocalTwilioApi` (adds a loopback HTTP request per SMS). The tables and SQS records are
serverless_rps_local/in_process.py's, which the tests use too.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import boto3
from moto import mock_aws

from serverless_rps.app import GameFunction
from serverless_rps.bootstrap import build_processor, build_store
from serverless_rps.config import GameSettings, TwilioCredentials
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps.ports import OutboundSms, ReplyId, SentSms, SentSmsLog, SmsSender
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps_local.in_process import (
    BOT_NUMBER,
    CONTACT_KEY,
    PROOF,
    REGION,
    TABLES,
    create_tables,
    delete_tables,
    sqs_event,
    sqs_record,
)

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


@dataclass
class NullSms:
    """Accepts every SMS instantly, so a measurement sees only the engine and DynamoDB."""

    sent: list[OutboundSms] = field(default_factory=list)
    _sids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        self.sent.append(message)
        return f"SM{next(self._sids):032x}"

    def sent_to(self, to: str, limit: int) -> list[SentSms]:
        """Keeps no Messages list: a redelivery's look finds nothing and sends again."""
        return []


@dataclass
class InProcessAws:
    dynamodb: Any
    raw_dynamodb: Any
    sqs: Any
    incoming_url: str
    dead_letter_url: str

    def game_function(
        self,
        sender: SmsSender,
        *,
        lock_wait_seconds: float = 1.5,
        budget: BudgetPolicy | None = None,
        sent_log: SentSmsLog | None = None,
    ) -> GameFunction:
        """The game function over these tables, sending through `sender` and looking before
        re-sending in `sent_log` (by default `sender`'s own list: NullSms and the Twilio gateway
        have one)."""
        budget = budget or BudgetPolicy()
        settings = replace(
            self.settings(),
            lock_wait_seconds=lock_wait_seconds,
            reply_budget_burst=budget.burst,
            reply_budget_per_hour=budget.per_hour,
        )
        # As deployed: every opt-out proven (the fixed test key).
        store = build_store(self.dynamodb, settings, CONTACT_KEY, PROOF)
        return GameFunction(
            build_processor(store, sender, sent_log or sender, settings).processor,  # type: ignore[arg-type]
            IncomingQueue(self.sqs, self.incoming_url),
            DeadLetterQueue(self.sqs, self.dead_letter_url),
        )

    def settings(self) -> GameSettings:
        """The game function's settings on these tables and queues, the template's timings."""
        return GameSettings(
            game_state_table=TABLES.game_state,
            nickname_table=TABLES.nickname,
            idempotency_table=TABLES.idempotency,
            incoming_queue_url=self.incoming_url,
            dead_letter_queue_url=self.dead_letter_url,
            twilio=TwilioCredentials("AC" + "0" * 32, None, "local-token", None),
        )

    def item_count(self, table: str) -> int:
        return int(self.raw_dynamodb.describe_table(TableName=table)["Table"].get("ItemCount", 0))


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
