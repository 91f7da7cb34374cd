"""The engines the exploration can run, by name (`--engine`): the real one, and mutants:
deliberately broken variants with one protocol rule removed each. A broken store is the real
`DynamoGameStore` with one broken part (game_store/messages.py, game_state.py, outboxes.py).

The exploration must find every mutant out (tests/simulation/test_mutants.py): a checker that
cannot tell them from the real engine would prove nothing by finding no violation.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from serverless_rps.game_store import OutboxRecords
from serverless_rps.game_store.game_state import GameStateRows
from serverless_rps.game_store.messages import MessageRecords
from serverless_rps.outbox import LookBeforeResending, Outbox
from serverless_rps.ports import Claim, CompletedRecord, LockedPlayer
from serverless_rps.processing import MessageProcessor
from tests.simulation.world import Engine

__all__ = ["ENGINES", "MUTANTS"]


class ClaimOverwritesCompleted(MessageRecords):
    """The claim forgets that a COMPLETED record must never be overwritten."""

    def claim(self, key: str, attempt_id: str, now: float) -> Claim | CompletedRecord:
        existing = self._get_item(key)
        if existing is not None and existing["status"]["S"] == "IN_PROGRESS":
            return super().claim(key, attempt_id, now)
        self._dynamodb.put_item(
            TableName=self._tables.idempotency,
            Item={
                "messageId": {"S": key},
                "status": {"S": "IN_PROGRESS"},
                "attempt_id": {"S": attempt_id},
                "in_progress_expiration": {"N": str(now + self._in_progress_expiry)},
            },
        )
        return Claim(key, attempt_id)


class WritesWithoutFence(GameStateRows):
    """Writes to locked rows are not conditional on holding the lock."""

    def _fenced(self, held: LockedPlayer, now: float) -> dict[str, Any]:
        return {"TableName": self._tables.game_state}


class FenceIgnoresExpiry(GameStateRows):
    """Writes to locked rows check whose lock it is, but not whether its lease has run out."""

    def _fenced(self, held: LockedPlayer, now: float) -> dict[str, Any]:
        fence = super()._fenced(held, now)
        del fence["ExpressionAttributeValues"][":now"]
        return {**fence, "ConditionExpression": "user_locked.lock_uuid = :me"}


class OutboxWithoutLease(OutboxRecords):
    """A redelivery sends the missing replies even while the committing attempt is still sending."""

    def lease(self, record: CompletedRecord, attempt_id: str, now: float) -> CompletedRecord | None:
        return record


class RecordsBeforeSending(Outbox):
    """Marks each reply delivered before handing it to Twilio (so a crash in between loses it)."""

    def _deliver(
        self,
        record: CompletedRecord,
        attempt_id: str,
        enqueued_at: float | None = None,
        look: LookBeforeResending | None = None,
    ) -> None:
        for index in record.undelivered():
            self._store.record_delivery(record, index, "sending")
            self._sender.send(record.outbox[index])


class SendsPastItsLease(Outbox):
    """Keeps sending after its outbox lease has run out, as if frozen invocations never woke."""

    def _deliver(
        self,
        record: CompletedRecord,
        attempt_id: str,
        enqueued_at: float | None = None,
        look: LookBeforeResending | None = None,
    ) -> None:
        forever = dataclasses.replace(record, lease_expires_at=math.inf)
        super()._deliver(forever, attempt_id, enqueued_at, look)


class LocksInArrivalOrder(MessageProcessor):
    """Locks the sender first, then the opponent, instead of in one canonical order."""

    @staticmethod
    def _lock_order(phones: Sequence[str]) -> list[str]:
        return list(dict.fromkeys(phones))


# name -> (the broken engine, the scenario that exposes it, the fault bound, the violations expected)
MUTANTS: dict[str, tuple[Engine, str, int, frozenset[str]]] = {
    "claim overwrites a completed record": (
        Engine(messages=ClaimOverwritesCompleted),
        "same_message_twice",
        1,
        frozenset({"committed-twice"}),
    ),
    "player writes without the lock fence": (
        Engine(game_state=WritesWithoutFence),
        "expired_lease_fencing",
        1,
        frozenset({"unfenced-write", "expired-lease-write"}),
    ),
    "fence ignores lease expiry": (
        Engine(game_state=FenceIgnoresExpiry),
        "expired_lease_fencing",
        1,
        frozenset({"expired-lease-write"}),
    ),
    "outbox sent without its lease": (
        Engine(outboxes=OutboxWithoutLease),
        "same_message_twice",
        1,
        frozenset({"duplicate-sms"}),
    ),
    "delivery recorded before sending": (
        Engine(outbox=RecordsBeforeSending),
        "crash_after_commit",
        1,
        frozenset({"lost-reply"}),
    ),
    "sending past the outbox lease": (
        Engine(outbox=SendsPastItsLease),
        "same_message_twice",
        1,
        frozenset({"duplicate-sms"}),
    ),
    "locks taken in arrival order": (
        Engine(processor=LocksInArrivalOrder),
        "throw_at_each_other",
        0,
        frozenset({"no-progress"}),
    ),
}


ENGINES: dict[str, Engine] = {
    "real": Engine(),
    **{name.replace(" ", "-"): engine for name, (engine, *_) in MUTANTS.items()},
}
