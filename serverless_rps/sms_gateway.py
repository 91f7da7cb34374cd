"""The Twilio adapter: send one SMS, and say whether a failure is worth retrying.

Named for its role: a module called `twilio.py` would shadow the SDK.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
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
from serverless_rps.twilio_errors import EXPIRED, THROTTLED, TWILIO_ERRORS, TwilioFailure, classify

__all__ = [
    "MAX_VALIDITY_SECONDS",
    "RedirectingHttpClient",
    "TwilioSmsGateway",
    "status_callback",
]

TWILIO_API_BASE = "https://api.twilio.com"
# Twilio's longest ValidityPeriod (errors 21624 and 90007): a message may wait in its queue at most
# this long before it fails with 30036.
MAX_VALIDITY_SECONDS = 36_000


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
        validity_seconds: int = MAX_VALIDITY_SECONDS,
        clock: Callable[[], float] = lambda: time.time(),
    ) -> None:
        """`status_callback_url`: the webhook's status route (config's STATUS_CALLBACK_URL); None
        sends without StatusCallback, so Twilio posts no status. `validity_seconds`: each reply's
        ValidityPeriod, how long it may wait in Twilio's queue before it fails (30036) rather than
        arrive late; an opt-out confirmation's is shorter when its deadline is nearer (`clock`)."""
        self._http = RedirectingHttpClient(api_url)
        client = Client(account_sid, auth_token, http_client=self._http)
        self._api = Version(Domain(client, TWILIO_API_BASE), "2010-04-01")
        self._messages = f"/Accounts/{account_sid}/Messages.json"
        self._messaging_service_sid = messaging_service_sid
        self._status_callback_url = status_callback_url
        self._account_sid = account_sid
        self._validity = max(1, min(int(validity_seconds), MAX_VALIDITY_SECONDS))
        self._clock = clock

    def _sender(self, message: OutboundSms) -> dict[str, str]:
        """Exactly one sender: the Messaging Service, which picks a number of its pool (sticky
        sender), or else From the number the player texted (the outbox's `from`)."""
        if self._messaging_service_sid:
            return {"MessagingServiceSid": self._messaging_service_sid}
        return {"From": message.from_}

    def valid_for(self, message: OutboundSms) -> int:
        """The reply's ValidityPeriod in whole seconds: the configured one, or, for an opt-out
        confirmation, what is left of its five minutes if that is less (never under Twilio's 1)."""
        if message.send_by is None:
            return self._validity
        return max(1, min(self._validity, math.floor(message.send_by - self._clock())))

    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        data = {
            "To": message.to,
            **self._sender(message),
            "Body": message.body,
            "ValidityPeriod": str(self.valid_for(message)),
        }
        if self._status_callback_url is not None and reply is not None:
            data["StatusCallback"] = status_callback(self._status_callback_url, reply)
        try:
            # twilio's client adds the form's Content-Type and Accept: application/json to a POST.
            created = self._api.create("POST", self._messages, data=data)
        except TwilioRestException as exc:
            kind = classify(exc.code, exc.status)
            if kind is TwilioFailure.REFUSED:
                raise SmsPermanentlyRefused(
                    f"Twilio refused the SMS to {mask_phone(message.to)}: {exc.code}",
                    exc.code,
                    expired=exc.code in EXPIRED,
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
                throttled=exc.status == 429 or exc.code in THROTTLED,
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
