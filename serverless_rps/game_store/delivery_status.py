"""Delivery status: what Twilio's status callbacks say became of each reply, on its message record.

Format (idempotency table, the record of the inbound SMS whose reply it is): ``delivery_status``,
a map from the reply's outbox index to ``{sid, status, rank, error_code?, updated_at}``. The
completed record starts with an empty map (messages.py's completion); the webhook's status route
fills it in, one conditional UpdateItem per callback. Nothing in it is a phone number or a text.

Twilio posts a callback on each change after the first (queued -> sending -> sent -> delivered,
or undelivered or failed, with an ErrorCode), at least once, in no promised order, and sometimes
never. So a status is written only if it is further along than the one recorded (its `rank`); a
repeat or a late earlier status changes nothing:

    Twilio      sent ........ delivered ........ sent (retried, late) .. delivered (again)
    record      rank 3        rank 4             refused: 3 <= 4         refused: 4 <= 4

A callback is also the second way to learn a send's SID. The worker records the SID Twilio
answered (`delivered.<index>`); if it died between Twilio accepting the reply and that write
(the one duplicate window, docs/protocol.md), the callback records it instead, and the
redelivery, finding the reply delivered, does not send it again:

    worker      send --Twilio accepts (SID A)--X dies
    callback                     sent, SID A: delivered.<index> = A (it was missing)
    redelivery                                       claim: completed, nothing undelivered -> finish

A callback never replaces an outcome already recorded: a SID is kept, and so are `erased` (an
opt-out took the reply out of the outbox) and `sending` (an opt-out confirmation, sent at most
once). The status of a send the record no longer names (an earlier copy of a reply the worker
sent again and recorded) is not recorded: what the record shows is the copy it names.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import number
from serverless_rps.ports import SENDING

__all__ = [
    "FINAL_STATUSES",
    "STATUS_RANK",
    "DeliveryStatus",
    "DeliveryStatusRecords",
    "StatusOutcome",
    "statuses_from",
]

# How far along a message is. Twilio's own order (its outbound status guide): accepted (a
# Messaging Service) and queued, sending, sent, then one of the final three. A later final status
# does not replace the first: Twilio sends one.
STATUS_RANK: Mapping[str, int] = {
    "accepted": 1,
    "queued": 1,
    "sending": 2,
    "sent": 3,
    "delivered": 4,
    "undelivered": 4,
    "failed": 4,
}
FINAL_STATUSES = frozenset({"delivered", "undelivered", "failed"})
# The status is newer than the one recorded, or is the first one, or is about a send the record
# names now and the recorded status is of another one. And the reply's outcome is this SID,
# missing (the send was never recorded) or `sending`:
#
#   delivered.<i>        absent | A | sending        -> record; absent becomes A
#   delivered.<i>        B (another send) | erased   -> refused: not the reply the record names
#   delivery_status.<i>  absent | sid <> A | rank < new rank -> record
STATUS_IS_NEWER = (
    "attribute_exists(delivery_status)"
    " AND (attribute_not_exists(delivered.#index) OR delivered.#index IN (:sid, :sending))"
    " AND (attribute_not_exists(delivery_status.#index)"
    " OR delivery_status.#index.sid <> :sid OR delivery_status.#index.#rank < :rank)"
)


@dataclass(frozen=True)
class DeliveryStatus:
    """What a status callback said of one reply: Twilio's SID, status and error code."""

    sid: str
    status: str
    error_code: int | None = None
    updated_at: float = 0.0

    @property
    def rank(self) -> int:
        return STATUS_RANK[self.status]

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES


class StatusOutcome(enum.Enum):
    """What a status callback did to the record."""

    RECORDED = "recorded"  # the status is on the reply now
    LEARNT_SID = "learnt_sid"  # and the SID too: the worker never recorded the send
    NOT_NEWER = "not_newer"  # a repeat or an earlier status: nothing changed
    OTHER_SEND = "other_send"  # the record names another send, or none (erased): nothing changed
    UNKNOWN = "unknown"  # no such record (expired, or never ours): nothing changed


def entry_value(status: DeliveryStatus) -> dict[str, Any]:
    value: dict[str, Any] = {
        "sid": {"S": status.sid},
        "status": {"S": status.status},
        "rank": number(status.rank),
        "updated_at": number(status.updated_at),
    }
    if status.error_code is not None:
        value["error_code"] = number(status.error_code)
    return {"M": value}


def statuses_from(item: Mapping[str, Any]) -> dict[int, DeliveryStatus]:
    """A message record's delivery statuses by outbox index (empty if it has none)."""
    return {
        int(index): DeliveryStatus(
            entry["M"]["sid"]["S"],
            entry["M"]["status"]["S"],
            int(entry["M"]["error_code"]["N"]) if "error_code" in entry["M"] else None,
            float(entry["M"].get("updated_at", {}).get("N", "0")),
        )
        for index, entry in item.get("delivery_status", {}).get("M", {}).items()
    }


class DeliveryStatusRecords:
    """The status route's one write. It needs UpdateItem on the idempotency table and nothing else."""

    def __init__(self, dynamodb_client: Any, idempotency_table: str) -> None:
        self._dynamodb = dynamodb_client
        self._table = idempotency_table

    def record(self, key: str, index: int, status: DeliveryStatus) -> StatusOutcome:
        """Record `status` on reply `index` of message `key`, if it is news (STATUS_IS_NEWER)."""
        with translated("record a delivery status"):
            try:
                response = self._dynamodb.update_item(
                    TableName=self._table,
                    Key={"messageId": {"S": key}},
                    UpdateExpression=(
                        "SET delivery_status.#index = :entry,"
                        " delivered.#index = if_not_exists(delivered.#index, :sid)"
                    ),
                    ConditionExpression=STATUS_IS_NEWER,
                    ExpressionAttributeNames={"#index": str(index), "#rank": "rank"},
                    ExpressionAttributeValues={
                        ":entry": entry_value(status),
                        ":sid": {"S": status.sid},
                        ":sending": {"S": SENDING},
                        ":rank": number(status.rank),
                    },
                    # The record as it was: whether the send's SID was recorded before this.
                    ReturnValues="ALL_OLD",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                return _why_refused(exc.response.get("Item"), index, status)  # type: ignore[arg-type]
        before = response.get("Attributes", {}).get("delivered", {}).get("M", {})
        return StatusOutcome.RECORDED if str(index) in before else StatusOutcome.LEARNT_SID


def _why_refused(item: Mapping[str, Any] | None, index: int, status: DeliveryStatus) -> StatusOutcome:
    if not item or "delivery_status" not in item:
        # No record, or one completed before statuses were kept: nothing of ours to update.
        return StatusOutcome.UNKNOWN
    outcome = item.get("delivered", {}).get("M", {}).get(str(index), {}).get("S")
    if outcome not in (None, status.sid, SENDING):
        return StatusOutcome.OTHER_SEND
    return StatusOutcome.NOT_NEWER
