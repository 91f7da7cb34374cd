"""The composition root: the one place that turns settings into working parts.

Both functions and the operator's tool build what they run here, so each runs the same engine
with the same timings and the same clients:

* the game function (app.py): `build_engine` (the store, the outbox, the processor) and
  `build_queues`;
* the webhook (webhook.py): `build_ingress` (the signature check, the queue, the status route's
  records);
* the operator's tool (admin/): `build_engine` too, and `build_operator_clients`.

Deployed, the engine keeps the time of the wall clock; a simulation gives it a `Clockwork` of its
own (bench/burst runs the game function in virtual time), through the same builders.

The I/O of starting happens here: the clients, the Twilio auth token read from SSM, and the proof
key (every version of it), read from SSM when first needed. config.py only reads settings; the
modules assembled here decide everything else.

Each builder imports what it builds, so that a function's cold start loads its own parts only:
the webhook never loads the engine or Twilio's REST client (docs/performance.md, "Cold start").
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import boto3

from serverless_rps.config import DAY, GameSettings, TwilioCredentials, WebhookSettings
from serverless_rps.exceptions import ConfigurationProblem, RetryLater

if TYPE_CHECKING:
    from twilio.request_validator import RequestValidator

    from serverless_rps.game_store import DeliveryStatusRecords, DynamoGameStore
    from serverless_rps.game_store.proofs import ProofSettings
    from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
    from serverless_rps.opt_out_proof import ProofKeys
    from serverless_rps.outbox import Outbox
    from serverless_rps.ports import SentSmsLog, SmsSender
    from serverless_rps.processing import MessageProcessor

__all__ = [
    "Clockwork",
    "Engine",
    "Ingress",
    "LazyClient",
    "LazyProofKeys",
    "OperatorClients",
    "Queues",
    "build_engine",
    "build_ingress",
    "build_operator_clients",
    "build_processor",
    "build_proof_settings",
    "build_queues",
    "build_store",
    "contact_key",
    "read_auth_token",
    "read_proof_keys",
]


@dataclass(frozen=True)
class Engine:
    """What processes a message, for the game function and the operator's tool alike: the store,
    the outbox that sends what the store commits, and the processor over both."""

    store: DynamoGameStore
    outbox: Outbox
    processor: MessageProcessor


@dataclass(frozen=True)
class Clockwork:
    """What the engine reads of time and chance: its clock (epoch seconds), how it pauses (the lock
    backoff), where new ids come from, and the backoff's jitter. Deployed, none is given and the
    processor and the outbox keep their own (the wall clock, real sleeps, uuid4, the system's
    random); a simulation gives its own, so that leases, expiries and backoff run in its time."""

    clock: Callable[[], float]
    sleep: Callable[[float], None]
    new_id: Callable[[], str]
    jitter: Callable[[], float]


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
    CloudWatch for the queue's oldest message, and SSM for older proof keys (`proof
    --key-parameter`) and for making one (`proof-key`): built on first use."""

    sqs: Any
    cloudwatch: Any
    ssm: Any = None


def build_store(
    dynamodb: Any, settings: GameSettings, key: bytes, proof: ProofSettings | None = None
) -> DynamoGameStore:
    """The store on the settings' tables, with their timings; `key` names contact records; `proof`
    says where opt-outs are proven (None: they are not)."""
    from serverless_rps.game_store import DynamoGameStore, TableNames

    return DynamoGameStore(
        dynamodb,
        TableNames(settings.game_state_table, settings.nickname_table, settings.idempotency_table),
        lock_lease_seconds=settings.lock_lease_seconds,
        in_progress_expiry_seconds=settings.in_progress_expiry_seconds,
        completed_record_seconds=settings.completed_record_seconds,
        contact_key=key,
        proof=proof,
    )


def build_proof_settings(settings: GameSettings, session: boto3.session.Session) -> ProofSettings | None:
    """Where opt-outs are proven, if the settings keep a proof: the table, the key (every version
    of the SSM parameter, read on the first message that needs it; locally, PROOF_KEY) and the
    retention."""
    from serverless_rps.game_store.proofs import ProofSettings
    from serverless_rps.opt_out_proof import ProofKeys, key_from_text

    if not settings.keeps_proof:
        return None
    assert settings.proof_table is not None
    if settings.proof_key_parameter is not None:
        keys: Any = LazyProofKeys(LazyClient(session, "ssm"), settings.proof_key_parameter)
    else:
        assert settings.proof_key is not None
        try:
            local = ProofKeys(key_from_text(settings.proof_key, "PROOF_KEY"))
        except ValueError as exc:
            raise ConfigurationProblem(str(exc)) from None

        def keys() -> ProofKeys:
            return local

    return ProofSettings(settings.proof_table, keys, settings.proof_retention_days * DAY)


def build_processor(
    store: DynamoGameStore,
    sender: SmsSender,
    sent_log: SentSmsLog,
    settings: GameSettings,
    clockwork: Clockwork | None = None,
) -> Engine:
    """The outbox (sending through `sender`, looking in `sent_log`, Twilio's Messages list, before
    re-sending) and the processor, over `store`; on `clockwork`'s time if one is given."""
    from serverless_rps.game import Limits
    from serverless_rps.outbox import Outbox
    from serverless_rps.processing import MessageProcessor
    from serverless_rps.reply_budget import BudgetPolicy
    from serverless_rps.sms_ceiling import SmsCeiling

    # Without a clockwork, the processor and the outbox keep their own (their parameters' defaults).
    timing: dict[str, Any] = vars(clockwork) if clockwork is not None else {}
    outbox = (
        Outbox(
            store.outboxes,
            sender,
            sent_log,
            clock=clockwork.clock,
            sleep=clockwork.sleep,
            jitter=clockwork.jitter,
        )
        if clockwork is not None
        else Outbox(store.outboxes, sender, sent_log)
    )
    processor = MessageProcessor(
        store,
        outbox,
        limits=Limits(challenge_expiry_seconds=settings.challenge_expiry_seconds),
        lock_wait_seconds=settings.lock_wait_seconds,
        budget=BudgetPolicy(settings.reply_budget_burst, settings.reply_budget_per_hour),
        program=settings.program,
        **timing,
        countries=settings.served_countries,
        # One per execution environment: its cache of the day's count lives as long as it does.
        ceiling=SmsCeiling(store, settings.daily_sms_ceiling),
    )
    return Engine(store, outbox, processor)


def build_engine(
    settings: GameSettings, session: boto3.session.Session, clockwork: Clockwork | None = None
) -> Engine:
    """The engine on AWS and Twilio, once per cold start: reads the Twilio token (SSM when
    deployed) and sends the engine's metrics to the settings' namespace. `clockwork`: a
    simulation's time (`build_processor`)."""
    from serverless_rps import observability
    from serverless_rps.sms_gateway import TwilioSmsGateway

    token = read_auth_token(
        settings.twilio, session.client("ssm") if settings.twilio.auth_token_parameter else None
    )
    observability.send_metrics_to(settings.metrics_namespace)
    store = build_store(
        session.client("dynamodb"), settings, contact_key(token), build_proof_settings(settings, session)
    )
    twilio = TwilioSmsGateway(
        settings.twilio.account_sid,
        token,
        settings.twilio.api_url,
        messaging_service_sid=settings.messaging_service_sid,
        status_callback_url=settings.status_callback_url,
        validity_seconds=int(settings.reply_validity_seconds),
        **({"clock": clockwork.clock} if clockwork is not None else {}),
    )
    return build_processor(store, twilio, twilio, settings, clockwork)


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
    return OperatorClients(session.client("sqs"), session.client("cloudwatch"), LazyClient(session, "ssm"))


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


# What SSM answers when the key is not there or not ours to read: only an operator can fix it.
_KEY_NOT_AVAILABLE = frozenset(
    {
        "ParameterNotFound",
        "ParameterVersionNotFound",
        "AccessDeniedException",
        "UnrecognizedClientException",
        "KMSAccessDeniedException",
        "KMSDisabledException",
        "KMSNotFoundException",
        "InvalidKeyId",
    }
)


def read_proof_keys(ssm_client: Any, parameter: str) -> ProofKeys:
    """Every version of the proof key SSM keeps (GetParameterHistory: the last 100), the newest
    current: new records are written under it, and a number is looked for under each. Each key is
    named `<parameter>:<version>` on the records it makes. A missing or unreadable parameter is a
    `ConfigurationProblem`; SSM throttled or unreachable, `RetryLater`. An older version that is no
    key is left out (logged); a current one is a `ConfigurationProblem`."""
    from botocore.exceptions import BotoCoreError, ClientError

    from serverless_rps.observability import logger
    from serverless_rps.opt_out_proof import ProofKey, ProofKeys, key_from_text

    versions: list[tuple[int, str]] = []
    request: dict[str, Any] = {"Name": parameter, "WithDecryption": True, "MaxResults": 50}
    try:
        while True:
            response = ssm_client.get_parameter_history(**request)
            versions += [(int(entry["Version"]), str(entry["Value"])) for entry in response["Parameters"]]
            if not response.get("NextToken"):
                break
            request["NextToken"] = response["NextToken"]
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "Unknown")
        if code in _KEY_NOT_AVAILABLE:
            raise ConfigurationProblem(
                f"the proof key {parameter} cannot be read ({code}): create it (admin proof-key) and "
                "grant ssm:GetParameterHistory on it",
                retry_after=60,
            ) from exc
        raise RetryLater(f"could not read the proof key {parameter}: {code}", retry_after=1) from exc
    except BotoCoreError as exc:
        raise RetryLater(
            f"could not read the proof key {parameter}: {type(exc).__name__}", retry_after=1
        ) from exc
    if not versions:
        raise ConfigurationProblem(f"the proof key {parameter} has no version", retry_after=60)
    keys: list[ProofKey] = []
    for version, value in sorted(versions, reverse=True):
        try:
            keys.append(key_from_text(value, f"{parameter}:{version}"))
        except ValueError as problem:
            if not keys:
                raise ConfigurationProblem(str(problem), retry_after=60) from None
            logger.warning(
                "an older version of the proof key is no key: left out", extra={"reason": str(problem)}
            )
    return ProofKeys(keys[0], tuple(keys[1:]))


class LazyProofKeys:
    """The proof keys of one SSM parameter, read on first use and kept for the execution
    environment's life, as the Twilio token is kept for it: a message that needs no proof never
    reads them. A failed read is not kept: the next message tries again. A key rotated since is
    used once the environment is recycled (docs/operations.md, "Rotating the proof key")."""

    def __init__(self, ssm_client: Any, parameter: str) -> None:
        self._ssm = ssm_client
        self.parameter = parameter
        self._keys: ProofKeys | None = None
        self._reading = threading.Lock()

    def __call__(self) -> ProofKeys:
        if self._keys is None:
            with self._reading:
                if self._keys is None:
                    self._keys = read_proof_keys(self._ssm, self.parameter)
        return self._keys


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
