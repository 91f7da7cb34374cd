"""The game function: an SQS-triggered Lambda. It only translates: each SQS record in becomes an
`InboundSms` for the processor (or a parked poison message), and a partial batch response goes
out. Its parts are built once per cold start, on first use, by the composition root (bootstrap.py).

The partial batch response is written here, not with Powertools' batch utility: that utility
imports asyncio (for its async processor) and every event data class it knows, some 60 ms of a
cold start for a loop of a few lines (docs/performance.md, "Cold start").
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import boto3
from aws_lambda_powertools.utilities.typing import LambdaContext

from serverless_rps.bootstrap import build_engine, build_queues
from serverless_rps.config import GameSettings
from serverless_rps.exceptions import ConfigurationProblem, PoisonMessage, RetryLater
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps.observability import count, count_message, logger, metrics, tracer
from serverless_rps.processing import InboundSms, MessageProcessor

__all__ = ["GameFunction", "build_game_function", "inbound_sms", "lambda_handler"]

# A failed message comes back after at least this long, so a hot loop cannot form.
_MIN_REDELIVERY_SECONDS = 1.0
# A message that failed only for now (a contended lock, a lobby that kept changing, Twilio's 429)
# is not poison: when its next failure would send it to the dead-letter queue, it goes back to the
# queue as a new message instead, while it is younger than this since it reached us. Older, it
# dead-letters as any other: an hour of failures is no race. template.yaml's completed records
# outlive this plus both queues' retention (tests/unit/test_template.py).
POSTPONE_WITHIN_SECONDS = 60 * 60


def inbound_sms(record: Mapping[str, Any]) -> InboundSms:
    """One SQS record (Lambda's shape: messageId, body, attributes, ...) as the SMS the webhook put
    on the queue. Raises PoisonMessage for a body that no retry could ever process."""
    body = record.get("body") or ""
    try:
        fields: Any = json.loads(body)
    except (TypeError, ValueError) as exc:
        raise PoisonMessage("body is not JSON") from exc
    if not isinstance(fields, dict):
        raise PoisonMessage("body is not a JSON object")
    for name in ("From", "To", "Body"):
        if not isinstance(fields.get(name), str):
            raise PoisonMessage(f"{name} is missing or not a string")
    if not fields["From"].strip() or not fields["To"].strip():
        raise PoisonMessage("From or To is empty")
    sid = fields.get("MessageSid")
    if sid is not None and (not isinstance(sid, str) or not sid.strip()):
        raise PoisonMessage("MessageSid is not a non-empty string")
    opt_out_type = fields.get("OptOutType")
    return InboundSms(
        sid,
        fields["From"].strip(),
        fields["To"].strip(),
        fields["Body"],
        record["messageId"],
        opt_out_type.strip().upper() if isinstance(opt_out_type, str) and opt_out_type.strip() else None,
        _received_at(record),
    )


def _received_at(record: Mapping[str, Any]) -> float | None:
    """When the SMS reached the queue: SQS's SentTimestamp (ms), which a redrive resets, or the
    earlier ReceivedAt a postponed copy carries (`GameFunction`). None if the record says neither."""
    moments = [
        record.get("attributes", {}).get("SentTimestamp"),
        record.get("messageAttributes", {}).get("ReceivedAt", {}).get("stringValue"),
    ]
    seconds = []
    for moment in moments:
        try:
            seconds.append(int(moment) / 1000)
        except (TypeError, ValueError):
            continue
    return min(seconds, default=None)


def _receives(record: Mapping[str, Any]) -> int:
    """How many times SQS has delivered this message, this delivery included (1 if unknown)."""
    try:
        return int(record.get("attributes", {}).get("ApproximateReceiveCount", 1))
    except (TypeError, ValueError):
        return 1


@dataclass
class GameFunction:
    processor: MessageProcessor
    incoming: IncomingQueue
    dead_letters: DeadLetterQueue
    # The incoming queue's maxReceiveCount (settings.max_receive_count), and the clock that ages
    # a message: a failure for now is postponed rather than dead-lettered (POSTPONE_WITHIN_SECONDS).
    max_receive_count: int = 8
    clock: Callable[[], float] = time.time

    def handle_record(self, record: Mapping[str, Any]) -> None:
        """One SQS record of the event (Lambda's shape: messageId, receiptHandle, body, ...)."""
        try:
            sms = inbound_sms(record)
            receives = _receives(record)  # this delivery's, for the postponing below
        except PoisonMessage as poison:
            # Kept, with the reason, and acknowledged: it must never block or loop.
            self.dead_letters.park(record.get("body") or "", str(poison), record["messageId"])
            logger.error("poison message parked on the dead-letter queue", extra={"reason": str(poison)})
            count("DeadLetters")
            count_message("-", "poison")
            return
        command = type(sms.command).__name__  # parsed once: the processor reads the same command
        outcome = "unexpected_error"
        try:
            outcome = self.processor.process(sms).value
        except ConfigurationProblem as problem:
            outcome = "configuration_error"
            # Named for what it is: the alarm on ERROR lines fires, and the message stays queued.
            logger.error(
                "configuration error; the message will be retried",
                extra={
                    "error_type": type(problem).__name__,
                    "reason": str(problem),
                    "cause": repr(problem.__cause__),
                },
            )
            raise
        except RetryLater as retry:
            outcome = "retry"
            # Come back soon rather than after the whole visibility timeout, but never at once.
            seconds = max(retry.retry_after or 0.0, _MIN_REDELIVERY_SECONDS)
            first_reached_us = sms.enqueued_at if sms.enqueued_at is not None else self.clock()
            young = self.clock() - first_reached_us < POSTPONE_WITHIN_SECONDS
            if receives >= self.max_receive_count - 1 and young:
                # Its next failure would dead-letter it, yet it failed only for now: send it back
                # as a new message instead. The game deduplicates on the SMS id: the copy is the
                # same message to it, and it keeps when the SMS first reached the queue.
                try:
                    copy = self.incoming.postpone(
                        record.get("body") or "", delay_seconds=seconds, received_at=sms.enqueued_at
                    )
                except RetryLater as exc:
                    logger.warning("could not send the message back to the queue", extra={"error": str(exc)})
                else:
                    outcome = "postponed"
                    logger.warning(
                        "message sent back to the queue as a new one: it failed only for now",
                        extra={"reason": str(retry), "receives": receives, "copy": copy},
                    )
                    count("Postponed")
                    return  # acknowledged: the copy on the queue carries it on
            logger.warning(
                "message will be retried", extra={"reason": str(retry), "retry_after": retry.retry_after}
            )
            if retry.retry_after is not None and record.get("receiptHandle"):
                try:
                    self.incoming.redeliver_in(record["receiptHandle"], seconds)
                except RetryLater as exc:
                    logger.warning("could not shorten the visibility timeout", extra={"error": str(exc)})
            raise
        except Exception as unexpected:
            # Once, at ERROR, with the stack, before the batch handler reports the record failed.
            logger.exception(
                "unexpected error; the message will be retried",
                extra={"error_type": type(unexpected).__name__, "reason": str(unexpected)},
            )
            raise
        finally:
            count_message(command, outcome)
        tracer.put_annotation("result", outcome)

    def handle_batch(self, event: Mapping[str, Any], context: LambdaContext | None) -> dict[str, Any]:
        """Every record is reported on its own (the event source mapping's ReportBatchItemFailures):
        the ones listed come back after their visibility timeout, the rest are deleted. A failing
        batch is never failed whole, which would bring back the records that succeeded."""
        failed = []
        records = event.get("Records", [])
        count("Records", len(records))
        for record in records:
            try:
                self.handle_record(record)
            except Exception:  # noqa: BLE001 - logged in handle_record; SQS redelivers it
                failed.append({"itemIdentifier": record["messageId"]})
        return {"batchItemFailures": failed}


def build_game_function(settings: GameSettings, session: boto3.session.Session | None = None) -> GameFunction:
    """The game function, from the parts the composition root builds (bootstrap.py)."""
    session = session or boto3.session.Session()
    queues = build_queues(settings, session)
    return GameFunction(
        build_engine(settings, session).processor,
        queues.incoming,
        queues.dead_letters,
        max_receive_count=settings.max_receive_count,
    )


@functools.cache
def _cold_start() -> GameFunction:
    try:
        return build_game_function(GameSettings.from_environment())
    except Exception as exc:
        # A missing setting or an unreadable Twilio token: every invocation would fail the same way.
        logger.exception(
            "configuration error: the game function cannot start", extra={"error_type": type(exc).__name__}
        )
        raise


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics  # the invocation's counters, as one EMF line at its end
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return _cold_start().handle_batch(event, context)
