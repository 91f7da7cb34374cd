"""Shared test fixtures: AWS on moto, the real DynamoDB store, and a processor with a fake SMS port.

DynamoDB runs on moto, or on DynamoDB Local with `DYNAMODB=local` (`make test-dynamodb-local`;
serverless_rps_local/dynamodb_local.py): one DynamoDB Local for the whole session, the game's
tables created for each test and deleted after it. SQS and SSM stay on moto either way.

The fake sender subclasses nothing but satisfies `ports.SmsSender`; the real Twilio adapter is
tested against the local Twilio-compatible API (tests/protocol/test_sms_gateway.py).
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import boto3
import botocore.loaders
import botocore.session
import freezegun
import pytest
from freezegun import freeze_time
from hypothesis import settings
from moto import mock_aws

from serverless_rps.bootstrap import Engine
from serverless_rps.countries import ServedCountries
from serverless_rps.exceptions import SmsPermanentlyRefused, SmsTemporarilyFailed
from serverless_rps.game import Limits, lobby_shard
from serverless_rps.game_store import DynamoGameStore
from serverless_rps.observability import logger
from serverless_rps.outbox import Outbox
from serverless_rps.parsing import nickname_skeleton
from serverless_rps.ports import OutboundSms, ReplyId, SentSms, SentSmsLog, SmsSender
from serverless_rps.processing import InboundSms, MessageProcessor, Result
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps.sms_ceiling import SmsCeiling
from serverless_rps_local.dynamodb_local import DynamoDbEngine, DynamoDbLocal, selected_engine
from serverless_rps_local.in_process import (
    BOT_NUMBER,
    COMPLETED_SECONDS,
    CONTACT_KEY,
    IN_PROGRESS_SECONDS,
    LEASE_SECONDS,
    PROOF,
    PROOF_KEY,
    PROOF_TABLE,
    REGION,
    TABLES,
    create_tables,
    delete_tables,
)
from serverless_rps_local.moto_expressions import install_expression_memory
from serverless_rps_local.moto_rollback import light_transaction_rollback
from serverless_rps_local.twilio_api import LocalTwilioApi

# pytest's own clock measures how long each test took (--durations, and mutmut's ordering and
# time limits, scripts/mutants.py): frozen, it reports days for a test that froze time ahead.
freezegun.configure(extend_ignore_list=["_pytest.timing"])

# No pass/fail test times anything: Hypothesis's per-example deadline (200 ms) is a timing, and on
# a busy machine it failed a property that held. Examples still have to finish within the run's
# timeout (pyproject.toml).
settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")

# One botocore loader for the whole test process. Every boto3 session reads and parses the JSON
# models of the services it makes clients for, about 70 ms of CPU a session; moto gives each test
# a fresh default session and the code under test makes its own (a Lambda's cold start), so
# without this the suite spent more time parsing the same files than running the game. The
# loader only reads files that do not change during a run: sharing it changes nothing else.
botocore.session.create_loader = functools.cache(botocore.loaders.create_loader)

# moto parses every update and condition expression from its text, twice a call; the game sends
# the same few dozen again and again. Remembered, the same trees give the same answers
# (tests/local/test_moto_expressions.py) for a fifth less CPU in the simulation. Installed here, at
# import, it also reaches the simulation's worker processes, which import this module.
install_expression_memory()

# The slow tier is marked on the tests themselves (`pytestmark = pytest.mark.slow` in a module,
# `@pytest.mark.slow` on a test, `pytest.param(..., marks=pytest.mark.slow)` on a case), each with
# why: `make check` leaves them out (`-m "not slow"`), `make test` runs them all.
#
# The files that hold long tests run first, in this order, longest first, so that on two processes
# (make test) the longest does not start last while the other process idles; the others follow in
# pytest's order. tests/unit/test_run_order.py checks that every path here is a test file.
LONGEST_FIRST: tuple[str, ...] = (
    "tests/simulation/test_exploration.py",
    "tests/simulation/test_scheduler.py",
    "tests/simulation/test_mutants.py",
    "tests/chaos/test_chaos_soak.py",
    "tests/unit/test_template.py",
    "tests/protocol/test_crash_matrix.py",
    "tests/protocol/test_request_counts.py",
    "tests/protocol/test_reply_budget.py",
    "tests/local/test_browser.py",
    "tests/local/test_cold_path.py",
    "tests/local/test_contention.py",
    "tests/local/test_dynamodb_local.py",
    "tests/local/test_event_source.py",
    "tests/local/test_find_chromium.py",
    "tests/local/test_invoke.py",
    "tests/local/test_moto_expressions.py",
    "tests/local/test_moto_rollback.py",
    "tests/local/test_operator_tool.py",
    "tests/local/test_play_signals.py",
    "tests/local/test_stack.py",
    "tests/local/test_template.py",
    "tests/local/test_twilio_api.py",
    "tests/docs/test_documented_commands.py",
    "tests/docs/test_local_page.py",
    "tests/protocol/test_concurrency.py",
    "tests/protocol/test_erasure.py",
    "tests/protocol/test_sms_gateway.py",
    "tests/protocol/test_sms_gateway_edges.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Whole files move, each in its own order, so that a module's fixture is still made once. Only
    # on xdist's processes (make test): one process runs tests in the order it was given, and
    # mutmut gives each mutant's tests fastest first so that the first failure comes soon.
    if hasattr(config, "workerinput"):
        place = {path: rank for rank, path in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: place.get(item.path.relative_to(config.rootpath).as_posix(), len(place)))
    if ENGINE is not DynamoDbEngine.MOTO:
        _leave_out_what_never_reaches_dynamodb(config, items)


def _leave_out_what_never_reaches_dynamodb(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The DynamoDB Local run (`make test-dynamodb-local`) repeats the protocol tests on the other
    engine; one that never asks for the engine (the Twilio adapter's against the local Twilio API,
    the failure classification) is the same test on either, already run on moto."""
    protocol = config.rootpath / "tests" / "protocol"
    kept: list[pytest.Item] = []
    engine_free: list[pytest.Item] = []
    for item in items:
        reaches = not item.path.is_relative_to(protocol) or "dynamodb_endpoint" in item.fixturenames
        (kept if reaches else engine_free).append(item)
    if engine_free:
        config.hook.pytest_deselected(items=engine_free)
        items[:] = kept


ALICE = "+15551110001"
BOB = "+15552220002"
CAROL = "+15553330003"
STRANGER = "+15554440004"  # a phone the tests never register


def neighbours(phone: str, count: int) -> list[str]:
    """`count` phones whose lobby throws wait in `phone`'s lobby shard (model.lobby_shard): a
    crowd that meets in one shard, as every lobby throw did before the lobby was sharded."""
    return phones_in_room(lobby_shard(phone), count)


def phones_in_room(room: str, count: int) -> list[str]:
    """`count` phones whose lobby throws wait in the lobby shard `room`."""
    found = (f"+1555660{index:04d}" for index in range(10_000))
    return [other for other in found if lobby_shard(other) == room][:count]


@pytest.fixture(autouse=True, scope="session")
def _game_logs_to_this_sessions_stdout() -> None:
    """The game's logger keeps the stdout it was created with. mutmut runs pytest twice in one
    process (collecting which tests reach which code, then a clean run), and by the second run
    that stdout is the first run's closed capture: point the handler at this session's."""
    handler = logger.registered_handler
    if isinstance(handler, logging.StreamHandler):
        handler.stream = sys.stdout  # not setStream(): it would flush the closed stream first


@pytest.fixture(autouse=True)
def _aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    # Never let a test reach a real account.
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)


ENGINE = selected_engine()


@pytest.fixture(scope="session")
def dynamodb_endpoint() -> Iterator[str | None]:
    """DynamoDB Local's URL for the session when it is the engine; None on moto."""
    if ENGINE is DynamoDbEngine.MOTO:
        yield None
        return
    server = DynamoDbLocal()
    yield server.start()
    server.stop()


@pytest.fixture
def aws(dynamodb_endpoint: str | None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto for AWS; DynamoDB clients made from the environment (a handler's) reach the engine.

    moto rolls a cancelled transaction back from a copy of every table it touches, so a test's
    every commit cost more as its tables grew; the per-item rollback leaves the same tables
    (tests/local/test_moto_rollback.py) at a cost that does not grow."""
    if dynamodb_endpoint is not None:
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb_endpoint)
    with mock_aws(), light_transaction_rollback():
        yield


@contextmanager
def game_tables(dynamodb_endpoint: str | None) -> Iterator[Any]:
    """A client on the game's three tables, empty, in the selected engine (call inside mock_aws)."""
    client = boto3.client("dynamodb", region_name=REGION, endpoint_url=dynamodb_endpoint)
    create_tables(client)
    try:
        yield client
    finally:
        if dynamodb_endpoint is not None:
            delete_tables(client)


@pytest.fixture
def dynamodb(aws: None, dynamodb_endpoint: str | None) -> Iterator[Any]:
    with game_tables(dynamodb_endpoint) as client:
        yield client


@pytest.fixture
def clock() -> Iterator[Any]:
    with freeze_time("2026-11-21 12:00:00") as frozen:
        yield frozen


@dataclass
class FakeSms:
    """Records what would leave through Twilio; can be told to fail the next sends."""

    sent: list[OutboundSms] = field(default_factory=list)
    failures: list[Exception | None] = field(default_factory=list)
    # Which reply each accepted send was, and the SID it got: what Twilio's status callbacks name.
    accepted: list[tuple[ReplyId | None, str]] = field(default_factory=list)
    listed: list[SentSms] = field(default_factory=list)
    list_failures: list[Exception] = field(default_factory=list)
    list_lags: bool = False  # the list does not show the latest sends yet
    lists_read: int = 0
    _sids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        planned = self.failures.pop(0) if self.failures else None
        if isinstance(planned, SmsTemporarilyFailed) and planned.maybe_sent:
            self.sent.append(message)  # Twilio took it, and its answer was lost
            self.accepted.append((reply, f"SM{next(self._sids):032x}"))
        if planned is not None:
            raise planned
        self.sent.append(message)
        sid = f"SM{next(self._sids):032x}"
        self.accepted.append((reply, sid))
        self.listed.append(SentSms(sid, message.to, message.from_, message.body, "outbound-api", time.time()))
        return sid

    def sent_to(self, to: str, limit: int) -> list[SentSms]:
        self.lists_read += 1
        if self.list_failures:
            raise self.list_failures.pop(0)
        if self.list_lags:
            return []
        return [sms for sms in reversed(self.listed) if sms.to == to][:limit]

    def sids_sent_for(self, key: str) -> list[str]:
        """The SIDs Twilio gave the replies of message record `key`, in the order they were sent."""
        return [sid for reply, sid in self.accepted if reply is not None and reply.key == key]

    def fail_next(self, *errors: Exception | None) -> None:
        """Plan the next sends' fates in order: an exception to raise, or None to succeed."""
        self.failures.extend(errors)

    def to(self, phone: str) -> list[str]:
        return [message.body for message in self.sent if message.to == phone]

    def last(self, phone: str) -> str:
        bodies = self.to(phone)
        assert bodies, f"nothing was sent to {phone}"
        return bodies[-1]


def transient_failure() -> SmsTemporarilyFailed:
    return SmsTemporarilyFailed("Twilio 503", retry_after=2)


def opted_out() -> SmsPermanentlyRefused:
    return SmsPermanentlyRefused("recipient opted out", 21610)


def new_engine(
    store: DynamoGameStore, sender: SmsSender, sent_log: SentSmsLog | None = None, **options: Any
) -> Engine:
    """The engine over `store`, as bootstrap.py composes it: an outbox that sends through `sender`
    and looks, before re-sending, in `sent_log` (by default `sender`'s own list: a FakeSms keeps
    one), and a processor over both. `options` are the processor's (limits defaults to the game's,
    lock_wait_seconds to 0); its clock, sleep and jitter are the outbox's too."""
    log = sent_log if sent_log is not None else sender
    assert hasattr(log, "sent_to"), "give a sent_log: this sender keeps no list of what it sent"
    # The clock, the pause and the jitter are the processor's and the outbox's alike.
    shared = {name: options[name] for name in ("clock", "sleep", "jitter") if name in options}
    outbox = Outbox(store.outboxes, sender, log, **shared)  # type: ignore[arg-type]
    options.setdefault("limits", Limits())
    options.setdefault("lock_wait_seconds", 0)
    return Engine(store, outbox, MessageProcessor(store, outbox, **options))


def new_processor(
    store: DynamoGameStore, sender: SmsSender, sent_log: SentSmsLog | None = None, **options: Any
) -> MessageProcessor:
    """`new_engine`'s processor."""
    return new_engine(store, sender, sent_log, **options).processor


def new_store(dynamodb: Any) -> DynamoGameStore:
    """The store as deployed: it keeps the proof of every opt-out, under the fixed test key."""
    return DynamoGameStore(
        dynamodb,
        TABLES,
        lock_lease_seconds=LEASE_SECONDS,
        in_progress_expiry_seconds=IN_PROGRESS_SECONDS,
        completed_record_seconds=COMPLETED_SECONDS,
        contact_key=CONTACT_KEY,
        proof=PROOF,
    )


_PLACEHOLDER = re.compile(r"[:#][A-Za-z0-9_]+")
_EXPRESSIONS = (
    "UpdateExpression",
    "ConditionExpression",
    "ProjectionExpression",
    "FilterExpression",
    "KeyConditionExpression",
)


def _unused_placeholders(request: dict[str, Any]) -> list[str]:
    """ExpressionAttributeNames / Values entries that no expression of the request uses."""
    used = {match for name in _EXPRESSIONS for match in _PLACEHOLDER.findall(request.get(name, ""))}
    declared = set(request.get("ExpressionAttributeNames", {})) | set(
        request.get("ExpressionAttributeValues", {})
    )
    return sorted(declared - used)


class RequestsDynamoDbWouldRefuse:
    """DynamoDB refuses a request that declares a name or value its expressions do not use; moto
    accepts it. Every request the protocol makes is checked here on either engine, so a mistake
    of that kind fails on moto too, and at once, not only in the DynamoDB Local run."""

    def __init__(self, dynamodb: Any) -> None:
        self.refused: list[str] = []
        dynamodb.meta.events.register("provide-client-params.dynamodb", self._check)

    def _check(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        requests = [params]
        for action in params.get("TransactItems", []):
            requests += list(action.values())
        requests += list(params.get("RequestItems", {}).values()) if model.name == "BatchGetItem" else []
        for request in requests:
            unused = _unused_placeholders(request)
            if unused:
                self.refused.append(f"{model.name} declares {unused} but never uses them")
                raise AssertionError(self.refused[-1])


class Game:
    """A player's-eye driver: `game.text(ALICE, "nick alice")` processes one inbound SMS."""

    def __init__(
        self,
        dynamodb: Any,
        sms: FakeSms,
        limits: Limits | None = None,
        sid_prefix: str = "0",
        budget: BudgetPolicy | None = None,
        countries: ServedCountries | None = None,
        daily_sms_ceiling: int | None = None,
    ) -> None:
        """`countries` the processor serves (NANP, as deployed, by default); `daily_sms_ceiling`
        gives it the day's ceiling (`ceiling`), as bootstrap.py does (none by default)."""
        self.dynamodb = dynamodb
        self.sms = sms
        self.strict = RequestsDynamoDbWouldRefuse(dynamodb)
        self.store = new_store(dynamodb)
        # Ids from a counter (player ids decide which leaderboard shard holds a line): the same
        # game played twice has the same ids, and drivers sharing tables keep apart by prefix.
        ids = itertools.count(1)
        self.ceiling = SmsCeiling(self.store, daily_sms_ceiling) if daily_sms_ceiling is not None else None
        self.engine = new_engine(
            self.store,
            sms,
            limits=limits or Limits(),
            lock_wait_seconds=0.2,
            sleep=lambda _: None,
            budget=budget or BudgetPolicy(),
            countries=countries or ServedCountries(),
            ceiling=self.ceiling,
            new_id=lambda: f"{sid_prefix}{next(ids):031x}",
        )
        self.processor = self.engine.processor
        self._sids = itertools.count(1)
        self._sid_prefix = sid_prefix  # drivers sharing tables need distinct SMS ids

    def inbound(self, sender: str, body: str, sid: str | None = None) -> InboundSms:
        sid = sid or f"SM{self._sid_prefix}{next(self._sids):031x}"
        return InboundSms(sid, sender, BOT_NUMBER, body, transport_id=f"sqs-{sid}-{os.urandom(4).hex()}")

    def text(self, sender: str, body: str, sid: str | None = None) -> Result:
        return self.processor.process(self.inbound(sender, body, sid))

    def player(self, phone: str) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self.dynamodb.get_item(
            TableName=TABLES.game_state, Key={"phone_number": {"S": phone}}
        ).get("Item")
        return item

    def nickname_row(self, name: str) -> dict[str, Any] | None:
        """The nickname table's row for `name` (stored under its look-alike key)."""
        item: dict[str, Any] | None = self.dynamodb.get_item(
            TableName=TABLES.nickname, Key={"nickname": {"S": nickname_skeleton(name)}}
        ).get("Item")
        return item

    def message_record(self, key: str) -> dict[str, Any] | None:
        """The idempotency table's item under `key`: a message's record, or a contact record."""
        item: dict[str, Any] | None = self.dynamodb.get_item(
            TableName=TABLES.idempotency, Key={"messageId": {"S": key}}
        ).get("Item")
        return item

    def stored_record(self, key: str) -> dict[str, Any]:
        """As `message_record`, for a record the test expects: none fails the test."""
        item = self.message_record(key)
        assert item is not None, f"no record under {key}"
        return item

    def items(self, table: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.dynamodb.scan(TableName=table)["Items"]
        return items

    def items_holding(self, phone: str) -> list[dict[str, Any]]:
        """Every item of the four tables that holds `phone` anywhere (opt-out erases: promise 13)."""
        return [
            item
            for table in (TABLES.game_state, TABLES.nickname, TABLES.idempotency, PROOF_TABLE)
            for item in self.items(table)
            if phone in json.dumps(item)
        ]

    def proof_of(self, phone: str) -> list[dict[str, Any]]:
        """The proof table's items of `phone` (under the test key), in their key order: its opt-outs,
        oldest first, then its status."""
        items = [
            item for item in self.items(PROOF_TABLE) if item["number"]["S"] == PROOF_KEY.number_id(phone)
        ]
        return sorted(items, key=lambda item: item["event"]["S"])

    def opt_outs_of(self, phone: str) -> list[dict[str, Any]]:
        """`proof_of`'s opt-out records, oldest first."""
        return [item for item in self.proof_of(phone) if item["event"]["S"].startswith("opt-out#")]

    def register(self, *pairs: tuple[str, str]) -> None:
        for phone, name in pairs:
            self.text(phone, f"nick {name}")


TWILIO_ACCOUNT = "AC" + "1" * 32
TWILIO_TOKEN = "local-test-token"


@pytest.fixture
def twilio() -> Iterator[LocalTwilioApi]:
    """The local Twilio-compatible Messages API, on a free port."""
    api = LocalTwilioApi(TWILIO_ACCOUNT, TWILIO_TOKEN)
    api.start()
    yield api
    api.stop()


@pytest.fixture
def sms() -> FakeSms:
    return FakeSms()


@pytest.fixture
def game(dynamodb: Any, sms: FakeSms, clock: Any) -> Iterator[Game]:
    game = Game(dynamodb, sms)
    yield game
    # A refused request in a best-effort clean-up is only logged by the engine: fail the test here.
    assert game.strict.refused == []
