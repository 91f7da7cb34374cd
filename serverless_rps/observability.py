"""Logging and tracing glue, shared by both functions.

Powertools' Logger writes structured JSON (one object per line, as CloudWatch Logs Insights
likes). Phone numbers never reach a log whole: `mask_phone` keeps the last four digits.

Tracing costs nothing when it is off. Powertools' Tracer wraps aws-xray-sdk, and building one
imports `aws_xray_sdk.core` (the largest single import of a cold start, docs/performance.md) even
when it then decides to do nothing. So the decision comes first (`config.tracing_enabled`, by
Powertools' own rules), and only a function that will trace builds a Tracer; any other gets
`Untraced`, which has the two methods the handlers use and does nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit, single_metric

from serverless_rps.config import DEFAULT_METRICS_NAMESPACE, tracing_enabled
from serverless_rps.twilio_errors import EXPIRED

if TYPE_CHECKING:
    from aws_lambda_powertools.tracing import Tracer

__all__ = [
    "Untraced",
    "about",
    "best_effort",
    "count",
    "count_delivery",
    "count_message",
    "logger",
    "mask_phone",
    "metrics",
    "milliseconds",
    "send_metrics_to",
    "tracer",
]

SERVICE = "serverless-rps"
# CloudWatch metrics, written as embedded metric format (EMF) lines in the function's log and
# extracted by CloudWatch Logs: no PutMetricData call, nothing on the message's path but a print at
# the end of the invocation (`metrics.log_metrics` on the handler). Each has the dimension
# `service`; `Messages` has `command` and `outcome` too. template.yaml's dashboard shows them.
# Every metric goes to one namespace: the stack's (`GameSettings.metrics_namespace`, which
# bootstrap hands to `send_metrics_to` at cold start), so that two stacks in one account never
# mix their figures. Given explicitly, it is never read from the environment by Powertools.
metrics = Metrics(namespace=DEFAULT_METRICS_NAMESPACE, service=SERVICE)

logger = Logger(service=SERVICE)
# Twilio's client logs each request's URL and headers at INFO; keep it to warnings.
logging.getLogger("twilio.http_client").setLevel(logging.WARNING)


def send_metrics_to(namespace: str) -> None:
    """Every metric from now on, `Messages` included, goes to this namespace."""
    metrics.namespace = namespace


class Untraced:
    """What the handlers ask of a tracer, doing nothing: the tracer when tracing is off."""

    def capture_lambda_handler(
        self,
        lambda_handler: Callable[..., Any] | None = None,
        capture_response: bool | None = None,
        capture_error: bool | None = None,
    ) -> Callable[..., Any]:
        if lambda_handler is None:
            return self.capture_lambda_handler  # used as @tracer.capture_lambda_handler(...)
        return lambda_handler

    def put_annotation(self, key: str, value: str | float | bool) -> None:
        return None


def _tracer() -> Tracer | Untraced:
    # Decided at import, through config.py: the handlers' decorators need the tracer before any event.
    if not tracing_enabled():
        return Untraced()
    from aws_lambda_powertools.tracing import Tracer  # imports aws_xray_sdk: only when tracing

    # patch_modules: boto3 for DynamoDB/SQS/SSM, requests for the Twilio REST client.
    return Tracer(service=SERVICE, patch_modules=["boto3", "requests"])


tracer = _tracer()


@contextmanager
def about(command: str, sender: str) -> Iterator[None]:
    """Every log line written inside names the message's command and its sender, masked, and the
    trace is annotated with the command (X-Ray's traces are searched by it)."""
    tracer.put_annotation("command", command)
    with logger.append_context_keys(command=command, sender=mask_phone(sender)):
        yield


def count(name: str, value: int = 1) -> None:
    """Add to a counter of this invocation (RepliesSent, LockContention, BudgetHits, ...)."""
    if value:
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def milliseconds(name: str, value: float) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Milliseconds, value=max(0.0, value))


def _count_once(name: str, **dimensions: str) -> None:
    """One count of `name` in its own EMF line, printed at once, with its own dimensions beside the
    service: a metric whose dimensions differ from the invocation's other metrics."""
    with single_metric(
        name=name,
        unit=MetricUnit.Count,
        value=1,
        namespace=metrics.namespace,
        default_dimensions={"service": SERVICE},
    ) as metric:
        for key, value in dimensions.items():
            metric.add_dimension(name=key, value=value)


def count_message(command: str, outcome: str) -> None:
    """One message handled, by command and outcome."""
    _count_once("Messages", command=command, outcome=outcome)


# A reply's final status from Twilio's status callback (the webhook's status route), one metric each.
DELIVERY_METRICS = {
    "delivered": "RepliesDelivered",
    "undelivered": "RepliesUndelivered",
    "failed": "RepliesFailed",
}


def count_delivery(status: str, error_code: int | None) -> None:
    """One reply's final status, counted once (the status route records it first): RepliesDelivered,
    RepliesUndelivered or RepliesFailed, and DeliveryErrors by `error_code` (30007: carrier
    filtering); RepliesExpired too when the reply waited in Twilio's queue too long to go (30036,
    30001), the game function's count of the same name. Each its own EMF line, printed at once:
    the webhook flushes no metric set."""
    _count_once(DELIVERY_METRICS[status])
    if error_code is not None:
        _count_once("DeliveryErrors", error_code=str(error_code))
    if error_code in EXPIRED:
        _count_once("RepliesExpired")


def mask_phone(phone: str | None) -> str:
    """`+15551234567` -> `+*******4567`: enough to correlate, not enough to identify."""
    if not phone:
        return "<none>"
    prefix = "+" if phone.startswith("+") else ""
    return prefix + "*" * max(len(phone) - len(prefix) - 4, 0) + phone[-4:]


def best_effort(action: str, call: Callable[[], None]) -> None:
    """Clean-up that must never fail the message (giving back a claim, a lease, an outbox): what
    it cannot do, expiry does. A failure is logged as a warning, never raised."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - a failed clean-up is logged, the lease expires
        logger.warning("clean-up failed; relying on expiry", extra={"action": action, "error": repr(exc)})
