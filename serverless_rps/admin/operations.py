"""What each command of the operator's tool reads and does, returning plain values (cli.py prints
them). Reads are scans and consistent reads of the tables and the queues' own counters; every change
goes through the protocol the game function uses (docs/operations.md)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import boto3

from serverless_rps.admin import ceiling, proofs
from serverless_rps.admin.dead_letters import DeadLetterReview
from serverless_rps.admin.delivery_display import delivery_counts, replies_delivery
from serverless_rps.admin.errors import Refused
from serverless_rps.admin.store_reads import StoreReads
from serverless_rps.bootstrap import Engine, build_engine, build_operator_clients, read_proof_keys
from serverless_rps.config import GameSettings
from serverless_rps.exceptions import RetryLater
from serverless_rps.game_store import COMPLETED, IN_PROGRESS, DynamoGameStore
from serverless_rps.observability import mask_phone
from serverless_rps.parsing import nickname_skeleton
from serverless_rps.ports import CompletedRecord, LockedPlayer
from serverless_rps.processing import InboundSms, Result
from serverless_rps.sms_ceiling import utc_day

__all__ = ["Operator", "Refused"]

ERASURE_REQUEST_PREFIX = "erasure-request-"


@dataclass
class Operator:
    settings: GameSettings
    engine: Engine
    sqs: Any
    cloudwatch: Any
    clock: Callable[[], float] = field(default=lambda: time.time())  # looked up at each call
    ssm: Any = None

    @classmethod
    def connect(cls, settings: GameSettings, session: boto3.session.Session | None = None) -> Operator:
        """The game function's engine and the operator's clients, as bootstrap.py builds them."""
        session = session or boto3.session.Session()
        clients = build_operator_clients(session)
        return cls(
            settings, build_engine(settings, session), clients.sqs, clients.cloudwatch, ssm=clients.ssm
        )

    @property
    def store(self) -> DynamoGameStore:
        return self.engine.store

    @property
    def reads(self) -> StoreReads:
        """The tables' scans and consistent reads, beside the store (never shipped)."""
        return StoreReads.beside(self.store)

    # -- status ---------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        now = self.clock()
        stuck, unsent = [], []
        for message in self.reads.scan_messages():
            if message.status == IN_PROGRESS and message.claim_expires_at is not None:
                if message.claim_expires_at < now:
                    stuck.append(
                        {"key": message.key, "expired_seconds_ago": round(now - message.claim_expires_at)}
                    )
            elif message.status == COMPLETED and message.record is not None and message.record.undelivered():
                unsent.append(self._pending_row(message.record, message.ttl, now))
        leases = [
            {"phone": mask_phone(row.phone), "expired_seconds_ago": round(now - row.lease_expires_at)}
            for row in self.reads.scan_player_rows()
            if row.lease_expires_at is not None and row.lease_expires_at < now
        ]
        return {
            "incoming_queue": self._queue_counts(self.settings.incoming_queue_url),
            "oldest_message_age_seconds": self._oldest_message_age(),
            "dead_letters": self._queue_counts(self.settings.dead_letter_queue_url)["visible"],
            "claims_stuck_in_progress": stuck,
            "leases_past_expiry": leases,
            "replies_not_sent": sorted(unsent, key=lambda row: -row["age_seconds"]),
            "oldest_unsent_age_seconds": max((row["age_seconds"] for row in unsent), default=None),
        }

    def _queue_counts(self, url: str) -> dict[str, int]:
        attributes = self.sqs.get_queue_attributes(
            QueueUrl=url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return {
            "visible": int(attributes.get("ApproximateNumberOfMessages", 0)),
            "in_flight": int(attributes.get("ApproximateNumberOfMessagesNotVisible", 0)),
        }

    def _oldest_message_age(self) -> float | None:
        """SQS tells a queue's oldest message's age only through CloudWatch (once a minute): None
        when there is no datapoint yet (a new or idle queue, or the local stack)."""
        name = self.settings.incoming_queue_url.rstrip("/").rsplit("/", 1)[-1]
        now = self.clock()
        points = self.cloudwatch.get_metric_statistics(
            Namespace="AWS/SQS",
            MetricName="ApproximateAgeOfOldestMessage",
            Dimensions=[{"Name": "QueueName", "Value": name}],
            StartTime=now - 600,
            EndTime=now,
            Period=60,
            Statistics=["Maximum"],
        )["Datapoints"]
        latest = max(points, key=lambda point: point["Timestamp"], default=None)
        return float(latest["Maximum"]) if latest else None

    # -- player -----------------------------------------------------------------------------------

    def player(self, phone: str) -> dict[str, Any]:
        now = self.clock()
        row = self.reads.read_player_row(phone)
        activity = _activity(self, phone, now)
        waiting = [entry for entry in activity if entry["replies"] == "waiting"]
        if row is None and not activity:
            raise Refused(f"no player and no message of {phone} (erased, or never texted the game)")
        if row is None:
            return {
                "phone": phone,
                "registered": False,
                "replies_not_sent": waiting,
                "recent_messages": activity,
            }
        lease = None
        if row.lease_id is not None and row.lease_expires_at is not None:
            state = "live" if row.lease_expires_at > now else "expired"
            lease = {"state": state, "expires_in_seconds": round(row.lease_expires_at - now)}
        player = row.player
        counterparts = self.store.get_players(player.counterpart_phones()) if player else {}

        def name(other: str) -> str:
            known = counterparts.get(other)
            return known.display_name if known else mask_phone(other)

        return {
            "phone": phone,
            "registered": player is not None,
            "nickname": player.display_name if player else None,
            "score": {
                "wins": player.wins,
                "losses": player.losses,
                "ties": player.ties,
                "streak": player.streak,
            }
            if player
            else None,
            "waiting_on": [
                {
                    "opponent": name(other),
                    "move": entry.move.value,
                    "expires_in_seconds": round(entry.expires_at - now),
                }
                for other, entry in sorted(player.games.items())
            ]
            if player
            else [],
            "challenged_by": [
                {"challenger": name(other), "expires_in_seconds": round(entry.expires_at - now)}
                for other, entry in sorted(player.challenges.items())
            ]
            if player
            else [],
            "lease": lease,
            "reply_budget": None
            if row.budget is None
            else {"level": row.budget.level, "notified": row.budget.notified},
            "replies_not_sent": waiting,
            "recent_messages": activity,
        }

    def phone_of(self, player: str) -> str:
        """A phone number as given, or the phone of the player with that nickname (or a look-alike)."""
        if player.startswith("+"):
            return player
        holder = self.store.nickname_holder(nickname_skeleton(player))
        if holder is None:
            raise Refused(f"no player is called {player}")
        return holder.phone

    # -- the outbox ---------------------------------------------------------------------------------

    def pending_outboxes(self, older_than_seconds: float = 0) -> list[dict[str, Any]]:
        now = self.clock()
        rows = [
            {
                **self._pending_row(message.record, message.ttl, now),
                "delivery": replies_delivery(message.record, message.delivery),
            }
            for message in self.reads.scan_messages()
            if message.record is not None and message.record.undelivered()
        ]
        return sorted(
            (row for row in rows if row["age_seconds"] >= older_than_seconds), key=lambda r: -r["age_seconds"]
        )

    def _pending_row(self, record: CompletedRecord, ttl: float, now: float) -> dict[str, Any]:
        committed_at = ttl - self.settings.completed_record_seconds
        return {
            "key": record.key,
            "age_seconds": round(now - committed_at),
            "replies": len(record.outbox),
            "not_sent": len(record.undelivered()),
            "to": sorted({mask_phone(record.outbox[index].to) for index in record.undelivered()}),
            "lease": "live" if record.lease_expires_at > now else "free",
        }

    def resend(self, keys: Sequence[str]) -> list[dict[str, Any]]:
        """Each record's missing replies, through the outbox lease: never a second copy of a reply
        a live attempt is sending (it holds the lease) or has recorded as delivered."""
        records = {key: self.reads.read_completed(key) for key in keys}
        unknown = [key for key, record in records.items() if record is None]
        if unknown:
            raise Refused(
                f"no completed record with the key {', '.join(unknown)}; nothing sent "
                "(`outbox pending` shows the keys)"
            )
        results: list[dict[str, Any]] = []
        for key, record in records.items():
            assert record is not None
            missing = len(record.undelivered())
            try:
                # Exactly as a redelivery would: the outbox lease, then one delivery record per reply.
                # A resend racing a redelivery is two attempts at one record: one holds the lease.
                resent = self.engine.outbox.resume(record, uuid.uuid4().hex)
            except RetryLater as busy:
                results.append({"key": key, "result": f"not sent now: {busy}"})
                continue
            outcome = Result.RESENT if resent else Result.DUPLICATE
            results.append({"key": key, "result": outcome.value, "was_missing": missing})
        return results

    # -- dead letters (dead_letters.py) ---------------------------------------------------------------

    def dead_letters(self) -> list[dict[str, Any]]:
        return self._dead_letter_queue().dead_letters()

    def redrive(self, ids: Iterable[str] | None) -> list[dict[str, Any]]:
        return self._dead_letter_queue().redrive(ids)

    def _dead_letter_queue(self) -> DeadLetterReview:
        return DeadLetterReview(self.settings, self.sqs, self.clock)

    # -- the daily SMS ceiling -------------------------------------------------------------------------

    def ceiling(self) -> dict[str, Any]:
        """Today's SMS (UTC), as the commits counted them, against the daily ceiling."""
        now = self.clock()
        return ceiling.report(self.store.sms_count(utc_day(now)), self.settings.daily_sms_ceiling, now)

    def lift_ceiling(self) -> dict[str, Any]:
        """Lift today's ceiling until midnight UTC: texts held back are played as they come back
        (within 15 minutes), and answered."""
        self.store.lift_ceiling(self.clock())
        return self.ceiling()

    # -- the proof of opt-outs (proofs.py) ----------------------------------------------------------

    def proof(self, phone: str, key_parameters: Sequence[str] = ()) -> dict[str, Any]:
        """The number's trail of opt-outs, found under every version of the stack's proof key and
        of each older key parameter named (a key moved to another parameter)."""
        records = self.store.proofs
        if records is None:
            raise Refused(
                "this stack keeps no proof of opt-outs (PROOF_RETENTION_DAYS is 0, or no PROOF_TABLE)"
            )
        keys = [records.keys(), *(read_proof_keys(self.ssm, name) for name in key_parameters)]
        return proofs.trail(phone, records.trail(phone, keys))

    # -- players' leases and erasure ----------------------------------------------------------------

    def unlock(self, phone: str, *, force: bool) -> dict[str, Any]:
        """Release a player's lease, that exact one (by its id): an expired one at once, a live one
        only with force. A live lease's holder then fails its fenced commit and its message comes
        back later, so forcing is safe for the data, but it wastes that attempt."""
        now = self.clock()
        row = self.reads.read_player_row(phone)
        if row is None or row.lease_id is None or row.lease_expires_at is None:
            return {"phone": mask_phone(phone), "result": "no lease"}
        live = row.lease_expires_at > now
        if live and not force:
            raise Refused(
                f"the lease on {mask_phone(phone)} is live for {round(row.lease_expires_at - now)} s more: "
                "an invocation is probably using it; wait, or use --force"
            )
        self.store.release(LockedPlayer(phone, row.lease_id, row.lease_expires_at, row.player, None))
        after = self.reads.read_player_row(phone)
        released = after is None or after.lease_id != row.lease_id
        return {
            "phone": mask_phone(phone),
            "result": ("released" if released else "not released: it changed meanwhile")
            + (" (it was live)" if live else ""),
        }

    def erase(self, phone: str) -> dict[str, Any]:
        """A data-deletion request: the player's STOP, processed as the game function processes one
        (locks in order, every record that mentions the number, outboxes), without a text to them."""
        request = InboundSms(
            message_sid=f"{ERASURE_REQUEST_PREFIX}{uuid.uuid4().hex}",
            sender=phone,
            recipient=phone,
            body="STOP",
            transport_id="admin",
            opt_out_type="STOP",
            # Its proof record says it was a deletion request, not a text from the number.
            by_operator=True,
        )
        outcome = self.engine.processor.process(request)
        return {"phone": mask_phone(phone), "result": outcome.value, "request": request.message_sid}


def _activity(operator: Operator, phone: str, now: float) -> list[dict[str, Any]]:
    """The messages whose replies went, or still wait to go, to this phone: a record names its
    recipients by keyed hash once its outbox is dropped, by number while it waits. Newest first;
    as far back as completed records live (20 days)."""
    contact = operator.store.contact_id(phone)
    rows = []
    for message in operator.reads.scan_messages():
        record = message.record
        if record is None:
            continue
        waiting = [index for index in record.undelivered() if record.outbox[index].to == phone]
        if not waiting and contact not in record.recipients:
            continue
        committed_at = message.ttl - operator.settings.completed_record_seconds
        rows.append(
            {
                "key": record.key,
                "age_seconds": round(now - committed_at),
                "replies": "waiting" if waiting else "delivered",
                # While the outbox holds numbers, this phone's replies; after, the message's.
                "delivery": delivery_counts(record, message.delivery, phone),
            }
        )
    return sorted(rows, key=lambda row: row["age_seconds"])
