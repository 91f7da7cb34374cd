"""The day's SMS counters, for the daily ceiling (sms_ceiling.py): counted in the commit, read in one
request, lifted by the operator.

Format (idempotency table, whose TTL deletes them; no number, no text):

* a counter shard, ``messageId = ceiling#<UTC day>#<shard>`` (``ceiling#2026-11-21#07``): ``sms``,
  the SMS the day's commits of messages whose key falls in that shard put in their outboxes, and
  ``TTLEpochTimestamp``, a day after the day ends;
* the day's lift, ``messageId = ceiling#<UTC day>`` (``ceiling#2026-11-21``): ``lifted_at``, when
  the operator lifted that day's ceiling (`admin ceiling --lift`), and the same TTL.

Neither key can be a message's (a Twilio SMS id, ``sqs:...``) or a contact record's (``contact#``).

Why shards: every commit with a reply adds to a counter, inside its transaction, and two
transactions that write one item at the same moment conflict (DynamoDB cancels one of them, which
is then retried). At the burst's 250 commits a second, one item would meet another commit within
each transaction's few milliseconds most of the time; spread over `COUNTER_SHARDS` items by the
message's key, each takes about four commits a second, and a commit rarely meets another on its
counter (docs/protocol.md, "The daily SMS ceiling"). All of them and the lift, 65 keys, are still
one BatchGetItem (at most 100 keys).
"""

from __future__ import annotations

import hashlib
from typing import Any

from serverless_rps.game_store.errors import translated
from serverless_rps.game_store.items import number
from serverless_rps.game_store.tables import TableNames, TransactItem
from serverless_rps.ports import SmsCount
from serverless_rps.sms_ceiling import DAY_SECONDS, next_midnight, utc_day

__all__ = ["CEILING_PREFIX", "COUNTER_SHARDS", "SmsCounters", "counter_key", "counter_shard", "lift_key"]

CEILING_PREFIX = "ceiling#"
# Changing it only spreads later commits differently: the day's total is the sum of whatever
# shards exist, and every one is read.
COUNTER_SHARDS = 64
_SMS = "sms"
_LIFTED_AT = "lifted_at"


def counter_shard(key: str) -> int:
    """The counter shard a message's commits add to: from its key, the same in every process."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") % COUNTER_SHARDS


def counter_key(day: str, shard: int) -> str:
    return f"{CEILING_PREFIX}{day}#{shard:02d}"


def lift_key(day: str) -> str:
    return f"{CEILING_PREFIX}{day}"


def _expiry(now: float) -> dict[str, str]:
    # A day after the day ends: nothing reads a day's counters once it is over but the operator.
    return number(int(next_midnight(now) + DAY_SECONDS))


class SmsCounters:
    def __init__(self, dynamodb_client: Any, tables: TableNames) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables

    def count(self, key: str, sms: int, now: float) -> TransactItem:
        """The commit's item that adds a message's `sms` SMS to its shard of today's counter. It has
        no condition: an ADD to an item that is not there yet creates it."""
        request = {
            "Update": {
                "TableName": self._tables.idempotency,
                "Key": {"messageId": {"S": counter_key(utc_day(now), counter_shard(key))}},
                "UpdateExpression": "ADD #sms :sms SET TTLEpochTimestamp = :expires",
                "ExpressionAttributeNames": {"#sms": _SMS},
                "ExpressionAttributeValues": {":sms": number(sms), ":expires": _expiry(now)},
            }
        }
        return TransactItem(request, if_refused=None)

    def read(self, day: str) -> SmsCount:
        """Every shard of the day's counter and its lift, in one BatchGetItem (and again for any
        key DynamoDB left unprocessed), strongly consistent like every read of the game's: 65
        read units, once every few seconds per execution environment (sms_ceiling.py)."""
        wanted = [counter_key(day, shard) for shard in range(COUNTER_SHARDS)] + [lift_key(day)]
        keys = [{"messageId": {"S": key}} for key in wanted]
        items: dict[str, dict[str, Any]] = {}
        with translated("read the day's SMS count"):
            while keys:
                response = self._dynamodb.batch_get_item(
                    RequestItems={self._tables.idempotency: {"Keys": keys, "ConsistentRead": True}}
                )
                for item in response["Responses"].get(self._tables.idempotency, []):
                    items[item["messageId"]["S"]] = item
                unprocessed = response["UnprocessedKeys"].get(self._tables.idempotency)
                keys = unprocessed["Keys"] if unprocessed else []
        lift = items.pop(lift_key(day), {})
        sent = sum(int(item[_SMS]["N"]) for item in items.values() if _SMS in item)
        lifted_at = float(lift[_LIFTED_AT]["N"]) if _LIFTED_AT in lift else None
        return SmsCount(day, sent, lifted=lifted_at is not None, lifted_at=lifted_at)

    def lift(self, now: float) -> None:
        """Lift today's ceiling for the rest of the UTC day (the operator's `admin ceiling --lift`)."""
        with translated("lift the day's SMS ceiling"):
            self._dynamodb.update_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": lift_key(utc_day(now))}},
                # The first lift of the day is the one kept: a second says nothing new.
                UpdateExpression=(
                    "SET #lifted_at = if_not_exists(#lifted_at, :now), TTLEpochTimestamp = :expires"
                ),
                ExpressionAttributeNames={"#lifted_at": _LIFTED_AT},
                ExpressionAttributeValues={":now": number(now), ":expires": _expiry(now)},
            )
