"""The DynamoDB adapter: idempotency records, player leases, nicknames and the atomic commit.

Every write here is conditional. The conditions *are* the protocol; docs/protocol.md walks
through them with timelines. Table formats (kept from the original SRPS, extended):

* GameState, key ``phone_number``: ``player_id``, ``nickname``, ``display_name``, ``games``,
  ``challenges``, ``wins``, ``losses``, ``ties``, ``streak``, ``last_opponent`` (nickname and
  player id, no phone) and, while locked,
  ``user_locked = {lock_uuid, expiration_epoch_timestamp}``.
* Nickname, key ``nickname`` (the name's look-alike skeleton): ``display_name``, ``phone_number``.
* Idempotency, key ``messageId`` (the inbound SMS id): ``status``, ``attempt_id``,
  ``in_progress_expiration``, ``TTLEpochTimestamp`` (DynamoDB TTL), and once completed
  ``outbox``, ``delivered``, ``outbox_lease``; once every reply is delivered or refused, the
  ``outbox`` (numbers and bodies) is dropped and ``outbox_size`` kept.
* Contact records, in the idempotency table under ``messageId = contact#<keyed hash of the
  number>``: ``reply_budget`` (for a phone with no player record), ``pending_replies`` (the keys of
  records whose outbox still holds a reply to the number) and ``TTLEpochTimestamp``. The number
  itself is never stored there.

Player records carry ``reply_budget = {level, updated_at, notified}`` too.

Shared records sit in GameState beside the players, under keys no phone can have (they start
with ``~``, sorting after every number): ``~leaderboard`` holds ``rankings`` (player id, nickname,
wins, losses, since; no phone); ``~lobby`` holds at most one ``waiting`` stranger (phone, player
id, nickname, move, expiry: removed by that player's STOP). They are locked, fenced and released
like a player, created by the first lock, and never deleted.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from serverless_rps.exceptions import (
    ClaimHeldElsewhere,
    LockContended,
    StaleRead,
)
from serverless_rps.game import (
    Decision,
    Player,
    SharedRecord,
    is_shared_key,
)
from serverless_rps.game_store.errors import is_condition_failure, raise_for_cancellation, translated
from serverless_rps.game_store.items import (
    BATCH_GET_LIMIT,
    budget_from,
    budget_value,
    completed_record,
    lease_value,
    lock_value,
    number,
    player_from_item,
    player_to_item,
    shared_from_item,
    shared_to_item,
    sms_value,
)
from serverless_rps.observability import logger, mask_phone
from serverless_rps.ports import Claim, CompletedRecord, LockedPlayer, OutboundSms
from serverless_rps.reply_budget import ReplyBudget

__all__ = ["DynamoGameStore", "TableNames"]

IN_PROGRESS = "IN_PROGRESS"
COMPLETED = "COMPLETED"
CONTACT_PREFIX = "contact#"
# What an erased reply's number and body become, and how its fate is recorded: never sent.
ERASED = "erased"


class TableNames:
    def __init__(self, game_state: str, nickname: str, idempotency: str) -> None:
        self.game_state = game_state
        self.nickname = nickname
        self.idempotency = idempotency


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
    ) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables
        self._lease = lock_lease_seconds
        self._in_progress_expiry = in_progress_expiry_seconds
        self._completed_lifetime = completed_record_seconds
        self._contact_key = contact_key

    @property
    def client(self) -> Any:
        """The DynamoDB client: the operator's reads (admin/store_reads.py) share it."""
        return self._dynamodb

    @property
    def tables(self) -> TableNames:
        return self._tables

    def contact_id(self, phone: str) -> str:
        """The contact record's key: a keyed hash, so the table never holds the number itself."""
        digest = hmac.new(self._contact_key, phone.encode(), hashlib.sha256).hexdigest()
        return CONTACT_PREFIX + digest

    # -- idempotency -------------------------------------------------------------------------

    def claim(self, key: str, attempt_id: str, now: float) -> Claim | CompletedRecord:
        # A claim may be taken if nobody has it, or if an in-progress claim has expired:
        #
        #   attempt A  |--claim--...process...--X (dies: no finally, record stays IN_PROGRESS)
        #   attempt B             claim fails (A live)        claim succeeds (A expired) --commit-->
        #              0                                  in_progress_expiration
        #
        # A COMPLETED record is never overwritten: its message's effect has happened.
        expiry = now + self._in_progress_expiry
        with translated("claim the message"):
            try:
                self._dynamodb.put_item(
                    TableName=self._tables.idempotency,
                    Item={
                        "messageId": {"S": key},
                        "status": {"S": IN_PROGRESS},
                        "attempt_id": {"S": attempt_id},
                        "in_progress_expiration": number(expiry),
                        "TTLEpochTimestamp": number(int(now + self._completed_lifetime)),
                    },
                    ConditionExpression=(
                        "attribute_not_exists(messageId) OR "
                        "(#status = :in_progress AND in_progress_expiration < :now)"
                    ),
                    ExpressionAttributeNames={"#status": "status"},
                    ExpressionAttributeValues={":in_progress": {"S": IN_PROGRESS}, ":now": number(now)},
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                existing: dict[str, Any] | None = exc.response.get("Item")  # type: ignore[assignment]
                existing = existing or self._get_idempotency_item(key)
                if existing is None:  # deleted in between (abandoned): let the retry claim it
                    raise ClaimHeldElsewhere("claim vanished while checking it", retry_after=0) from exc
                if existing["status"]["S"] == COMPLETED:
                    return completed_record(key, existing)
                remaining = float(existing["in_progress_expiration"]["N"]) - now
                raise ClaimHeldElsewhere("another attempt is processing this message", remaining) from exc
        return Claim(key, attempt_id)

    def abandon(self, claim: Claim) -> None:
        with translated("abandon the claim"):
            try:
                self._dynamodb.delete_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": {"S": claim.key}},
                    ConditionExpression="attempt_id = :me AND #status = :in_progress",
                    ExpressionAttributeNames={"#status": "status"},
                    ExpressionAttributeValues={
                        ":me": {"S": claim.attempt_id},
                        ":in_progress": {"S": IN_PROGRESS},
                    },
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                # Not ours any more (taken over) or completed after all: nothing to give up.

    def lease_outbox(self, record: CompletedRecord, attempt_id: str, now: float) -> CompletedRecord | None:
        # The attempt that committed holds the outbox lease while it sends. A redelivery may send
        # the missing replies only once that lease has expired, so two live attempts never send
        # the same reply:
        #
        #   attempt A  --commit(lease A)--send 0--X (dies before sending 1)
        #   attempt B        lease fails (A live) ...   lease succeeds (A expired) --send 1-->
        #
        # The record is read again in the request that takes the lease: the copy read at claim
        # time may predate deliveries that the previous holder recorded before letting go.
        with translated("lease the outbox"):
            try:
                response = self._dynamodb.update_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": {"S": record.key}},
                    UpdateExpression="SET outbox_lease = :lease",
                    ConditionExpression="#status = :completed AND outbox_lease.expires_at < :now",
                    ExpressionAttributeNames={"#status": "status"},
                    ExpressionAttributeValues={
                        ":lease": lease_value(attempt_id, now + self._lease),
                        ":completed": {"S": COMPLETED},
                        ":now": number(now),
                    },
                    ReturnValues="ALL_NEW",
                )
            except ClientError as exc:
                if is_condition_failure(exc):
                    return None
                raise
        return completed_record(record.key, response["Attributes"])

    def release_outbox(self, key: str, attempt_id: str) -> None:
        with translated("release the outbox"):
            try:
                self._dynamodb.update_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": {"S": key}},
                    UpdateExpression="SET outbox_lease.expires_at = :expired",
                    ConditionExpression="outbox_lease.#owner = :me",
                    ExpressionAttributeNames={"#owner": "owner"},
                    ExpressionAttributeValues={":me": {"S": attempt_id}, ":expired": number(0)},
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise

    def record_delivery(self, record: CompletedRecord, index: int, outcome: str) -> None:
        # Replies are sent in index order by the one holder of the outbox lease, so the last
        # undelivered index of its copy is normally the record's last reply, and recording it
        # also drops the outbox: what a redelivery needs is `delivered` (all there), `outbox_size`
        # and `recipients` (the recipients' contact ids, keyed hashes), not numbers and bodies.
        # An opt-out may have erased the other replies meanwhile: the record as written says so.
        last = index == record.undelivered()[-1]
        sets, values = ["delivered.#index = :outcome"], {":outcome": {"S": outcome}}
        if last:
            dropped, more, _ = self._outbox_dropped(record)
            sets, values = sets + dropped, {**values, **more}
        with translated("record a delivery"):
            response = self._dynamodb.update_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": record.key}},
                UpdateExpression="SET " + ", ".join(sets) + (" REMOVE outbox" if last else ""),
                ConditionExpression="attribute_exists(messageId)",
                ExpressionAttributeNames={"#index": str(index)},
                ExpressionAttributeValues=values,
                ReturnValues="ALL_NEW",
            )
        written = completed_record(record.key, response["Attributes"])
        if last or (written.outbox and not written.undelivered()):
            self.finish(written)

    def finish(self, record: CompletedRecord) -> None:
        """For a record with nothing left to send: drop its outbox if it still has one, and take
        it off its recipients' pending replies. Idempotent: a redelivery finishes what a dead
        attempt did not."""
        if record.outbox:
            sets, values, _ = self._outbox_dropped(record)
            with translated("drop a sent outbox"):
                try:
                    self._dynamodb.update_item(
                        TableName=self._tables.idempotency,
                        Key={"messageId": {"S": record.key}},
                        UpdateExpression="SET " + ", ".join(sets) + " REMOVE outbox",
                        ConditionExpression="attribute_exists(outbox)",
                        ExpressionAttributeValues=values,
                    )
                except ClientError as exc:
                    if not is_condition_failure(exc):
                        raise
            record = replace(record, recipients=tuple(self._recipient_contacts(record)))
        for contact in record.recipients:
            self._forget_pending(contact, [record.key])

    def _outbox_dropped(
        self, record: CompletedRecord, erased: str | None = None
    ) -> tuple[list[str], dict[str, Any], list[str]]:
        """What a record keeps of its outbox once it is dropped: its size and the contact ids
        (keyed hashes) of its recipients, but for an `erased` phone, so that a redelivery can
        still `finish`. Returns the SET clauses, their values and those contact ids."""
        contacts = self._recipient_contacts(record)
        if erased is not None:
            contacts = [contact for contact in contacts if contact != self.contact_id(erased)]
        sets = ["outbox_size = :size", *(["recipients = :contacts"] if contacts else [])]
        values: dict[str, Any] = {":size": number(len(record.outbox))}
        if contacts:
            values[":contacts"] = {"SS": contacts}
        return sets, values, contacts

    def _recipient_contacts(self, record: CompletedRecord) -> list[str]:
        return sorted({self.contact_id(sms.to) for sms in record.outbox if sms.to and sms.to != ERASED})

    def _forget_pending(self, contact: str, keys: Sequence[str]) -> None:
        """Drop records from a contact's pending replies. Best effort: a key left behind names a
        record with nothing left to erase, and goes with the contact record's expiry."""
        try:
            self._dynamodb.update_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": contact}},
                UpdateExpression="DELETE pending_replies :keys",
                ConditionExpression="attribute_exists(messageId)",
                ExpressionAttributeValues={":keys": {"SS": list(keys)}},
            )
        except ClientError as exc:
            if not is_condition_failure(exc):
                logger.warning("could not update a contact's pending replies", extra={"error": repr(exc)})
        except BotoCoreError as exc:
            logger.warning("could not update a contact's pending replies", extra={"error": repr(exc)})

    def erase_pending_replies(self, phone: str) -> None:
        # Every commit that puts a reply to a number in an outbox also adds the record's key to
        # that number's contact record, in the same transaction; the last delivery takes it out.
        # So the contact record lists every outbox that may still hold the number (and perhaps a
        # few that no longer do: harmless). Each is rewritten without it, on the condition that
        # the entry still holds the number. A sender already holding the outbox lease may still
        # send to the number: the carrier refuses it (the phone opted out), and that refusal is
        # what gets recorded.
        with translated("read a contact"):
            response = self._dynamodb.get_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": self.contact_id(phone)}},
                ProjectionExpression="pending_replies",
                ConsistentRead=True,
            )
        keys = sorted(response.get("Item", {}).get("pending_replies", {}).get("SS", []))
        for start in range(0, len(keys), BATCH_GET_LIMIT):
            for item in self._get_records(keys[start : start + BATCH_GET_LIMIT]):
                self._erase_from_outbox(item, phone)
        if keys:
            self._forget_pending(self.contact_id(phone), keys)

    def _get_records(self, keys: Sequence[str]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        request: list[dict[str, Any]] = [{"messageId": {"S": key}} for key in keys]
        with translated("read records"):
            while request:
                response = self._dynamodb.batch_get_item(
                    RequestItems={self._tables.idempotency: {"Keys": request, "ConsistentRead": True}}
                )
                # Both maps are always in the answer; a table is missing from one when it has nothing
                # there (every key held back, or none).
                found.extend(response["Responses"].get(self._tables.idempotency, []))
                unprocessed = response["UnprocessedKeys"].get(self._tables.idempotency)
                request = unprocessed["Keys"] if unprocessed else []
        return found

    def _erase_from_outbox(self, item: dict[str, Any], phone: str) -> None:
        record = completed_record(item["messageId"]["S"], item)
        mine = [index for index, sms in enumerate(record.outbox) if sms.to == phone]
        if not mine:
            return
        unsent = [index for index in mine if index not in record.delivered]
        names = {"#to": "to", **{f"#i{index}": str(index) for index in unsent}}
        values: dict[str, Any] = {":phone": {"S": phone}}
        sets = [f"delivered.#i{index} = :erased" for index in unsent]
        # Nothing left to send once these are erased: drop the outbox, as the last delivery would.
        drop = set(record.undelivered()) <= set(mine)
        if drop:
            dropped, more, others = self._outbox_dropped(record, erased=phone)
            values.update(more)
            expression = "SET " + ", ".join(sets + dropped) + " REMOVE outbox"
        else:
            sets += [f"outbox[{index}].#to = :erased, outbox[{index}].body = :erased" for index in mine]
            expression = "SET " + ", ".join(sets)
        if sets:
            values[":erased"] = {"S": ERASED}
        with translated("erase a number from an outbox"):
            try:
                self._dynamodb.update_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": item["messageId"]},
                    UpdateExpression=expression,
                    ConditionExpression=" AND ".join(f"outbox[{index}].#to = :phone" for index in mine),
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values,
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                # An entry of ours no longer holds the number. Entries change only all at once:
                # the last delivery drops the whole outbox, a concurrent erasure of this number
                # rewrites every one of them. Either way, none of them holds the number now.
                return
        if drop:
            # What the last delivery would have done next (`finish`), for the other recipients.
            for contact in others:
                self._forget_pending(contact, [record.key])

    def _get_idempotency_item(self, key: str) -> dict[str, Any] | None:
        response = self._dynamodb.get_item(
            TableName=self._tables.idempotency, Key={"messageId": {"S": key}}, ConsistentRead=True
        )
        item: dict[str, Any] | None = response.get("Item")
        return item

    # -- reads without locks -----------------------------------------------------------------

    def nickname_owner(self, nickname: str) -> str | None:
        with translated("look up a nickname"):
            response = self._dynamodb.get_item(
                TableName=self._tables.nickname, Key={"nickname": {"S": nickname}}, ConsistentRead=True
            )
        item = response.get("Item")
        return str(item["phone_number"]["S"]) if item else None

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

    def get_shared(self, key: str) -> SharedRecord:
        with translated("read a shared record"):
            response = self._dynamodb.get_item(
                TableName=self._tables.game_state, Key={"phone_number": {"S": key}}, ConsistentRead=True
            )
        return shared_from_item(key, response.get("Item", {}))

    # -- leases ------------------------------------------------------------------------------

    def lock(self, phone: str, lock_id: str, now: float, *, player_only: bool = False) -> LockedPlayer:
        # The lease is taken and the record read in one request. An expired lease is taken over:
        #
        #   attempt A  --lock(expires T)--...frozen or dead...             commit fails (fenced)
        #   attempt B            lock fails (A live)   lock succeeds (T passed) --commit-->
        #                                           T
        #
        # Locking a phone with no record creates a bare row holding only the lock. Only the sender
        # may do that (its own redelivery locks it again and cleans up); anyone else is locked
        # `player_only`, so a dead attempt never strands a row with someone else's number in it.
        expires_at = now + self._lease
        free = "(attribute_not_exists(user_locked) OR user_locked.expiration_epoch_timestamp < :now)"
        with translated("lock a player"):
            try:
                response = self._dynamodb.update_item(
                    TableName=self._tables.game_state,
                    Key={"phone_number": {"S": phone}},
                    UpdateExpression="SET user_locked = :lock",
                    ConditionExpression=f"attribute_exists(player_id) AND {free}" if player_only else free,
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
        # A phone with no player record keeps its reply budget on its contact record.
        budget = budget_from(item) if player is not None else self._contact_budget(phone)
        return LockedPlayer(phone, lock_id, expires_at, player, budget)

    def _contact_budget(self, phone: str) -> ReplyBudget | None:
        with translated("read a contact"):
            response = self._dynamodb.get_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": self.contact_id(phone)}},
                ProjectionExpression="reply_budget",
                ConsistentRead=True,
            )
        return budget_from(response.get("Item", {}))

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
        """One TransactWriteItems: players (releasing their leases), nicknames, contact records,
        the completed record.

        Every player write is fenced: it happens only if we still hold that player's lease and
        the lease has not expired. The idempotency record completes only if our claim is still
        ours. The request token makes an SDK retry of a commit whose response was lost succeed
        instead of failing its own conditions.
        """
        items: list[dict[str, Any]] = []
        kinds: list[str] = []
        contacts: dict[str, _ContactChange] = {}
        for held in locked:
            if held.shared is not None:
                items.append(self._shared_write(held, decision.shared.get(held.phone, held.shared), now))
                kinds.append("lock")
                continue
            after = decision.players.get(held.phone, held.player)
            budget = budgets.get(held.phone, held.budget)
            items.append(self._player_write(held, after, budget, now))
            kinds.append("lock")
            if after is None and budget is not None and (held.player is not None or held.phone in budgets):
                # No player record (a stranger, or one opting out): the budget lives on as a contact.
                contacts.setdefault(held.phone, _ContactChange()).budget = budget
            elif after is not None and held.player is None and held.budget is not None:
                contacts.setdefault(held.phone, _ContactChange()).budget_cleared = True  # the record has it
        for sms in outbox:
            contacts.setdefault(sms.to, _ContactChange()).pending = True
        if decision.claim_nickname is not None:
            items.append(self._nickname_claim(decision.claim_nickname))
            kinds.append("nickname")
        if decision.release_nickname is not None:
            items.append(
                self._nickname_release(decision.release_nickname, _nickname_holder(locked, decision))
            )
            kinds.append("nickname")
        for phone, change in sorted(contacts.items()):
            items.append(self._contact_write(phone, change, claim.key, now))
            kinds.append("contact")
        items.append(self._completion(claim, outbox, now))
        kinds.append("claim")

        with translated("commit"):
            try:
                # A fresh token per commit request: botocore's own retries resend the same token,
                # so DynamoDB answers a retried, already-applied commit with success; a second
                # commit of the same attempt (after a StaleRead) must not reuse it.
                self._dynamodb.transact_write_items(TransactItems=items, ClientRequestToken=uuid.uuid4().hex)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                    raise
                raise_for_cancellation(exc, kinds)
        return CompletedRecord(claim.key, tuple(outbox), {}, now + self._lease)

    def _player_write(
        self, held: LockedPlayer, after: Player | None, budget: ReplyBudget | None, now: float
    ) -> dict[str, Any]:
        fence = {
            "TableName": self._tables.game_state,
            "ConditionExpression": (
                "user_locked.lock_uuid = :me AND user_locked.expiration_epoch_timestamp > :now"
            ),
            "ExpressionAttributeValues": {":me": {"S": held.lock_id}, ":now": number(now)},
        }
        if after is None:
            return {"Delete": {**fence, "Key": {"phone_number": {"S": held.phone}}}}
        # A Put without `user_locked` writes the new state and releases the lease in one step.
        item = player_to_item(after)
        if budget is not None:
            item["reply_budget"] = budget_value(budget)
        return {"Put": {**fence, "Item": item}}

    def _shared_write(self, held: LockedPlayer, after: SharedRecord, now: float) -> dict[str, Any]:
        # Fenced like a player; a Put without `user_locked` releases the lease.
        return {
            "Put": {
                "TableName": self._tables.game_state,
                "Item": shared_to_item(held.phone, after),
                "ConditionExpression": (
                    "user_locked.lock_uuid = :me AND user_locked.expiration_epoch_timestamp > :now"
                ),
                "ExpressionAttributeValues": {":me": {"S": held.lock_id}, ":now": number(now)},
            }
        }

    def _contact_write(self, phone: str, change: _ContactChange, key: str, now: float) -> dict[str, Any]:
        # An Update, not a Put: the last delivery of another message may be taking its key out of
        # `pending_replies` at the same moment, and ADD/DELETE on a set do not overwrite each other.
        actions = ["SET TTLEpochTimestamp = :ttl"]
        values: dict[str, Any] = {":ttl": number(int(now + self._completed_lifetime))}
        removes = []
        if change.budget is not None:
            actions.append("reply_budget = :budget")
            values[":budget"] = budget_value(change.budget)
        elif change.budget_cleared:
            removes.append("reply_budget")
        expression = ", ".join(actions)
        if change.pending:
            expression += " ADD pending_replies :key"
            values[":key"] = {"SS": [key]}
        if removes:
            expression += " REMOVE " + ", ".join(removes)
        return {
            "Update": {
                "TableName": self._tables.idempotency,
                "Key": {"messageId": {"S": self.contact_id(phone)}},
                "UpdateExpression": expression,
                "ExpressionAttributeValues": values,
            }
        }

    def _nickname_claim(self, player: Player) -> dict[str, Any]:
        # Uniqueness ignoring case and look-alikes: the key is the name's skeleton; the row may be rewritten
        # only by its owner (to change the display case).
        return {
            "Put": {
                "TableName": self._tables.nickname,
                "Item": {
                    "nickname": {"S": player.nickname},
                    "display_name": {"S": player.display_name},
                    "phone_number": {"S": player.phone},
                },
                "ConditionExpression": "attribute_not_exists(nickname) OR phone_number = :me",
                "ExpressionAttributeValues": {":me": {"S": player.phone}},
            }
        }

    def _nickname_release(self, nickname: str, owner: str) -> dict[str, Any]:
        return {
            "Delete": {
                "TableName": self._tables.nickname,
                "Key": {"nickname": {"S": nickname}},
                "ConditionExpression": "phone_number = :me",
                "ExpressionAttributeValues": {":me": {"S": owner}},
            }
        }

    def _completion(self, claim: Claim, outbox: Sequence[OutboundSms], now: float) -> dict[str, Any]:
        return {
            "Put": {
                "TableName": self._tables.idempotency,
                "Item": {
                    "messageId": {"S": claim.key},
                    "status": {"S": COMPLETED},
                    "attempt_id": {"S": claim.attempt_id},
                    "completed_at": number(now),
                    "TTLEpochTimestamp": number(int(now + self._completed_lifetime)),
                    "outbox": {"L": [sms_value(sms) for sms in outbox]},
                    "delivered": {"M": {}},
                    "outbox_lease": lease_value(claim.attempt_id, now + self._lease),
                },
                "ConditionExpression": "attempt_id = :me AND #status = :in_progress",
                "ExpressionAttributeNames": {"#status": "status"},
                "ExpressionAttributeValues": {
                    ":me": {"S": claim.attempt_id},
                    ":in_progress": {"S": IN_PROGRESS},
                },
            }
        }


@dataclass
class _ContactChange:
    """What one commit changes on one contact record."""

    budget: ReplyBudget | None = None
    budget_cleared: bool = False
    pending: bool = False


def _nickname_holder(locked: Sequence[LockedPlayer], decision: Decision) -> str:
    """The phone giving up a nickname: the one locked player that held it."""
    for held in locked:
        if held.player is not None and held.player.nickname == decision.release_nickname:
            return held.phone
    raise ValueError("a nickname can be released only by its locked owner")
