"""The way in: Twilio's inbound-SMS webhook, behind an API Gateway HTTP API (payload format 2.0).

It only checks and forwards. A request is answered at once with an empty TwiML `<Response/>`
after its parameters are on the incoming queue; the game runs later, in the game function, and
replies with the Twilio REST API. The same `MessageSid` posted twice is harmless: the game
deduplicates on it.

The checks, in order, and what a caller gets when one fails::

    not a POST                               405
    body over MAX_BODY_BYTES                 413
    body not decodable form data             403   (it cannot be validly signed)
    X-Twilio-Signature missing or wrong      403   (nothing that fails here is looked at further)
    a field missing or malformed             400
    the queue refused the message            500   (retried by Twilio when its URL asks for it,
                                                    docs/deployment.md; the game deduplicates)

The signature is checked against the URL Twilio was given: `PUBLIC_WEBHOOK_URL` when set (a
custom domain), otherwise the URL rebuilt from the event.

The status route, `POST /sms/<secret>/status`, gets Twilio's status callbacks for our replies
(status_callbacks.py). Same checks, the same 403 for anything unsigned, forged or replayed onto
another URL; then one conditional write of the status on the reply's record
(game_store/delivery_status.py), not the queue: a status is one idempotent update that needs no
lock, so the game function never sees it (docs/architecture.md says why). A callback for a reply
we have no record of, or one that is not news, gets 200 and changes nothing.

    key, index, MessageSid, MessageStatus    400   (missing or malformed)
    the table could not be written           500   (logged; Twilio may retry)
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import boto3
from twilio.request_validator import RequestValidator

from serverless_rps.bootstrap import Ingress, build_ingress
from serverless_rps.config import WebhookSettings
from serverless_rps.exceptions import ConfigurationProblem, QueueUnavailable, StoreUnavailable
from serverless_rps.game_store import STATUS_RANK, StatusOutcome
from serverless_rps.observability import count_delivery, logger, mask_phone, tracer
from serverless_rps.status_callbacks import STATUS_ROUTE_SUFFIX, is_status_route, read_status_callback

__all__ = [
    "EMPTY_TWIML",
    "ENQUEUED_FIELDS",
    "MAX_BODY_BYTES",
    "Ingress",
    "Rejection",
    "handle",
    "inbound_sms",
    "lambda_handler",
    "load_ingress",
    "logged_path",
    "read_form",
    "signed_url",
]

# Twilio's largest inbound SMS: 1,600 characters, which percent-encode to 14 KiB when every one is
# a three-byte character (Chinese, say), plus ten media URLs and the other parameters, 2 KiB.
MAX_BODY_BYTES = 32 * 1024
# The longest base64 a body within MAX_BODY_BYTES encodes to (four characters per three bytes).
_MAX_ENCODED_BYTES = 4 * ((MAX_BODY_BYTES + 2) // 3)
# Twilio sends about 20 parameters, 40 with ten media attachments.
_MAX_FIELDS = 100
# Longer than any phone number, short code or channel address ("whatsapp:+...") Twilio sends.
_MAX_ADDRESS_LENGTH = 64

# The 403's reason: the contract's answer to a request Twilio did not sign (or not for this URL).
UNSIGNED = "invalid or missing X-Twilio-Signature"

EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>'

_MESSAGE_SID = re.compile(r"(SM|MM)[0-9a-fA-F]{32}")
# What the game function reads from the queue; OptOutType only when Advanced Opt-Out sends it.
ENQUEUED_FIELDS = ("MessageSid", "From", "To", "Body", "OptOutType")


@dataclass(frozen=True)
class Rejection:
    """Why a request is refused, as the HTTP status and a short reason for the caller."""

    status: int
    reason: str


@functools.cache
def load_ingress() -> Ingress:
    """Settings, the auth token (from SSM) and the clients, once per cold start (bootstrap.py
    builds them). A failure is not cached: the next invocation tries again."""
    return build_ingress(WebhookSettings.from_environment(), boto3.session.Session())


# --- pure parsing and validation ---------------------------------------------------------------


def _header(event: Mapping[str, Any], name: str) -> str | None:
    # Payload 2.0 lowercases header names; compare without case all the same (sam local, tests).
    for key, value in (event.get("headers") or {}).items():
        if key.lower() == name:
            return str(value)
    return None


def _method(event: Mapping[str, Any]) -> str:
    http = (event.get("requestContext") or {}).get("http") or {}
    return str(http.get("method", "")).upper()


def read_form(event: Mapping[str, Any]) -> list[tuple[str, str]] | Rejection:
    """The form parameters of the body, in order, duplicates kept; or why they cannot be read:
    413 for a body too large, else 403, the contract's answer to a request without a valid
    signature, which a body that cannot be read cannot carry."""
    raw = event.get("body") or ""
    if not isinstance(raw, str):
        return _unreadable("body is not form-encoded text")
    # Refuse a huge body before decoding it; base64 makes it a third longer.
    if len(raw) > _MAX_ENCODED_BYTES:
        return Rejection(413, "body too large")
    if event.get("isBase64Encoded"):
        try:
            body = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            return _unreadable("body is not valid base64")
    else:
        body = raw.encode("utf-8")
    if len(body) > MAX_BODY_BYTES:
        return Rejection(413, "body too large")
    try:
        text = body.decode("utf-8")
        return parse_qsl(
            text, keep_blank_values=True, strict_parsing=False, errors="strict", max_num_fields=_MAX_FIELDS
        )
    except ValueError:  # UnicodeDecodeError is one, and so is "too many fields"
        return _unreadable("body is not form-encoded UTF-8")


def _unreadable(why: str) -> Rejection:
    return Rejection(403, f"{UNSIGNED}: {why}")


def signed_url(event: Mapping[str, Any], public_webhook_url: str | None) -> str:
    """The URL Twilio signed: the configured public URL, or the one this request was made to.

    For the API's execute-api endpoint, `rawPath` already holds a named stage's prefix
    (`/prod/sms`); with the `$default` stage there is none. Behind a custom domain the path
    API Gateway reports differs from the one Twilio used, so set PUBLIC_WEBHOOK_URL there.
    """
    query = event.get("rawQueryString") or ""
    path = _path(event)
    if public_webhook_url:
        # The status route is the public URL's too: the inbound URL plus the suffix, and its query.
        base = public_webhook_url + (STATUS_ROUTE_SUFFIX if is_status_route(path) else "")
    else:
        host = (event.get("requestContext") or {}).get("domainName") or _header(event, "host") or ""
        base = f"https://{host}{path}"
    return base + (f"?{query}" if query else "")


def logged_path(event: Mapping[str, Any]) -> str:
    """The request's path for a log line: no host, no query string, and no path segment after
    `sms` (the route's secret segment, when the stack has one) but the status route's `status`."""
    segments = _path(event).split("/")
    if "sms" in segments:
        cut = segments.index("sms") + 1
        segments = segments[:cut] + ["<secret>"] * len(segments[cut:])
        if is_status_route(_path(event)):
            segments[-1] = STATUS_ROUTE_SUFFIX.strip("/")
    return "/".join(segments)[:200]


def _path(event: Mapping[str, Any]) -> str:
    # Payload 2.0 always has rawPath; a request without one is taken as made to the root.
    return str(event.get("rawPath") or "/")


class _MultiValueForm(dict[str, list[str]]):
    """Form parameters as RequestValidator reads repeated keys (its Django-style `getlist`)."""

    def getlist(self, name: str) -> list[str]:
        return self[name]


def is_signed_by_twilio(
    validator: RequestValidator, url: str, form: list[tuple[str, str]], signature: str | None
) -> bool:
    if not signature:
        return False
    parameters = _MultiValueForm()
    for name, value in form:
        parameters.setdefault(name, []).append(value)
    return bool(validator.validate(url, parameters, signature))


def inbound_sms(form: list[tuple[str, str]]) -> dict[str, str] | Rejection:
    """The parameters to enqueue, only those the game uses (Twilio's names), or the first thing
    wrong with them. Twilio sends twenty-odd more (FromCity, FromZip, AccountSid, ...): keeping
    them would copy where the texter is into the queue and the dead-letter queue for nothing."""
    parameters: dict[str, str] = {}
    for name, value in form:
        if name in parameters:
            return Rejection(400, f"parameter {name[:40]} appears more than once")
        parameters[name] = value
    if not _MESSAGE_SID.fullmatch(parameters.get("MessageSid", "")):
        return Rejection(400, "MessageSid missing or malformed")
    for address in ("From", "To"):
        if not 0 < len(parameters.get(address, "").strip()) <= _MAX_ADDRESS_LENGTH:
            return Rejection(400, f"{address} missing or malformed")
    if "Body" not in parameters:
        return Rejection(400, "Body missing")
    return {name: parameters[name] for name in ENQUEUED_FIELDS if name in parameters}


# --- translating requests into calls ------------------------------------------------------------


def _plain(rejection: Rejection) -> dict[str, Any]:
    return {
        "statusCode": rejection.status,
        "headers": {"Content-Type": "text/plain; charset=utf-8"},
        "body": rejection.reason,
    }


def _refuse(rejection: Rejection, **details: str) -> dict[str, Any]:
    logger.warning(
        "request refused", extra={"status": rejection.status, "reason": rejection.reason, **details}
    )
    return _plain(rejection)


def handle(event: Mapping[str, Any], ingress: Ingress) -> dict[str, Any]:
    """One API Gateway request in, one HTTP response out; see the module docstring for the order."""
    if _method(event) != "POST":
        return _refuse(Rejection(405, "only POST is accepted"))
    form = read_form(event)
    if isinstance(form, Rejection):
        return _refuse(form)
    url = signed_url(event, ingress.public_webhook_url)
    if not is_signed_by_twilio(ingress.validator, url, form, _header(event, "x-twilio-signature")):
        return _refuse(Rejection(403, UNSIGNED), path=logged_path(event))
    if is_status_route(_path(event)):
        return _record_status(event, form, ingress)
    sms = inbound_sms(form)
    if isinstance(sms, Rejection):
        return _refuse(sms)
    details = {"message_sid": sms["MessageSid"], "from": mask_phone(sms["From"])}
    try:
        queue_message_id = ingress.queue.enqueue(sms)
    except ConfigurationProblem:
        logger.exception("configuration error: could not enqueue the inbound SMS", extra=details)
        return _plain(Rejection(500, "could not accept the message now, try again"))
    except QueueUnavailable:
        logger.exception("could not enqueue the inbound SMS", extra=details)
        return _plain(Rejection(500, "could not accept the message now, try again"))
    logger.info("inbound SMS enqueued", extra={**details, "queue_message_id": queue_message_id})
    return {"statusCode": 200, "headers": {"Content-Type": "text/xml"}, "body": EMPTY_TWIML}


def _record_status(event: Mapping[str, Any], form: list[tuple[str, str]], ingress: Ingress) -> dict[str, Any]:
    """A signed status callback: record it if it is news; 200 whatever it changed."""
    callback = read_status_callback(str(event.get("rawQueryString") or ""), form, time.time())
    if isinstance(callback, str):
        return _refuse(Rejection(400, callback))
    reply, status = callback.reply, callback.status
    details: dict[str, Any] = {
        "key": reply.key,
        "index": reply.index,
        "message_sid": status.sid,
        "status": status.status,
        "error_code": status.error_code,
    }
    if status.status not in STATUS_RANK:
        logger.info("status callback: a status not kept", extra=details)
        return _acknowledged()
    if ingress.statuses is None:
        logger.error("configuration error: IDEMPOTENCY_TABLE is not set; status not recorded", extra=details)
        return _plain(Rejection(500, "service unavailable"))
    try:
        outcome = ingress.statuses.record(reply.key, reply.index, status)
    except (ConfigurationProblem, StoreUnavailable):
        logger.exception("could not record a delivery status", extra=details)
        return _plain(Rejection(500, "could not record the status now, try again"))
    if outcome is StatusOutcome.UNKNOWN:
        logger.warning("status callback for a reply we have no record of; nothing recorded", extra=details)
    elif outcome is StatusOutcome.LEARNT_SID:
        logger.warning("status callback named a send that was never recorded; recorded now", extra=details)
    else:
        logger.info("status callback", extra={**details, "outcome": outcome.value})
    if outcome in (StatusOutcome.RECORDED, StatusOutcome.LEARNT_SID) and status.is_final:
        count_delivery(status.status, status.error_code)
    return _acknowledged()


def _acknowledged() -> dict[str, Any]:
    return {"statusCode": 200, "headers": {"Content-Type": "text/plain; charset=utf-8"}, "body": ""}


@logger.inject_lambda_context(log_event=False)  # the event holds phone numbers: never log it
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The entry point: nothing a caller sends may crash it, so every failure becomes a status."""
    try:
        ingress = load_ingress()
    except Exception:  # noqa: BLE001 - the boundary: log it, answer 500, let Twilio retry
        logger.exception("the webhook could not start: settings, SSM or SQS client")
        return _plain(Rejection(500, "service unavailable"))
    try:
        return handle(event, ingress)
    except Exception:  # noqa: BLE001 - the boundary: a caller must never crash the function
        logger.exception("unexpected failure while handling a webhook request")
        return _plain(Rejection(500, "internal error"))
