"""Game-state rows: players and shared records, one table and one kind of lease.

Format (GameState table, key ``phone_number``): a player's ``player_id``, ``nickname``,
``display_name``, ``games``, ``challenges``, ``wins``, ``losses``, ``ties``, ``streak``,
``last_opponent`` (nickname and player id, no phone), ``reply_budget = {level, updated_at,
notified}`` and, while locked, ``user_locked = {lock_uuid, expiration_epoch_timestamp}``
(items.py writes them).

Shared records sit beside the players, under keys no phone can have (they start with ``~``, sorting
after every number), each split in shards (model.SHARDS): a leaderboard shard ``~leaderboard#07``
holds ``rankings`` (player id, nickname, wins, losses, since; no phone) of the players whose id
falls in it; a lobby shard ``~lobby#07`` holds at most one ``waiting`` stranger (phone, player id,
nickname, move, expiry: removed by that player's STOP) whose phone falls in it. They are locked,
fenced and released like a player, created by the first lock, and never deleted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.exceptions import LockContended, LockLost, StaleRead
from serverless_rps.game import Decision, Player, SharedRecord, is_shared_key
from serverless_rps.game_store.contacts import ContactRecords
from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import (
    BATCH_GET_LIMIT,
    budget_from,
    budget_value,
    lock_value,
    number,
    player_from_item,
    player_to_item,
    shared_from_item,
    shared_to_item,
)
from serverless_rps.game_store.tables import TableNames, TransactItem
from serverless_rps.observability import mask_phone
from serverless_rps.ports import LockedPlayer
from serverless_rps.reply_budget import ReplyBudget

__all__ = ["FENCE", "GameStateRows", "lease_lost"]

# A lease may be taken if nobody holds it, or if the holder's lease has expired:
#
#   attempt A  --lock(expires T)--...frozen or dead...             commit fails (fenced)
#   attempt B            lock fails (A live)   lock succeeds (T passed) --commit-->
#                                           T
LEASE_FREE = "(attribute_not_exists(user_locked) OR user_locked.expiration_epoch_timestamp < :now)"

# The fence on every write to a locked row (players and shared records alike): it happens only if
# this attempt still holds the lease *and* the lease has not run out. Checking the holder alone is
# not enough: a frozen attempt may wake after its lease expired, before anyone took the row over.
#
#   attempt A  --lock(expires T)--...frozen...                    wakes: commit refused (T passed)
#   attempt B                                   (nobody, or B's lock after T)
#                                             T
FENCE = "user_locked.lock_uuid = :me AND user_locked.expiration_epoch_timestamp > :now"


def lease_lost() -> LockLost:
    """What a refused fence means: the lease ran out or was taken over; the message comes back."""
    return LockLost("a lock lease expired or was taken over before the commit")


class GameStateRows:
    def __init__(
        self, dynamodb_client: Any, tables: TableNames, contacts: ContactRecords, *, lock_lease_seconds: float
    ) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables
        self._contacts = contacts
        self._lease = lock_lease_seconds

    # -- reads without locks -----------------------------------------------------------------

    def get_player(self, phone: str) -> Player | None:
        with translated("read a player"):
            response = self._dynamodb.get_item(
                TableName=self._tables.game_state, Key={"phone_number": {"S": phone}}, ConsistentRead=True
            )
        item = response.get("Item")
        return player_from_item(item) if item else None

    def get_players(self, phones: Sequence[str]) -> dict[str, Player]:
        players: dict[str, Player] = {}
        wanted = list(dict.fromkeys(phones))[:BATCH_GET_LIMIT]
        keys = [{"phone_number": {"S": phone}} for phone in wanted]
        with translated("read players"):
            while keys:
                response = self._dynamodb.batch_get_item(
                    RequestItems={self._tables.game_state: {"Keys": keys, "ConsistentRead": True}}
                )
                for item in response["Responses"].get(self._tables.game_state, []):
                    player = player_from_item(item)
                    if player is not None:
                        players[player.phone] = player
                unprocessed = response["UnprocessedKeys"].get(self._tables.game_state)
                keys = unprocessed["Keys"] if unprocessed else []
        return players

    def get_shared(self, keys: Sequence[str]) -> dict[str, SharedRecord]:
        """One consistent read of every shared record in `keys` (a leaderboard's or a lobby's
        shards, at most BATCH_GET_LIMIT); one never written reads as empty."""
        items: dict[str, dict[str, Any]] = {}
        request = [{"phone_number": {"S": key}} for key in dict.fromkeys(keys)]
        with translated("read shared records"):
            while request:
                response = self._dynamodb.batch_get_item(
                    RequestItems={self._tables.game_state: {"Keys": request, "ConsistentRead": True}}
                )
                for item in response["Responses"].get(self._tables.game_state, []):
                    items[item["phone_number"]["S"]] = item
                unprocessed = response["UnprocessedKeys"].get(self._tables.game_state)
                request = unprocessed["Keys"] if unprocessed else []
        return {key: shared_from_item(key, items.get(key, {})) for key in keys}

    # -- leases ------------------------------------------------------------------------------

    def lock(self, phone: str, lock_id: str, now: float, *, player_only: bool) -> LockedPlayer:
        # The lease is taken and the record read in one request; an expired lease is taken over
        # (LEASE_FREE). Locking a phone with no record creates a bare row holding only the lock.
        # Only the sender may do that (its own redelivery locks it again and cleans up); anyone
        # else is locked `player_only`, so a dead attempt never strands a row with someone else's
        # number in it.
        expires_at = now + self._lease
        with translated("lock a player"):
            try:
                response = self._dynamodb.update_item(
                    TableName=self._tables.game_state,
                    Key={"phone_number": {"S": phone}},
                    UpdateExpression="SET user_locked = :lock",
                    ConditionExpression=f"attribute_exists(player_id) AND {LEASE_FREE}"
                    if player_only
                    else LEASE_FREE,
                    ExpressionAttributeValues={
                        ":lock": lock_value(lock_id, expires_at),
                        ":now": number(now),
                    },
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                old: dict[str, Any] = exc.response.get("Item") or {}  # type: ignore[assignment]
                if player_only and "player_id" not in old:
                    raise StaleRead(f"player {mask_phone(phone)} is gone") from exc
                held = old.get("user_locked", {}).get("M", {})
                held_until = float(held.get("expiration_epoch_timestamp", {}).get("N", now))
                raise LockContended(f"player {mask_phone(phone)} is locked", held_until - now) from exc
        item = response["Attributes"]
        if is_shared_key(phone):
            return LockedPlayer(phone, lock_id, expires_at, None, None, shared_from_item(phone, item))
        player = player_from_item(item)
        if player is not None:
            return LockedPlayer(phone, lock_id, expires_at, player, budget_from(item))
        # A phone with no player record keeps its reply budget and its opt-in on its contact record.
        contact = self._contacts.read(phone)
        return LockedPlayer(phone, lock_id, expires_at, None, contact.budget, opted_in=contact.opted_in)

    def release(self, locked: LockedPlayer) -> None:
        """Give the lease back without changing the player (used only when nothing was committed)."""
        held = {":me": {"S": locked.lock_id}}
        with translated("release a lock"):
            try:
                if locked.player is None and not is_shared_key(locked.phone):
                    # The lock created this bare row; remove it rather than leave a stranger's row.
                    self._dynamodb.delete_item(
                        TableName=self._tables.game_state,
                        Key={"phone_number": {"S": locked.phone}},
                        ConditionExpression="user_locked.lock_uuid = :me AND attribute_not_exists(player_id)",
                        ExpressionAttributeValues=held,
                    )
                else:
                    self._dynamodb.update_item(
                        TableName=self._tables.game_state,
                        Key={"phone_number": {"S": locked.phone}},
                        UpdateExpression="REMOVE user_locked",
                        ConditionExpression="user_locked.lock_uuid = :me",
                        ExpressionAttributeValues=held,
                    )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                # Already taken over after expiry, or released by our own commit: nothing to do.

    # -- the commit's items --------------------------------------------------------------------

    def write(
        self, held: LockedPlayer, decision: Decision, budgets: Mapping[str, ReplyBudget], now: float
    ) -> TransactItem:
        """The commit's item for one locked row: its new state, fenced. A Put without
        `user_locked` writes the new state and releases the lease in one step."""
        if held.shared is not None:
            after = decision.shared.get(held.phone, held.shared)
            request = {"Put": {**self._fenced(held, now), "Item": shared_to_item(held.phone, after)}}
            return TransactItem(request, if_refused=lease_lost)
        player = decision.players.get(held.phone, held.player)
        budget = budgets.get(held.phone, held.budget)
        return TransactItem(self._player_write(held, player, budget, now), if_refused=lease_lost)

    def _player_write(
        self, held: LockedPlayer, after: Player | None, budget: ReplyBudget | None, now: float
    ) -> dict[str, Any]:
        if after is None:
            return {"Delete": {**self._fenced(held, now), "Key": {"phone_number": {"S": held.phone}}}}
        item = player_to_item(after)
        if budget is not None:
            item["reply_budget"] = budget_value(budget)
        return {"Put": {**self._fenced(held, now), "Item": item}}

    def _fenced(self, held: LockedPlayer, now: float) -> dict[str, Any]:
        """The table and the FENCE, for a write to a row this attempt holds the lease of."""
        return {
            "TableName": self._tables.game_state,
            "ConditionExpression": FENCE,
            "ExpressionAttributeValues": {":me": {"S": held.lock_id}, ":now": number(now)},
        }
