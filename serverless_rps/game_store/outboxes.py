"""Outbox records: a message record's life after its commit, the store's half of outbox.py.

The commit leaves the record COMPLETED with its replies in ``outbox`` (to, from, body) and the
committing attempt's ``outbox_lease`` (messages.py writes it). From then on only this part
writes the record:

* the one holder of the lease records each reply's fate in ``delivered.<index>`` (a SID,
  ``refused:<code>``, ``sending``, ``dropped:late`` or ``erased``); the last fate **drops the
  outbox**: numbers and bodies go, and ``outbox_size``, ``recipients`` and ``sent_to`` (contact
  ids: keyed hashes, never numbers) stay, so that a redelivery can still finish exactly;
* an opt-out erases the number from every outbox that still holds it (``erase_number``), and an
  opt-out confirmation's number leaves its outbox before it is sent (``withhold_number``);
* the look before re-sending reads what every other record sent a number (``others_sending_to``);
* an opt-out confirmation's fate, once known, goes to the opt-out's proof record (``settle_proof``,
  proofs.py), which the commit left ``pending``.

Dropping the outbox is written once, `_drop`, and returned as an `Update`; the three writes that
may drop it (the last delivery, `finish`, an erasure that leaves nothing to send) add it to their
own parts. Every drop is followed by taking the record off its recipients' pending replies
(contacts.py), which the next redelivery repeats if a death came in between.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.game_store.contacts import CONTACT_PREFIX, ContactRecords
from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import BATCH_GET_LIMIT, number
from serverless_rps.game_store.messages import COMPLETED, completed_record, lease_value, sms_value
from serverless_rps.game_store.proofs import ProofRecords
from serverless_rps.game_store.tables import TableNames, Update
from serverless_rps.opt_out_proof import Fate, ProofRef
from serverless_rps.ports import ERASED, SENDING, CompletedRecord, OtherSends, OutboundSms

__all__ = ["OUTBOX_LEASE_FREE", "OutboxRecords", "sids_sent_to"]

# The attempt that committed holds the outbox lease while it sends. A redelivery may send the
# missing replies only once that lease has expired, so two live attempts never send the same reply:
#
#   attempt A  --commit(lease A)--send 0--X (dies before sending 1)
#   attempt B        lease fails (A live) ...   lease succeeds (A expired) --send 1-->
OUTBOX_LEASE_FREE = "#status = :completed AND outbox_lease.expires_at < :now"


@dataclass(frozen=True)
class _Drop:
    """What a record keeps of its outbox once it is dropped: its size and, by outbox index, the
    contact id of each reply's recipient."""

    size: int
    sent_to: Mapping[int, str]

    @property
    def recipients(self) -> list[str]:
        return sorted(set(self.sent_to.values()))

    def update(self) -> Update:
        kept = Update(("outbox_size = :size",), ("outbox",), values={":size": number(self.size)})
        if not self.sent_to:
            return kept
        return kept + Update(
            ("recipients = :contacts", "sent_to = :sent_to"),
            values={
                ":contacts": {"SS": self.recipients},
                ":sent_to": {"M": {str(index): {"S": to} for index, to in self.sent_to.items()}},
            },
        )


class OutboxRecords:
    """`ports.OutboxStore` on DynamoDB."""

    def __init__(
        self,
        dynamodb_client: Any,
        tables: TableNames,
        contacts: ContactRecords,
        *,
        lock_lease_seconds: float,
        proofs: ProofRecords | None = None,
    ) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables
        self._contacts = contacts
        self._lease = lock_lease_seconds
        self._proofs = proofs

    # -- the outbox lease ----------------------------------------------------------------------

    def lease(self, record: CompletedRecord, attempt_id: str, now: float) -> CompletedRecord | None:
        # Taken on OUTBOX_LEASE_FREE. The record is read again in the request that takes the lease:
        # the copy read at claim time may predate deliveries the previous holder recorded before
        # letting go.
        with translated("lease the outbox"):
            try:
                response = self._dynamodb.update_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": {"S": record.key}},
                    UpdateExpression="SET outbox_lease = :lease",
                    ConditionExpression=OUTBOX_LEASE_FREE,
                    ExpressionAttributeNames={"#status": "status"},
                    ExpressionAttributeValues={
                        ":lease": lease_value(attempt_id, now + self._lease, now),
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

    def release(self, key: str, attempt_id: str) -> None:
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

    # -- deliveries and the drop ---------------------------------------------------------------

    def record_delivery(self, record: CompletedRecord, index: int, outcome: str) -> None:
        # Replies are sent in index order by the one holder of the outbox lease, so the last
        # undelivered index of its copy is normally the record's last reply, and recording it
        # also drops the outbox. An opt-out may have erased the other replies meanwhile: the
        # record as written says so.
        last = index == record.undelivered()[-1]
        update = Update(
            ("delivered.#index = :outcome",),
            names={"#index": str(index)},
            values={":outcome": {"S": outcome}},
        )
        if last:
            update += self._drop(record).update()
        with translated("record a delivery"):
            response = self._dynamodb.update_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": record.key}},
                ConditionExpression="attribute_exists(messageId)",
                ReturnValues="ALL_NEW",
                **update.request(),
            )
        written = completed_record(record.key, response["Attributes"])
        if last or (written.outbox and not written.undelivered()):
            # The record as written says where each reply went: in its outbox, or in the `sent_to`
            # this write made from our copy of it when it dropped the outbox.
            self.finish(written)

    def finish(self, record: CompletedRecord) -> None:
        """For a record with nothing left to send: drop its outbox if it still has one, and take
        it off its recipients' pending replies. Idempotent: a redelivery finishes what a dead
        attempt did not."""
        recipients = record.recipients
        if record.outbox:
            drop = self._drop(record)
            with translated("drop a sent outbox"):
                try:
                    self._dynamodb.update_item(
                        TableName=self._tables.idempotency,
                        Key={"messageId": {"S": record.key}},
                        ConditionExpression="attribute_exists(outbox)",
                        **drop.update().request(),
                    )
                except ClientError as exc:
                    if not is_condition_failure(exc):
                        raise
            recipients = tuple(drop.recipients)
        self._forget(record, recipients)

    def _drop(self, record: CompletedRecord, erased: str | None = None) -> _Drop:
        """The outbox dropped, its recipients kept as contact ids but for an `erased` phone."""
        sent_to = _contacts_of(record.outbox, self._contacts.contact_id)
        if erased is not None:
            sent_to = {index: to for index, to in sent_to.items() if to != self._contacts.contact_id(erased)}
        return _Drop(len(record.outbox), sent_to)

    def _forget(self, record: CompletedRecord, contacts: Sequence[str]) -> None:
        """Take a record with nothing left to send off its recipients' pending replies, keeping
        the SIDs it sent each (what a look before re-sending excludes)."""
        for contact in contacts:
            self._contacts.forget_pending(
                contact, [record.key], sids_sent_to(record, contact, self._contacts.contact_id)
            )

    # -- numbers out of outboxes ---------------------------------------------------------------

    def withhold_number(self, key: str, index: int, phone: str, fate: str) -> bool:
        # An opt-out confirmation, before it is sent (fate `sending`) or when it is dropped: its
        # fate is recorded, so no redelivery sends it again, and its number and text leave the
        # outbox now, whatever happens next. The entry keeps the phone's contact id (a keyed hash,
        # never the number) so that the outbox's last delivery still takes the record off that
        # contact's pending replies, as for any recipient. False if the entry no longer holds the
        # number: a later opt-out of the phone erased it (`erase_number`).
        entry = f"outbox[{index}]"
        with translated("withhold a number"):
            try:
                self._dynamodb.update_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": {"S": key}},
                    UpdateExpression=(
                        f"SET delivered.#index = :fate, {entry}.#to = :contact, {entry}.body = :erased"
                    ),
                    ConditionExpression=f"{entry}.#to = :phone",
                    ExpressionAttributeNames={"#index": str(index), "#to": "to"},
                    ExpressionAttributeValues={
                        ":fate": {"S": fate},
                        ":contact": {"S": self._contacts.contact_id(phone)},
                        ":erased": {"S": ERASED},
                        ":phone": {"S": phone},
                    },
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                return False
        return True

    def restore_number(self, key: str, index: int, sms: OutboundSms) -> None:
        """Undo `withhold_number` for a send that failed for now: the confirmation may go out later."""
        with translated("restore a withheld reply"):
            try:
                self._dynamodb.update_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": {"S": key}},
                    UpdateExpression=f"SET outbox[{index}] = :sms REMOVE delivered.#index",
                    ConditionExpression="delivered.#index = :sending",
                    ExpressionAttributeNames={"#index": str(index)},
                    ExpressionAttributeValues={":sms": sms_value(sms), ":sending": {"S": SENDING}},
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise

    def erase_number(self, phone: str) -> None:
        # Every commit that puts a reply to a number in an outbox also adds the record's key to
        # that number's contact record, in the same transaction; the last delivery takes it out.
        # So the contact record lists every outbox that may still hold the number (and perhaps a
        # few that no longer do: harmless). Each is rewritten without it, on the condition that
        # the entry still holds the number. A sender already holding the outbox lease may still
        # send to the number: the carrier refuses it (the phone opted out), and that refusal is
        # what gets recorded.
        keys = self._contacts.pending_replies(phone)
        contact = self._contacts.contact_id(phone)
        sids: list[str] = []
        for record in self._records(keys):
            sids += sids_sent_to(record, contact, self._contacts.contact_id)
            self._erase_from_outbox(record, phone)
        if keys:
            # What these records sent the number stays known to a look before re-sending.
            self._contacts.forget_pending(contact, keys, sids)

    def _erase_from_outbox(self, record: CompletedRecord, phone: str) -> None:
        mine = [index for index, sms in enumerate(record.outbox) if sms.to == phone]
        if not mine:
            return
        unsent = [index for index in mine if index not in record.delivered]
        erased = {":erased": {"S": ERASED}}
        update = Update(
            tuple(f"delivered.#i{index} = :erased" for index in unsent),
            names={"#to": "to", **{f"#i{index}": str(index) for index in unsent}},
            values={":phone": {"S": phone}, **(erased if unsent else {})},
        )
        # Nothing left to send once these are erased: drop the outbox, as the last delivery would.
        drop = self._drop(record, erased=phone) if set(record.undelivered()) <= set(mine) else None
        if drop is not None:
            update += drop.update()
        else:
            update += Update(
                tuple(f"outbox[{index}].#to = :erased, outbox[{index}].body = :erased" for index in mine),
                values=erased,
            )
        with translated("erase a number from an outbox"):
            try:
                self._dynamodb.update_item(
                    TableName=self._tables.idempotency,
                    Key={"messageId": {"S": record.key}},
                    ConditionExpression=" AND ".join(f"outbox[{index}].#to = :phone" for index in mine),
                    **update.request(),
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                # An entry of ours no longer holds the number. Entries change only all at once:
                # the last delivery drops the whole outbox, a concurrent erasure of this number
                # rewrites every one of them. Either way, none of them holds the number now.
                return
        if drop is not None:
            # What the last delivery would have done next (`finish`), for the other recipients.
            self._forget(record, drop.recipients)

    # -- an opt-out's proof ------------------------------------------------------------------------

    def settle_proof(self, ref: ProofRef, fate: Fate, now: float) -> None:
        # A stack that keeps no proof records has none to settle (a record committed while it did
        # keeps its reference: its proof record is there).
        if self._proofs is not None:
            self._proofs.settle(ref, fate, now)

    # -- what the other records sent a number --------------------------------------------------

    def others_sending_to(self, phone: str, key: str) -> OtherSends | None:
        """What every record but `key` sent to `phone` (outbox.py's look before re-sending): the
        SIDs they recorded, and the bodies of their replies to it not recorded yet (maybe sent).
        None when a pending record cannot be read: nothing then proves a message is not another's."""
        keys, recent = self._contacts.replies_to(phone)
        # An opt-out confirmation in flight is withheld: its entry holds the contact id and no text,
        # and its SMS cannot be taken for a reply the look looks for (never a confirmation: their
        # fate is recorded before they leave, outbox.py), whose text differs.
        others = [other for other in keys if other != key]
        records = self._records(others)
        if len(records) < len(others):
            return None
        sids = set(recent)
        unrecorded: set[str] = set()
        for record in records:
            sids.update(record.delivered.values())
            unrecorded.update(
                sms.body
                for index, sms in enumerate(record.outbox)
                if sms.to == phone and record.delivered.get(index) in (None, SENDING)
            )
        return OtherSends(frozenset(sids), frozenset(unrecorded))

    def _records(self, keys: Sequence[str]) -> list[CompletedRecord]:
        """The message records under `keys` that exist, read consistently, a hundred at a time."""
        found: list[CompletedRecord] = []
        for start in range(0, len(keys), BATCH_GET_LIMIT):
            request: list[dict[str, Any]] = [
                {"messageId": {"S": key}} for key in keys[start : start + BATCH_GET_LIMIT]
            ]
            with translated("read records"):
                while request:
                    response = self._dynamodb.batch_get_item(
                        RequestItems={self._tables.idempotency: {"Keys": request, "ConsistentRead": True}}
                    )
                    # Both maps are always in the answer; a table is missing from one when it has
                    # nothing there (every key held back, or none).
                    items = response["Responses"].get(self._tables.idempotency, [])
                    found += [completed_record(item["messageId"]["S"], item) for item in items]
                    unprocessed = response["UnprocessedKeys"].get(self._tables.idempotency)
                    request = unprocessed["Keys"] if unprocessed else []
        return found


def sids_sent_to(record: CompletedRecord, contact: str, contact_id: Callable[[str], str]) -> list[str]:
    """The SIDs `record` sent to a contact (by contact id): exactly, from the outbox while the
    record has it and from `sent_to` once it is dropped. A record dropped without `sent_to` (an
    older item) gives every SID of it to every contact: a superset, never fewer."""
    delivered = {index: sid for index, sid in record.delivered.items() if sid.startswith("SM")}
    sent_to = _contacts_of(record.outbox, contact_id) if record.outbox else record.sent_to
    if not record.outbox and not sent_to:
        return sorted(delivered.values())
    return [sid for index, sid in delivered.items() if sent_to.get(index) == contact]


def _contacts_of(outbox: Sequence[OutboundSms], contact_id: Callable[[str], str]) -> dict[int, str]:
    """Outbox index -> its recipient's contact id; an erased entry has none. A withheld number's
    entry holds its contact id instead (`withhold_number`)."""
    return {
        index: sms.to if sms.to.startswith(CONTACT_PREFIX) else contact_id(sms.to)
        for index, sms in enumerate(outbox)
        if sms.to and sms.to != ERASED
    }
