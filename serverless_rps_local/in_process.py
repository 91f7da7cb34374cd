"""The game's tables, and SQS records as Lambda delivers them, for code that runs the game in this
process: the tests and the benchmarks.

The local stack creates its tables from template.yaml (`aws.provision`); these are the same four
tables (the game's three and the proof of opt-outs), keyed as template.yaml keys them, made with
one call each so a test can afford one set per test. The timings are the template's, as
`GameSettings` defaults them; the proof key is a fixed test key, never a real one.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from serverless_rps.config import DAY, GameSettings
from serverless_rps.game_store import TableNames
from serverless_rps.game_store.proofs import ProofSettings
from serverless_rps.opt_out_proof import ProofKey, ProofKeys

__all__ = [
    "BOT_NUMBER",
    "COMPLETED_SECONDS",
    "CONTACT_KEY",
    "IN_PROGRESS_SECONDS",
    "LEASE_SECONDS",
    "PROOF",
    "PROOF_KEY",
    "PROOF_TABLE",
    "REGION",
    "TABLES",
    "create_tables",
    "delete_tables",
    "sqs_event",
    "sqs_record",
]

REGION = "us-east-1"
TABLES = TableNames("rps-game-state", "rps-nicknames", "rps-idempotency")
# The key of the keyed hash naming contact records (derived from the Twilio token when deployed).
CONTACT_KEY = b"local-contact-key"
BOT_NUMBER = "+15550000000"
# template.yaml's values, which are GameSettings' defaults: lease 25 s, in-progress 30 s,
# completed 20 days (tests/unit/test_template.py checks the template's relations).
LEASE_SECONDS = GameSettings.lock_lease_seconds
IN_PROGRESS_SECONDS = GameSettings.in_progress_expiry_seconds
COMPLETED_SECONDS = GameSettings.completed_record_seconds
# The proof of opt-outs: its table, the fixed test key (32 bytes, as `admin proof-key` makes one)
# and the template's retention.
PROOF_TABLE = "rps-opt-out-proof"
PROOF_KEY = ProofKey(bytes.fromhex("7e57" * 16), "test-proof-key:1")
PROOF = ProofSettings(PROOF_TABLE, lambda: ProofKeys(PROOF_KEY), GameSettings.proof_retention_days * DAY)


def create_tables(dynamodb: Any, tables: TableNames = TABLES, proof_table: str | None = PROOF_TABLE) -> None:
    """The game's three tables and the proof table, as template.yaml declares their keys."""
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
    if proof_table is not None:
        dynamodb.create_table(
            TableName=proof_table,
            KeySchema=[
                {"AttributeName": "number", "KeyType": "HASH"},
                {"AttributeName": "event", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "number", "AttributeType": "S"},
                {"AttributeName": "event", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )


def delete_tables(dynamodb: Any, tables: TableNames = TABLES, proof_table: str | None = PROOF_TABLE) -> None:
    """Drop the tables: DynamoDB Local outlives a test, moto's in-process state does not."""
    for name in (tables.game_state, tables.nickname, tables.idempotency, proof_table):
        if name is not None:
            dynamodb.delete_table(TableName=name)


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
