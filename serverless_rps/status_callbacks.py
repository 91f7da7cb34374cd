"""Twilio's status callbacks, as the webhook's status route reads them.

Every reply is sent with `StatusCallback` set to the status route, `POST /sms/<secret>/status`,
with the reply's identity in the query string (`?key=<message record>&index=<outbox index>`,
sms_gateway.status_callback). Twilio posts the reply's status there, form-encoded and signed
like an inbound SMS, over the whole URL with its query: so the identity is as trustworthy as the
signature. The parameters read are `MessageSid`, `MessageStatus` and, for a failure, `ErrorCode`.

This module only reads; the webhook checks the signature first and records what this gives it
(game_store/delivery_status.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl

from serverless_rps.game_store import DeliveryStatus
from serverless_rps.ports import ReplyId

__all__ = ["STATUS_ROUTE_SUFFIX", "StatusCallback", "is_status_route", "read_status_callback"]

# The status route is the inbound route's URL plus this (template.yaml's WebhookStatusRoute).
STATUS_ROUTE_SUFFIX = "/status"

_MESSAGE_SID = re.compile(r"(SM|MM)[0-9a-fA-F]{32}")
_STATUS = re.compile(r"[a-z_]{1,32}")
_ERROR_CODE = re.compile(r"[0-9]{1,6}")
# A message record's key: Twilio's MessageSid of the inbound SMS, or `sqs:<message id>`.
_RECORD_KEY = re.compile(r"[A-Za-z0-9:_-]{1,128}")
_INDEX = re.compile(r"[0-9]{1,4}")


@dataclass(frozen=True)
class StatusCallback:
    """One status callback: which reply, and what Twilio says of it (a status we may not keep)."""

    reply: ReplyId
    status: DeliveryStatus


def is_status_route(path: str) -> bool:
    return path.rstrip("/").endswith(STATUS_ROUTE_SUFFIX)


def _single(pairs: Sequence[tuple[str, str]], what: str) -> dict[str, str] | str:
    values: dict[str, str] = {}
    for name, value in pairs:
        if name in values:
            return f"{what} parameter {name[:40]} appears more than once"
        values[name] = value
    return values


def read_status_callback(query: str, form: Sequence[tuple[str, str]], now: float) -> StatusCallback | str:
    """The callback, or the first thing wrong with it (the route answers 400 with it)."""
    identity = _single(parse_qsl(query, keep_blank_values=True), "query")
    if isinstance(identity, str):
        return identity
    parameters = _single(form, "form")
    if isinstance(parameters, str):
        return parameters
    key, index = identity.get("key", ""), identity.get("index", "")
    if not _RECORD_KEY.fullmatch(key) or not _INDEX.fullmatch(index):
        return "key or index missing or malformed in the query string"
    sid = parameters.get("MessageSid", "")
    if not _MESSAGE_SID.fullmatch(sid):
        return "MessageSid missing or malformed"
    status = parameters.get("MessageStatus", "")
    if not _STATUS.fullmatch(status):
        return "MessageStatus missing or malformed"
    code = parameters.get("ErrorCode", "")
    if code and not _ERROR_CODE.fullmatch(code):
        return "ErrorCode malformed"
    error_code = int(code) if code else None
    return StatusCallback(ReplyId(key, int(index)), DeliveryStatus(sid, status, error_code, now))
