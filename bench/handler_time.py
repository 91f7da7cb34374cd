"""Per-message handler time for the scripted 1,000-message game on in-process moto, and on
DynamoDB Local (AWS's own engine, a Java process on loopback; SQS stays on moto).

Run: `python -m bench.handler_time [--quick]`. Each configuration starts from empty tables. The
SMS sender is a null sender (engine + DynamoDB only) unless the configuration says "Twilio": then
the real Twilio client posts every reply to an in-process LocalTwilioApi over loopback HTTP.
Without Java or the DynamoDB Local package (scripts/install-dynamodb-local.sh) its rows are left
out, and the output says why.
"""

from __future__ import annotations

import contextlib
import cProfile
import gc
import json
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.environment import BOT_NUMBER, NullSms, in_process_aws, sqs_event, sqs_record
from bench.script import ScriptedMessage, scripted_game
from bench.stats import Distribution, distribution
from bench.timing import CallTimer
from serverless_rps.observability import logger
from serverless_rps.sms_gateway import TwilioSmsGateway
from serverless_rps_local.dynamodb_local import DynamoDbLocal, DynamoDbLocalMissing
from serverless_rps_local.moto_rollback import light_transaction_rollback
from serverless_rps_local.twilio_api import LocalTwilioApi

__all__ = ["Configuration", "RunResult", "measure", "moto_transaction_growth", "render"]

# One reply per registration, two per throw that waits, two per throw that resolves.
EXPECTED_SMS = 50 + 950 * 2


@dataclass(frozen=True)
class Configuration:
    batch_size: int
    gc_enabled: bool
    twilio: bool = False
    stock_moto: bool = False
    dynamodb_local: bool = False

    @property
    def label(self) -> str:
        sender = "local Twilio over HTTP" if self.twilio else "null sender"
        if self.dynamodb_local:
            engine = "DynamoDB Local"
        else:
            engine = "stock moto" if self.stock_moto else "moto, light rollback"
        return f"batch {self.batch_size}, GC {'on' if self.gc_enabled else 'off'}, {sender}, {engine}"


@dataclass
class RunResult:
    configuration: Configuration
    per_message: Distribution
    per_message_outside_calls: Distribution
    per_batch_per_message: Distribution
    dynamodb_calls_per_message: float
    gc_collections: int
    sms_sent: int
    wall_seconds: float
    transaction_ms_first_100: float
    transaction_ms_last_100: float
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["configuration"] = self.configuration.label
        return data


CONFIGURATIONS = (
    Configuration(1, True, stock_moto=True),
    Configuration(1, True),
    Configuration(1, False),
    Configuration(10, True),
    Configuration(10, False),
    Configuration(1, True, twilio=True),
    Configuration(1, True, dynamodb_local=True),
)


def run(
    configuration: Configuration, script: list[ScriptedMessage], dynamodb_local_endpoint: str | None = None
) -> RunResult:
    logger.setLevel("WARNING")
    stock = configuration.stock_moto or configuration.dynamodb_local
    moto_patch = contextlib.nullcontext() if stock else light_transaction_rollback()
    endpoint = None
    if configuration.dynamodb_local:
        if dynamodb_local_endpoint is None:
            raise ValueError(f"{configuration.label}: DynamoDB Local is not running")
        endpoint = dynamodb_local_endpoint
    with in_process_aws(endpoint) as aws, moto_patch:
        timer = CallTimer(aws.dynamodb)
        twilio_api: LocalTwilioApi | None = None
        if configuration.twilio:
            twilio_api = LocalTwilioApi("AC" + "0" * 32, "local-token")
            sender: Any = TwilioSmsGateway(twilio_api.account_sid, "local-token", twilio_api.start())
        else:
            sender = NullSms()
        function = aws.game_function(sender)
        record_seconds: list[float] = []
        outside_calls: list[float] = []
        calls: list[int] = []
        transaction_times = timer.by_operation["TransactWriteItems"]
        transactions_at: list[int] = []
        original = function.handle_record

        def timed(record: Any) -> None:
            timer.take()
            started = time.perf_counter()
            try:
                original(record)
            finally:
                elapsed = time.perf_counter() - started
                in_calls, count = timer.take()
                record_seconds.append(elapsed)
                outside_calls.append(elapsed - in_calls)
                calls.append(count)
                transactions_at.append(len(transaction_times))

        function.handle_record = timed  # type: ignore[method-assign]
        batch_seconds: list[float] = []
        gc.collect()
        collections_before = sum(stat["collections"] for stat in gc.get_stats())
        if not configuration.gc_enabled:
            gc.disable()
        wall = time.perf_counter()
        try:
            for start in range(0, len(script), configuration.batch_size):
                chunk = script[start : start + configuration.batch_size]
                event = sqs_event([sqs_record(message.sender, message.body) for message in chunk])
                started = time.perf_counter()
                response = function.handle_batch(event, None)
                batch_seconds.extend([(time.perf_counter() - started) / len(chunk)] * len(chunk))
                if response.get("batchItemFailures"):
                    raise RuntimeError(f"the scripted game failed a message: {response}")
        finally:
            wall = time.perf_counter() - wall
            gc.enable()
            if twilio_api is not None:
                sent = len(twilio_api.sent_messages())
                twilio_api.stop()
            else:
                sent = len(sender.sent)
        collections = sum(stat["collections"] for stat in gc.get_stats()) - collections_before
    if sent != EXPECTED_SMS:
        raise RuntimeError(f"the scripted game sent {sent} SMS, expected {EXPECTED_SMS}")
    first = transaction_times[: transactions_at[99]]
    last = transaction_times[transactions_at[-101] :]
    return RunResult(
        configuration,
        distribution(batch_seconds if configuration.batch_size == 1 else record_seconds),
        distribution(outside_calls),
        distribution(batch_seconds),
        statistics.fmean(calls),
        collections,
        sent,
        wall,
        statistics.fmean(first) * 1000,
        statistics.fmean(last) * 1000,
    )


def moto_transaction_growth(
    sizes: tuple[int, ...] = (0, 1_000, 5_000), dynamodb_endpoint: str | None = None
) -> dict[int, float]:
    """Median time of one two-item TransactWriteItems against stock moto (or the engine at
    `dynamodb_endpoint`) as the table holds more items.

    moto deep-copies every table a transaction touches (to roll back on failure), so its
    transactions cost O(table size); DynamoDB's do not, nor do DynamoDB Local's.
    """
    medians: dict[int, float] = {}
    for size in sizes:
        with in_process_aws(dynamodb_endpoint) as aws:
            client = aws.raw_dynamodb
            for start in range(0, size, 25):
                client.batch_write_item(
                    RequestItems={
                        "rps-idempotency": [
                            {
                                "PutRequest": {
                                    "Item": {"messageId": {"S": f"filler-{i}"}, "pad": {"S": "x" * 300}}
                                }
                            }
                            for i in range(start, min(start + 25, size))
                        ]
                    }
                )
            samples = []
            for attempt in range(30):
                started = time.perf_counter()
                client.transact_write_items(
                    TransactItems=[
                        {
                            "Put": {
                                "TableName": "rps-idempotency",
                                "Item": {"messageId": {"S": f"probe-{attempt}"}},
                            }
                        },
                        {"Put": {"TableName": "rps-game-state", "Item": {"phone_number": {"S": BOT_NUMBER}}}},
                    ]
                )
                samples.append(time.perf_counter() - started)
            medians[size] = statistics.median(samples) * 1000
    return medians


def where_time_goes(messages: int = 300) -> dict[str, float]:
    """Share of handler CPU time by package (cProfile, own time), first `messages` of the script."""
    logger.setLevel("WARNING")
    script = scripted_game()[:messages]
    profiler = cProfile.Profile()
    with in_process_aws() as aws, light_transaction_rollback():
        function = aws.game_function(NullSms())
        profiler.enable()
        for message in script:
            function.handle_batch(sqs_event([sqs_record(message.sender, message.body)]), None)
        profiler.disable()
    shares: dict[str, float] = {}
    for (filename, _, _), (_, _, own_time, _, _) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        shares[_package(filename)] = shares.get(_package(filename), 0.0) + own_time
    total = sum(shares.values())
    return {name: seconds / total for name, seconds in sorted(shares.items(), key=lambda item: -item[1])}


_REPOSITORY = str(Path(__file__).resolve().parents[1])


def _package(filename: str) -> str:
    for marker in ("site-packages/", f"{_REPOSITORY}/"):
        if marker in filename:
            rest = filename.split(marker, 1)[1]
            return rest.split("/", 1)[0].removesuffix(".py")
    if filename.startswith("~") or filename.startswith("<"):
        return "interpreter built-ins"
    return "standard library"


def _filler(index: int) -> dict[str, Any]:
    return {"messageId": {"S": f"filler-{index}"}, "pad": {"S": "x" * 300}}


def measure(quick: bool = False, progress: Callable[[str], None] = print) -> dict[str, Any]:
    script = scripted_game()
    configurations = (CONFIGURATIONS[1], CONFIGURATIONS[3], CONFIGURATIONS[-1]) if quick else CONFIGURATIONS
    sizes = (0, 1_000) if quick else (0, 1_000, 5_000)
    dynamodb_local = DynamoDbLocal()
    try:
        endpoint: str | None = dynamodb_local.start()
    except DynamoDbLocalMissing as missing:
        progress(f"handler time: no DynamoDB Local rows: {missing}")
        endpoint = None
    results = []
    local_growth: dict[int, float] = {}
    try:
        for configuration in configurations:
            if configuration.dynamodb_local and endpoint is None:
                continue
            progress(f"handler time: {configuration.label} ...")
            results.append(run(configuration, script, endpoint))
        if endpoint is not None:
            progress("handler time: DynamoDB Local's transaction cost by table size ...")
            local_growth = moto_transaction_growth(sizes, endpoint)
    finally:
        dynamodb_local.stop()
    progress("handler time: moto's transaction cost by table size, and a profile ...")
    growth = moto_transaction_growth(sizes)
    return {
        "runs": [result.as_dict() for result in results],
        "moto_transaction_ms_by_table_items": growth,
        "dynamodb_local_transaction_ms_by_table_items": local_growth,
        "cpu_share_by_package": where_time_goes(),
    }


def render(data: dict[str, Any]) -> str:
    lines = [
        "| configuration | median ms | p95 ms | p99 ms | max ms | median outside DynamoDB calls ms "
        "| DynamoDB calls/msg | GC collections | wall s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run_data in data["runs"]:
        d, o = run_data["per_message"], run_data["per_message_outside_calls"]
        lines.append(
            f"| {run_data['configuration']} | {d['median_ms']:.1f} | {d['p95_ms']:.1f} | {d['p99_ms']:.1f} "
            f"| {d['max_ms']:.1f} | {o['median_ms']:.1f} | {run_data['dynamodb_calls_per_message']:.2f} "
            f"| {run_data['gc_collections']} | {run_data['wall_seconds']:.1f} |"
        )
    lines += ["", "TransactWriteItems as the run goes on (mean ms, first vs last 100 messages):", ""]
    for run_data in data["runs"]:
        lines.append(
            f"- {run_data['configuration']}: {run_data['transaction_ms_first_100']:.1f} -> "
            f"{run_data['transaction_ms_last_100']:.1f}"
        )
    lines += ["", "moto's two-item TransactWriteItems against a table of N items (median ms):", ""]
    for size, median in data["moto_transaction_ms_by_table_items"].items():
        lines.append(f"- {size} items: {median:.1f}")
    local_growth = data.get("dynamodb_local_transaction_ms_by_table_items") or {}
    if local_growth:
        lines += ["", "The same against DynamoDB Local (median ms):", ""]
        lines += [f"- {size} items: {median:.1f}" for size, median in local_growth.items()]
    lines += ["", "Where the CPU time goes (cProfile own time, first 300 messages, light rollback):", ""]
    for package, share in data["cpu_share_by_package"].items():
        if share >= 0.005:
            lines.append(f"- {package}: {share:.1%}")
    return "\n".join(lines)


def main() -> None:
    data = measure(quick="--quick" in sys.argv)
    print(render(data))
    if "--json" in sys.argv:
        print(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
