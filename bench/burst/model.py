"""One run of the burst model: the crowd texts, the webhook queues, Lambda's event source invokes
the real game function (`app.build_game_function`, as deployed, on a simulated clock), which talks
to moto's DynamoDB and a simulated Twilio, all in virtual time; then the queue drains, a few very
late duplicates come, and the soak's checker judges what was left (bench/chaos/checker.py).

A replica (`sample` k > 1) plays 1/k of the phones with 1/k of every rate and capacity: the
sender's rate, MaximumConcurrency, Lambda's scaling steps, and the hot-item counts named in
`scaled_settings`. docs/capacity.md says what that keeps and what it biases.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import json
import math
import os
import random
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import boto3
import botocore.session
from botocore.config import Config
from moto import mock_aws

from bench.burst.deployment import Deployment
from bench.burst.dynamodb import Faults, SimulatedDynamoDb, stored_items, virtual_sdk_sleep
from bench.burst.event_source import EventSourceMapping, Scaling, sid_of
from bench.burst.latencies import Latencies
from bench.burst.observations import InvocationContext, Observations
from bench.burst.players import ArrivalProfile, Crowd
from bench.burst.sqs import SimulatedQueue, SqsEndpoint
from bench.burst.twilio_messages import SimulatedTwilio
from bench.burst.virtual_time import Killed, Scheduler, cooperative_threads, current_actor
from bench.chaos.checker import Inbound, SoakRecord, Verdict, check
from serverless_rps import app
from serverless_rps.bootstrap import Clockwork
from serverless_rps.game_store import CEILING_PREFIX, CONTACT_PREFIX
from serverless_rps.observability import logger
from serverless_rps.parsing import OPT_OUT_WORDS
from serverless_rps_local.in_process import BOT_NUMBER, REGION, TABLES, create_tables
from serverless_rps_local.moto_expressions import install_expression_memory
from serverless_rps_local.moto_rollback import light_transaction_rollback

__all__ = ["EPOCH", "BurstRun", "ModelOptions", "ScriptedText", "run"]

# Virtual time 0 in epoch seconds (November 2026): what the engine's clock reads at the start.
EPOCH = 1_795_300_000.0
_ACCOUNT = "123456789012"
_INCOMING_URL = f"https://sqs.{REGION}.amazonaws.com/{_ACCOUNT}/burst-incoming"
_DEAD_LETTER_URL = f"https://sqs.{REGION}.amazonaws.com/{_ACCOUNT}/burst-dead-letters"
_QUEUE_ARN = f"arn:aws:sqs:{REGION}:{_ACCOUNT}:burst-incoming"
_POISON = ("this is not JSON", "[1, 2, 3]", '{"From": "+15550199999"}', "", '{"From": "", "Body": "hi"}')
SAMPLE_EVERY_SECONDS = 10.0


@dataclass(frozen=True)
class ScriptedText:
    """A text at a fixed time, for runs that replace the crowd with a script (calibration)."""

    at: float
    phone: str
    body: str


@dataclass(frozen=True)
class ModelOptions:
    seed: int = 1
    scale: float = 1.0  # the burst's size: 1 is the reference (20,000 phones), 10 ten times that
    sample: int = 1  # play a 1/k replica
    twilio_latency_factor: float = 1.0
    sender_rate: float = 100.0  # messages a second the bot's number sends (a short code: 100)
    concurrency: int | None = None  # MaximumConcurrency instead of the template's
    faults: Faults = field(default_factory=Faults)
    horizon_seconds: float = 8 * 3600.0  # stop here even if the queue has not drained
    window_seconds: float | None = None  # only the phones that arrive in the first W seconds
    settings: dict[str, str] = field(default_factory=dict)  # the engine's environment, changed
    scaled_settings: tuple[str, ...] = ()  # settings divided by k in a replica (hot-item counts)
    profile: ArrivalProfile = field(default_factory=ArrivalProfile)
    # Instead of the crowd: exactly these texts (no poison, no duplicates, no very late ones).
    script: tuple[ScriptedText, ...] | None = None


@dataclass
class BurstRun:
    options: ModelOptions
    deployment: Deployment
    latencies: Latencies
    observations: Observations
    queue: SimulatedQueue
    twilio: SimulatedTwilio
    mapping: EventSourceMapping
    inbound: dict[str, Inbound]
    kinds: dict[str, int]
    samples: list[dict[str, float]]
    record: SoakRecord
    verdict: Verdict | None  # None when the run stopped at its horizon, the queue not drained
    drained_at: float
    horizon_reached: bool
    phones: int
    cpu_seconds: float
    wall_seconds: float


class _Discard(io.TextIOBase):
    """Where the engine's metric lines go during a run (one EMF line a message)."""

    def write(self, text: str) -> int:
        return len(text)


def run(options: ModelOptions) -> BurstRun:
    cpu, wall = time.process_time(), time.perf_counter()
    with _quiet_engine(), _in_process_aws(), virtual_sdk_sleep(), cooperative_threads():
        result = _Run(options).play()
    result.cpu_seconds, result.wall_seconds = time.process_time() - cpu, time.perf_counter() - wall
    return result


@contextlib.contextmanager
def _quiet_engine() -> Iterator[None]:
    level = logger.log_level
    logger.setLevel("CRITICAL")  # the engine logs each step at INFO
    try:
        with contextlib.redirect_stdout(_Discard()):
            yield
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def _in_process_aws() -> Iterator[None]:
    credentials = {
        "AWS_ACCESS_KEY_ID": "burst",
        "AWS_SECRET_ACCESS_KEY": "burst",
        "AWS_DEFAULT_REGION": REGION,
    }
    saved = {name: os.environ.get(name) for name in [*credentials, "AWS_ENDPOINT_URL"]}
    os.environ.update(credentials)
    os.environ.pop("AWS_ENDPOINT_URL", None)
    undo_expressions = install_expression_memory()
    try:
        with mock_aws(), light_transaction_rollback():
            yield
    finally:
        undo_expressions()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class _Run:
    def __init__(self, options: ModelOptions) -> None:
        self.options = options
        k = options.sample
        random.seed(options.seed)  # botocore draws its jittered backoff from `random`
        self.scheduler = Scheduler()
        self.observations = Observations()
        deployment = Deployment.from_template()
        if options.concurrency is not None:
            deployment = deployment.with_concurrency(options.concurrency)
        self.deployment = deployment
        self.latencies = Latencies(
            _chance(options, "latency"), deployment.memory_mb, options.twilio_latency_factor
        )
        self.twilio = SimulatedTwilio(
            self.scheduler, self.latencies, self.observations, options.sender_rate / k, EPOCH
        )
        message_ids = _chance(options, "message ids")
        self.queue = SimulatedQueue(
            self.scheduler,
            deployment.visibility_timeout_seconds,
            deployment.max_receive_count,
            new_id=lambda: _uuid(message_ids),
        )
        self.inbound: dict[str, Inbound] = {}
        self.kinds: dict[str, int] = {}
        self.samples: list[dict[str, float]] = []
        self._sids = itertools.count(1)
        self._posts = _chance(options, "posts")
        self._ids = _chance(options, "engine ids")
        self._jitter = _chance(options, "jitter")
        session = self._session()
        settings = deployment.game_settings(
            {
                "GAME_STATE_TABLE": TABLES.game_state,
                "NICKNAME_TABLE": TABLES.nickname,
                "IDEMPOTENCY_TABLE": TABLES.idempotency,
                "INCOMING_QUEUE_URL": _INCOMING_URL,
                "DEAD_LETTER_QUEUE_URL": _DEAD_LETTER_URL,
                "TWILIO_ACCOUNT_SID": "AC" + "b" * 32,
                "TWILIO_AUTH_TOKEN": "burst-model-token",
                "STATUS_CALLBACK_URL": "https://burst.invalid/sms/path-secret/status",
            },
            {**options.settings, **_divided(deployment, options)},
        )
        self.lease_seconds = settings.lock_lease_seconds
        clockwork = Clockwork(
            clock=lambda: EPOCH + self.scheduler.time_of_this_thread(),
            sleep=self._sleep,
            new_id=lambda: _uuid(self._ids),
            jitter=self._jitter.random,
        )

        def build_function(context: InvocationContext) -> app.GameFunction:
            with self.twilio.gateway_http_client():
                function = app.build_game_function(settings, session, clockwork)
            self._observe_records(function, context)
            return function

        maximum = deployment.maximum_concurrency or 1000
        self.mapping = EventSourceMapping(
            self.scheduler,
            self.queue,
            Scaling(
                deployment.batch_size,
                deployment.batching_window_seconds,
                maximum_concurrency=max(1, maximum // k),
                function_timeout_seconds=deployment.function_timeout_seconds,
                first_batches=max(1, round(5 / k)),
                more_per_minute=300 / k,
            ),
            build_function,
            self.latencies,
            self.observations,
            EPOCH,
            _QUEUE_ARN,
        )
        self.queue.on_visible = self.mapping.wake
        self.profile = options.profile.scaled(options.scale / k)
        self.crowd = Crowd(self.profile, self.scheduler, _chance(options, "crowd"), self._post)
        self.twilio.listeners.append(self.crowd.hear)

    # -- the world around the function -------------------------------------------------------------

    def _session(self) -> boto3.session.Session:
        """A session whose clients are served by the simulated services: every client the function
        builds from it (at each cold start) reaches them."""
        core = botocore.session.get_session()
        # Signing is meaningless to moto and costs a third of each request's CPU here.
        core.set_default_client_config(Config(signature_version=botocore.UNSIGNED))
        dynamodb = SimulatedDynamoDb(
            self.latencies, self.options.faults, _chance(self.options, "faults"), self.observations
        )
        dynamodb.attach(core.get_component("event_emitter"))
        SqsEndpoint(
            self.queue,
            {"incoming": _INCOMING_URL, "dead_letters": _DEAD_LETTER_URL},
            self.latencies,
            self.observations,
        ).attach(core.get_component("event_emitter"))
        session = boto3.session.Session(botocore_session=core, region_name=REGION)
        create_tables(session.client("dynamodb"))
        return session

    def _sleep(self, seconds: float) -> None:
        actor = current_actor()
        assert actor is not None, "the engine sleeps only inside an invocation"
        self.observations.lock_pauses += 1
        actor.pass_time(seconds)

    def _observe_records(self, function: app.GameFunction, context: InvocationContext) -> None:
        """Each record the handler takes: which message the invocation works for, how long the
        engine's own CPU takes, and how the record ended (its RetryLater subclass, if it failed)."""
        handle = function.handle_record
        observations, latencies = self.observations, self.latencies

        def handle_record(record: Mapping[str, Any]) -> None:
            actor = current_actor()
            assert actor is not None
            context.sid, context.key = sid_of(record["body"]), None
            actor.pass_time(latencies.engine())
            try:
                handle(record)
            except Killed:
                raise
            except Exception as exc:
                observations.record_failed(type(exc).__name__)
                context.records_failed += 1
                raise
            observations.record_done(context, actor.now)

        function.handle_record = handle_record  # type: ignore[method-assign]

    def _post(self, phone: str, body: str, kind: str) -> None:
        """Twilio posts an inbound SMS to the webhook now; the webhook queues it."""
        sid = f"SM{next(self._sids):032x}"
        now = self.scheduler.now
        self.inbound[sid] = Inbound(sid, phone, body, kind, now)
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if body.strip().lower() in OPT_OUT_WORDS:
            self.twilio.opt_out(phone)  # Twilio's own keyword handling, before the webhook
        queued = json.dumps(
            {"MessageSid": sid, "From": phone, "To": BOT_NUMBER, "Body": body}, sort_keys=True
        )
        self.scheduler.call_later(self.latencies.webhook_seconds, functools.partial(self._enqueue, queued))
        if self.options.script is None and self._posts.random() < self.profile.duplicate_share:
            self.kinds["duplicate post"] = self.kinds.get("duplicate post", 0) + 1
            self.scheduler.call_later(self._posts.uniform(0.5, 5.0), functools.partial(self._enqueue, queued))

    def _enqueue(self, body: str) -> None:
        self.queue.send(body)

    # -- the run ---------------------------------------------------------------------------------

    def play(self) -> BurstRun:
        if self.options.script is not None:
            for text in self.options.script:
                self.scheduler.call_at(
                    text.at, functools.partial(self._post, text.phone, text.body, "scripted")
                )
        else:
            self.crowd.arrive_over_the_window(until=self.options.window_seconds)
            for body in _POISON[: self.profile.poison]:
                at = self._posts.uniform(0, self.profile.arrival_seconds)
                self.scheduler.call_at(at, functools.partial(self._enqueue, body))
        self.scheduler.call_at(0.0, self._sample)
        horizon = self.options.horizon_seconds
        self.scheduler.run(until=horizon)
        drained_at = self.scheduler.now
        horizon_reached = not self.scheduler.idle
        at_drain = self._idempotency()
        sms_before = len(self.twilio.accepted)
        if not horizon_reached and self.options.script is None:
            self._very_late_duplicates()
            self.scheduler.run(until=math.inf)
        # A run stopped at its horizon has messages in flight: the promises are judged on a drained run.
        record = self._record(at_drain, sms_before)
        verdict = None if horizon_reached else check(record)
        phones = (
            len(self.crowd.players)
            if self.options.script is None
            else len({text.phone for text in self.options.script})
        )
        return BurstRun(
            self.options,
            self.deployment,
            self.latencies,
            self.observations,
            self.queue,
            self.twilio,
            self.mapping,
            self.inbound,
            self.kinds,
            self.samples,
            record,
            verdict,
            drained_at,
            horizon_reached,
            phones,
            0.0,
            0.0,
        )

    def _sample(self) -> None:
        """What CloudWatch would chart: the queue's oldest message and depth, every 10 s."""
        visible, in_flight = self.queue.depth()
        self.samples.append(
            {
                "t": self.scheduler.now,
                "oldest_age": self.queue.oldest_age(),
                "visible": visible,
                "in_flight": in_flight,
                "batches": self.mapping.busy,
                "texts posted": len(self.inbound),
                "texts completed": len(self.observations.completed_at),
            }
        )
        if not self.scheduler.idle:
            self.scheduler.call_later(SAMPLE_EVERY_SECONDS, self._sample)

    def _very_late_duplicates(self) -> None:
        """Twilio posts some completed messages again, long after: they must send nothing."""
        completed = sorted(self.observations.completed_at)
        for sid in self._posts.sample(completed, min(self.profile.very_late_duplicates, len(completed))):
            inbound = self.inbound[sid]
            body = {"MessageSid": sid, "From": inbound.phone, "To": BOT_NUMBER, "Body": inbound.body}
            self.queue.send(json.dumps(body, sort_keys=True))

    def _idempotency(self) -> dict[str, dict[str, Any]]:
        """The message records as the checker reads them, each outbox as its commit wrote it."""
        records = {}
        for item in stored_items(TABLES.idempotency):
            key = item["messageId"]["S"]
            if key.startswith((CONTACT_PREFIX, CEILING_PREFIX)):  # not messages: contacts, SMS counts
                continue
            stored = [
                (entry["M"]["to"]["S"], entry["M"]["from"]["S"], entry["M"]["body"]["S"])
                for entry in item.get("outbox", {}).get("L", [])
            ]
            records[key] = {
                "status": item["status"]["S"],
                "outbox": stored if "outbox" in item else self.observations.outboxes.get(key, []),
                "delivered": {
                    int(index): value["S"] for index, value in item.get("delivered", {}).get("M", {}).items()
                },
            }
        return records

    def _record(self, at_drain: dict[str, dict[str, Any]], sms_before: int) -> SoakRecord:
        def listed(sms: Any) -> dict[str, Any]:
            return {"sid": sms.sid, "to": sms.to, "from": sms.from_, "body": sms.body, "at": sms.accepted_at}

        players = {item["phone_number"]["S"]: item for item in stored_items(TABLES.game_state)}
        nicknames = {
            item["nickname"]["S"]: item["phone_number"]["S"] for item in stored_items(TABLES.nickname)
        }
        dead_letters = [
            {"body": letter.body or "<empty>", "attributes": letter.attributes}
            for letter in self.queue.dead_letters
        ]
        stable = (
            self.crowd.stable_phones
            if self.options.script is None
            else {inbound.phone for inbound in self.inbound.values()}
        )
        return SoakRecord(
            inbound=dict(self.inbound),
            poison_bodies=list(_POISON[: self.profile.poison]) if self.options.script is None else [],
            idempotency=self._idempotency(),
            players=players,
            nicknames=nicknames,
            sms=[listed(sms) for sms in self.twilio.accepted],
            worker_events=self.observations.events,
            dead_letters=dead_letters,
            stable_phones=stable,
            lock_lease_seconds=self.lease_seconds,
            checked_at_epoch=EPOCH + self.scheduler.now + self.lease_seconds + 1,
            idempotency_at_drain=at_drain,
            sms_after_very_late_duplicates=[listed(sms) for sms in self.twilio.accepted[sms_before:]],
        )


def _chance(options: ModelOptions, purpose: str) -> random.Random:
    """A generator of its own for each purpose, so that one drawing more leaves the others alone."""
    return random.Random(f"{options.seed}/{purpose}")


def _uuid(chance: random.Random) -> str:
    return f"{chance.getrandbits(128):032x}"


def _divided(deployment: Deployment, options: ModelOptions) -> dict[str, str]:
    """The hot-item counts of a replica: the template's (or the run's) value divided by k."""
    divided = {}
    for name in options.scaled_settings:
        value = options.settings.get(name, deployment.environment.get(name))
        if value is None:
            raise ValueError(f"{name} is not a setting of the game function")
        divided[name] = str(max(1, round(float(value) / options.sample)))
    return divided
