"""Message records: the idempotency record of one inbound SMS, up to and including its commit.

Format (idempotency table, key ``messageId``, the inbound SMS id): ``status``, ``attempt_id``,
``in_progress_expiration``, ``TTLEpochTimestamp`` (DynamoDB TTL), and once completed
``completed_at``, ``outbox`` (``to``, ``from``, ``body``, and ``send_by`` for an opt-out
confirmation), ``delivered`` (index -> outcome), ``delivery_status`` (index -> Twilio's status,
written by delivery_status.py) and ``outbox_lease = {owner, started_at, expires_at}`` (the
attempt sending, since when); once every reply is delivered or refused, the ``outbox`` (numbers
and bodies) is dropped and ``outbox_size``, ``recipients`` (contact ids) and ``sent_to``
(index -> contact id) are kept. An opt-out whose confirmation is in the outbox also holds
``proof = {number, event, index}``: where its proof record is (proofs.py; a keyed hash, never the
number) and which reply is the confirmation whose fate the outbox settles there.

This part claims the record and completes it in the commit; after the commit, outboxes.py owns
it (the lease, deliveries, the drop, erasure). Both read it with `completed_record`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.exceptions import ClaimHeldElsewhere, ClaimLost
from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import number
from serverless_rps.game_store.tables import TableNames, TransactItem
from serverless_rps.opt_out_proof import ProofRef
from serverless_rps.ports import Claim, CompletedRecord, OutboundSms

__all__ = [
    "COMPLETED",
    "IN_PROGRESS",
    "MessageRecords",
    "claim_lost",
    "completed_record",
    "lease_value",
    "sms_value",
]

IN_PROGRESS = "IN_PROGRESS"
COMPLETED = "COMPLETED"

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
        *,
        lock_lease_seconds: float,
        in_progress_expiry_seconds: float,
        completed_record_seconds: float,
    ) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables
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

    def _get_item(self, key: str) -> dict[str, Any] | None:
        response = self._dynamodb.get_item(
            TableName=self._tables.idempotency, Key={"messageId": {"S": key}}, ConsistentRead=True
        )
        item: dict[str, Any] | None = response.get("Item")
        return item

    def completion(
        self, claim: Claim, outbox: Sequence[OutboundSms], now: float, proof: ProofRef | None = None
    ) -> TransactItem:
        """The commit's item that completes the claim, with the outbox to send, leased to us; and
        for an opt-out with a confirmation to send, where its proof record waits for its fate."""
        item: dict[str, Any] = {
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
        }
        if proof is not None and proof.index is not None:
            item["proof"] = {
                "M": {
                    "number": {"S": proof.number},
                    "event": {"S": proof.event},
                    "index": number(proof.index),
                }
            }
        request = {"Put": {"TableName": self._tables.idempotency, "Item": item, **_still_ours(claim)}}
        return TransactItem(request, if_refused=claim_lost)


# -- item formats of a message record ---------------------------------------------------------


def lease_value(owner: str, expires_at: float, started_at: float) -> dict[str, Any]:
    # `started_at`: when this attempt began sending.
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
    proof = item.get("proof", {}).get("M")
    learnt = {
        int(index): status["M"]["sid"]["S"]
        for index, status in item.get("delivery_status", {}).get("M", {}).items()
        if "sid" in status.get("M", {})
    }
    return CompletedRecord(
        key,
        outbox,
        delivered,
        float(item["outbox_lease"]["M"]["expires_at"]["N"]),
        recipients,
        float(item["completed_at"]["N"]),
        sent_to,
        ProofRef(proof["number"]["S"], proof["event"]["S"], int(proof["index"]["N"])) if proof else None,
        learnt,
    )
