"""The one place that reads the environment, and all it does: settings in, values out, no I/O.

Every other module receives a `GameSettings`, `WebhookSettings` or `OperatorSettings` value
(observability.py asks `tracing_enabled` once, at import); bootstrap.py turns them into clients
and parts, reading the Twilio token from SSM where the settings say so. Names are fixed so that
template.yaml, the local stack and the tests can drive the handlers without knowing their insides.

Timing values and why (docs/protocol.md has the full reasoning; a test checks template.yaml):

* ``LOCK_LEASE_SECONDS`` must exceed the function timeout plus clock skew: a lock must never
  expire while the invocation that took it can still be running.
* ``IN_PROGRESS_EXPIRY_SECONDS`` >= function timeout: a claim of a dead invocation is taken over
  once no live invocation can still own it.
* ``COMPLETED_RECORD_SECONDS`` >= the longest a message can live in the queue plus its dead-letter
  queue, so a late duplicate or a redriven message is still recognised.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from serverless_rps.model import LOBBY_SWEEP_SECONDS
from serverless_rps.replies import Program

__all__ = [
    "DEFAULT_METRICS_NAMESPACE",
    "ConfigurationError",
    "GameSettings",
    "OperatorSettings",
    "TwilioCredentials",
    "WebhookSettings",
    "program_from_environment",
    "tracing_enabled",
]

DAY = 24 * 60 * 60
# Where the game function's CloudWatch metrics go when POWERTOOLS_METRICS_NAMESPACE is unset
# (the tests, the local stack); template.yaml sets ServerlessRps/<stack>.
DEFAULT_METRICS_NAMESPACE = "ServerlessRps"


class ConfigurationError(Exception):
    """A setting is missing or malformed: raised while settings are read, before anything runs.

    Not to be confused with `exceptions.ConfigurationProblem`, which AWS or Twilio raise while a
    message is processed (a missing table, AccessDenied, a refused token) and which retries it.
    """


def _required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise ConfigurationError(f"environment variable {name} is required")
    return value


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ConfigurationError(f"{name} must be a number, got {raw!r}") from exc
    if value <= 0:
        raise ConfigurationError(f"{name} must be positive, got {raw!r}")
    return value


@dataclass(frozen=True)
class TwilioCredentials:
    account_sid: str
    auth_token_parameter: str | None
    auth_token: str | None
    api_url: str | None


def _twilio(env: Mapping[str, str]) -> TwilioCredentials:
    parameter = env.get("TWILIO_AUTH_TOKEN_PARAMETER", "").strip() or None
    token = env.get("TWILIO_AUTH_TOKEN", "").strip() or None
    if parameter is None and token is None:
        raise ConfigurationError(
            "set TWILIO_AUTH_TOKEN_PARAMETER (an SSM SecureString name) or, locally, TWILIO_AUTH_TOKEN"
        )
    return TwilioCredentials(
        account_sid=_required(env, "TWILIO_ACCOUNT_SID"),
        auth_token_parameter=parameter,
        auth_token=token,
        api_url=env.get("TWILIO_API_URL", "").strip().rstrip("/") or None,
    )


@dataclass(frozen=True)
class GameSettings:
    """Everything the game function needs, read once per cold start."""

    game_state_table: str
    nickname_table: str
    idempotency_table: str
    incoming_queue_url: str
    dead_letter_queue_url: str
    twilio: TwilioCredentials
    function_timeout_seconds: float = 15
    lock_lease_seconds: float = 25
    in_progress_expiry_seconds: float = 30
    completed_record_seconds: float = 18 * DAY
    challenge_expiry_seconds: float = 7 * DAY
    lock_wait_seconds: float = 1.5
    reply_budget_burst: int = 60
    reply_budget_per_hour: int = 180
    metrics_namespace: str = DEFAULT_METRICS_NAMESPACE
    # The operator's messaging program, as registered with the carriers (template.yaml's
    # ProgramName and SupportContact): named in HELP and the opt-in and opt-out confirmations.
    program: Program = field(default_factory=Program)
    # Who sends the replies (template.yaml's TwilioMessagingServiceSid): None, From the number the
    # player texted; a Messaging Service SID, through that service, which picks the sender.
    messaging_service_sid: str | None = None
    # The webhook's status route, given to Twilio as each reply's StatusCallback; None: no callbacks.
    status_callback_url: str | None = None
    # How long a reply may wait in Twilio's queue before it fails (30036) rather than arrive late
    # (template.yaml's ReplyValiditySeconds, docs/deployment.md says why ten minutes).
    reply_validity_seconds: float = 600
    # SQS's maxReceiveCount: a message that failed for now this many times would go to the
    # dead-letter queue next; the game function sends it back to the queue as a new one instead.
    max_receive_count: int = 8

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> GameSettings:
        """Each setting from its variable; one that is unset or blank keeps the default above."""
        env = os.environ if env is None else env
        return cls(
            game_state_table=_required(env, "GAME_STATE_TABLE"),
            nickname_table=_required(env, "NICKNAME_TABLE"),
            idempotency_table=_required(env, "IDEMPOTENCY_TABLE"),
            incoming_queue_url=_required(env, "INCOMING_QUEUE_URL"),
            dead_letter_queue_url=_required(env, "DEAD_LETTER_QUEUE_URL"),
            twilio=_twilio(env),
            function_timeout_seconds=_number(env, "FUNCTION_TIMEOUT_SECONDS", cls.function_timeout_seconds),
            lock_lease_seconds=_number(env, "LOCK_LEASE_SECONDS", cls.lock_lease_seconds),
            in_progress_expiry_seconds=_number(
                env, "IN_PROGRESS_EXPIRY_SECONDS", cls.in_progress_expiry_seconds
            ),
            completed_record_seconds=_number(env, "COMPLETED_RECORD_SECONDS", cls.completed_record_seconds),
            challenge_expiry_seconds=_number(env, "CHALLENGE_EXPIRY_DAYS", cls.challenge_expiry_seconds / DAY)
            * DAY,
            lock_wait_seconds=_number(env, "LOCK_WAIT_SECONDS", cls.lock_wait_seconds),
            reply_budget_burst=int(_number(env, "REPLY_BUDGET_BURST", cls.reply_budget_burst)),
            reply_budget_per_hour=int(_number(env, "REPLY_BUDGET_PER_HOUR", cls.reply_budget_per_hour)),
            metrics_namespace=env.get("POWERTOOLS_METRICS_NAMESPACE", "").strip()
            or DEFAULT_METRICS_NAMESPACE,
            program=_program(env),
            messaging_service_sid=_messaging_service(env),
            status_callback_url=env.get("STATUS_CALLBACK_URL", "").strip() or None,
            reply_validity_seconds=_number(env, "REPLY_VALIDITY_SECONDS", cls.reply_validity_seconds),
            max_receive_count=int(_number(env, "MAX_RECEIVE_COUNT", cls.max_receive_count)),
        )

    def __post_init__(self) -> None:
        if self.lock_lease_seconds <= self.function_timeout_seconds:
            raise ConfigurationError("LOCK_LEASE_SECONDS must exceed FUNCTION_TIMEOUT_SECONDS")
        if self.in_progress_expiry_seconds < self.function_timeout_seconds:
            raise ConfigurationError("IN_PROGRESS_EXPIRY_SECONDS must be >= FUNCTION_TIMEOUT_SECONDS")
        if self.lock_lease_seconds + self.lock_wait_seconds >= LOBBY_SWEEP_SECONDS:
            # A lobby throw plays a waiter of another room only once every attempt that could
            # still commit without seeing it is over (model.LOBBY_SWEEP_SECONDS).
            raise ConfigurationError(
                f"LOCK_LEASE_SECONDS + LOCK_WAIT_SECONDS must be under {LOBBY_SWEEP_SECONDS:g}"
            )
        if not 1 <= self.reply_validity_seconds <= 36_000:
            raise ConfigurationError("REPLY_VALIDITY_SECONDS must be 1 to 36,000 (Twilio's ten hours)")
        if self.max_receive_count < 2:
            raise ConfigurationError("MAX_RECEIVE_COUNT must be at least 2")
        if self.reply_budget_burst < 1 or self.reply_budget_per_hour < 1:
            raise ConfigurationError("REPLY_BUDGET_BURST and REPLY_BUDGET_PER_HOUR must be at least 1")


@dataclass(frozen=True)
class WebhookSettings:
    """Everything the ingress (webhook) function needs, read once per cold start."""

    incoming_queue_url: str
    twilio: TwilioCredentials
    public_webhook_url: str | None = None
    # Where the status route records delivery statuses; None: the route answers 500, named.
    idempotency_table: str | None = None
    metrics_namespace: str = DEFAULT_METRICS_NAMESPACE

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> WebhookSettings:
        env = os.environ if env is None else env
        return cls(
            incoming_queue_url=_required(env, "INCOMING_QUEUE_URL"),
            twilio=_twilio(env),
            public_webhook_url=env.get("PUBLIC_WEBHOOK_URL", "").strip() or None,
            idempotency_table=env.get("IDEMPOTENCY_TABLE", "").strip() or None,
            metrics_namespace=env.get("POWERTOOLS_METRICS_NAMESPACE", "").strip()
            or DEFAULT_METRICS_NAMESPACE,
        )


# Without any of these the environment holds no stack's variables at all (rather than a wrong one).
_GAME_VARIABLES = ("GAME_STATE_TABLE", "NICKNAME_TABLE", "IDEMPOTENCY_TABLE", "INCOMING_QUEUE_URL")


@dataclass(frozen=True)
class OperatorSettings:
    """What the operator's tool reads beside the game function's settings: `verify`'s defaults,
    and whether the environment names a stack at all (admin/locate.py)."""

    service_number: str | None = None
    webhook_url: str | None = None
    webhook_path_secret: str | None = None
    # Whether any of the game function's variables is set (a stack's, or the local stack's).
    names_a_stack: bool = False
    # The local stack's state directory, when the variables come from its game-function.env.
    local_state_directory: str | None = None

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> OperatorSettings:
        env = os.environ if env is None else env
        return cls(
            service_number=env.get("TWILIO_PHONE_NUMBER", "").strip() or None,
            webhook_url=env.get("WEBHOOK_URL", "").strip() or None,
            webhook_path_secret=env.get("WEBHOOK_PATH_SECRET", "").strip() or None,
            names_a_stack=any(env.get(name, "").strip() for name in _GAME_VARIABLES),
            local_state_directory=env.get("LOCAL_STACK_STATE_DIRECTORY", "").strip() or None,
        )


# Powertools' spelling of a true flag (`strtobool`).
_TRUE = {"1", "y", "yes", "t", "true", "on"}


def tracing_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether a function traces, by Powertools' own rule (`Tracer._is_tracer_disabled`): off when
    POWERTOOLS_TRACE_DISABLED says so, under the SAM CLI (AWS_SAM_LOCAL) or Chalice's local mode
    (AWS_CHALICE_CLI_MODE), where no X-Ray daemon listens, and outside Lambda (no
    LAMBDA_TASK_ROOT); on otherwise. With `Tracing: Active` Lambda runs the daemon."""
    env = os.environ if env is None else env
    if env.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in _TRUE:
        return False
    if env.get("AWS_SAM_LOCAL") or env.get("AWS_CHALICE_CLI_MODE"):
        return False
    return bool(env.get("LAMBDA_TASK_ROOT"))


_MESSAGING_SERVICE_SID = re.compile(r"MG[0-9a-f]{32}")


def _messaging_service(env: Mapping[str, str]) -> str | None:
    """TWILIO_MESSAGING_SERVICE_SID: empty or unset sends From the number texted. A malformed SID
    fails the cold start here rather than every send at Twilio (21705)."""
    sid = env.get("TWILIO_MESSAGING_SERVICE_SID", "").strip()
    if not sid:
        return None
    if not _MESSAGING_SERVICE_SID.fullmatch(sid):
        raise ConfigurationError(
            f"TWILIO_MESSAGING_SERVICE_SID must be MG followed by 32 lowercase hex digits, got {sid!r}"
        )
    return sid


def _program(env: Mapping[str, str]) -> Program:
    defaults = Program()
    try:
        return Program(
            env.get("PROGRAM_NAME", "").strip() or defaults.name,
            env.get("SUPPORT_CONTACT", "").strip() or defaults.support,
        )
    except ValueError as exc:
        raise ConfigurationError(f"PROGRAM_NAME or SUPPORT_CONTACT: {exc}") from exc


def program_from_environment(env: Mapping[str, str] | None = None) -> Program:
    """The operator's program name and support contact (PROGRAM_NAME, SUPPORT_CONTACT; template.yaml's
    ProgramName and SupportContact), for the operator's tool, which needs no other setting."""
    return _program(os.environ if env is None else env)
