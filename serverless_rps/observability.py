"""Logging and tracing glue, shared by both functions.

Powertools' Logger writes structured JSON (one object per line, as CloudWatch Logs Insights
likes). Phone numbers never reach a log whole: `mask_phone` keeps the last four digits.

Tracing costs nothing when it is off. Powertools' Tracer wraps aws-xray-sdk, and building one
imports `aws_xray_sdk.core` (the largest single import of a cold start, docs/performance.md) even
when it then decides to do nothing. So the decision comes first, by Powertools' own rules, and
only a function that will trace builds a Tracer; any other gets `Untraced`, which has the two
methods the handlers use and does nothing.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.shared import constants
from aws_lambda_powertools.shared.functions import resolve_truthy_env_var_choice

if TYPE_CHECKING:
    from aws_lambda_powertools.tracing import Tracer

__all__ = ["Untraced", "logger", "mask_phone", "tracer", "tracing_enabled"]

SERVICE = "serverless-rps"

logger = Logger(service=SERVICE)
# Twilio's client logs each request's URL and headers at INFO; keep it to warnings.
logging.getLogger("twilio.http_client").setLevel(logging.WARNING)


def tracing_enabled() -> bool:
    """Powertools' rule (`Tracer._is_tracer_disabled`): off when POWERTOOLS_TRACE_DISABLED says so,
    outside Lambda (no LAMBDA_TASK_ROOT) and under the SAM CLI or Chalice's local mode, where no
    X-Ray daemon listens; on otherwise. With `Tracing: Active` Lambda runs the daemon."""
    if resolve_truthy_env_var_choice(env=os.getenv(constants.TRACER_DISABLED_ENV, "false")):
        return False
    if os.getenv(constants.SAM_LOCAL_ENV) or os.getenv(constants.CHALICE_LOCAL_ENV):
        return False
    return bool(os.getenv(constants.LAMBDA_TASK_ROOT_ENV))


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
    if not tracing_enabled():
        return Untraced()
    from aws_lambda_powertools.tracing import Tracer  # imports aws_xray_sdk: only when tracing

    # patch_modules: boto3 for DynamoDB/SQS/SSM, requests for the Twilio REST client.
    return Tracer(service=SERVICE, patch_modules=["boto3", "requests"])


tracer = _tracer()


def mask_phone(phone: str | None) -> str:
    """`+15551234567` -> `+*******4567`: enough to correlate, not enough to identify."""
    if not phone:
        return "<none>"
    prefix = "+" if phone.startswith("+") else ""
    return prefix + "*" * max(len(phone) - len(prefix) - 4, 0) + phone[-4:]
