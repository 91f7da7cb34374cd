"""`DynamoGameStore`: `ports.GameStore` on DynamoDB, and the one transaction of a commit.

Every write is conditional; the conditions *are* the protocol (docs/protocol.md walks through
them with timelines). Each record's part owns its item format, its conditions and its items of
the commit (docs/protocol.md, "Table formats", has one chapter per record):

* messages.py    the idempotency record of one inbound SMS: claim, and completion in the commit
* outboxes.py    the same record after its commit: outbox lease, deliveries, erasure (`OutboxRecords`,
                 `ports.OutboxStore`: the outbox's store, built here beside this one)
* contacts.py    the contact record of a number (keyed hash): a stranger's budget, pending replies
* game_state.py  players and shared records: leases, lock-free reads, fenced writes
* nicknames.py   who owns a name
* items.py       the game-state rows' item formats; errors.py, the SDK's errors translated

This face assembles the commit: players and shared records (fenced), nicknames, contact records,
the completed claim, in one TransactWriteItems.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.game import Decision, NicknameHolder, Player, SharedRecord
from serverless_rps.game_store.contacts import ContactRecords, contact_changes
from serverless_rps.game_store.errors import cancellation_error, translated
from serverless_rps.game_store.game_state import GameStateRows
from serverless_rps.game_store.messages import MessageRecords
from serverless_rps.game_store.nicknames import NicknameRows
from serverless_rps.game_store.outboxes import OutboxRecords
from serverless_rps.game_store.tables import TableNames, TransactItem
from serverless_rps.ports import Claim, CompletedRecord, LockedPlayer, OutboundSms
from serverless_rps.reply_budget import ReplyBudget

__all__ = ["DynamoGameStore"]


class DynamoGameStore:
    def __init__(
        self,
        dynamodb_client: Any,
        tables: TableNames,
        *,
        lock_lease_seconds: float,
        in_progress_expiry_seconds: float,
        completed_record_seconds: float,
        contact_key: bytes,
        messages: type[MessageRecords] = MessageRecords,
        game_state: type[GameStateRows] = GameStateRows,
        outboxes: type[OutboxRecords] = OutboxRecords,
    ) -> None:
        """`messages`, `game_state` and `outboxes` name the parts' classes: the simulation swaps in
        broken variants of a part (tests/simulation/engines.py)."""
        self._dynamodb = dynamodb_client
        self._tables = tables
        self._lease = lock_lease_seconds
        self._contacts = ContactRecords(
            dynamodb_client,
            tables,
            contact_key=contact_key,
            completed_record_seconds=completed_record_seconds,
        )
        self._messages = messages(
            dynamodb_client,
            tables,
            lock_lease_seconds=lock_lease_seconds,
            in_progress_expiry_seconds=in_progress_expiry_seconds,
            completed_record_seconds=completed_record_seconds,
        )
        self._game_state = game_state(
            dynamodb_client, tables, self._contacts, lock_lease_seconds=lock_lease_seconds
        )
        self._nicknames = NicknameRows(dynamodb_client, tables)
        # The outbox's store (outbox.py's `Outbox` holds it): the same tables and contact records.
        self.outboxes = outboxes(
            dynamodb_client, tables, self._contacts, lock_lease_seconds=lock_lease_seconds
        )

    @property
    def client(self) -> Any:
        """The DynamoDB client: the operator's reads (admin/store_reads.py) share it."""
        return self._dynamodb

    @property
    def tables(self) -> TableNames:
        return self._tables

    def contact_id(self, phone: str) -> str:
        return self._contacts.contact_id(phone)

    # -- message records ----------------------------------------------------------------------

    def claim(self, key: str, attempt_id: str, now: float) -> Claim | CompletedRecord:
        return self._messages.claim(key, attempt_id, now)

    def abandon(self, claim: Claim) -> None:
        self._messages.abandon(claim)

    # -- game-state rows and nicknames -----------------------------------------------------------

    def nickname_holder(self, nickname: str) -> NicknameHolder | None:
        return self._nicknames.holder(nickname)

    def get_player(self, phone: str) -> Player | None:
        return self._game_state.get_player(phone)

    def get_players(self, phones: Sequence[str]) -> dict[str, Player]:
        return self._game_state.get_players(phones)

    def get_shared(self, keys: Sequence[str]) -> Mapping[str, SharedRecord]:
        return self._game_state.get_shared(keys)

    def lock(self, phone: str, lock_id: str, now: float, *, player_only: bool = False) -> LockedPlayer:
        return self._game_state.lock(phone, lock_id, now, player_only=player_only)

    def release(self, locked: LockedPlayer) -> None:
        self._game_state.release(locked)

    # -- the commit --------------------------------------------------------------------------

    def commit(
        self,
        claim: Claim,
        locked: Sequence[LockedPlayer],
        decision: Decision,
        outbox: Sequence[OutboundSms],
        budgets: Mapping[str, ReplyBudget],
        now: float,
    ) -> CompletedRecord:
        """One TransactWriteItems: players and shared records (releasing their leases), nicknames,
        contact records, the completed record.

        Every write to a locked row is fenced: it happens only if we still hold that row's lease
        and the lease has not expired. The idempotency record completes only if our claim is still
        ours. The request token makes an SDK retry of a commit whose response was lost succeed
        instead of failing its own conditions.
        """
        changes = contact_changes(locked, decision, outbox, budgets)
        transaction: list[TransactItem] = [
            *(self._game_state.write(held, decision, budgets, now) for held in locked),
            *self._nicknames.writes(locked, decision),
            *(
                self._contacts.write(phone, change, claim.key, now)
                for phone, change in sorted(changes.items())
            ),
            self._messages.completion(claim, outbox, now),
        ]
        items = [entry.request for entry in transaction]
        with translated("commit"):
            try:
                # A fresh token per commit request: botocore's own retries resend the same token,
                # so DynamoDB answers a retried, already-applied commit with success; a second
                # commit of the same attempt (after a StaleRead) must not reuse it.
                self._dynamodb.transact_write_items(TransactItems=items, ClientRequestToken=uuid.uuid4().hex)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                    raise
                raise cancellation_error(exc, transaction) from exc
        return CompletedRecord(claim.key, tuple(outbox), {}, now + self._lease)
