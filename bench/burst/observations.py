"""What a run records as it goes: per DynamoDB request, per record the handler finishes or fails,
per invocation; and the event log the soak's checker reads (bench/chaos/checker.py), with the same
events the chaos soak's workers write (bench/chaos/injection.py), an instance standing for a worker
process and virtual time for its clock.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.chaos.injection import protocol_step

__all__ = ["InvocationContext", "Observations", "ObservedInvocation"]


@dataclass
class InvocationContext:
    """What an actor works for: its execution environment, and the record it is handling."""

    instance: int
    sid: str | None = None  # the inbound SMS id of the record in hand (None for poison)
    key: str | None = None  # the idempotency key the engine claimed for it
    records_failed: int = 0  # records of the invocation in hand that failed (each comes back)


@dataclass(frozen=True)
class ObservedInvocation:
    instance: int
    started_at: float
    ended_at: float
    cold_start_seconds: float
    records: int
    timed_out: bool


@dataclass
class Observations:
    events: list[dict[str, Any]] = field(default_factory=list)
    # Each message's outbox as its commit wrote it (a record drops its own once all is sent).
    outboxes: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    requests: Counter[str] = field(default_factory=Counter)  # DynamoDB calls, by operation
    attempts: Counter[str] = field(default_factory=Counter)  # DynamoDB HTTP attempts, by operation
    faults: Counter[str] = field(default_factory=Counter)  # injected, by kind
    read_units: float = 0.0
    write_units: float = 0.0
    lock_contention: Counter[str] = field(default_factory=Counter)  # refused lock requests, by key
    requests_by_sid: Counter[str] = field(default_factory=Counter)
    # Records that failed, by the exception that reached the handler (its RetryLater subclass);
    # "killed at the timeout" for the records of an invocation Lambda stopped.
    retries: Counter[str] = field(default_factory=Counter)
    records_done: int = 0
    invocations: list[ObservedInvocation] = field(default_factory=list)
    sqs_requests: Counter[str] = field(default_factory=Counter)  # by the function, by operation
    lock_pauses: int = 0  # the processor's lock backoff sleeps
    completed_at: dict[str, float] = field(default_factory=dict)  # sid -> when its record succeeded

    # -- DynamoDB -----------------------------------------------------------------------------

    def dynamodb_call(
        self, context: InvocationContext, at: float, operation: str, params: dict[str, Any], parsed: Any
    ) -> None:
        """One DynamoDB call, as it returned to the engine (after the SDK's retries)."""
        self.requests[operation] += 1
        if context.sid is not None:
            self.requests_by_sid[context.sid] += 1
        ok = "Error" not in parsed
        step = protocol_step(operation, params)
        if step == "lock" and not ok and _code(parsed) == "ConditionalCheckFailedException":
            self.lock_contention[params["Key"]["phone_number"]["S"]] += 1
        self._log_step(context, at, step, params, parsed, ok)

    def _log_step(
        self,
        context: InvocationContext,
        at: float,
        step: str,
        params: dict[str, Any],
        parsed: Any,
        ok: bool,
    ) -> None:
        def log(event: str, **fields: Any) -> None:
            self.events.append({"e": event, "pid": context.instance, "t": at, **fields})

        if step == "claim":
            context.key = params["Item"]["messageId"]["S"]
            log("claim", key=context.key, ok=ok)
        elif step == "lock":
            held = parsed.get("Attributes", {}).get("user_locked", {}).get("M", {})
            phone = params["Key"]["phone_number"]["S"]
            log("lock", key=context.key, phone=phone, ok=ok, expires=held.get("expiration_epoch_timestamp"))
        elif step == "commit":
            self._log_commit(log, context, params, parsed, ok)
        elif step == "lease":
            log("lease", key=params["Key"]["messageId"]["S"], ok=ok)
            stored = parsed.get("Attributes", {}).get("outbox", {}).get("L") if ok else None
            if stored:
                self.outboxes.setdefault(params["Key"]["messageId"]["S"], _outbox(stored))
        elif step == "release":
            log("release", key=context.key, phone=params["Key"]["phone_number"]["S"], ok=ok)
        elif step == "record":
            index = int(params["ExpressionAttributeNames"]["#index"])
            outcome = params["ExpressionAttributeValues"][":outcome"]["S"]
            log("recorded", key=params["Key"]["messageId"]["S"], index=index, outcome=outcome, ok=ok)

    def _log_commit(
        self, log: Any, context: InvocationContext, params: dict[str, Any], parsed: Any, ok: bool
    ) -> None:
        # The writes fenced on a lease: those conditional on `user_locked` (the phones and shared
        # records the attempt holds), with the `:now` each was sent with.
        fenced = [
            (
                (entry[kind].get("Key") or entry[kind].get("Item") or {})
                .get("phone_number", {})
                .get("S", "?"),
                entry[kind]["ExpressionAttributeValues"][":now"]["N"],
            )
            for entry in params.get("TransactItems", [])
            for kind in entry
            if "user_locked" in entry[kind].get("ConditionExpression", "")
        ]
        reasons = [reason.get("Code") for reason in parsed.get("CancellationReasons", [])]
        log(
            "commit",
            key=context.key,
            ok=ok,
            code=_code(parsed),
            reasons=reasons,
            fenced_phones=[phone for phone, _ in fenced],
            fenced_at=[now for _, now in fenced],
        )
        if ok:
            for entry in params.get("TransactItems", []):
                item = entry.get("Put", {}).get("Item", {})
                if "outbox" in item:
                    self.outboxes[item["messageId"]["S"]] = _outbox(item["outbox"]["L"])

    def units(self, read_units: float, write_units: float) -> None:
        self.read_units += read_units
        self.write_units += write_units

    # -- Twilio -------------------------------------------------------------------------------

    def sent(self, context: InvocationContext, at: float, to: str, body: str, sid: str) -> None:
        self.events.append(
            {"e": "sent", "pid": context.instance, "t": at, "key": context.key, "to": to, "body": body}
            | {"sid": sid, "started": at}
        )

    def looked(self, context: InvocationContext, at: float, to: str, sids: list[str]) -> None:
        self.events.append(
            {"e": "looked", "pid": context.instance, "t": at, "key": context.key, "to": to, "started": at}
            | {"sids": sids}
        )

    # -- the function -------------------------------------------------------------------------

    def received(self, instance: int, at: float, message_id: str, receive_count: int) -> None:
        self.events.append(
            {"e": "receive", "pid": instance, "t": at, "sqs_id": message_id, "count": receive_count}
        )

    def record_done(self, context: InvocationContext, at: float) -> None:
        self.records_done += 1
        if context.sid is not None:
            self.completed_at.setdefault(context.sid, at)

    def record_failed(self, cause: str, records: int = 1) -> None:
        self.retries[cause] += records

    def invocation(self, invocation: ObservedInvocation) -> None:
        self.invocations.append(invocation)

    def retries_by_cause(self) -> dict[str, int]:
        return dict(self.retries.most_common())

    def contention_by_key(self, shown: int = 5) -> dict[str, Any]:
        """Refused lock requests: each shared record by name, the players together."""
        shared = {key: count for key, count in self.lock_contention.items() if key.startswith("~")}
        players = {key: count for key, count in self.lock_contention.items() if not key.startswith("~")}
        hottest = sorted(players.items(), key=lambda item: (-item[1], item[0]))[:shown]
        return {
            **dict(sorted(shared.items())),
            "players": sum(players.values()),
            "players contended": len(players),
            "most contended players": [count for _, count in hottest],
        }


def _code(parsed: Any) -> str | None:
    return parsed.get("Error", {}).get("Code") if "Error" in parsed else None


def _outbox(stored: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(entry["M"]["to"]["S"], entry["M"]["from"]["S"], entry["M"]["body"]["S"]) for entry in stored]
