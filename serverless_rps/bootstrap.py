"""The composition root: the one place that turns settings into working parts.

Both functions and the operator's tool build what they run here, so each runs the same engine
with the same timings and the same clients:

* the game function (app.py): `build_engine` (the store, the outbox, the processor) and
  `build_queues`;
* the webhook (webhook.py): `build_ingress` (the signature check, the queue, the status route's
  records);
* the operator's tool (admin/): `build_engine` too, and `build_operator_clients`.

The I/O of starting happens here: the clients, and the Twilio auth token read from SSM. config.py
only reads settings; the modules assembled here decide everything else.

Each builder imports what it builds, so that a function's cold start loads its own parts only:
the webhook never loads the engine or Twilio's REST client (docs/performance.md, "Cold start").
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import boto3

from serverless_rps.config import GameSettings, TwilioCredentials, WebhookSettings

if TYPE_CHECKING:
    from twilio.request_validator import RequestValidator

    from serverless_rps.game_store import DeliveryStatusRecords, DynamoGameStore
    from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
    from serverless_rps.outbox import Outbox
    from serverless_rps.ports import SentSmsLog, SmsSender
    from serverless_rps.processing import MessageProcessor

__all__ = [
    "Engine",
    "Ingress",
    "LazyClient",
    "OperatorClients",
    "Queues",
    "build_engine",
    "build_ingress",
    "build_operator_clients",
    "build_processor",
    "build_queues",
    "build_store",
    "contact_key",
    "read_auth_token",
]


@dataclass(frozen=True)
class Engine:
    """What processes a message, for the game function and the operator's tool alike: the store,
    the outbox that sends what the store commits, and the processor over both."""

    store: DynamoGameStore
    outbox: Outbox
    processor: MessageProcessor


@dataclass(frozen=True)
class Queues:
    """The game function's two queues: the incoming one (a quicker redelivery) and the dead-letter one."""

    incoming: IncomingQueue
    dead_letters: DeadLetterQueue


@dataclass(frozen=True)
class Ingress:
    """What the webhook needs, built once per cold start."""

    validator: RequestValidator
    queue: IncomingQueue
    public_webhook_url: str | None = None
    # The status route's store; None when IDEMPOTENCY_TABLE is unset (the route answers 500).
    statuses: DeliveryStatusRecords | None = None


@dataclass(frozen=True)
class OperatorClients:
    """The clients the operator's tool uses beside the engine: the queues' counters and redrive,
    and CloudWatch for the queue's oldest message."""

    sqs: Any
    cloudwatch: Any


def build_store(dynamodb: Any, settings: GameSettings, key: bytes) -> DynamoGameStore:
    """The store on the settings' tables, with their timings; `key` names contact records."""
    from serverless_rps.game_store import DynamoGameStore, TableNames

    return DynamoGameStore(
        dynamodb,
        TableNames(settings.game_state_table, settings.nickname_table, settings.idempotency_table),
        lock_lease_seconds=settings.lock_lease_seconds,
        in_progress_expiry_seconds=settings.in_progress_expiry_seconds,
        completed_record_seconds=settings.completed_record_seconds,
        contact_key=key,
    )


def build_processor(
    store: DynamoGameStore, sender: SmsSender, sent_log: SentSmsLog, settings: GameSettings
) -> Engine:
    """The outbox (sending through `sender`, looking in `sent_log`, Twilio's Messages list, before
    re-sending) and the processor, over `store`."""
    from serverless_rps.game import Limits
    from serverless_rps.outbox import Outbox
    from serverless_rps.processing import MessageProcessor
    from serverless_rps.reply_budget import BudgetPolicy

    outbox = Outbox(store.outboxes, sender, sent_log)
    processor = MessageProcessor(
        store,
        outbox,
        limits=Limits(challenge_expiry_seconds=settings.challenge_expiry_seconds),
        lock_wait_seconds=settings.lock_wait_seconds,
        budget=BudgetPolicy(settings.reply_budget_burst, settings.reply_budget_per_hour),
        program=settings.program,
    )
    return Engine(store, outbox, processor)


def build_engine(settings: GameSettings, session: boto3.session.Session) -> Engine:
    """The engine on AWS and Twilio, once per cold start: reads the Twilio token (SSM when
    deployed) and sends the engine's metrics to the settings' namespace."""
    from serverless_rps import observability
    from serverless_rps.sms_gateway import TwilioSmsGateway

    token = read_auth_token(
        settings.twilio, session.client("ssm") if settings.twilio.auth_token_parameter else None
    )
    observability.send_metrics_to(settings.metrics_namespace)
    store = build_store(session.client("dynamodb"), settings, contact_key(token))
    twilio = TwilioSmsGateway(
        settings.twilio.account_sid,
        token,
        settings.twilio.api_url,
        messaging_service_sid=settings.messaging_service_sid,
        status_callback_url=settings.status_callback_url,
        validity_seconds=int(settings.reply_validity_seconds),
    )
    return build_processor(store, twilio, twilio, settings)


def build_queues(settings: GameSettings, session: boto3.session.Session) -> Queues:
    from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue

    # Only a failure calls SQS (a quicker redelivery, a poison message parked): built then.
    sqs = LazyClient(session, "sqs")
    return Queues(
        IncomingQueue(sqs, settings.incoming_queue_url), DeadLetterQueue(sqs, settings.dead_letter_queue_url)
    )


def build_ingress(settings: WebhookSettings, session: boto3.session.Session) -> Ingress:
    """The webhook's parts, once per cold start: the validator (the Twilio token, from SSM when
    deployed), the incoming queue, and the status route's records. Sends the webhook's metrics
    to the settings' namespace."""
    from twilio.request_validator import RequestValidator

    from serverless_rps import observability
    from serverless_rps.game_store import DeliveryStatusRecords
    from serverless_rps.message_queue import IncomingQueue

    observability.send_metrics_to(settings.metrics_namespace)
    token = read_auth_token(
        settings.twilio, session.client("ssm") if settings.twilio.auth_token_parameter else None
    )
    table = settings.idempotency_table
    # Built on the first status callback: an inbound SMS's cold start never pays for it.
    dynamodb = LazyClient(session, "dynamodb")
    return Ingress(
        validator=RequestValidator(token),
        queue=IncomingQueue(session.client("sqs"), settings.incoming_queue_url),
        public_webhook_url=settings.public_webhook_url,
        statuses=DeliveryStatusRecords(dynamodb, table) if table else None,
    )


def build_operator_clients(session: boto3.session.Session) -> OperatorClients:
    return OperatorClients(session.client("sqs"), session.client("cloudwatch"))


def read_auth_token(credentials: TwilioCredentials, ssm_client: Any | None) -> str:
    """The Twilio auth token: from SSM (deployed: `ssm_client` reads the SecureString) or the
    plain variable (local only)."""
    if credentials.auth_token_parameter is None:
        assert credentials.auth_token is not None
        return credentials.auth_token
    if ssm_client is None:
        raise ValueError("the Twilio token is an SSM parameter: an SSM client is needed to read it")
    response = ssm_client.get_parameter(Name=credentials.auth_token_parameter, WithDecryption=True)
    return str(response["Parameter"]["Value"])


def contact_key(auth_token: str) -> bytes:
    """The key of the keyed hash that names contact records, derived from the Twilio auth token.

    A secret the function already holds, so there is nothing more to provision; rotating the
    token starts every phone's reply budget afresh, which costs at most one burst per phone.
    """
    return hmac.new(auth_token.encode(), b"serverless-rps contact id v1", hashlib.sha256).digest()


class LazyClient:
    """A boto3 client that is built on its first request.

    Building a client loads its service's model from botocore's data files (tens of milliseconds
    for SQS), which a cold start should pay only if the first message needs that service. Any
    attribute (an operation, `meta`, `exceptions`) builds the client, once, and is then the
    client's own: a LazyClient behaves as the client it stands for.
    """

    def __init__(self, session: Any, service: str) -> None:
        self._session = session
        self._service = service
        self._client: Any = None
        self._building = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if self._client is None:
            with self._building:
                if self._client is None:
                    self._client = self._session.client(self._service)
        return getattr(self._client, name)
