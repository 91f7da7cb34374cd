"""Contention, measured with real processes: the game function in 1, 2, 4 and 8 worker processes
on one DynamoDB Local, every DynamoDB request held back by a fixed latency (10 ms by default).

    python -m bench.contention [--workers 1,2,4,8] [--latency-ms 10] [--seconds 20] [--rounds 2]
                               [--players 256] [--json]

Two workloads, played by registered players (the registration, once, is not timed):

- **lobby**: every player texts a lone move (`rock`), a throw at a stranger. Whoever was played
  (a reply went to them and to a stranger) throws again after everyone ready to throw; whoever
  waits, waits.
- **challenges**: disjoint pairs. One texts `rock ans0001`, the other answers `paper cha0001` at
  once (a result: it locks the leaderboard), then the first challenges again after every pair
  ready to play.

At each worker count one pool of workers plays the workloads in turns (`--rounds` slices of each,
`--seconds` of each in all), so that both meet the same load on the machine; every slice starts
from the tables as the registration left them. The queue holds up to two records per worker (in
hand or waiting): a worker that finishes finds the next one, and hundreds of players wait behind
them, so the players are never the limit. Throughput is the messages processed (and the results among them)
that finished while the players texted, a second; then nobody texts again, and what is queued or
coming back is processed before the accounting (each text processed exactly once and answered).

The model, and what it leaves out:
- Each worker is its own process running `GameFunction.handle_record`, built from the real parts
  as every benchmark builds it (bench/environment.py), on DynamoDB Local. SMS go to `NullSms`,
  which accepts each instantly: the point is DynamoDB contention, not Twilio's latency.
- SQS is a multiprocessing queue of Lambda-shaped records, one record per invocation (batch size
  1). A record that fails with RetryLater comes back after its `retry_after` rounded up to whole
  seconds, at least 1 s: what `GameFunction` asks of SQS (a lock that stayed contended: when its
  holder's lease ends, up to 25 s away). Any other failure comes back after the queue's
  visibility timeout. Left out: SQS's own latency and batches, the event source's scaling,
  receive counts (every record says it is its first delivery, so none is postponed) and
  duplicate deliveries.
- The latency is slept in each worker (bench/injected_latency.py) before each request leaves, so
  a lock is held across real round trips while the process uses no CPU. DynamoDB Local is one
  Java process on the same cores: its own time, the machine's load and Python's CPU come on top
  (the table shows how busy the machine was, and how long a message spent in its requests).
- The reply budget is set out of reach, so that every message sends all its replies however long
  the run (a player of a long run would otherwise reach the 60-reply burst).
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import logging
import math
import multiprocessing
import os
import queue
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import boto3

from bench import machine
from bench.environment import InProcessAws, NullSms, create_tables, delete_tables, sqs_record
from bench.injected_latency import InjectedLatency
from bench.stats import distribution
from bench.timing import CallTimer
from serverless_rps.exceptions import RetryLater
from serverless_rps.observability import logger, metrics
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps_local.dynamodb_local import DynamoDbLocal
from serverless_rps_local.in_process import REGION, TABLES

if TYPE_CHECKING:
    from multiprocessing.queues import Queue

__all__ = [
    "Accounting",
    "Attempt",
    "ChallengeWorkload",
    "LobbyWorkload",
    "Next",
    "Phase",
    "Registered",
    "Slice",
    "Text",
    "Workload",
    "account",
    "main",
    "measure",
    "play",
    "ratios",
    "register",
    "render",
    "summarize",
]

PROCESSED = "processed"
# The incoming queue's VisibilityTimeout (template.yaml): when a failure gives no retry_after.
_VISIBILITY_TIMEOUT_SECONDS = 90.0
# GameFunction never asks SQS for less (app.py), and SQS counts visibility in whole seconds.
_MIN_REDELIVERY_SECONDS = 1.0
# What the processor logs when a lock-free read was overtaken and it reads again in the same
# invocation (a StaleRead; the third in a row is a ReadsKeptChanging, a RetryLater).
_STALE_READ_LINE = "a lock-free read was overtaken mid-attempt; reading again"
_UNBOUNDED_BUDGET = BudgetPolicy(burst=1_000_000, per_hour=1_000_000)
_MOVES = ("rock", "paper", "scissors")
_WORKER_START_SECONDS = 120.0


@dataclass(frozen=True)
class Text:
    """One SMS a player sends."""

    sender: str
    body: str


@dataclass(frozen=True)
class Attempt:
    """One invocation of `handle_record` for one record, as a worker saw it."""

    message_id: str
    worker: int
    outcome: str  # PROCESSED, the RetryLater's class name, or "error:" and the exception's
    retry_after: float | None
    started: float  # time.monotonic(): one clock for every process of the machine
    finished: float
    cpu_seconds: float  # the worker's own CPU (time.process_time) in the invocation
    requests: int  # DynamoDB requests sent (each waited for the injected latency)
    in_requests_seconds: float  # in DynamoDB calls: the latency waited, DynamoDB Local, botocore
    replies: tuple[tuple[str, str], ...]  # (to, body) of every SMS sent
    lock_contentions: int  # the engine's LockContention count: a lock request refused
    stale_reads: int  # lock-free reads overtaken and read again within the invocation

    @property
    def seconds(self) -> float:
        return self.finished - self.started


@dataclass(frozen=True)
class _Ready:
    worker: int


@dataclass(frozen=True)
class Next:
    """What players text once a message was processed: `at_once` ahead of everyone ready to
    text, `later` behind them."""

    at_once: tuple[Text, ...] = ()
    later: tuple[Text, ...] = ()


class Workload(Protocol):
    name: str

    def registrations(self) -> list[Text]: ...

    def opening(self) -> list[Text]: ...

    def follow(self, text: Text, replies: Sequence[tuple[str, str]]) -> Next:
        """What the players text next once `text` was processed and answered with `replies`."""
        ...

    def is_result(self, text: Text, replies: Sequence[tuple[str, str]]) -> bool: ...


class LobbyWorkload:
    """Every player throws at a stranger; played, they throw again after everyone ready to
    throw; waiting, they wait. The rooms a crowd meets in follow the players' phones, so the
    senders of a moment are spread over the rooms as hundreds of phones spread."""

    name = "lobby"

    def __init__(self, players: int) -> None:
        self._phones = [f"+1555201{index:04d}" for index in range(players)]
        self._throws = itertools.count()

    def registrations(self) -> list[Text]:
        return [Text(phone, f"nick lob{index:04d}") for index, phone in enumerate(self._phones)]

    def opening(self) -> list[Text]:
        return [self._throw(phone) for phone in self._phones]

    def follow(self, text: Text, replies: Sequence[tuple[str, str]]) -> Next:
        played = sorted({to for to, _ in replies} - {text.sender})
        if not played:
            return Next()  # the throw waits for a stranger: its player texts again once played
        return Next(later=(self._throw(text.sender), *(self._throw(stranger) for stranger in played)))

    def is_result(self, text: Text, replies: Sequence[tuple[str, str]]) -> bool:
        return any(to != text.sender for to, _ in replies)

    def _throw(self, phone: str) -> Text:
        return Text(phone, _MOVES[next(self._throws) % len(_MOVES)])


class ChallengeWorkload:
    """Disjoint pairs: one challenges by nickname, the other answers at once (a result), and the
    first challenges again after every pair ready to play. So results are half the messages from
    the start, instead of every pair's first challenge going before the first answer."""

    name = "challenges"

    def __init__(self, pairs: int) -> None:
        self._challengers = [f"+1555202{index:04d}" for index in range(pairs)]
        self._answerers = [f"+1555203{index:04d}" for index in range(pairs)]
        self._pair_of = {
            phone: index
            for phones in (self._challengers, self._answerers)
            for index, phone in enumerate(phones)
        }
        self._moves = itertools.count()

    def registrations(self) -> list[Text]:
        return [
            *(Text(phone, f"nick cha{index:04d}") for index, phone in enumerate(self._challengers)),
            *(Text(phone, f"nick ans{index:04d}") for index, phone in enumerate(self._answerers)),
        ]

    def opening(self) -> list[Text]:
        return [self._challenge(index) for index in range(len(self._challengers))]

    def follow(self, text: Text, replies: Sequence[tuple[str, str]]) -> Next:
        index = self._pair_of[text.sender]
        if text.sender == self._challengers[index]:
            move = _MOVES[next(self._moves) % len(_MOVES)]
            return Next(at_once=(Text(self._answerers[index], f"{move} cha{index:04d}"),))
        return Next(later=(self._challenge(index),))

    def is_result(self, text: Text, replies: Sequence[tuple[str, str]]) -> bool:
        return text.sender == self._answerers[self._pair_of[text.sender]]

    def _challenge(self, index: int) -> Text:
        move = _MOVES[next(self._moves) % len(_MOVES)]
        return Text(self._challengers[index], f"{move} ans{index:04d}")


# -- the workers ----------------------------------------------------------------------------------


class _StaleReadCounter(logging.Filter):
    """Counts the processor's log line for a lock-free read overtaken and read again."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == _STALE_READ_LINE:
            self.count += 1
        return True


def _lock_contentions() -> int:
    """The engine's LockContention count since the last `metrics.clear_metrics()`."""
    return int(sum(metrics.metric_set.get("LockContention", {}).get("Value", [])))


def _work(worker: int, endpoint: str, latency_seconds: float, tasks: Queue[Any], reports: Queue[Any]) -> None:
    """One worker process: the game function, then records from `tasks` until None."""
    # The worker's own SQS, for the function's queue clients. No record reaches it: none carries a
    # receipt handle whose visibility to shorten, and each says it is its first delivery, so none
    # is postponed (the driver brings failed records back itself).
    from moto import mock_aws

    # The function's log lines and metrics (one JSON line a message) would flood the terminal.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "AWS_PROFILE"):
        os.environ.pop(name, None)
    stale_reads = _StaleReadCounter()
    logger.addFilter(stale_reads)
    with mock_aws():
        session = boto3.session.Session(region_name=REGION)
        dynamodb = session.client("dynamodb", endpoint_url=endpoint)
        latency = InjectedLatency(latency_seconds)
        latency.attach(dynamodb)
        calls = CallTimer(dynamodb)
        sqs = session.client("sqs")
        aws = InProcessAws(
            dynamodb=dynamodb,
            raw_dynamodb=dynamodb,
            sqs=sqs,
            incoming_url=sqs.create_queue(QueueName="rps-incoming")["QueueUrl"],
            dead_letter_url=sqs.create_queue(QueueName="rps-dead-letters")["QueueUrl"],
        )
        sender = NullSms()
        function = aws.game_function(sender, budget=_UNBOUNDED_BUDGET)
        reports.put(_Ready(worker))
        while (task := tasks.get()) is not None:
            message_id, record = task
            sent_before, requests_before = len(sender.sent), latency.requests
            metrics.clear_metrics()  # as each invocation's metrics are flushed at its end
            calls.take()
            stale_reads.count = 0
            outcome, retry_after = PROCESSED, None
            started, cpu_started = time.monotonic(), time.process_time()
            try:
                function.handle_record(record)
            except RetryLater as retry:
                outcome, retry_after = type(retry).__name__, retry.retry_after
            except Exception as error:  # noqa: BLE001 - reported: SQS would bring it back
                outcome = f"error:{type(error).__name__}"
            finished, cpu = time.monotonic(), time.process_time() - cpu_started
            replies = tuple((sms.to, sms.body) for sms in sender.sent[sent_before:])
            reports.put(
                Attempt(
                    message_id,
                    worker,
                    outcome,
                    retry_after,
                    started,
                    finished,
                    cpu,
                    latency.requests - requests_before,
                    calls.take()[0],
                    replies,
                    _lock_contentions(),
                    stale_reads.count,
                )
            )


class _Pool:
    """`workers` worker processes, started (each has built its function) and later stopped."""

    def __init__(self, workers: int, endpoint: str, latency_seconds: float) -> None:
        context = multiprocessing.get_context("spawn")  # fresh interpreters, as separate Lambdas
        self.tasks: Queue[Any] = context.Queue()
        self.reports: Queue[Any] = context.Queue()
        self.workers = workers
        self._processes = [
            context.Process(
                target=_work,
                args=(index, endpoint, latency_seconds, self.tasks, self.reports),
                daemon=True,
                name=f"contention-worker-{index}",
            )
            for index in range(workers)
        ]

    def __enter__(self) -> _Pool:
        for process in self._processes:
            process.start()
        for _ in self._processes:
            ready = self.reports.get(timeout=_WORKER_START_SECONDS)
            if not isinstance(ready, _Ready):
                raise RuntimeError(f"a worker reported {ready!r} before it was ready")
        return self

    def __exit__(self, *_: object) -> None:
        for _process in self._processes:
            self.tasks.put(None)
        for process in self._processes:
            process.join(30)
            if process.is_alive():
                process.terminate()
                process.join()

    def check_alive(self) -> None:
        dead = [process.name for process in self._processes if not process.is_alive()]
        if dead:
            raise RuntimeError(f"worker process(es) exited: {', '.join(dead)}")


# -- the driver -----------------------------------------------------------------------------------


@dataclass
class Phase:
    """Every text sent in a phase and its SQS record, by record id, and every attempt at
    processing one."""

    texts: dict[str, Text] = field(default_factory=dict)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)


def _redelivery_delay(attempt: Attempt) -> float:
    if attempt.retry_after is None:
        return _VISIBILITY_TIMEOUT_SECONDS
    return max(float(math.ceil(attempt.retry_after)), _MIN_REDELIVERY_SECONDS)


def _run_phase(
    pool: _Pool,
    opening: Sequence[Text],
    follow: Callable[[Text, Sequence[tuple[str, str]]], Next] | None = None,
    texting_until: float = 0.0,
) -> Phase:
    """Queue `opening`, then what `follow` says the players text next as each text is processed,
    until `texting_until`; bring failed records back as SQS would; return once nothing is left.

    The queue holds at most two records per worker besides those coming back: a worker that
    finishes always finds the next one waiting, and a text `follow` sends at once goes before the
    players who are merely ready (who wait in `ready`, in the order they became ready)."""
    phase = Phase()
    records = phase.records
    ready = deque(opening)
    coming_back: list[tuple[float, str]] = []  # (when, record id): failed, not yet visible again
    in_flight = 0
    backlog = 2 * pool.workers

    def top_up() -> None:
        nonlocal in_flight
        while ready and in_flight < backlog:
            text = ready.popleft()
            record = sqs_record(text.sender, text.body)
            phase.texts[record["messageId"]] = text
            records[record["messageId"]] = record
            pool.tasks.put((record["messageId"], record))
            in_flight += 1

    top_up()
    while in_flight or coming_back:
        now = time.monotonic()
        while coming_back and coming_back[0][0] <= now:
            _, message_id = heapq.heappop(coming_back)
            pool.tasks.put((message_id, records[message_id]))
            in_flight += 1
        if not in_flight:
            time.sleep(coming_back[0][0] - now)
            continue
        wait = min(coming_back[0][0] - now, 5.0) if coming_back else 5.0
        try:
            attempt = pool.reports.get(timeout=max(wait, 0.001))
        except queue.Empty:
            pool.check_alive()
            continue
        in_flight -= 1
        phase.attempts.append(attempt)
        if attempt.outcome != PROCESSED:
            heapq.heappush(coming_back, (attempt.finished + _redelivery_delay(attempt), attempt.message_id))
        elif follow is not None and attempt.finished < texting_until:
            following = follow(phase.texts[attempt.message_id], attempt.replies)
            ready.extendleft(reversed(following.at_once))
            ready.extend(following.later)
        if follow is None or attempt.finished < texting_until:
            top_up()
    return phase


@dataclass(frozen=True)
class Accounting:
    """What became of a phase's texts, once nothing was left to process."""

    texts: int
    processed_once: int
    processed_more_than_once: int
    never_processed: int
    without_reply_to_sender: int

    @property
    def exact(self) -> bool:
        return (
            self.processed_once == self.texts
            and not self.processed_more_than_once
            and not self.never_processed
            and not self.without_reply_to_sender
        )


def account(*phases: Phase) -> Accounting:
    """What became of the texts of `phases`, taken together."""
    texts = {message_id: text for phase in phases for message_id, text in phase.texts.items()}
    attempts = [attempt for phase in phases for attempt in phase.attempts]
    processed = Counter(attempt.message_id for attempt in attempts if attempt.outcome == PROCESSED)
    unanswered = sum(
        1
        for attempt in attempts
        if attempt.outcome == PROCESSED
        and all(to != texts[attempt.message_id].sender for to, _ in attempt.replies)
    )
    return Accounting(
        texts=len(texts),
        processed_once=sum(1 for times in processed.values() if times == 1),
        processed_more_than_once=sum(1 for times in processed.values() if times > 1),
        never_processed=sum(1 for message_id in texts if message_id not in processed),
        without_reply_to_sender=unanswered,
    )


@dataclass
class Registered:
    """The players of every workload, registered: the phase that did it, and a copy of the
    tables after it, from which every slice starts (so none depends on another's leftovers)."""

    phase: Phase
    items: dict[str, list[dict[str, Any]]]


@dataclass
class Slice:
    """One workload played for `seconds` by a pool of workers, from the registered tables."""

    workload: Workload
    round: int
    seconds: float
    started: float
    phase: Phase
    drain_seconds: float
    machine_cpu_busy: float
    load_average: tuple[float, float]

    def workers_busy(self, workers: int) -> float:
        """The share of the window the workers spent in `handle_record` (the rest they waited for
        a record: the driver's or the queue's lag)."""
        end = self.started + self.seconds
        spent = sum(max(min(a.finished, end) - max(a.started, self.started), 0) for a in self.phase.attempts)
        return spent / (workers * self.seconds)

    def window(self) -> list[Attempt]:
        """The attempts that finished while the players were texting."""
        return [attempt for attempt in self.phase.attempts if attempt.finished <= self.started + self.seconds]


def _fresh_tables(dynamodb: Any) -> None:
    if TABLES.game_state in dynamodb.list_tables()["TableNames"]:
        delete_tables(dynamodb)
    create_tables(dynamodb)


def register(
    dynamodb: Any, endpoint: str, workloads: Sequence[Workload], workers: int, latency_seconds: float
) -> Registered:
    """Register the players of `workloads` on fresh tables in DynamoDB Local at `endpoint`
    (`dynamodb` is a client of it), through `workers` worker processes; keep a copy of the tables."""
    _fresh_tables(dynamodb)
    with _Pool(workers, endpoint, latency_seconds) as pool:
        phase = _run_phase(pool, [text for workload in workloads for text in workload.registrations()])
    items = {
        table: [
            item
            for page in dynamodb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True)
            for item in page["Items"]
        ]
        for table in (TABLES.game_state, TABLES.nickname, TABLES.idempotency)
    }
    return Registered(phase, items)


def _restore(dynamodb: Any, registered: Registered) -> None:
    _fresh_tables(dynamodb)
    for table, items in registered.items.items():
        for start in range(0, len(items), 25):
            requests = {table: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]}
            while requests:
                requests = dynamodb.batch_write_item(RequestItems=requests)["UnprocessedItems"]


def play(
    dynamodb: Any,
    endpoint: str,
    workloads: Sequence[Workload],
    registered: Registered,
    workers: int,
    latency_seconds: float,
    seconds: float,
    rounds: int = 1,
) -> list[Slice]:
    """Each of `workloads` in turn, `rounds` times, texting for `seconds` a slice and then until
    every text is processed, by one pool of `workers` worker processes; the tables are restored
    to `registered` before each slice. Taking turns, the workloads share the machine's load."""
    slices = []
    with _Pool(workers, endpoint, latency_seconds) as pool:
        for round_ in range(rounds):
            for workload in workloads:
                _restore(dynamodb, registered)
                load_before, cpu_before = os.getloadavg()[0], _cpu_times()
                started = time.monotonic()
                phase = _run_phase(pool, workload.opening(), workload.follow, started + seconds)
                drained = time.monotonic()
                slices.append(
                    Slice(
                        workload,
                        round_,
                        seconds,
                        started,
                        phase,
                        drained - started - seconds,
                        _busy_fraction(cpu_before, _cpu_times()),
                        (load_before, os.getloadavg()[0]),
                    )
                )
    return slices


def _cpu_times() -> list[int]:
    """The machine's CPU time so far, by kind (/proc/stat's first line, in clock ticks)."""
    with open("/proc/stat", encoding="ascii") as stat:
        return [int(value) for value in stat.readline().split()[1:]]


def _busy_fraction(before: list[int], after: list[int]) -> float:
    """How busy every core of the machine was between two `_cpu_times()`: not idle, not waiting."""
    spent = [late - early for early, late in zip(before, after, strict=True)]
    idle = spent[3] + spent[4]  # idle, iowait
    return 1 - idle / sum(spent) if sum(spent) else math.nan


def summarize(slices: Sequence[Slice], workers: int) -> dict[str, Any]:
    """The figures of one workload's slices at one worker count, taken together."""
    seconds = sum(piece.seconds for piece in slices)
    window = [attempt for piece in slices for attempt in piece.window()]
    processed = [attempt for attempt in window if attempt.outcome == PROCESSED]
    results = sum(
        1
        for piece in slices
        for attempt in piece.window()
        if attempt.outcome == PROCESSED
        and piece.workload.is_result(piece.phase.texts[attempt.message_id], attempt.replies)
    )
    return {
        "seconds": seconds,
        "messages": len(processed),
        "messages_per_second": len(processed) / seconds,
        "by_round": [
            sum(1 for attempt in piece.window() if attempt.outcome == PROCESSED) / piece.seconds
            for piece in slices
        ],
        "results": results,
        "results_per_second": results / seconds,
        "per_message": distribution([attempt.seconds for attempt in processed]),
        "in_requests_per_message": distribution([attempt.in_requests_seconds for attempt in processed]),
        "cpu_per_message": distribution([attempt.cpu_seconds for attempt in processed]),
        "requests_per_message": sum(attempt.requests for attempt in window) / max(len(processed), 1),
        "retry_later": dict(Counter(attempt.outcome for attempt in window if attempt.outcome != PROCESSED)),
        "lock_contentions": sum(attempt.lock_contentions for attempt in window),
        "stale_reads": sum(attempt.stale_reads for attempt in window),
        "load_average": [
            min(piece.load_average[0] for piece in slices),
            max(piece.load_average[1] for piece in slices),
        ],
        "workers_busy": [piece.workers_busy(workers) for piece in slices],
        "machine_cpu_busy": sum(piece.machine_cpu_busy for piece in slices) / len(slices),
        "drain_seconds": max(piece.drain_seconds for piece in slices),
        "accounting": asdict(account(*(piece.phase for piece in slices))),
    }


def measure(
    worker_counts: Sequence[int] = (1, 2, 4, 8),
    latency_seconds: float = 0.010,
    seconds: float = 20.0,
    players: int = 256,
    rounds: int = 2,
    progress: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Both workloads at each worker count, on one DynamoDB Local started for the run, `seconds`
    each in `rounds` turns; the players are registered once, by the largest pool."""
    data: dict[str, Any] = {
        "machine": machine.describe(),
        "latency_ms": latency_seconds * 1000,
        "seconds": seconds,
        "rounds": rounds,
        "players": players,
        "runs": [],
    }
    workloads: list[Workload] = [LobbyWorkload(players), ChallengeWorkload(players // 2)]
    with _dynamodb_local() as (endpoint, dynamodb):
        progress(f"contention: registering {2 * players} players ...")
        registered = register(dynamodb, endpoint, workloads, max(worker_counts), latency_seconds)
        data["registration"] = asdict(account(registered.phase))
        for workers in worker_counts:
            progress(f"contention: {workers} worker(s), {rounds} round(s) of each workload ...")
            slices = play(
                dynamodb, endpoint, workloads, registered, workers, latency_seconds, seconds / rounds, rounds
            )
            for workload in workloads:
                mine = [piece for piece in slices if piece.workload is workload]
                data["runs"].append(
                    {"workload": workload.name, "workers": workers, **summarize(mine, workers)}
                )
    return data


@contextmanager
def _dynamodb_local() -> Iterator[tuple[str, Any]]:
    server = DynamoDbLocal()
    endpoint = server.start()
    try:
        dynamodb = boto3.session.Session(region_name=REGION).client(
            "dynamodb",
            endpoint_url=endpoint,
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        yield endpoint, dynamodb
    finally:
        server.stop()


def ratios(data: dict[str, Any]) -> dict[int, list[float]]:
    """Lobby messages a second over challenge messages a second, by worker count: over all rounds,
    then round by round."""
    runs = {(run["workload"], run["workers"]): run for run in data["runs"]}
    found: dict[int, list[float]] = {}
    for (workload, workers), lobby in runs.items():
        challenges = runs.get(("challenges", workers))
        if workload != "lobby" or challenges is None:
            continue
        found[workers] = [
            lobby["messages_per_second"] / challenges["messages_per_second"],
            *(mine / theirs for mine, theirs in zip(lobby["by_round"], challenges["by_round"], strict=True)),
        ]
    return found


def render(data: dict[str, Any]) -> str:
    lines = [
        f"{data['latency_ms']:.0f} ms waited before each DynamoDB request; {data['seconds']:.0f} s of "
        f"each workload at each worker count, in {data['rounds']} turn(s); {data['players']} players "
        f"(lobby) / {data['players'] // 2} pairs (challenges)",
        "",
        "| workload | workers | messages/s | results/s | p50 / p99 ms | in requests p50 ms "
        "| worker CPU p50 ms | requests/message | LockContention | StaleRead re-reads | RetryLater "
        "| machine CPU busy | load (1 min) | accounting |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in data["runs"]:
        per_message, cpu, calls = run["per_message"], run["cpu_per_message"], run["in_requests_per_message"]
        retries = ", ".join(f"{name} {count}" for name, count in sorted(run["retry_later"].items())) or "0"
        lines.append(
            f"| {run['workload']} | {run['workers']} | {run['messages_per_second']:.1f} "
            f"| {run['results_per_second']:.1f} | {per_message.get('median_ms', math.nan):.0f} / "
            f"{per_message.get('p99_ms', math.nan):.0f} | {calls.get('median_ms', math.nan):.0f} "
            f"| {cpu.get('median_ms', math.nan):.0f} | {run['requests_per_message']:.1f} "
            f"| {run['lock_contentions']} | {run['stale_reads']} | {retries} "
            f"| {run['machine_cpu_busy']:.0%} | {run['load_average'][0]:.1f}–{run['load_average'][1]:.1f} "
            f"| {_verdict(Accounting(**run['accounting']))} |"
        )
    lines += [
        "",
        f"Registration: {_verdict(Accounting(**data['registration']))}.",
        "Lobby messages/s ÷ challenge messages/s (all rounds; round by round):",
        *(
            f"- {workers} worker(s): {together:.2f}; " + ", ".join(f"{ratio:.2f}" for ratio in by_round)
            for workers, (together, *by_round) in sorted(ratios(data).items())
        ),
    ]
    return "\n".join(lines)


def _verdict(accounting: Accounting) -> str:
    if accounting.exact:
        return f"{accounting.texts} texts, each processed once and answered"
    return f"NOT EXACT: {asdict(accounting)}"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.contention", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4,8", help="worker counts, comma-separated")
    parser.add_argument("--latency-ms", type=float, default=10.0, help="waited before each DynamoDB request")
    parser.add_argument("--seconds", type=float, default=20.0, help="texting time of each workload and count")
    parser.add_argument("--rounds", type=int, default=2, help="turns the workloads take within those seconds")
    parser.add_argument("--players", type=int, default=256, help="lobby players (half as many pairs)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    arguments = parser.parse_args()
    data = measure(
        [int(count) for count in arguments.workers.split(",") if count],
        arguments.latency_ms / 1000,
        arguments.seconds,
        arguments.players,
        arguments.rounds,
    )
    print(render(data))
    if arguments.json:
        print(json.dumps(data, indent=2, default=str))


if __name__ == "__main__":
    main()
