"""Number erasure: a number taken out of the outboxes that still hold it.

Two rewrites of a message record's outbox (messages.py has its format), kept apart from the
record's own life (claim, lease, deliveries) because each exists for one promise: a number that
opted out is not kept.

* `erase_pending_replies`: an opt-out erases the number from every outbox that may still hold it,
  found through the number's contact record (contacts.py lists the pending replies).
* `withhold_number` / `restore_number`: an opt-out confirmation's number leaves its outbox before
  it is sent, and comes back only if the send certainly failed for now.

`DynamoGameStore` delegates to this part (store.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.game_store.contacts import ContactRecords
from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import BATCH_GET_LIMIT
from serverless_rps.game_store.messages import (
    ERASED,
    MessageRecords,
    completed_record,
    sent_sids,
    sms_value,
)
from serverless_rps.game_store.tables import TableNames
from serverless_rps.ports import SENDING, CompletedRecord, OtherSends, OutboundSms

__all__ = ["NumberErasure"]


class NumberErasure:
    def __init__(
        self, dynamodb_client: Any, tables: TableNames, contacts: ContactRecords, messages: MessageRecords
    ) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables
        self._contacts = contacts
        self._messages = messages

    def withhold_number(self, key: str, index: int, phone: str, fate: str) -> bool:
        # An opt-out confirmation, before it is sent (fate `sending`) or when it is dropped: its
        # fate is recorded, so no redelivery sends it again, and its number and text leave the
        # outbox now, whatever happens next. The entry keeps the phone's contact id (a keyed hash,
        # never the number) so that the outbox's last delivery still takes the record off that
        # contact's pending replies, as for any recipient. False if the entry no longer holds the
        # number: a later opt-out of the phone erased it (`erase_pending_replies`).
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

    def erase_pending_replies(self, phone: str) -> None:
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
        for start in range(0, len(keys), BATCH_GET_LIMIT):
            for item in self._get_records(keys[start : start + BATCH_GET_LIMIT]):
                record = completed_record(item["messageId"]["S"], item)
                sids += sent_sids(record, self._contacts.contact_id)(contact)
                self._erase_from_outbox(record, phone)
        if keys:
            # What these records sent the number stays known to a look before re-sending.
            self._contacts.forget_pending(contact, keys, sids)

    def others_sending_to(self, phone: str, key: str) -> OtherSends | None:
        """What every record but `key` sent to `phone` (reconciliation.py): the SIDs they
        recorded, and the bodies of their replies to it not recorded yet (maybe sent). None when
        a pending record cannot be read: nothing then proves a message is not another's."""
        keys, recent = self._contacts.replies_to(phone)
        # An opt-out confirmation in flight is withheld: its entry holds the contact id and no text,
        # and its SMS cannot be taken for a reply the look looks for (never a confirmation: their
        # fate is recorded before they leave, processing.py), whose text differs.
        others = [other for other in keys if other != key]
        sids = set(recent)
        unrecorded: set[str] = set()
        found = 0
        for start in range(0, len(others), BATCH_GET_LIMIT):
            for item in self._get_records(others[start : start + BATCH_GET_LIMIT]):
                found += 1
                record = completed_record(item["messageId"]["S"], item)
                sids.update(record.delivered.values())
                unrecorded.update(
                    sms.body
                    for index, sms in enumerate(record.outbox)
                    if sms.to == phone and record.delivered.get(index) in (None, SENDING)
                )
        if found < len(others):
            return None
        return OtherSends(frozenset(sids), frozenset(unrecorded))

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

    def _erase_from_outbox(self, record: CompletedRecord, phone: str) -> None:
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
            dropped, more, others = self._messages.outbox_dropped(record, erased=phone)
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
                    Key={"messageId": {"S": record.key}},
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
            sids = sent_sids(record, self._contacts.contact_id)
            for contact in others:
                self._contacts.forget_pending(contact, [record.key], sids(contact))
