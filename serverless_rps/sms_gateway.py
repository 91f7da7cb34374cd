"""The Twilio adapter: send one SMS, and say whether a failure is worth retrying.

Named for its role: a module called `twilio.py` would shadow the SDK.
"""

from __future__ import annotations

from typing import Any

import requests
from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.http.response import Response
from twilio.rest import Client

from serverless_rps.exceptions import SmsPermanentlyRefused, SmsTemporarilyFailed
from serverless_rps.observability import mask_phone
from serverless_rps.ports import OutboundSms

__all__ = ["PERMANENT_ERROR_CODES", "RedirectingHttpClient", "TwilioSmsGateway"]

TWILIO_API_BASE = "https://api.twilio.com"

# Twilio error codes that no retry can fix (https://www.twilio.com/docs/api/errors):
PERMANENT_ERROR_CODES = frozenset(
    {
        21211,  # invalid 'To' number
        21408,  # permission to send to this region not enabled
        21610,  # recipient replied STOP
        21612,  # 'To' not reachable from this 'From'
        21614,  # 'To' is not a mobile number
        21606,  # 'From' cannot send SMS
        21617,  # body exceeds the concatenated-message limit
        30004,  # message blocked
        30006,  # landline or unreachable carrier
    }
)
_SEND_TIMEOUT_SECONDS = 5.0


class RedirectingHttpClient(TwilioHttpClient):
    """Twilio's HTTP client, optionally pointed at a Twilio-compatible API (the local stack).

    It also keeps the last response's `Retry-After`, which Twilio sends with 429s but which
    `TwilioRestException` does not carry.
    """

    def __init__(self, base_url: str | None = None, timeout: float = _SEND_TIMEOUT_SECONDS) -> None:
        super().__init__(timeout=timeout)
        self._base_url = base_url.rstrip("/") if base_url else None
        self.last_retry_after: float | None = None

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Response:
        if self._base_url and url.startswith(TWILIO_API_BASE):
            url = self._base_url + url[len(TWILIO_API_BASE) :]
        self.last_retry_after = None
        response = super().request(method, url, *args, **kwargs)
        self.last_retry_after = _seconds((response.headers or {}).get("Retry-After"))
        return response


class TwilioSmsGateway:
    def __init__(self, account_sid: str, auth_token: str, api_url: str | None = None) -> None:
        self._http = RedirectingHttpClient(api_url)
        self._client = Client(account_sid, auth_token, http_client=self._http)

    def send(self, message: OutboundSms) -> str:
        try:
            created = self._client.messages.create(to=message.to, from_=message.from_, body=message.body)
        except TwilioRestException as exc:
            if exc.code in PERMANENT_ERROR_CODES:
                raise SmsPermanentlyRefused(
                    f"Twilio refused the SMS to {mask_phone(message.to)}: {exc.code}", exc.code
                ) from exc
            # 429, 5xx, and anything unknown: retry (a message that keeps failing ends on the DLQ).
            raise SmsTemporarilyFailed(
                f"Twilio failed with HTTP {exc.status} code {exc.code}",
                retry_after=self._http.last_retry_after,
            ) from exc
        except (requests.RequestException, TwilioException) as exc:
            raise SmsTemporarilyFailed(f"Twilio unreachable: {type(exc).__name__}") from exc
        return str(created.sid)


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
