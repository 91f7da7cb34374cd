"""One simulated run: fresh moto tables, the scenario's texts delivered as invocations of the real
game function (`GameFunction.handle_record`), a controlled clock, and a ledger of what the outside
world saw (SMS accepted by Twilio, commits, leases) for the invariants to judge.

The clock: the world's time moves only when a schedule says "wait". Each invocation sees the world's
time plus what it has slept itself (lock back-off), so one invocation's back-off never moves
another's clock: the invocations share nothing but the services, which is what lets the explorer
treat calls on different items as commuting.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, cast

import requests

from serverless_rps.admin.store_reads import StoreReads
from serverless_rps.app import GameFunction
from serverless_rps.exceptions import RetryLater, StaleRead
from serverless_rps.game import Limits
from serverless_rps.game_store import CEILING_PREFIX, DynamoGameStore, OutboxRecords
from serverless_rps.game_store.game_state import GameStateRows
from serverless_rps.game_store.messages import MessageRecords
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps.outbox import Outbox
from serverless_rps.parsing import OptOut, parse
from serverless_rps.ports import SentSms
from serverless_rps.processing import MessageProcessor
from serverless_rps_local.in_process import CONTACT_KEY
from tests.conftest import (
    BOT_NUMBER,
    COMPLETED_SECONDS,
    IN_PROGRESS_SECONDS,
    LEASE_SECONDS,
    REGION,
    TABLES,
)
from tests.simulation import invariants
from tests.simulation.harness import Harness, SimulatedResponse, Snapshot
from tests.simulation.invariants import Outcome, Violation, message_sid
from tests.simulation.scenarios import Scenario
from tests.simulation.scheduler import GO, KILL, Call, Invocation, Killed, Scheduler

__all__ = ["Choice", "Delivery", "Engine", "InvalidChoice", "Transition", "World", "independent"]

START = 1_795_300_000.0
LOCK_WAIT_SECONDS = 0.2  # three lock attempts (back-off 0.05 s, 0.1 s) before giving up
# Past every lease (locks and outbox), but not the in-progress claims; and past those too.
WAITS = {"lease": LEASE_SECONDS + 2, "claim": IN_PROGRESS_SECONDS + 2}
_FAILURES = {"dynamodb": ("throttled", "lost"), "twilio": ("429", "21610", "lost")}
_ACTIONS = ("go", "kill", "fail", "redeliver", "wait")
_KEYS = {TABLES.game_state: "phone_number", TABLES.nickname: "nickname", TABLES.idempotency: "messageId"}
_QUEUE = f"https://sqs.{REGION}.amazonaws.com/123456789012/rps-incoming"
_DEAD_LETTERS = f"https://sqs.{REGION}.amazonaws.com/123456789012/rps-dead-letters"


class InvalidChoice(Exception):
    """A schedule asked for something not possible at that point."""


@dataclass(frozen=True)
class Choice:
    """One decision of a schedule, printed and parsed as e.g. `go b1`, `fail a1 lost`, `wait lease`."""

    action: str
    target: str
    kind: str = ""

    def __str__(self) -> str:
        return " ".join(part for part in (self.action, self.target, self.kind) if part)

    @classmethod
    def parse(cls, text: str) -> Choice:
        parts = text.split()
        if not 2 <= len(parts) <= 3 or parts[0] not in _ACTIONS:
            raise InvalidChoice(f"not a choice: {text!r}")
        return cls(*parts)


@dataclass(frozen=True)
class Transition:
    """A choice available at some point, with what it touches (for deciding what commutes)."""

    choice: Choice
    owner: str | None  # the invocation it moves; None for the world's own moves
    call: Call | None  # the shared items it reads or writes; None if it touches none
    fault: bool = False
    everything: bool = False  # time passes for every invocation


def independent(a: Transition, b: Transition) -> bool:
    """Taking `a` then `b` or `b` then `a` leads to the same state, and neither disables the other."""
    if a.everything or b.everything:
        return False
    if a.owner is not None and a.owner == b.owner:
        return False
    if a.fault and b.fault:  # they draw on one budget
        return False
    if a.call is None or b.call is None:
        return True
    return not a.call.conflicts_with(b.call)


class _Unlisted:
    """The simulated Twilio keeps no Messages list: a look before re-sending finds nothing in it
    and sends the reply again, as when Twilio's list lags behind a send. What the look proves is
    tested on its own (tests/protocol/test_look_before_resending.py); here every redelivery makes
    the calls it made before the look existed."""

    def sent_to(self, to: str, limit: int) -> list[SentSms]:
        return []


UNLISTED = _Unlisted()


@dataclass(frozen=True)
class Engine:
    """The code under test. The self-tests substitute deliberately broken variants."""

    messages: type[MessageRecords] = MessageRecords  # the store's parts (game_store/)
    game_state: type[GameStateRows] = GameStateRows
    outboxes: type[OutboxRecords] = OutboxRecords
    processor: type[MessageProcessor] = MessageProcessor
    outbox: type[Outbox] = Outbox


@dataclass
class Ledger:
    """What the outside world saw: Twilio's accepted sends, commits, and who holds which lock."""

    sends: Counter[tuple[str, int]] = field(default_factory=Counter)
    allowed_duplicates: Counter[tuple[str, int]] = field(default_factory=Counter)
    commits: Counter[str] = field(default_factory=Counter)
    outboxes: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # key -> committed replies
    lock_holders: dict[str, tuple[str, float]] = field(default_factory=dict)  # phone -> (invocation, until)
    refused: set[str] = field(default_factory=set)
    late_sends: int = 0
    names_changed: bool = False  # a commit touched nicknames or deleted a player: check they agree


class Delivery(Invocation):
    """One SQS delivery of one text: an invocation of the game function with its own clock and ids."""

    def __init__(self, world: World, label: str, number: int) -> None:
        super().__init__(f"{label}{number}", self._handle)
        self.world = world
        self.label = label
        self.number = number
        self.message_sid = message_sid(label)
        self.slept = 0.0
        self.outbox_lease_until: float | None = None
        self.at_call: tuple[str, Any] = ("", {})
        self.call_time = 0.0  # this invocation's clock when it made its latest call
        self._ids = itertools.count(1)
        harness, engine = world.harness, world.engine
        store = DynamoGameStore(
            harness.dynamodb,
            TABLES,
            lock_lease_seconds=LEASE_SECONDS,
            in_progress_expiry_seconds=IN_PROGRESS_SECONDS,
            completed_record_seconds=COMPLETED_SECONDS,
            contact_key=CONTACT_KEY,
            messages=engine.messages,
            game_state=engine.game_state,
            outboxes=engine.outboxes,
        )
        self.outbox = engine.outbox(store.outboxes, harness.sms, UNLISTED, clock=self.clock)
        processor = engine.processor(
            store,
            self.outbox,
            limits=Limits(),
            lock_wait_seconds=LOCK_WAIT_SECONDS,
            clock=self.clock,
            sleep=self.sleep,
            new_id=self.new_id,
            jitter=lambda: 1.0,
        )
        self.store = store
        self._function = GameFunction(
            processor, IncomingQueue(harness.sqs, _QUEUE), DeadLetterQueue(harness.sqs, _DEAD_LETTERS)
        )
        self._record = self._queued(world)

    def clock(self) -> float:
        return self.world.now + self.slept

    def sleep(self, seconds: float) -> None:
        self.slept += seconds

    def new_id(self) -> str:
        return f"{self.name}-{next(self._ids)}"

    @property
    def succeeded(self) -> bool:
        return self.finished and not self.killed and self.error is None

    @property
    def crashed(self) -> bool:
        """Ended with something other than a request to retry the message later."""
        return self.error is not None and not isinstance(self.error, RetryLater | StaleRead)

    def _queued(self, world: World) -> dict[str, Any]:
        return world.queued_record(self)

    def _handle(self) -> None:
        self._function.handle_record(self._record)


class OperatorResend(Delivery):
    """`python -m serverless_rps.admin outbox resend`: not a text, the operator's command, which
    reads a message's completed record and sends what it never sent through the same outbox lease
    as a redelivery. It is judged like one: any reply it sends must be committed and sent once."""

    def __init__(self, world: World, label: str, number: int, message: str) -> None:
        self.target = message
        super().__init__(world, label, number)
        self.message_sid = message_sid(message)

    def _queued(self, world: World) -> dict[str, Any]:
        return {}  # no SQS record: the operator runs it

    def _handle(self) -> None:
        record = StoreReads.beside(self.store).read_completed(self.message_sid)
        if record is not None:
            self.outbox.resume(record, self.new_id())


class World:
    """A run of `scenario` against `engine`; used as a context manager around the schedule."""

    def __init__(
        self,
        harness: Harness,
        scenario: Scenario,
        *,
        engine: Engine | None = None,
        bound: int | None = None,
        faults: frozenset[str] | None = None,
        initial: Snapshot | None = None,
        expected: frozenset[Outcome] | None = None,
        deliver_at_start: bool = True,
    ) -> None:
        self.harness = harness
        self.scenario = scenario
        self.engine = engine or Engine()
        self.bound = scenario.bound if bound is None else bound
        self.faults = scenario.faults if faults is None else faults
        self.now = START
        self.scheduler = Scheduler()
        self.ledger = Ledger(refused=set(scenario.opted_out))
        self.violations: list[Violation] = []
        self.faults_used = 0
        self.trace: list[str] = []
        self.deliveries: list[Delivery] = []
        self.expected = expected
        self.end_state: tuple[Outcome, tuple[Any, ...]] | None = None  # set at quiescence
        self._initial = initial if initial is not None else harness.empty
        self._deliver_at_start = deliver_at_start
        self._texts = {label: text for label, text in scenario.messages.items()}
        self._texts.update({f"setup{index}": text for index, text in enumerate(scenario.setup, 1)})
        self._numbers: Counter[str] = Counter()

    @property
    def stopped(self) -> frozenset[str]:
        """Phones that text STOP among the scenario's texts: at quiescence they must be erased."""
        return frozenset(
            phone for phone, body in self.scenario.messages.values() if isinstance(parse(body), OptOut)
        )

    # -- the run -------------------------------------------------------------------------------

    def __enter__(self) -> World:
        self.harness.restore(self._initial)
        self.harness.stage = self
        if self._deliver_at_start:
            for label in self.scenario.labels:
                for _ in range(self.scenario.copies.get(label, 1)):
                    self.scheduler.start(self.deliver(label))
            for label, message in sorted(self.scenario.resends.items()):
                resend = OperatorResend(self, label, 1, message)
                self.deliveries.append(resend)
                self.scheduler.start(resend)
            self._after_step()
        return self

    def __exit__(self, *_: object) -> None:
        try:
            self.scheduler.kill_all()
        finally:
            self.harness.stage = None

    def run_setup(self) -> Snapshot:
        """Process the scenario's setup texts one by one; returns the tables afterwards."""
        for label in sorted(self._texts, key=lambda name: (len(name), name)):
            if label.startswith("setup"):
                delivery = self.deliver(label)
                delivery.run_inline()
                if not delivery.succeeded:
                    raise RuntimeError(f"setup text {self._texts[label]} failed: {delivery.error!r}")
        return self.harness.snapshot()

    def deliver(self, label: str) -> Delivery:
        self._numbers[label] += 1
        delivery = Delivery(self, label, self._numbers[label])
        self.deliveries.append(delivery)
        return delivery

    def queued_record(self, delivery: Delivery) -> dict[str, Any]:
        """The SQS record Lambda's poller would hand over: the webhook's body, a new SQS message id."""
        sender, body = self._texts[delivery.label]
        twilio_post = {"MessageSid": delivery.message_sid, "From": sender, "To": BOT_NUMBER, "Body": body}
        if delivery.label in self.scenario.opt_out_types:
            twilio_post["OptOutType"] = self.scenario.opt_out_types[delivery.label]
        return {
            "messageId": f"sqs-{delivery.name}",
            "receiptHandle": f"receipt-{delivery.name}",
            "body": json.dumps(twilio_post, sort_keys=True),
            "attributes": {"ApproximateReceiveCount": "1"},
            "messageAttributes": {},
            "eventSource": "aws:sqs",
            "awsRegion": "us-east-1",
        }

    def transitions(self) -> list[Transition]:
        """Every choice possible now, in a fixed order (the first is the default: go, by name)."""
        parked = cast(list[Delivery], self.scheduler.parked_invocations())
        options = [
            Transition(Choice("go", delivery.name), delivery.name, delivery.pending) for delivery in parked
        ]
        if self.faults_used >= self.bound:
            return options
        faults = self.faults
        for delivery in parked:
            call = delivery.pending
            assert call is not None
            # Dying or failing at a read is indistinguishable from doing so at the next write.
            if not call.has_effect and call.service != "twilio":
                continue
            if "kill" in faults:
                options.append(Transition(Choice("kill", delivery.name), delivery.name, None, fault=True))
            for kind in _FAILURES[call.service]:
                if kind in faults:
                    touched = {"lost": call, "21610": _refusal(call)}.get(kind)
                    options.append(
                        Transition(Choice("fail", delivery.name, kind), delivery.name, touched, True)
                    )
        if "redeliver" in faults:
            options += [
                Transition(Choice("redeliver", label), None, None, True) for label in self.scenario.labels
            ]
        if "wait" in faults:
            options += [Transition(Choice("wait", kind), None, None, True, everything=True) for kind in WAITS]
        return options

    def apply(self, choice: Choice) -> None:
        if choice not in {transition.choice for transition in self.transitions()}:
            raise InvalidChoice(f"{choice} is not possible here")
        self.trace.append(f"{choice!s:<22} {self._where(choice)}")
        if choice.action == "redeliver":
            self.scheduler.start(self.deliver(choice.target))
        elif choice.action == "wait":
            for delivery in cast(list[Delivery], self.scheduler.parked_invocations()):
                self._allow_duplicate_if_recording(delivery)
            self.now += WAITS[choice.target]
        else:
            delivery = next(d for d in self.deliveries if d.name == choice.target)
            if choice.action == "kill" or choice.kind in {"throttled"}:
                self._allow_duplicate_if_recording(delivery)
            verdict = {"go": GO, "kill": KILL}.get(choice.action, choice.kind)
            self.scheduler.resume(delivery, verdict)
        if choice.action != "go":
            self.faults_used += 1
        self._after_step()

    def _where(self, choice: Choice) -> str:
        invocation = self.scheduler.invocations.get(choice.target)
        if invocation is None or invocation.pending is None:
            return ""
        return f"{choice.target} at {invocation.pending.summary}"

    @property
    def live(self) -> bool:
        return bool(self.scheduler.parked_invocations())

    def finish(self) -> None:
        """Quiescence: time passes every lease, unacknowledged texts come back until processed,
        every text comes once more (a late duplicate), then the whole state is judged."""
        assert not self.live
        if self.violations:
            return
        if self.faults_used == 0 and not any(d.succeeded for d in self.deliveries):
            self.violations.append(
                Violation("no-progress", "with no fault injected, every invocation failed")
            )
        self.now += WAITS["claim"]
        for label in self.scenario.labels:
            if not any(d.succeeded for d in self.deliveries if d.label == label):
                self._deliver_inline(label, "stuck")
        for label in self.scenario.labels:
            self._deliver_inline(label, "late-duplicate")
        if not self.violations:
            self.violations += invariants.final(self)

    def _deliver_inline(self, label: str, kind: str) -> None:
        delivery = self.deliver(label)
        delivery.run_inline()
        if delivery.crashed:
            self.violations.append(Violation("crash", f"{delivery.name} raised {delivery.error!r}"))
        elif not delivery.succeeded:
            self.violations.append(
                Violation(kind, f"{delivery.name} failed after every lease expired: {delivery.error!r}")
            )

    def _after_step(self) -> None:
        for delivery in self.deliveries:
            if delivery.crashed and not any(delivery.name in v.detail for v in self.violations):
                self.violations.append(Violation("crash", f"{delivery.name} raised {delivery.error!r}"))
        if self.ledger.names_changed:
            self.ledger.names_changed = False
            self.violations += invariants.consistency(invariants.observe(self.harness))

    def _allow_duplicate_if_recording(self, delivery: Delivery) -> None:
        """Dying, failing or stalling between Twilio's acceptance and our record may duplicate it."""
        entry = _delivery_being_recorded(delivery)
        if entry is not None:
            self.ledger.allowed_duplicates[entry] += 1

    # -- what the hooks report (on the invocation's own thread) ----------------------------------

    def before_aws_call(self, invocation: Invocation, service: str, operation: str, params: Any) -> str:
        if service != "dynamodb":
            # SQS calls (a quicker redelivery) touch nothing the game reads: they go ahead at once.
            if invocation.killed:
                raise Killed(invocation.name)
            return GO
        delivery = cast(Delivery, invocation)
        delivery.at_call, delivery.call_time = (operation, params), delivery.clock()
        return delivery.gate(_describe(operation, params))

    def after_aws_call(self, invocation: Invocation, operation: str, params: Any, parsed: Any) -> None:
        if not isinstance(invocation, Delivery):
            return
        table = params.get("TableName")
        if operation == "UpdateItem":
            for value in params.get("ExpressionAttributeValues", {}).values():
                fields = value.get("M", {}) if isinstance(value, dict) else {}
                if table == TABLES.game_state and "lock_uuid" in fields:
                    self._lock_taken(invocation, params["Key"]["phone_number"]["S"], fields)
                if table == TABLES.idempotency and "owner" in fields:
                    invocation.outbox_lease_until = float(fields["expires_at"]["N"])
        if table == TABLES.game_state and operation in {"UpdateItem", "DeleteItem", "PutItem"}:
            phone = _key_of(params)
            if self.ledger.lock_holders.get(phone, ("", 0.0))[0] == invocation.name and not _takes_lock(
                params
            ):
                del self.ledger.lock_holders[phone]
        if operation == "TransactWriteItems":
            self._committed(invocation, params["TransactItems"])

    def send_sms(self, invocation: Invocation, to: str, from_: str, body: str) -> str:
        delivery = cast(Delivery, invocation)
        delivery.at_call = ("CreateMessage", {"To": to, "From": from_, "Body": body})
        delivery.call_time = delivery.clock()
        # Twilio takes any number of SMS to one phone; only a refusal (21610) changes what it does.
        verdict = delivery.gate(
            Call("twilio", f"send to {to}: {body[:24]}...", reads=frozenset({f"sms/{to}"}))
        )
        if verdict == "21610" or to in self.ledger.refused:
            self.ledger.refused.add(to)
            raise SimulatedResponse(400, {"code": 21610, "message": "unsubscribed recipient", "status": 400})
        if verdict == "429":
            raise SimulatedResponse(
                429, {"code": 20429, "message": "Too Many Requests"}, {"Retry-After": "2"}
            )
        entry = self._accepted(delivery, to, from_, body)
        if verdict == "lost":
            if entry is not None:
                self.ledger.allowed_duplicates[entry] += 1
            raise requests.ConnectionError("Twilio took the SMS; the response was lost (simulated)")
        return f"SM{sum(self.ledger.sends.values()):032x}"

    # -- bookkeeping and the checks that must hold at every step ---------------------------------

    def _lock_taken(self, delivery: Delivery, phone: str, lock: dict[str, Any]) -> None:
        until = float(lock["expiration_epoch_timestamp"]["N"])
        holder = self.ledger.lock_holders.get(phone)
        if holder is not None and holder[0] != delivery.name and holder[1] > self.now:
            self.violations.append(
                Violation("double-lock", f"{delivery.name} locked {phone} while {holder[0]}'s lease was live")
            )
        self.ledger.lock_holders[phone] = (delivery.name, until)

    def _committed(self, delivery: Delivery, items: list[dict[str, Any]]) -> None:
        for entry in items:
            ((action, request),) = entry.items()
            if request["TableName"] == TABLES.nickname or (
                request["TableName"] == TABLES.game_state and action == "Delete"
            ):
                self.ledger.names_changed = True
            if request["TableName"] == TABLES.idempotency and action == "Put":
                key = request["Item"]["messageId"]["S"]
                self.ledger.commits[key] += 1
                self.ledger.outboxes[key] = [
                    (sms["M"]["to"]["S"], sms["M"]["from"]["S"], sms["M"]["body"]["S"])
                    for sms in request["Item"]["outbox"]["L"]
                ]
                if self.ledger.commits[key] > 1:
                    self.violations.append(
                        Violation(
                            "committed-twice",
                            f"{delivery.label}'s effect was committed again by {delivery.name}",
                        )
                    )
                lease = request["Item"].get("outbox_lease", {}).get("M")
                if lease:
                    delivery.outbox_lease_until = float(lease["expires_at"]["N"])
            if request["TableName"] == TABLES.game_state:
                phone = request["Key" if action != "Put" else "Item"]["phone_number"]["S"]
                holder = self.ledger.lock_holders.pop(phone, None)
                if holder is None or holder[0] != delivery.name:
                    who = f"{holder[0]} held it" if holder else "nobody held it"
                    self.violations.append(
                        Violation("unfenced-write", f"{delivery.name} wrote {phone}; {who}")
                    )
                elif holder[1] <= delivery.call_time:
                    # Judged by the writer's clock when it sent the commit: a request that stalls in
                    # flight past the lease cannot be fenced by time (DynamoDB has no clock of its
                    # own in conditions); the lock id still fences it against a takeover.
                    self.violations.append(
                        Violation(
                            "expired-lease-write", f"{delivery.name} wrote {phone} after its lease expired"
                        )
                    )

    def _accepted(self, delivery: Delivery, to: str, from_: str, body: str) -> tuple[str, int] | None:
        """Twilio took the SMS: it must be a committed reply, and not one already sent."""
        outbox = self.ledger.outboxes.get(delivery.message_sid)
        if outbox is None:
            self.violations.append(
                Violation("uncommitted-send", f"{delivery.name} sent {body!r} before any commit")
            )
            return None
        if (to, from_, body) not in outbox:
            self.violations.append(
                Violation("unknown-send", f"{delivery.name} sent {body!r}, not in its outbox")
            )
            return None
        entry = (delivery.message_sid, outbox.index((to, from_, body)))
        self.ledger.sends[entry] += 1
        lease_until = delivery.outbox_lease_until
        if lease_until is not None and delivery.call_time < lease_until <= self.now:
            # The send stalled in flight past the sender's outbox lease (it could not know); whoever
            # took over may have sent it too. A sender whose own clock said the lease had run out
            # gets no such allowance.
            self.ledger.late_sends += 1
            self.ledger.allowed_duplicates[entry] += 1
        sent = self.ledger.sends[entry]
        if sent > 1 + self.ledger.allowed_duplicates[entry]:
            self.violations.append(
                Violation(
                    "duplicate-sms",
                    f"reply {entry[1]} of {delivery.label} ({body[:40]!r}) sent {sent} times (last by "
                    f"{delivery.name}) without a death, failure or stall between send and record",
                )
            )
        return entry


def _describe(operation: str, params: Any) -> Call:
    """The DynamoDB items a call reads and writes, as `table/key` strings."""
    if operation == "TransactWriteItems":
        # The day's SMS counter is left out: commits only add to it (additions commute), and
        # nothing here reads it, so it orders no two commits (game_store/sms_counts.py).
        writes = frozenset(
            _resource(request)
            for entry in params["TransactItems"]
            for request in entry.values()
            if not _key_of(request).startswith(CEILING_PREFIX)
        )
        return Call("dynamodb", f"commit {sorted(writes)}", writes=writes)
    if operation == "BatchGetItem":
        reads = frozenset(
            f"{table}/{_key_value(table, key)}"
            for table, request in params["RequestItems"].items()
            for key in request["Keys"]
        )
        return Call("dynamodb", f"read {sorted(reads)}", reads=reads)
    if operation in {"GetItem", "PutItem", "UpdateItem", "DeleteItem"}:
        item = frozenset({_resource(params)})
        if operation == "GetItem":
            return Call("dynamodb", f"GetItem {_resource(params)}", reads=item)
        return Call("dynamodb", f"{operation} {_resource(params)}", writes=item)
    return Call("dynamodb", operation, writes=frozenset({"*"}))  # anything else: assume it touches all


def _refusal(send: Call) -> Call:
    return Call("twilio", f"refuse {send.summary}", writes=send.reads)


def _resource(request: Any) -> str:
    return f"{request['TableName']}/{_key_of(request)}"


def _key_of(request: Any) -> str:
    table = request["TableName"]
    return _key_value(table, request.get("Key") or request["Item"])


def _key_value(table: str, key: Any) -> str:
    return str(key[_KEYS[table]]["S"])


def _takes_lock(params: Any) -> bool:
    return any(
        isinstance(value, dict) and "lock_uuid" in value.get("M", {})
        for value in params.get("ExpressionAttributeValues", {}).values()
    )


def _delivery_being_recorded(delivery: Delivery) -> tuple[str, int] | None:
    """The outbox entry whose delivery `delivery` is about to record, if that is its next call."""
    operation, params = delivery.at_call
    if delivery.pending is None or operation != "UpdateItem" or params.get("TableName") != TABLES.idempotency:
        return None
    index = params.get("ExpressionAttributeNames", {}).get("#index")
    if index is None or "delivered.#index" not in params.get("UpdateExpression", ""):
        return None  # not a delivery record (an opt-out erasing a number, say)
    return (params["Key"]["messageId"]["S"], int(index))
