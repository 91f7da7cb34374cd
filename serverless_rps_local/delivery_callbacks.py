"""Twilio's status callbacks, locally: what the local Twilio API posts to a message's StatusCallback.

As Twilio does: no callback for the initial `queued`; then `sent`, then `delivered`, or, for a
phone marked to fail, `undelivered` with that phone's ErrorCode (30007 carrier filtering, 30003
unreachable handset...). Each is a form-encoded POST signed with the account's auth token over the
exact StatusCallback URL (`X-Twilio-Signature`), carrying MessageSid, MessageStatus, AccountSid,
From, To, ApiVersion and, for a failure, ErrorCode. `delay_seconds` passes before each callback.

A callback the webhook does not answer with 2xx is not retried (Twilio retries only a failed
connection, and only when the URL asks it to): the status stays as the last one that got through.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import requests
from twilio.request_validator import RequestValidator

__all__ = ["DEFAULT_DELAY_SECONDS", "DeliveryCallbacks"]

DEFAULT_DELAY_SECONDS = 0.5
_TIMEOUT_SECONDS = 15.0  # Twilio's own webhook timeout
_API_VERSION = "2010-04-01"

_log = logging.getLogger(__name__)


class DeliveryCallbacks:
    """Posts the status callbacks of accepted messages; `on_status(sid, status, error_code)` is told
    of each status as it is posted (the local Twilio API keeps it on the message)."""

    def __init__(
        self,
        account_sid: str,
        auth_token: str,
        on_status: Callable[[str, str, int | None], None],
        delay_seconds: float = DEFAULT_DELAY_SECONDS,
    ) -> None:
        self._account_sid = account_sid
        self._validator = RequestValidator(auth_token)
        self._on_status = on_status
        self.delay_seconds = delay_seconds
        self._failures: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._session = requests.Session()

    def start(self) -> None:
        self._stopped.clear()

    def stop(self) -> None:
        """Post nothing more: the API has stopped (a message it accepted keeps its last status)."""
        self._stopped.set()

    def fail_deliveries_to(self, phone: str, code: int | None) -> None:
        """From now on, messages to `phone` end `undelivered` with ErrorCode `code`; None: delivered."""
        with self._lock:
            if code is None:
                self._failures.pop(phone, None)
            else:
                self._failures[phone] = code

    def failing(self) -> dict[str, int]:
        with self._lock:
            return dict(self._failures)

    def schedule(self, message: dict[str, Any], url: str) -> None:
        """Post `sent`, then the final status, `delay_seconds` apart, from a thread of their own."""
        with self._lock:
            code = self._failures.get(message["to"])
        final = ("delivered", None) if code is None else ("undelivered", code)
        statuses = [("sent", None), final]
        threading.Thread(target=self._run, args=(message, url, statuses), daemon=True).start()

    def _run(self, message: dict[str, Any], url: str, statuses: list[tuple[str, int | None]]) -> None:
        for status, code in statuses:
            if self._stopped.wait(self.delay_seconds):
                return
            self._on_status(message["sid"], status, code)
            self._post(message, url, status, code)

    def _post(self, message: dict[str, Any], url: str, status: str, code: int | None) -> None:
        parameters = {
            "MessageSid": message["sid"],
            "SmsSid": message["sid"],
            "MessageStatus": status,
            "SmsStatus": status,
            "AccountSid": self._account_sid,
            "From": message["from"],
            "To": message["to"],
            "ApiVersion": _API_VERSION,
            **({"ErrorCode": str(code)} if code is not None else {}),
        }
        signature = self._validator.compute_signature(url, parameters)
        try:
            response = self._session.post(
                url,
                data=parameters,
                headers={"X-Twilio-Signature": signature, "User-Agent": "TwilioProxy/1.1"},
                timeout=_TIMEOUT_SECONDS,
            )
        except requests.RequestException as exc:
            _log.warning("status callback to the webhook failed: %s", exc)
            return
        if response.status_code >= 300:
            _log.warning("the webhook answered a status callback with %s", response.status_code)
