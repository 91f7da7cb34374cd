"""The composition root: the one place that turns settings into working parts.

The game function (`app.py`), the operator's tool (`admin/`) and the benchmarks build what they run
here, so each runs the same engine: the same store with the same timings, the same processor,
metrics in the same namespace. Nothing here reads the environment (config.py does) or decides
anything (the modules it assembles do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import boto3

from serverless_rps import observability
from serverless_rps.config import GameSettings, LazyClient, contact_key, read_auth_token
from serverless_rps.game import Limits
from serverless_rps.game_store import DynamoGameStore, TableNames
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps.ports import SentSmsLog, SmsSender
from serverless_rps.processing import MessageProcessor
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps.sms_gateway import TwilioSmsGateway

__all__ = ["Engine", "Queues", "build_engine", "build_processor", "build_queues", "build_store"]


@dataclass(frozen=True)
class Engine:
    """The store and the processor: what processes a message, for the game function and the
    operator's tool alike."""

    store: DynamoGameStore
    processor: MessageProcessor


@dataclass(frozen=True)
class Queues:
    """The game function's two queues: the incoming one (a quicker redelivery) and the dead-letter one."""

    incoming: IncomingQueue
    dead_letters: DeadLetterQueue


def build_store(dynamodb: Any, settings: GameSettings, key: bytes) -> DynamoGameStore:
    """The store on the settings' tables, with their timings; `key` names contact records."""
    return DynamoGameStore(
        dynamodb,
        TableNames(settings.game_state_table, settings.nickname_table, settings.idempotency_table),
        lock_lease_seconds=settings.lock_lease_seconds,
        in_progress_expiry_seconds=settings.in_progress_expiry_seconds,
        completed_record_seconds=settings.completed_record_seconds,
        contact_key=key,
    )


def build_processor(
    store: DynamoGameStore, sender: SmsSender, settings: GameSettings, sent_log: SentSmsLog | None = None
) -> MessageProcessor:
    """`sent_log` (Twilio's Messages list) lets a redelivery look before re-sending a reply."""
    return MessageProcessor(
        store,
        sender,
        limits=Limits(challenge_expiry_seconds=settings.challenge_expiry_seconds),
        lock_wait_seconds=settings.lock_wait_seconds,
        budget=BudgetPolicy(settings.reply_budget_burst, settings.reply_budget_per_hour),
        program=settings.program,
        sent_log=sent_log,
    )


def build_engine(settings: GameSettings, session: boto3.session.Session) -> Engine:
    """The engine on AWS and Twilio, once per cold start: reads the Twilio token (SSM when
    deployed) and sends the engine's metrics to the settings' namespace."""
    token = read_auth_token(
        settings.twilio, session.client("ssm") if settings.twilio.auth_token_parameter else None
    )
    observability.send_metrics_to(settings.metrics_namespace)
    store = build_store(session.client("dynamodb"), settings, contact_key(token))
    sender = TwilioSmsGateway(
        settings.twilio.account_sid,
        token,
        settings.twilio.api_url,
        messaging_service_sid=settings.messaging_service_sid,
        status_callback_url=settings.status_callback_url,
    )
    return Engine(store, build_processor(store, sender, settings, sent_log=sender))


def build_queues(settings: GameSettings, session: boto3.session.Session) -> Queues:
    # Only a failure calls SQS (a quicker redelivery, a poison message parked): built then.
    sqs = LazyClient(session, "sqs")
    return Queues(
        IncomingQueue(sqs, settings.incoming_queue_url), DeadLetterQueue(sqs, settings.dead_letter_queue_url)
    )
