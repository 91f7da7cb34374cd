"""The Twilio adapter: send one SMS, and say whether a failure is worth retrying.

Named for its role: a module called `twilio.py` would shadow the SDK.
"""

from __future__ import annotations

import enum
import json
from typing import Any
from urllib.parse import urlencode

import requests
from twilio.base.domain import Domain
from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.base.version import Version
from twilio.http.http_client import TwilioHttpClient
from twilio.http.response import Response
from twilio.rest import Client
from urllib3.exceptions import NewConnectionError

from serverless_rps.exceptions import ConfigurationProblem, SmsPermanentlyRefused, SmsTemporarilyFailed
from serverless_rps.observability import logger, mask_phone
from serverless_rps.ports import OutboundSms, ReplyId, SentSms

__all__ = [
    "REFUSED_FOR_GOOD",
    "TWILIO_ERRORS",
    "RedirectingHttpClient",
    "TwilioFailure",
    "TwilioSmsGateway",
    "classify",
    "status_callback",
]

TWILIO_API_BASE = "https://api.twilio.com"


class TwilioFailure(enum.Enum):
    """What a Twilio error means for the reply, and so what we do."""

    REFUSED = "refused"  # this SMS can never be sent: record `refused:<code>`, never retry
    CONFIGURATION = "configuration"  # nothing will send until an operator acts: retry, log, alarm
    TRANSIENT = "transient"  # try again later (Retry-After when Twilio gives one)


# Twilio's error dictionary (twilio.com/docs/api/errors), each code by what it says of the send.
TWILIO_ERRORS: dict[int, TwilioFailure] = {
    # The recipient or this message, for good: another try gets the same answer.
    21211: TwilioFailure.REFUSED,  # invalid 'To' phone number
    21214: TwilioFailure.REFUSED,  # 'To' phone number cannot be reached
    21217: TwilioFailure.REFUSED,  # phone number does not appear to be valid
    21265: TwilioFailure.REFUSED,  # 'To' number cannot be a short code
    21266: TwilioFailure.REFUSED,  # 'To' and 'From' number cannot be the same
    21408: TwilioFailure.REFUSED,  # permission to send to this region is not enabled
    21608: TwilioFailure.REFUSED,  # trial account: the number is unverified
    21610: TwilioFailure.REFUSED,  # the recipient replied STOP
    21612: TwilioFailure.REFUSED,  # 'To' cannot be reached from this 'From' (no route)
    21614: TwilioFailure.REFUSED,  # 'To' is not a valid mobile number
    21617: TwilioFailure.REFUSED,  # body exceeds the 1,600-character limit
    30003: TwilioFailure.REFUSED,  # unreachable destination handset
    30004: TwilioFailure.REFUSED,  # message blocked (by the recipient or the carrier)
    30005: TwilioFailure.REFUSED,  # unknown destination handset
    30006: TwilioFailure.REFUSED,  # landline or unreachable carrier
    30007: TwilioFailure.REFUSED,  # carrier filtering: the message was flagged
    # Our account or sender: every reply would fail the same way until an operator acts. Retried
    # (so the replies stay in the outbox for a redrive), logged as a configuration error, alarmed.
    20003: TwilioFailure.CONFIGURATION,  # authentication failed: wrong account SID or auth token
    20005: TwilioFailure.CONFIGURATION,  # account not active
    20404: TwilioFailure.CONFIGURATION,  # resource not found (the account in the URL)
    21212: TwilioFailure.CONFIGURATION,  # invalid 'From' number
    21606: TwilioFailure.CONFIGURATION,  # 'From' number cannot send SMS (or is not ours)
    21659: TwilioFailure.CONFIGURATION,  # 'From' is not a Twilio number enabled for this account
    21660: TwilioFailure.CONFIGURATION,  # mismatch between the 'From' number and the account
    21701: TwilioFailure.CONFIGURATION,  # the Messaging Service does not exist (or is not ours)
    21703: TwilioFailure.CONFIGURATION,  # the Messaging Service has no number available to send
    21704: TwilioFailure.CONFIGURATION,  # the Messaging Service contains no phone numbers
    21705: TwilioFailure.CONFIGURATION,  # the Messaging Service SID is invalid
    30002: TwilioFailure.CONFIGURATION,  # account suspended
    # Busy or briefly broken: another try later may work.
    14107: TwilioFailure.TRANSIENT,  # rate limit exceeded
    20429: TwilioFailure.TRANSIENT,  # too many requests
    20500: TwilioFailure.TRANSIENT,  # internal server error
    20503: TwilioFailure.TRANSIENT,  # service unavailable
    21611: TwilioFailure.TRANSIENT,  # 'From' number has too many messages queued
    30001: TwilioFailure.TRANSIENT,  # queue overflow
}
REFUSED_FOR_GOOD = frozenset(code for code, kind in TWILIO_ERRORS.items() if kind is TwilioFailure.REFUSED)


def classify(code: int | None, status: int) -> TwilioFailure:
    """A code we do not know is retried, never recorded as refused: a refusal would drop the reply
    for good, while a retry keeps it in the outbox and, if it never works, on the dead-letter queue
    with its alarm. 401/403 without a code are the account's credentials."""
    if code in TWILIO_ERRORS:
        return TWILIO_ERRORS[code]
    if status in {401, 403}:
        return TwilioFailure.CONFIGURATION
    return TwilioFailure.TRANSIENT


_SEND_TIMEOUT_SECONDS = 5.0


class RedirectingHttpClient(TwilioHttpClient):
    """Twilio's HTTP client, optionally pointed at a Twilio-compatible API (the local stack).

    It also keeps the last response's `Retry-After`, which Twilio sends with 429s but which
    `TwilioRestException` does not carry.
    """

    def __init__(self, base_url: str | None = None, timeout: float = _SEND_TIMEOUT_SECONDS) -> None:
        """`base_url` without a trailing slash (config strips TWILIO_API_URL's)."""
        super().__init__(timeout=timeout)
        self._base_url = base_url
        # Read only after a response (a failed send or list): set from that response's headers.
        self.last_retry_after: float | None = None

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Response:
        if self._base_url:  # the SDK's URLs all start with TWILIO_API_BASE
            url = self._base_url + url.removeprefix(TWILIO_API_BASE)
        response = super().request(method, url, *args, **kwargs)
        self.last_retry_after = _seconds((response.headers or {}).get("Retry-After"))
        return response


class TwilioSmsGateway:
    """Sends through the Twilio SDK's REST client, its Messages resource only.

    `client.messages.create(...)` goes through `twilio.rest.api.v2010.account`, whose package
    imports every resource of an account (calls, conferences, queues, ~40 modules: some 40 ms of
    a cold start). The same request through the SDK's `Version` of the 2010 API, as the Messages
    resource itself makes it, keeps the SDK's authentication, user agent and error parsing
    (`TwilioRestException` with Twilio's code) and imports none of them.
    """

    def __init__(
        self,
        account_sid: str,
        auth_token: str,
        api_url: str | None = None,
        messaging_service_sid: str | None = None,
        status_callback_url: str | None = None,
    ) -> None:
        """`status_callback_url`: the webhook's status route (config's STATUS_CALLBACK_URL); None
        sends without StatusCallback, so Twilio posts no status."""
        self._http = RedirectingHttpClient(api_url)
        client = Client(account_sid, auth_token, http_client=self._http)
        self._api = Version(Domain(client, TWILIO_API_BASE), "2010-04-01")
        self._messages = f"/Accounts/{account_sid}/Messages.json"
        self._messaging_service_sid = messaging_service_sid
        self._status_callback_url = status_callback_url
        self._account_sid = account_sid

    def _sender(self, message: OutboundSms) -> dict[str, str]:
        """Exactly one sender: the Messaging Service, which picks a number of its pool (sticky
        sender), or else From the number the player texted (the outbox's `from`)."""
        if self._messaging_service_sid:
            return {"MessagingServiceSid": self._messaging_service_sid}
        return {"From": message.from_}

    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        data = {"To": message.to, **self._sender(message), "Body": message.body}
        if self._status_callback_url is not None and reply is not None:
            data["StatusCallback"] = status_callback(self._status_callback_url, reply)
        try:
            # twilio's client adds the form's Content-Type and Accept: application/json to a POST.
            created = self._api.create("POST", self._messages, data=data)
        except TwilioRestException as exc:
            kind = classify(exc.code, exc.status)
            if kind is TwilioFailure.REFUSED:
                raise SmsPermanentlyRefused(
                    f"Twilio refused the SMS to {mask_phone(message.to)}: {exc.code}", exc.code
                ) from exc
            if kind is TwilioFailure.CONFIGURATION:
                raise ConfigurationProblem(
                    f"Twilio refused our account or sender: HTTP {exc.status} code {exc.code}", retry_after=60
                ) from exc
            if exc.code not in TWILIO_ERRORS:
                logger.warning(
                    "an unclassified Twilio error; retrying", extra={"code": exc.code, "status": exc.status}
                )
            raise SmsTemporarilyFailed(
                f"Twilio failed with HTTP {exc.status} code {exc.code}",
                retry_after=self._http.last_retry_after,
                # A 4xx (429 included) is Twilio refusing it; a 5xx may follow its accepting it
                # (Twilio's page for 20500 warns that a retry may send twice).
                maybe_sent=exc.status >= 500,
            ) from exc
        except (requests.RequestException, TwilioException) as exc:
            raise SmsTemporarilyFailed(
                f"Twilio unreachable: {type(exc).__name__}", maybe_sent=not _never_reached_twilio(exc)
            ) from exc
        return str(created["sid"])

    def sent_to(self, to: str, limit: int) -> list[SentSms]:
        """Twilio's latest messages to `to`, newest first: one GET of the Messages list with
        `To` and `PageSize=limit` (`client.messages.list(to=..., limit=...)`). Read only to look for
        a reply an earlier attempt may have sent (processing), never on the normal path; so the
        Messages resource's module, and the 40 others its package imports, load only then.

        A throttled (20429) or failed list raises SmsTemporarilyFailed with Twilio's Retry-After,
        like a failed send; a refused account raises ConfigurationProblem."""
        from twilio.rest.api.v2010.account.message import MessageList

        try:
            found = MessageList(self._api, self._account_sid).list(to=to, limit=limit)
        except TwilioException as exc:
            # A page that is not a 200 comes back as a bare TwilioException carrying the response
            # (twilio's Page), not as a TwilioRestException with Twilio's code, as a failed send does.
            response = exc.args[1] if len(exc.args) > 1 and isinstance(exc.args[1], Response) else None
            if response is None:
                raise SmsTemporarilyFailed(f"Twilio's Messages list failed: {exc}") from exc
            raise self._list_failure(_error_code(response.text), response.status_code) from exc
        except requests.RequestException as exc:
            raise SmsTemporarilyFailed(f"Twilio unreachable: {type(exc).__name__}") from exc
        return [
            SentSms(
                sid=str(message.sid),
                to=str(message.to),
                from_=message.from_,
                body=message.body or "",
                direction=str(message.direction),
                created_at=message.date_created.timestamp() if message.date_created else 0.0,
                messaging_service_sid=message.messaging_service_sid,
            )
            for message in found
        ]

    def _list_failure(self, code: int | None, status: int) -> Exception:
        if classify(code, status) is TwilioFailure.CONFIGURATION:
            return ConfigurationProblem(
                f"Twilio refused to list our messages: HTTP {status} code {code}", retry_after=60
            )
        # Any other code (20429 throttled, 5xx) is for now: the redelivery looks again.
        return SmsTemporarilyFailed(
            f"Twilio's Messages list failed with HTTP {status} code {code}",
            retry_after=self._http.last_retry_after,
        )


def _error_code(text: str) -> int | None:
    try:
        code = json.loads(text).get("code")
    except (ValueError, AttributeError):
        return None
    return code if isinstance(code, int) else None


def _never_reached_twilio(exc: Exception) -> bool:
    """Whether the request certainly never reached Twilio: no connection was made (refused, or
    timed out while connecting). A read timeout or a dropped connection may follow Twilio's
    accepting the SMS."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(exc, requests.ConnectionError) and isinstance(reason, NewConnectionError)


def status_callback(base_url: str, reply: ReplyId) -> str:
    """The StatusCallback URL of one reply: the status route with the reply's identity in the query.
    Twilio signs every callback over this whole URL, so the identity cannot be changed in transit."""
    return f"{base_url}?{urlencode({'key': reply.key, 'index': reply.index})}"


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
