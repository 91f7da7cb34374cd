"""Logging and tracing glue, shared by both functions.

Powertools' Logger writes structured JSON (one object per line, as CloudWatch Logs Insights
likes); its Tracer wraps aws-xray-sdk and is a no-op outside Lambda or when tracing is disabled.
Phone numbers never reach a log whole: `mask_phone` keeps the last four digits.
"""

from __future__ import annotations

import logging

from aws_lambda_powertools import Logger, Tracer

__all__ = ["logger", "mask_phone", "tracer"]

SERVICE = "serverless-rps"

logger = Logger(service=SERVICE)
# patch_modules: boto3 for DynamoDB/SQS/SSM, requests for the Twilio REST client. Outside Lambda,
# or with POWERTOOLS_TRACE_DISABLED=true, the Tracer does nothing.
tracer = Tracer(service=SERVICE, patch_modules=["boto3", "requests"])
# Twilio's client logs each request's URL and headers at INFO; keep it to warnings.
logging.getLogger("twilio.http_client").setLevel(logging.WARNING)


def mask_phone(phone: str | None) -> str:
    """`+15551234567` -> `+*******4567`: enough to correlate, not enough to identify."""
    if not phone:
        return "<none>"
    prefix = "+" if phone.startswith("+") else ""
    return prefix + "*" * max(len(phone) - len(prefix) - 4, 0) + phone[-4:]
