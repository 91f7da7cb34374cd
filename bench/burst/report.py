"""A run's figures, as JSON and as a readable summary.

Delays, ages and shares are the replica's own; counts (requests, units, SMS, GB-seconds) are the
replica's and, where the summary says "represents", multiplied by k for the burst it stands for.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter
from typing import Any

from bench.burst.model import SAMPLE_EVERY_SECONDS, BurstRun
from bench.cost import PRICES
from bench.stats import percentile

__all__ = ["figures", "summary"]

_WEBHOOK_SECONDS = 0.025  # bench/cost.py's assumption for one webhook invocation
_WEBHOOK_MEMORY_GB = 0.25


def figures(result: BurstRun) -> dict[str, Any]:
    options, deployment = result.options, result.deployment
    k = options.sample
    window = result.options.profile.arrival_seconds
    observations, twilio, queue = result.observations, result.twilio, result.queue
    delays = _reply_delays(result, handed_to_carrier=True)
    burst = [delay for posted, delay in delays if posted < window]
    accepted = _reply_delays(result, handed_to_carrier=False)
    invocations = observations.invocations
    gb = deployment.memory_mb / 1024
    duration_seconds = sum(invocation.ended_at - invocation.started_at for invocation in invocations)
    init_seconds = sum(invocation.cold_start_seconds for invocation in invocations)
    sent = [sms for sms in twilio.accepted if sms.sent_at is not None]
    waits = [sms.sent_at - sms.accepted_at for sms in twilio.accepted if sms.sent_at is not None]
    expired = [sms for sms in twilio.accepted if sms.expired_at is not None]
    verdict = result.verdict
    games = (
        int(verdict.figures.get("games resolved (all players)", 0))
        + int(verdict.figures.get("games played through the lobby", 0))
        if verdict is not None
        else 0
    )
    redriven = sum(1 for letter in queue.dead_letters if letter.redriven)
    posts = sum(result.kinds.values())
    sqs_requests = (
        posts  # the webhook's SendMessage
        + len(invocations)  # the poller's ReceiveMessage
        + sum(1 for invocation in invocations if not invocation.timed_out)  # DeleteMessageBatch
        + sum(observations.sqs_requests.values())
    )
    costs = {
        "SMS segments (in and out)": len(result.inbound) * PRICES["twilio_sms_segment_inbound"]
        + len(sent) * PRICES["twilio_sms_segment_outbound"],
        "Lambda GB-seconds (game function, cold starts included; webhook)": PRICES["lambda_gb_second_arm64"]
        * ((duration_seconds + init_seconds) * gb + posts * _WEBHOOK_SECONDS * _WEBHOOK_MEMORY_GB),
        "Lambda requests (game function and webhook)": PRICES["lambda_request"] * (len(invocations) + posts),
        "DynamoDB units": observations.write_units * PRICES["dynamodb_write_request_unit"]
        + observations.read_units * PRICES["dynamodb_read_request_unit"],
        "SQS requests": sqs_requests * PRICES["sqs_request"],
        "API Gateway requests": posts * PRICES["http_api_request"],
    }
    per_thousand = {name: 1000 * cost / games for name, cost in costs.items()} if games else {}
    return {
        "run": {
            "seed": options.seed,
            "scale": options.scale,
            "sample (1/k replica)": k,
            "phones simulated": result.phones,
            "phones represented": result.phones * k,
            "window seconds": options.window_seconds,
            "Twilio latency factor": options.twilio_latency_factor,
            "sender rate (represented), messages/s": options.sender_rate,
            "MaximumConcurrency (represented)": result.mapping.scaling.maximum_concurrency * k,
            "MaximumConcurrency (replica)": result.mapping.scaling.maximum_concurrency,
            "BatchSize": deployment.batch_size,
            "MaximumBatchingWindowInSeconds": deployment.batching_window_seconds,
            "VisibilityTimeout": deployment.visibility_timeout_seconds,
            "maxReceiveCount": deployment.max_receive_count,
            "function Timeout": deployment.function_timeout_seconds,
            "MemorySize": deployment.memory_mb,
            "settings changed": dict(options.settings),
            "throttle rate": options.faults.throttle_rate,
            "TransactionConflict rate": options.faults.conflict_rate,
            "virtual seconds until the queue drained": round(result.drained_at, 1),
            "horizon reached before draining": result.horizon_reached,
            "CPU seconds": round(result.cpu_seconds, 1),
            "wall seconds": round(result.wall_seconds, 1),
        },
        "assumptions": result.latencies.assumptions(),
        "crowd (ArrivalProfile, before the replica's share)": dataclasses.asdict(options.profile),
        "inbound": {
            "texts (distinct MessageSids)": len(result.inbound),
            "by kind": dict(sorted(result.kinds.items())),
            "peak texts a second (10 s)": _peak_rate(
                [inbound.posted_at for inbound in result.inbound.values()], 10
            ),
            "texts a second during the arrival window": round(
                sum(1 for inbound in result.inbound.values() if inbound.posted_at < window) / window, 1
            ),
        },
        "reply delay, inbound to reply sent (s)": {
            f"during the burst (texts in the first {window:g} s)": _distribution(burst),
            "all texts": _distribution([delay for _, delay in delays]),
            "texts never answered": _never_answered(result),
        },
        # The engine's part alone: until Twilio took the reply (its POST answered 201), before any
        # wait in the sender's queue, which the sender's rate sets and no engine can shorten.
        "reply delay, inbound to reply taken by Twilio (s)": {
            f"during the burst (texts in the first {window:g} s)": _distribution(
                [delay for posted, delay in accepted if posted < window]
            ),
            "all texts": _distribution([delay for _, delay in accepted]),
        },
        "queue": {
            "oldest message, worst (s)": round(
                max((s["oldest_age"] for s in result.samples), default=0.0), 1
            ),
            "deepest (visible + in flight)": max(
                (int(s["visible"] + s["in_flight"]) for s in result.samples), default=0
            ),
            "empty again after (s)": max(
                (s["t"] for s in result.samples if s["visible"] + s["in_flight"] > 0), default=0.0
            )
            + SAMPLE_EVERY_SECONDS,
            "oldest message every minute (s)": [round(s["oldest_age"]) for s in _minutes(result)],
            "texts in / completed a second, every minute (represented)": _rates_by_minute(result),
            "series every 10 s": result.samples,
        },
        "dead letters": {
            "redriven after maxReceiveCount": redriven,
            "poison parked by the handler": len(queue.dead_letters) - redriven,
        },
        "retries by cause (records failed)": observations.retries_by_cause(),
        "lock backoff pauses": observations.lock_pauses,
        "lock contention by key (refused lock requests)": observations.contention_by_key(),
        "DynamoDB": {
            "requests by operation": dict(sorted(observations.requests.items())),
            "requests": sum(observations.requests.values()),
            "HTTP attempts (SDK retries included)": sum(observations.attempts.values()),
            "faults injected": dict(observations.faults),
            "read units": observations.read_units,
            "write units": observations.write_units,
            "requests per text": _ratio(sum(observations.requests.values()), len(result.inbound)),
        },
        "SMS": {
            "accepted by Twilio": len(twilio.accepted),
            "sent": len(sent),
            "expired in Twilio's queue (30036)": len(expired),
            "refused (21610, opted out)": twilio.refused,
            "Messages list reads (looks before re-sending)": twilio.lists,
            "longest wait in Twilio's queue (s)": round(max(waits, default=0.0), 1),
        },
        "Lambda": {
            "invocations": len(invocations),
            "cold starts": result.mapping.cold_starts,
            "timed out": sum(1 for invocation in invocations if invocation.timed_out),
            "records per invocation": _ratio(
                sum(invocation.records for invocation in invocations), len(invocations)
            ),
            "mean duration (s)": _ratio(duration_seconds, len(invocations)),
            "GB-seconds (represented)": round((duration_seconds + init_seconds) * gb * k, 1),
        },
        "games": {"played": games, "represented": games * k},
        "cost per 1,000 games (USD)": {
            **{name: round(value, 4) for name, value in per_thousand.items()},
            "total": round(sum(per_thousand.values()), 2),
            "total without SMS": round(
                sum(value for name, value in per_thousand.items() if not name.startswith("SMS")), 4
            ),
        },
        "throughput (represented, texts a second)": {
            "peak inbound (10 s)": round(
                _peak_rate([inbound.posted_at for inbound in result.inbound.values()], 10) * k, 1
            ),
            "peak inbound (1 minute)": round(
                _peak_rate([inbound.posted_at for inbound in result.inbound.values()], 60) * k, 1
            ),
            "completed, best minute": round(_peak_rate(list(observations.completed_at.values()), 60) * k, 1),
            "completed, mean while the queue held messages": round(_sustained(result) * k, 1),
        },
        "checker (bench/chaos/checker.py)": {
            "violations": len(verdict.violations),
            "first violations": verdict.violations[:10],
            "figures": verdict.figures,
        }
        if verdict is not None
        else {"not judged": "stopped at the horizon before the queue drained"},
    }


def _reply_delays(result: BurstRun, *, handed_to_carrier: bool) -> list[tuple[float, float]]:
    """(posted at, delay) for each text that got a reply: from Twilio's POST to the webhook until
    the first reply to the sender left Twilio's queue for the carrier (`handed_to_carrier`), or
    until Twilio took it (any reply of that message if none was to the sender)."""
    first_to_sender: dict[str, float] = {}
    first_any: dict[str, float] = {}
    for sms in result.twilio.accepted:
        moment = sms.sent_at if handed_to_carrier else sms.accepted_at
        if moment is None or sms.key is None or sms.key not in result.inbound:
            continue
        first_any[sms.key] = min(first_any.get(sms.key, math.inf), moment)
        if sms.to == result.inbound[sms.key].phone:
            first_to_sender[sms.key] = min(first_to_sender.get(sms.key, math.inf), moment)
    delays = []
    for sid, inbound in result.inbound.items():
        sent = first_to_sender.get(sid, first_any.get(sid))
        if sent is not None:
            delays.append((inbound.posted_at, sent - inbound.posted_at))
    return delays


def _never_answered(result: BurstRun) -> int:
    """Texts whose message never completed (lost or dead-lettered) or left unfinished."""
    return sum(1 for sid in result.inbound if sid not in result.observations.completed_at)


def _distribution(values: list[float]) -> dict[str, Any]:
    ordered = sorted(values)
    if not ordered:
        return {"count": 0}
    return {
        "count": len(ordered),
        "p50": round(percentile(ordered, 0.5), 2),
        "p99": round(percentile(ordered, 0.99), 2),
        "worst": round(ordered[-1], 2),
    }


def _peak_rate(times: list[float], window: float) -> float:
    if not times:
        return 0.0
    buckets = Counter(math.floor(at / window) for at in times)
    return round(max(buckets.values()) / window, 1)


def _minutes(result: BurstRun) -> list[dict[str, float]]:
    return [sample for sample in result.samples if round(sample["t"]) % 60 == 0]


def _rates_by_minute(result: BurstRun) -> list[str]:
    minutes = _minutes(result)
    k = result.options.sample
    return [
        f"{(now['texts posted'] - then['texts posted']) * k / 60:.0f}/"
        f"{(now['texts completed'] - then['texts completed']) * k / 60:.0f}"
        for then, now in itertools.pairwise(minutes)
    ]


def _sustained(result: BurstRun) -> float:
    """Texts completed a second, over the time the queue held any message."""
    busy = sum(1 for s in result.samples if s["visible"] + s["in_flight"] > 0) * 10.0
    return len(result.observations.completed_at) / busy if busy else 0.0


def _ratio(total: float, count: int) -> float:
    return round(total / count, 2) if count else 0.0


def summary(data: dict[str, Any]) -> str:
    """The figures as text: one block per heading, the long series left to the JSON."""
    lines: list[str] = []
    for heading, block in data.items():
        lines.append(heading)
        if not isinstance(block, dict):
            lines.append(f"  {block}")
            continue
        for name, value in block.items():
            if name in {"series every 10 s", "figures"}:
                continue
            if isinstance(value, dict) and value:
                shown = ", ".join(f"{key} {item}" for key, item in value.items())
                lines.append(f"  {name}: {shown}")
            elif isinstance(value, list):
                shown = ", ".join(str(item) for item in value[:40])
                more = f" ... ({len(value)} in all)" if len(value) > 40 else ""
                lines.append(f"  {name}: {shown}{more}")
            else:
                lines.append(f"  {name}: {value}")
        lines.append("")
    return "\n".join(lines)
