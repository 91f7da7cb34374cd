"""The game function: an SQS-triggered Lambda. It only translates: SQS records in, a partial
batch response out. Clients and settings are built once per cold start, on first use.

The partial batch response is written here, not with Powertools' batch utility: that utility
imports asyncio (for its async processor) and every event data class it knows, some 60 ms of a
cold start for a loop of a few lines (docs/performance.md, "Cold start").
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import boto3
from aws_lambda_powertools.utilities.typing import LambdaContext

from serverless_rps.config import GameSettings, LazyClient, contact_key, read_auth_token
from serverless_rps.exceptions import ConfigurationProblem, PoisonMessage, RetryLater
from serverless_rps.game import Limits
from serverless_rps.game_store import DynamoGameStore, TableNames
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps.observability import count, count_message, logger, metrics, tracer
from serverless_rps.parsing import parse
from serverless_rps.processing import InboundSms, MessageProcessor
from serverless_rps.replies import Program
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps.sms_gateway import TwilioSmsGateway

__all__ = ["Engine", "GameFunction", "build_engine", "build_game_function", "lambda_handler"]

# A failed message comes back after at least this long, so a hot loop cannot form.
_MIN_REDELIVERY_SECONDS = 1.0


@dataclass
class GameFunction:
    processor: MessageProcessor
    incoming: IncomingQueue
    dead_letters: DeadLetterQueue

    def handle_record(self, record: Mapping[str, Any]) -> None:
        """One SQS record of the event (Lambda's shape: messageId, receiptHandle, body, ...)."""
        body, message_id = record.get("body") or "", record["messageId"]
        try:
            sms = InboundSms.from_queue_body(body, message_id, _enqueued_at(record))
        except PoisonMessage as poison:
            # Kept, with the reason, and acknowledged: it must never block or loop.
            self.dead_letters.park(body, str(poison), message_id)
            logger.error("poison message parked on the dead-letter queue", extra={"reason": str(poison)})
            count("DeadLetters")
            count_message("-", "poison")
            return
        command = type(parse(sms.body, sms.opt_out_type)).__name__
        try:
            result = self.processor.process(sms)
        except ConfigurationProblem as problem:
            count_message(command, "configuration_error")
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
            count_message(command, "retry")
            logger.warning(
                "message will be retried", extra={"reason": str(retry), "retry_after": retry.retry_after}
            )
            if retry.retry_after is not None and record.get("receiptHandle"):
                self._come_back_soon(record["receiptHandle"], retry.retry_after)
            raise
        except Exception as unexpected:
            count_message(command, "unexpected_error")
            # Once, at ERROR, with the stack, before the batch handler reports the record failed.
            logger.exception(
                "unexpected error; the message will be retried",
                extra={"error_type": type(unexpected).__name__, "reason": str(unexpected)},
            )
            raise
        count_message(command, result.value)
        tracer.put_annotation("result", result.value)

    def _come_back_soon(self, receipt_handle: str, seconds: float) -> None:
        try:
            self.incoming.redeliver_in(receipt_handle, max(seconds, _MIN_REDELIVERY_SECONDS))
        except RetryLater as exc:
            logger.warning("could not shorten the visibility timeout", extra={"error": str(exc)})

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


@dataclass(frozen=True)
class Engine:
    """The store and the processor, as the game function builds them (the operator's tool too)."""

    store: DynamoGameStore
    processor: MessageProcessor


def build_engine(settings: GameSettings, session: boto3.session.Session) -> Engine:
    token = read_auth_token(
        settings.twilio, session.client("ssm") if settings.twilio.auth_token_parameter else None
    )
    store = DynamoGameStore(
        session.client("dynamodb"),
        TableNames(settings.game_state_table, settings.nickname_table, settings.idempotency_table),
        lock_lease_seconds=settings.lock_lease_seconds,
        in_progress_expiry_seconds=settings.in_progress_expiry_seconds,
        completed_record_seconds=settings.completed_record_seconds,
        contact_key=contact_key(token),
    )
    sender = TwilioSmsGateway(settings.twilio.account_sid, token, settings.twilio.api_url)
    processor = MessageProcessor(
        store,
        sender,
        limits=Limits(challenge_expiry_seconds=settings.challenge_expiry_seconds),
        lock_wait_seconds=settings.lock_wait_seconds,
        budget=BudgetPolicy(settings.reply_budget_burst, settings.reply_budget_per_hour),
        program=Program(settings.program_name, settings.support_contact),
    )
    return Engine(store, processor)


def build_game_function(settings: GameSettings, session: boto3.session.Session | None = None) -> GameFunction:
    session = session or boto3.session.Session()
    # Only a failure calls SQS (a quicker redelivery, a poison message parked): built then.
    sqs = LazyClient(session, "sqs")
    engine = build_engine(settings, session)
    return GameFunction(
        engine.processor,
        IncomingQueue(sqs, settings.incoming_queue_url),
        DeadLetterQueue(sqs, settings.dead_letter_queue_url),
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


def _enqueued_at(record: Mapping[str, Any]) -> float | None:
    """When the webhook put the message on the queue: SQS's SentTimestamp (ms), which a redrive
    resets. None if the record does not say."""
    sent = record.get("attributes", {}).get("SentTimestamp")
    try:
        return int(sent) / 1000 if sent is not None else None
    except (TypeError, ValueError):
        return None


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics  # the invocation's counters, as one EMF line at its end
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return _cold_start().handle_batch(event, context)
