"""Message records: the idempotency record of one inbound SMS, and its outbox.

Format (idempotency table, key ``messageId``, the inbound SMS id): ``status``, ``attempt_id``,
``in_progress_expiration``, ``TTLEpochTimestamp`` (DynamoDB TTL), and once completed
``completed_at``, ``outbox`` (``to``, ``from``, ``body``), ``delivered`` (index -> outcome),
``delivery_status`` (index -> Twilio's status, written by delivery_status.py) and
``outbox_lease = {owner, started_at, expires_at}`` (the attempt sending, since when); once every
reply is delivered or refused, the ``outbox`` (numbers and bodies) is dropped and ``outbox_size``,
``recipients`` (contact ids) and ``sent_to`` (index -> contact id) are kept.

Every outbox that holds a number is indexed on that number's contact record (contacts.py): the
one coupling between the two records, and what lets an opt-out erase the number from outboxes
(erasure.py, which also withholds an opt-out confirmation's number).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.exceptions import ClaimHeldElsewhere, ClaimLost
from serverless_rps.game_store.contacts import CONTACT_PREFIX, ContactRecords
from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import number
from serverless_rps.game_store.tables import TableNames, TransactItem
from serverless_rps.ports import Claim, CompletedRecord, OutboundSms

__all__ = [
    "COMPLETED",
    "ERASED",
    "IN_PROGRESS",
    "MessageRecords",
    "claim_lost",
    "completed_record",
]

IN_PROGRESS = "IN_PROGRESS"
COMPLETED = "COMPLETED"
# What an erased reply's number and body become, and how its fate is recorded: never sent.
ERASED = "erased"

# A claim may be taken if nobody has it, or if an in-progress claim has expired:
#
#   attempt A  |--claim--...process...--X (dies: no finally, record stays IN_PROGRESS)
#   attempt B             claim fails (A live)        claim succeeds (A expired) --commit-->
#              0                                  in_progress_expiration
#
# A COMPLETED record is never overwritten: its message's effect has happened.
CLAIM_FREE = "attribute_not_exists(messageId) OR (#status = :in_progress AND in_progress_expiration < :now)"

# The claim is still ours: nobody took it over after it expired, and it is not completed. Both the
# commit (which completes it) and `abandon` (which gives it up) hold to it:
#
#   attempt A  |--claim--...frozen past in_progress_expiration...     wakes: commit refused
#   attempt B                              claim succeeds (A expired) --commit-->
CLAIM_STILL_OURS = "attempt_id = :me AND #status = :in_progress"

# The attempt that committed holds the outbox lease while it sends. A redelivery may send the
# missing replies only once that lease has expired, so two live attempts never send the same reply:
#
#   attempt A  --commit(lease A)--send 0--X (dies before sending 1)
#   attempt B        lease fails (A live) ...   lease succeeds (A expired) --send 1-->
OUTBOX_LEASE_FREE = "#status = :completed AND outbox_lease.expires_at < :now"


def _still_ours(claim: Claim) -> dict[str, Any]:
    """CLAIM_STILL_OURS, with its names and values, for a request on `claim`'s record."""
    return {
        "ConditionExpression": CLAIM_STILL_OURS,
        "ExpressionAttributeNames": {"#status": "status"},
        "ExpressionAttributeValues": {":me": {"S": claim.attempt_id}, ":in_progress": {"S": IN_PROGRESS}},
    }


def claim_lost() -> ClaimLost:
    """What a refused completion means: the claim expired and was taken over; the message comes back."""
    return ClaimLost("the claim was taken over before the commit")


class MessageRecords:
    def __init__(
        self,
        dynamodb_client: Any,
        tables: TableNames,
        contacts: ContactRecords,
        *,
        lock_lease_seconds: float,
        in_progress_expiry_seconds: float,
        completed_record_seconds: float,
    ) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables
        self._contacts = contacts
        self._lease = lock_lease_seconds
        self._in_progress_expiry = in_progress_expiry_seconds
        self._completed_lifetime = completed_record_seconds

    def claim(self, key: str, attempt_id: str, now: float) -> Claim | CompletedRecord:
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
                    ConditionExpression=CLAIM_FREE,
                    ExpressionAttributeNames={"#status": "status"},
                    ExpressionAttributeValues={":in_progress": {"S": IN_PROGRESS}, ":now": number(now)},
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                existing: dict[str, Any] | None = exc.response.get("Item")  # type: ignore[assignment]
                existing = existing or self._get_item(key)
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
                    **_still_ours(claim),
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                # Not ours any more (taken over) or completed after all: nothing to give up.

    def lease_outbox(self, record: CompletedRecord, attempt_id: str, now: float) -> CompletedRecord | None:
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
            dropped, more, _ = self.outbox_dropped(record)
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
            # The record as written says where each reply went: in its outbox, or in the `sent_to`
            # this write made from our copy of it when it dropped the outbox.
            self.finish(written)

    def finish(self, record: CompletedRecord) -> None:
        """For a record with nothing left to send: drop its outbox if it still has one, and take
        it off its recipients' pending replies. Idempotent: a redelivery finishes what a dead
        attempt did not."""
        # Which SID went to whom: from the outbox, or from its `sent_to` once it is dropped (the
        # death came between the drop and this update).
        sids = sent_sids(record, self._contacts.contact_id)
        if record.outbox:
            sets, values, _ = self.outbox_dropped(record)
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
            self._contacts.forget_pending(contact, [record.key], sids(contact))

    def outbox_dropped(
        self, record: CompletedRecord, erased: str | None = None
    ) -> tuple[list[str], dict[str, Any], list[str]]:
        """What a record keeps of its outbox once it is dropped: its size, the contact ids (keyed
        hashes) of its recipients and which reply went to which (`sent_to`), but for an `erased`
        phone, so that a redelivery can still `finish` exactly. Returns the SET clauses, their
        values and those contact ids."""
        sent_to = self._sent_to(record)
        if erased is not None:
            sent_to = {index: to for index, to in sent_to.items() if to != self._contacts.contact_id(erased)}
        contacts = sorted(set(sent_to.values()))
        sets = [
            "outbox_size = :size",
            *(["recipients = :contacts", "sent_to = :sent_to"] if contacts else []),
        ]
        values: dict[str, Any] = {":size": number(len(record.outbox))}
        if contacts:
            values[":contacts"] = {"SS": contacts}
            values[":sent_to"] = {"M": {str(index): {"S": to} for index, to in sent_to.items()}}
        return sets, values, contacts

    def _recipient_contacts(self, record: CompletedRecord) -> list[str]:
        return sorted(set(self._sent_to(record).values()))

    def _sent_to(self, record: CompletedRecord) -> dict[int, str]:
        return _contacts_of(record.outbox, self._contacts.contact_id)

    def _get_item(self, key: str) -> dict[str, Any] | None:
        response = self._dynamodb.get_item(
            TableName=self._tables.idempotency, Key={"messageId": {"S": key}}, ConsistentRead=True
        )
        item: dict[str, Any] | None = response.get("Item")
        return item

    def completion(self, claim: Claim, outbox: Sequence[OutboundSms], now: float) -> TransactItem:
        """The commit's item that completes the claim, with the outbox to send, leased to us."""
        request = {
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
                    # Filled in by Twilio's status callbacks (delivery_status.py).
                    "delivery_status": {"M": {}},
                    "outbox_lease": lease_value(claim.attempt_id, now + self._lease, now),
                },
                **_still_ours(claim),
            }
        }

        return TransactItem(request, if_refused=claim_lost)


# -- item formats of a message record ---------------------------------------------------------


def sent_sids(record: CompletedRecord, contact_id: Callable[[str], str]) -> Callable[[str], list[str]]:
    """The SIDs `record` sent to a contact, by contact id: exactly, from the outbox while the
    record has it and from `sent_to` once it is dropped. A record dropped without `sent_to` (an
    older item) gives every SID of it to every contact: a superset, never fewer."""
    delivered = {index: sid for index, sid in record.delivered.items() if sid.startswith("SM")}
    sent_to = _contacts_of(record.outbox, contact_id) if record.outbox else record.sent_to
    if not record.outbox and not sent_to:
        return lambda _contact: sorted(delivered.values())
    by_contact: dict[str, list[str]] = {}
    for index, sid in delivered.items():
        if index in sent_to:
            by_contact.setdefault(sent_to[index], []).append(sid)
    return lambda contact: by_contact.get(contact, [])


def _contacts_of(outbox: Sequence[OutboundSms], contact_id: Callable[[str], str]) -> dict[int, str]:
    """Outbox index -> its recipient's contact id; an erased entry has none. A withheld number's
    entry holds its contact id instead (erasure.py, `withhold_number`)."""
    return {
        index: sms.to if sms.to.startswith(CONTACT_PREFIX) else contact_id(sms.to)
        for index, sms in enumerate(outbox)
        if sms.to and sms.to != ERASED
    }


def lease_value(owner: str, expires_at: float, started_at: float) -> dict[str, Any]:
    # `started_at`: when this attempt began sending (processing's look before re-sending).
    return {"M": {"owner": {"S": owner}, "started_at": number(started_at), "expires_at": number(expires_at)}}


def sms_value(sms: OutboundSms) -> dict[str, Any]:
    value = {"to": {"S": sms.to}, "from": {"S": sms.from_}, "body": {"S": sms.body}}
    if sms.send_by is not None:
        value["send_by"] = number(sms.send_by)
    return {"M": value}


def sms_from(value: dict[str, Any]) -> OutboundSms:
    send_by = value.get("send_by")
    return OutboundSms(
        value["to"]["S"], value["from"]["S"], value["body"]["S"], float(send_by["N"]) if send_by else None
    )


def completed_record(key: str, item: dict[str, Any]) -> CompletedRecord:
    """A completed record from its item. The commit writes `completed_at`, `delivered` and
    `outbox_lease` (and always has); the outbox goes once it is sent, and what replaces it
    (`recipients`, `sent_to`) comes then, if anyone is left to name."""
    outbox = tuple(sms_from(entry["M"]) for entry in item.get("outbox", {}).get("L", []))
    delivered = {int(index): value["S"] for index, value in item["delivered"]["M"].items()}
    recipients = tuple(sorted(item.get("recipients", {}).get("SS", [])))
    sent_to = {int(index): value["S"] for index, value in item.get("sent_to", {}).get("M", {}).items()}
    return CompletedRecord(
        key,
        outbox,
        delivered,
        float(item["outbox_lease"]["M"]["expires_at"]["N"]),
        recipients,
        float(item["completed_at"]["N"]),
        sent_to,
    )
