"""How the operator's tool words what became of a message's replies (`player`, `outbox pending`).

Each reply has two sources: what the game function recorded when it sent it (`delivered`: Twilio's
SID, `refused:<code>`, `erased`, `dropped:late`, `sending`), and what Twilio's status callbacks said
afterwards (game_store/delivery_status.py). The later word wins: a reply Twilio accepted reads
`accepted` until a callback says `sent`, `delivered`, or `undelivered 30007`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from serverless_rps.game_store import DeliveryStatus
from serverless_rps.ports import CompletedRecord

__all__ = ["delivery_counts", "replies_delivery", "reply_delivery"]

NOT_SENT = "not sent"
# Twilio took it (its SID is recorded) and no status callback has come yet.
ACCEPTED = "accepted"


def reply_delivery(outcome: str | None, status: DeliveryStatus | None) -> str:
    """One reply, in a word or two: `not sent`, `accepted`, `delivered`, `undelivered 30007`, ..."""
    if outcome is None and status is None:
        return NOT_SENT
    if status is not None:
        return status.status if status.error_code is None else f"{status.status} {status.error_code}"
    assert outcome is not None
    return ACCEPTED if outcome.startswith(("SM", "MM")) else outcome


def replies_delivery(
    record: CompletedRecord, statuses: Mapping[int, DeliveryStatus], indexes: Iterable[int] | None = None
) -> list[str]:
    """Each reply of `indexes` (all of the record's by default), in outbox order."""
    chosen = _all_indexes(record) if indexes is None else sorted(indexes)
    return [reply_delivery(record.delivered.get(index), statuses.get(index)) for index in chosen]


def delivery_counts(record: CompletedRecord, statuses: Mapping[int, DeliveryStatus], phone: str) -> str:
    """The deliveries of the replies to `phone`, counted: `2 delivered, 1 undelivered 30007`. Once
    the outbox (which holds the numbers) is dropped, the record's replies to anyone."""
    mine = [index for index, sms in enumerate(record.outbox) if sms.to == phone]
    counts = Counter(replies_delivery(record, statuses, mine or None))
    return ", ".join(f"{count} {word}" for word, count in sorted(counts.items()))


def _all_indexes(record: CompletedRecord) -> list[int]:
    # Once the outbox is dropped, `delivered` still names every reply by its index.
    return sorted(set(range(len(record.outbox))) | set(record.delivered))
