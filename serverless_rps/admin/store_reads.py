"""The operator's reads of the tables: consistent reads and full-table scans.

They live with the operator's tool, which runs on a laptop with the operator's credentials, and
are never shipped (function-code/build_function.py leaves admin/ out): the game function never
scans, by construction. Every change still goes through `DynamoGameStore`, the game's protocol.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from serverless_rps.game import Player
from serverless_rps.game_store import (
    CEILING_PREFIX,
    COMPLETED,
    CONTACT_PREFIX,
    IN_PROGRESS,
    DeliveryStatus,
    DynamoGameStore,
    TableNames,
    budget_from,
    completed_record,
    player_from_item,
    statuses_from,
    translated,
)
from serverless_rps.ports import CompletedRecord
from serverless_rps.reply_budget import ReplyBudget

__all__ = ["PlayerRow", "StoreReads", "StoredMessage"]


@dataclass(frozen=True)
class StoredMessage:
    """An idempotency record as the operator's tool sees it (`scan_messages`)."""

    key: str
    status: str  # IN_PROGRESS or COMPLETED
    claim_expires_at: float | None  # an IN_PROGRESS claim's expiry
    record: CompletedRecord | None  # a COMPLETED message's outbox and deliveries
    ttl: float  # when DynamoDB may delete it (claim time + the completed record's lifetime)
    # Twilio's status callbacks, by outbox index (game_store/delivery_status.py).
    delivery: Mapping[int, DeliveryStatus] = field(default_factory=dict)


@dataclass(frozen=True)
class PlayerRow:
    """A game-state row as the operator's tool sees it: the player (None for a bare row that only
    holds a lease) and the lease, if any."""

    phone: str
    player: Player | None
    lease_id: str | None
    lease_expires_at: float | None
    budget: ReplyBudget | None


class StoreReads:
    def __init__(self, dynamodb_client: Any, tables: TableNames) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables

    @classmethod
    def beside(cls, store: DynamoGameStore) -> StoreReads:
        """The reads of the tables `store` writes, through its client."""
        return cls(store.client, store.tables)

    def read_completed(self, key: str) -> CompletedRecord | None:
        """A completed message's record, read consistently; None if it is not (or no longer) there."""
        with translated("read a message record"):
            item = self._dynamodb.get_item(
                TableName=self._tables.idempotency, Key={"messageId": {"S": key}}, ConsistentRead=True
            ).get("Item")
        if item is None or item.get("status", {}).get("S") != COMPLETED:
            return None
        return completed_record(key, item)

    def read_player_row(self, phone: str) -> PlayerRow | None:
        with translated("read a player"):
            item = self._dynamodb.get_item(
                TableName=self._tables.game_state, Key={"phone_number": {"S": phone}}, ConsistentRead=True
            ).get("Item")
        return _player_row(item) if item else None

    def scan_player_rows(self) -> Iterator[PlayerRow]:
        """Every game-state row (a table scan: for an operator, never for a message)."""
        for item in self._scan(self._tables.game_state):
            yield _player_row(item)

    def scan_messages(self) -> Iterator[StoredMessage]:
        """Every message's idempotency record, contact records and the SMS counters left out (a
        table scan)."""
        for item in self._scan(self._tables.idempotency):
            key = item["messageId"]["S"]
            if key.startswith((CONTACT_PREFIX, CEILING_PREFIX)) or "status" not in item:
                continue
            status = item["status"]["S"]
            claim_expiry = item.get("in_progress_expiration", {}).get("N")
            yield StoredMessage(
                key=key,
                status=status,
                claim_expires_at=float(claim_expiry) if status == IN_PROGRESS and claim_expiry else None,
                record=completed_record(key, item) if status == COMPLETED else None,
                ttl=float(item.get("TTLEpochTimestamp", {}).get("N", "0")),
                delivery=statuses_from(item),
            )

    def _scan(self, table: str) -> Iterator[dict[str, Any]]:
        start: dict[str, Any] | None = None
        while True:
            with translated("scan a table"):
                page = self._dynamodb.scan(
                    TableName=table, ConsistentRead=True, **({"ExclusiveStartKey": start} if start else {})
                )
            yield from page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if not start:
                return


def _player_row(item: dict[str, Any]) -> PlayerRow:
    player = player_from_item(item)
    lease = item.get("user_locked", {}).get("M", {})
    expiry = lease.get("expiration_epoch_timestamp", {}).get("N")
    return PlayerRow(
        phone=item["phone_number"]["S"],
        player=player,
        lease_id=lease["lock_uuid"]["S"] if "lock_uuid" in lease else None,
        lease_expires_at=float(expiry) if expiry is not None else None,
        budget=budget_from(item) if player is not None else None,
    )
