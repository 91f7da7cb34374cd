"""Run the chaos soak on the local stack and judge it (bench/chaos/checker.py).

    players --signed POST--> webhook --> IncomingQueue --> game workers (faults armed) --> local Twilio
       ^                                    ^   ^                  |
       |  duplicates (same MessageSid),     |   poison             +--> moto's server (DynamoDB, SQS)
       |  concurrent and late               |   (straight to SQS)
       +--------------- replies ------------+--- external SIGKILLs, Twilio faults (harness threads)

Leases are short so that expiry happens within the soak: in a multi-process stack the clock cannot be
frozen, so instead of advancing it the soak makes lock and claim expiry a few seconds long (values
consistent with config.py's checks) and stalls workers past them. The local runtime's own timeout
stays the template's (15 s), so a stalled worker lives to try its stale write, as a frozen
invocation can on AWS.

With `DYNAMODB=local` (`make test-dynamodb-local` runs the short soak so) the tables are in DynamoDB
Local instead of moto's server; the faults are injected in the workers' clients either way.
"""

from __future__ import annotations

import concurrent.futures
import heapq
import json
import os
import random
import secrets
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from twilio.request_validator import RequestValidator

from bench.chaos.checker import Inbound, SoakRecord, Verdict, check, describe_delays, reply_delays
from bench.chaos.players import Players
from serverless_rps import replies, replies_es
from serverless_rps.game_store import CEILING_PREFIX, CONTACT_PREFIX
from serverless_rps.ports import ERASED
from serverless_rps_local import dev_account
from serverless_rps_local.simulator import inbound_parameters
from serverless_rps_local.stack import GAME_FUNCTION, LocalStack, StackOptions, repository_root
from serverless_rps_local.template import FunctionDefinition

__all__ = ["ChaosStack", "Harness", "SoakOptions", "SoakResult", "run_soak"]

POISON_BODIES = (
    "this is not JSON",
    "[1, 2, 3]",
    '{"From": "+15550199999"}',
    '{"From": "", "To": "+15550100000", "Body": "hi"}',
    '{"From": "+15550199999", "To": "+15550100000", "Body": 7}',
    "",
)


@dataclass
class SoakOptions:
    messages: int = 400
    players: int = 14
    workers: int = 4
    seed: int = 7
    # Messages per second the players send, at most; sending pauses while the queue is deep.
    rate: float = 8.0
    max_backlog: int = 40
    churn_share: float = 0.2
    duplicate_share: float = 0.12
    very_late_duplicates: int = 15
    poison: int = 6
    # Short expiries (config.py: lease > timeout, in-progress expiry >= timeout).
    function_timeout_seconds: float = 2.0
    lock_lease_seconds: float = 3.0
    in_progress_expiry_seconds: float = 3.0
    lock_wait_seconds: float = 1.0
    # >= 6 x the function timeout, as the template keeps it.
    visibility_timeout_seconds: int = 12
    # Mean seconds between external SIGKILLs of a random game worker, and between Twilio faults.
    external_kill_every: float = 12.0
    twilio_fault_every: float = 4.0
    # Per-event probabilities inside a game worker (see bench/chaos/injection.py).
    rates: dict[str, float] = field(
        default_factory=lambda: {
            "kill_after_claim": 0.004,
            "kill_after_lock": 0.004,
            "kill_before_commit": 0.006,
            "kill_after_commit": 0.006,
            "kill_after_send": 0.006,
            "kill_after_record": 0.003,
            "stall_after_claim": 0.003,
            "stall_after_lock": 0.004,
            "stall_after_send": 0.004,
            "dynamodb_outage": 0.004,
        }
    )
    drain_timeout_seconds: float = 240.0
    # The most duplicate SMS the verdict allows, as a share of those accepted; None: only the bound
    # the run's own window openings set (checker.py), which a short run's few SMS call for.
    duplicate_share_limit: float | None = None
    # Copy the workers' event logs, the stack's logs and the collected record here at the end ...
    keep_events_in: Path | None = None
    # ... or, only when the verdict fails, into a new directory under this one.
    failure_directory: Path | None = field(default_factory=lambda: Path(tempfile.gettempdir()) / "rps-chaos")
    log: Any = print


@dataclass
class SoakResult:
    verdict: Verdict
    record: SoakRecord
    seconds: float

    def report(self) -> str:
        lines = [f"chaos soak: {'PASSED' if self.verdict.passed else 'FAILED'} in {self.seconds:.0f} s", ""]
        width = max(len(name) for name in self.verdict.figures)
        lines += [f"  {name:<{width}}  {value}" for name, value in self.verdict.figures.items()]
        if self.verdict.violations:
            lines += ["", f"{len(self.verdict.violations)} violation(s):"]
            lines += [f"  - {violation}" for violation in self.verdict.violations[:50]]
        return "\n".join(lines)


class ChaosStack(LocalStack):
    """The local stack with the game function's expiries shortened for the soak."""

    def __init__(self, options: StackOptions, soak: SoakOptions) -> None:
        super().__init__(options)
        self._soak = soak

    def function_environment(
        self, definition: FunctionDefinition, overrides: dict[str, str]
    ) -> dict[str, str]:
        environment = super().function_environment(definition, overrides)
        if definition.logical_id == GAME_FUNCTION:
            environment.update(
                {
                    "FUNCTION_TIMEOUT_SECONDS": f"{self._soak.function_timeout_seconds:g}",
                    "LOCK_LEASE_SECONDS": f"{self._soak.lock_lease_seconds:g}",
                    "IN_PROGRESS_EXPIRY_SECONDS": f"{self._soak.in_progress_expiry_seconds:g}",
                    "LOCK_WAIT_SECONDS": f"{self._soak.lock_wait_seconds:g}",
                    # Each soak player texts several times a minute for the whole soak, far past
                    # what the reply budget lets one phone receive (tests/protocol/
                    # test_reply_budget.py proves the budget); here every reply must be sent, so
                    # that the checker can hold each message's results against the scores.
                    "REPLY_BUDGET_BURST": "1000000",
                    "REPLY_BUDGET_PER_HOUR": "1000000",
                }
            )
        return environment


class Harness:
    """The soak's side of the stack: players texting the webhook, the SMS they get back, and the
    faults injected from outside (external SIGKILLs, Twilio faults). bench/latency.py reuses it."""

    def __init__(self, options: SoakOptions, event_directory: Path) -> None:
        self.options = options
        self.saved_environment: dict[str, str | None] = {}
        self.poison_sent: list[str] = []
        self.chance = random.Random(options.seed)
        self.players = Players(options.players, options.churn_share, random.Random(options.seed + 1))
        self.event_directory = event_directory
        self.inbound: dict[str, Inbound] = {}
        self.parameters: dict[str, dict[str, str]] = {}
        self.sms: list[dict[str, Any]] = []
        self.events: Counter[str] = Counter()
        self.late: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        self.chaos_on = threading.Event()
        self.stopping = threading.Event()
        self.posts = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="post")
        self.local = threading.local()
        self.stack: LocalStack | None = None

    # -- the stack -------------------------------------------------------------------------------

    def start_stack(self) -> LocalStack:
        options = self.options
        chaos = {
            "seed": options.seed,
            "event_directory": str(self.event_directory),
            "lock_lease_seconds": options.lock_lease_seconds,
            "in_progress_expiry_seconds": options.in_progress_expiry_seconds,
            "rates": options.rates,
        }
        inject = Path(__file__).resolve().parent / "inject"
        # Kept for the whole soak: execution environments are started (again) whenever one is killed.
        self.saved_environment = {name: os.environ.get(name) for name in ("PYTHONPATH", "RPS_CHAOS")}
        previous = self.saved_environment["PYTHONPATH"]
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(inject), str(repository_root())] + ([previous] if previous else [])
        )
        os.environ["RPS_CHAOS"] = json.dumps(chaos)
        stack = ChaosStack(
            StackOptions(workers=options.workers, phones=(), log_directory=self.event_directory / "logs"),
            options,
        )
        stack.start()
        self.stack = stack
        assert stack.resources is not None
        sqs = stack.aws("sqs")
        incoming = stack.resources.queue_url("IncomingQueue")
        sqs.set_queue_attributes(
            QueueUrl=incoming, Attributes={"VisibilityTimeout": str(options.visibility_timeout_seconds)}
        )
        stack.twilio.subscribe(self._on_sms)
        return stack

    def restore_environment(self) -> None:
        for name, value in self.saved_environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def _on_sms(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.sms.append(
                {
                    "sid": message["sid"],
                    "to": message["to"],
                    "from": message["from"],
                    "body": message["body"],
                    "at": time.monotonic(),
                }
            )
        self.players.hear(message["to"], message["body"])

    # -- texting ---------------------------------------------------------------------------------

    def text(self, phone: str, body: str, kind: str) -> str:
        assert self.stack is not None
        sid = "SM" + secrets.token_hex(16)
        self.stack.twilio.receive_inbound(phone, body)
        parameters = inbound_parameters(sid, dev_account.ACCOUNT_SID, phone, dev_account.SERVICE_NUMBER, body)
        with self.lock:
            self.parameters[sid] = parameters
            self.inbound[sid] = Inbound(sid, phone, body, kind, time.monotonic())
        self.posts.submit(self._post, sid, True)
        return sid

    def duplicate(self, sid: str) -> None:
        self.posts.submit(self._post, sid, False)

    def _post(self, sid: str, original: bool) -> None:
        assert self.stack is not None
        assert self.stack.simulator is not None
        url = self.stack.simulator.webhook_url
        parameters = self.parameters[sid]
        session = getattr(self.local, "session", None)
        if session is None:
            session = self.local.session = requests.Session()
        signature = RequestValidator(dev_account.AUTH_TOKEN).compute_signature(url, parameters)
        for _ in range(5):  # Twilio retries a webhook that failed; the game deduplicates
            try:
                response = session.post(
                    url, data=parameters, headers={"X-Twilio-Signature": signature}, timeout=30
                )
                if response.status_code == 200:
                    return
            except requests.RequestException:
                pass
            with self.lock:
                self.events["webhook retries"] += 1
            time.sleep(0.5)
        if original:
            with self.lock:
                inbound = self.inbound[sid]
                self.inbound[sid] = Inbound(
                    sid, inbound.phone, inbound.body, inbound.kind, inbound.posted_at, False
                )

    def send_poison(self, body: str) -> None:
        assert self.stack is not None
        assert self.stack.resources is not None
        self.stack.aws("sqs").send_message(
            QueueUrl=self.stack.resources.queue_url("IncomingQueue"), MessageBody=body
        )

    # -- chaos from outside ---------------------------------------------------------------------

    def killer(self) -> None:
        assert self.stack is not None
        function = self.stack.function(GAME_FUNCTION)
        while not self.stopping.wait(self.chance.expovariate(1 / self.options.external_kill_every)):
            if not self.chaos_on.is_set():
                continue
            pids = function.worker_pids()
            if pids:
                try:
                    os.kill(self.chance.choice(pids), signal.SIGKILL)
                except ProcessLookupError:
                    continue
                with self.lock:
                    self.events["external SIGKILLs of a worker"] += 1

    def twilio_faults(self) -> None:
        assert self.stack is not None
        twilio = self.stack.twilio
        chance = random.Random(self.options.seed + 2)
        while not self.stopping.wait(chance.expovariate(1 / self.options.twilio_fault_every)):
            # Faults are armed for the next sends: with few sends going (the tail of a run) they
            # would pile up and fail one message's every retry, an outage rather than a fault.
            if not self.chaos_on.is_set() or twilio.faults_pending:
                continue
            roll = chance.random()
            if roll < 0.5:
                status = chance.choice((429, 500, 503))
                count = chance.randint(1, 3)
                twilio.fail_next(count, status=status, retry_after=1 if status == 429 else None)
                key = f"Twilio sends failed ({status})"
            elif roll < 0.75:
                count = 1
                twilio.stall_next(1, seconds=6, accept=False)
                key = "Twilio sends stalled past the client timeout (not accepted)"
            else:
                count = 1
                twilio.stall_next(1, seconds=6, accept=True)
                key = "Twilio sends accepted, then stalled past the client timeout"
            with self.lock:
                self.events[key] += count

    # -- the run ---------------------------------------------------------------------------------

    def play(self) -> None:
        options = self.options
        poison_at = set(self.chance.sample(range(options.messages), min(options.poison, options.messages)))
        poison = list(POISON_BODIES * (options.poison // len(POISON_BODIES) + 1))[: options.poison]
        sent = 0
        last_backlog_check, backlog = 0.0, 0
        lease = options.lock_lease_seconds
        while sent < options.messages:
            now = time.monotonic()
            if now - last_backlog_check > 0.5:
                assert self.stack is not None
                backlog, last_backlog_check = self.stack.queue_depth("IncomingQueue"), now
            self._release_late(now)
            if backlog > options.max_backlog:
                time.sleep(0.2)
                continue
            time.sleep(1 / options.rate)
            if sent in poison_at and poison:
                body = poison.pop()
                self.send_poison(body)
                self.poison_sent.append(body)
            phone, body, kind = self.players.next_message()
            sid = self.text(phone, body, kind)
            sent += 1
            if self.chance.random() < options.duplicate_share:
                if self.chance.random() < 0.5:
                    self.duplicate(sid)
                    self.events["duplicates injected: concurrent"] += 1
                else:
                    due = now + self.chance.uniform(lease + 1, 10 * lease)
                    heapq.heappush(self.late, (due, sid))
                    self.events["duplicates injected: late (after the claim expiry)"] += 1

    def _release_late(self, now: float) -> None:
        while self.late and self.late[0][0] <= now:
            _, sid = heapq.heappop(self.late)
            self.duplicate(sid)

    def flush_late(self) -> None:
        while self.late:
            due, _ = self.late[0]
            time.sleep(max(0.0, due - time.monotonic()))
            self._release_late(time.monotonic())

    def wait_for_posts(self) -> None:
        self.posts.shutdown(wait=True)
        self.posts = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="post")


def run_soak(options: SoakOptions) -> SoakResult:
    log = options.log
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rps-chaos-") as directory:
        event_directory = Path(directory)
        harness = Harness(options, event_directory)
        log(f"chaos soak: starting the local stack with {options.workers} game workers ...")
        try:
            stack = harness.start_stack()
        except BaseException:
            harness.restore_environment()
            raise
        threads = [
            threading.Thread(target=harness.killer, name="killer", daemon=True),
            threading.Thread(target=harness.twilio_faults, name="twilio-faults", daemon=True),
        ]
        try:
            for thread in threads:
                thread.start()
            harness.chaos_on.set()
            log(f"chaos soak: {options.players} players send {options.messages} messages ...")
            harness.play()
            log("chaos soak: late duplicates, then draining the queue ...")
            harness.flush_late()
            harness.wait_for_posts()
            harness.chaos_on.clear()
            (event_directory / "quiet").touch()  # the workers' own faults stop too
            liveness = _liveness_round(harness, stack, options)
            stack.wait_until_idle(options.drain_timeout_seconds)
            # The queue is empty: whatever is committed now must already be sent.
            at_drain = _idempotency(stack, event_directory)
            sms_before = len(harness.sms)
            log(f"chaos soak: {options.very_late_duplicates} very late duplicates ...")
            completed = [sid for sid, inbound in harness.inbound.items() if inbound.accepted]
            for sid in harness.chance.sample(completed, min(options.very_late_duplicates, len(completed))):
                harness.duplicate(sid)
                harness.events["duplicates injected: very late (after completion)"] += 1
            harness.wait_for_posts()
            time.sleep(1.5)
            stack.wait_until_idle(options.drain_timeout_seconds)
            with harness.lock:
                sms_after_very_late = harness.sms[sms_before:]
            time.sleep(options.lock_lease_seconds)
            record = _collect(harness, stack, options, liveness, at_drain, sms_after_very_late)
        finally:
            harness.stopping.set()
            for thread in threads:
                thread.join(timeout=10)
            harness.posts.shutdown(wait=False, cancel_futures=True)
            stack.stop(save=False)
            harness.restore_environment()
        verdict = check(record)
        _add_figures(verdict, harness, record)
        keep = options.keep_events_in
        if keep is None and not verdict.passed and options.failure_directory is not None:
            keep = options.failure_directory / time.strftime("chaos-failure-%Y%m%dT%H%M%S")
        if keep is not None:
            shutil.copytree(event_directory, keep, dirs_exist_ok=True)
            (keep / "record.json").write_text(json.dumps(record.__dict__, default=_jsonable, indent=1))
            verdict.figures["event logs and record kept in"] = str(keep)
    return SoakResult(verdict, record, time.monotonic() - started)


def _jsonable(value: Any) -> Any:
    if isinstance(value, set):
        return sorted(value)
    if hasattr(value, "__dict__"):
        return value.__dict__
    return str(value)


def _liveness_round(harness: Harness, stack: LocalStack, options: SoakOptions) -> dict[str, Any]:
    """Players whose record is locked right now must be able to play within a lease (and a redelivery)."""
    dynamodb = stack.aws("dynamodb")
    table = stack.template.table("GameStateTable").name
    now = time.time()
    locked = []
    for item in _scan(dynamodb, table):
        lock = item.get("user_locked")
        if lock and "player_id" in item and float(lock["M"]["expiration_epoch_timestamp"]["N"]) > now:
            locked.append((item["phone_number"]["S"], item["display_name"]["S"]))
    sids = {phone: harness.text(phone, f"nick {name}", "liveness") for phone, name in locked}
    # In the player's language, English or Spanish.
    expected = {
        phone: {replies.nick_unchanged(name), replies_es.nick_unchanged(name)} for phone, name in locked
    }
    bound = options.lock_lease_seconds + options.visibility_timeout_seconds + 15
    posted_at = {phone: harness.inbound[sid].posted_at for phone, sid in sids.items()}
    deadline = time.monotonic() + bound + 30
    while time.monotonic() < deadline:
        with harness.lock:
            answered = first_answers(harness.sms, expected, posted_at)
        if set(answered) >= set(expected):
            break
        time.sleep(0.2)
    with harness.lock:
        answered = first_answers(harness.sms, expected, posted_at)
    delays = [answered[phone] - posted_at[phone] for phone in sids if phone in answered]
    missing = [phone for phone in sids if phone not in answered]
    return {"delays": delays, "missing": missing, "bound": bound}


def first_answers(
    sms: list[dict[str, Any]], expected: dict[str, set[str]], posted_at: dict[str, float]
) -> dict[str, float]:
    """When each phone first got one of the bodies expected for it, after its question was posted."""
    answered: dict[str, float] = {}
    for sent in sms:
        phone = sent["to"]
        if sent["body"] in expected.get(phone, set()) and sent["at"] >= posted_at[phone]:
            answered[phone] = min(sent["at"], answered.get(phone, sent["at"]))
    return answered


def _scan(dynamodb: Any, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for page in dynamodb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
        items.extend(page["Items"])
    return items


def _committed_outboxes(event_directory: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Each message's outbox as its commit wrote it (a record drops its own once all is sent), or,
    when the committing worker died before it could say, as the attempt that leased it read it
    (an erasure may have blanked entries since: the commit's own word wins)."""
    outboxes: dict[str, list[tuple[str, str, str]]] = {}
    from_lease: dict[str, list[tuple[str, str, str]]] = {}
    for path in event_directory.glob("worker-*.jsonl"):
        for line in path.read_text().splitlines():
            if '"e": "outbox"' in line:
                event = json.loads(line)
                entries = [tuple(entry) for entry in event["outbox"]]
                if event.get("source") == "lease":
                    from_lease.setdefault(event["key"], entries)  # type: ignore[arg-type]
                else:
                    outboxes[event["key"]] = entries  # type: ignore[assignment]
    return {**from_lease, **outboxes}


def _idempotency(stack: LocalStack, event_directory: Path) -> dict[str, dict[str, Any]]:
    idempotency = {}
    committed = _committed_outboxes(event_directory)
    for item in _scan(stack.aws("dynamodb"), stack.template.table("IdempotencyTable").name):
        key = item["messageId"]["S"]
        if key.startswith((CONTACT_PREFIX, CEILING_PREFIX)):
            continue  # a contact record (reply budget, pending replies) or an SMS counter, not a message
        # A record drops its outbox once all is sent: then the commit's own word is all there is.
        # An erasure (or a confirmation withheld before it left) blanks an entry: the commit's
        # word keeps it, when logged.
        logged = committed.get(key, [])
        stored = [
            (entry["M"]["to"]["S"], entry["M"]["from"]["S"], entry["M"]["body"]["S"])
            for entry in item.get("outbox", {}).get("L", [])
        ]
        outbox = [
            logged[index] if body == ERASED and index < len(logged) else (to, from_, body)
            for index, (to, from_, body) in enumerate(stored)
        ]
        idempotency[key] = {
            "status": item["status"]["S"],
            "outbox": outbox if "outbox" in item else logged,
            "delivered": {
                int(index): value["S"] for index, value in item.get("delivered", {}).get("M", {}).items()
            },
        }
    return idempotency


def _collect(
    harness: Harness,
    stack: LocalStack,
    options: SoakOptions,
    liveness: dict[str, Any],
    at_drain: dict[str, dict[str, Any]],
    very_late_sms: list[dict[str, Any]],
) -> SoakRecord:
    dynamodb = stack.aws("dynamodb")
    tables = stack.template
    idempotency = _idempotency(stack, harness.event_directory)
    players = {
        item["phone_number"]["S"]: item for item in _scan(dynamodb, tables.table("GameStateTable").name)
    }
    nicknames = {
        item["nickname"]["S"]: item["phone_number"]["S"]
        for item in _scan(dynamodb, tables.table("NicknameTable").name)
    }
    events: list[dict[str, Any]] = []
    for path in harness.event_directory.glob("worker-*.jsonl"):
        for line in path.read_text().splitlines():
            if line.strip():
                events.append(json.loads(line))
    dead_letter_name = tables.queue("DeadLetterQueue").name
    dead_letters = [
        {"body": message["body"], "attributes": message["message_attributes"]}
        for message in stack.moto.queue_messages().get(dead_letter_name, [])
    ]
    return SoakRecord(
        inbound=dict(harness.inbound),
        poison_bodies=list(harness.poison_sent),
        idempotency=idempotency,
        players=players,
        nicknames=nicknames,
        sms=list(harness.sms),
        worker_events=events,
        dead_letters=dead_letters,
        stable_phones=harness.players.stable_phones,
        lock_lease_seconds=options.lock_lease_seconds,
        checked_at_epoch=time.time(),
        idempotency_at_drain=at_drain,
        sms_after_very_late_duplicates=very_late_sms,
        harness_events=dict(harness.events),
        liveness_delays=liveness["delays"],
        liveness_bound_seconds=liveness["bound"],
        liveness_missing=liveness["missing"],
        duplicate_share_limit=options.duplicate_share_limit,
    )


def _add_figures(verdict: Verdict, harness: Harness, record: SoakRecord) -> None:
    figures: dict[str, Any] = {}
    figures["players (stable / churn)"] = (
        f"{len(record.stable_phones)} / {len(harness.players.players) - len(record.stable_phones)}"
    )
    figures["messages by kind"] = ", ".join(
        f"{kind} {count}"
        for kind, count in Counter(inbound.kind for inbound in record.inbound.values()).most_common()
    )
    for name, count in sorted(harness.events.items()):
        figures[name] = count
    kills = Counter(event["point"] for event in record.worker_events if event["e"] == "kill")
    figures["worker self-SIGKILLs"] = sum(kills.values())
    for point, count in sorted(kills.items()):
        figures[f"  killed {point.replace('_', ' ')}"] = count
    stalls = Counter(event["point"] for event in record.worker_events if event["e"] == "stall")
    figures["workers stalled past a lease or claim expiry"] = sum(stalls.values())
    for point, count in sorted(stalls.items()):
        figures[f"  stalled {point.replace('_', ' ')}"] = count
    faults = [event for event in record.worker_events if event["e"] == "fault"]
    figures["DynamoDB requests failed by injection (throttling / 500)"] = len(faults)
    failed_commits = Counter(
        "+".join(sorted(set(event.get("reasons") or [event.get("code") or "?"])))
        for event in record.worker_events
        if event["e"] == "commit" and not event["ok"]
    )
    figures["commits refused (reasons)"] = ", ".join(f"{k} {v}" for k, v in failed_commits.items()) or "0"
    looks = Counter(
        event["e"] for event in record.worker_events if event["e"] in ("looked", "look-failed", "found")
    )
    figures["Messages list reads before re-sending / failed"] = f"{looks['looked']} / {looks['look-failed']}"
    figures["replies found in the list, recorded and not sent again"] = looks["found"]
    receives = [int(event["count"]) for event in record.worker_events if event["e"] == "receive"]
    figures["most receives of one SQS message"] = max(receives, default=0)
    delays = reply_delays(record)
    figures["reply delay (first POST to first reply accepted)"] = describe_delays(delays)
    figures["worker processes used"] = len(
        {event["pid"] for event in record.worker_events if event["e"] == "claim"}
    )
    verdict.figures = {**figures, **verdict.figures}
    if delays:
        verdict.figures["median reply delay s"] = round(statistics.median(delays), 2)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--rate", type=float, default=10.0, help="messages per second, at most")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the figures and violations here")
    parser.add_argument(
        "--max-duplicate-share",
        type=float,
        default=0.001,
        help="the most duplicate SMS the verdict allows, as a share of those accepted (default 0.001: 0.1%%)",
    )
    parser.add_argument(
        "--keep-events", type=Path, help="copy the workers' event logs and the record here, passed or not"
    )
    arguments = parser.parse_args(argv)
    options = SoakOptions(
        messages=arguments.messages,
        players=arguments.players,
        workers=arguments.workers,
        rate=arguments.rate,
        seed=arguments.seed,
        very_late_duplicates=max(15, arguments.messages // 100),
        poison=max(6, arguments.messages // 200),
        drain_timeout_seconds=600,
        duplicate_share_limit=arguments.max_duplicate_share,
        keep_events_in=arguments.keep_events,
    )
    result = run_soak(options)
    print(result.report())
    if arguments.json:
        arguments.json.write_text(
            json.dumps(
                {
                    "passed": result.verdict.passed,
                    "figures": result.verdict.figures,
                    "violations": result.verdict.violations,
                    "seconds": result.seconds,
                    "options": {
                        "messages": options.messages,
                        "players": options.players,
                        "workers": options.workers,
                        "seed": options.seed,
                        "rates": options.rates,
                        "duplicate_share_limit": options.duplicate_share_limit,
                    },
                },
                indent=2,
                default=str,
            )
        )
    return 0 if result.verdict.passed else 1


if __name__ == "__main__":
    sys.exit(main())
