"""A local stand-in for Twilio's Messages API, so the game can send SMS without a Twilio account.

It answers the two calls the game makes, the way Twilio does, with HTTP Basic auth (the account
SID and auth token):

* `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`: form fields `To`, `Body` and either
  `From` or `MessagingServiceSid`, a `201` with the message resource, or a Twilio-shaped error such as
  `{"code": 21610, "message": ..., "more_info": ..., "status": 400}`;
* `GET` of the same URL, the Messages list: newest first, filtered by `To`, `From` and `DateSent`
  (`DateSent`, `DateSent<`, `DateSent>`: whole GMT dates, as Twilio documents them), in pages of
  `PageSize` (default 50, at most 1000) linked by `next_page_uri` with a `PageToken`, so that
  twilio-python's `client.messages.list(to=..., limit=...)` reads it unchanged.

What it imitates beyond the happy path:

* **Opt-out** (Twilio's Advanced Opt-Out): when the simulator delivers an inbound STOP word from a
  phone, that phone is opted out and sends to it are refused with 21610 until it texts START.
* **Bad numbers**: a `To` that is not E.164 is refused with 21211.
* **Messaging Services**: a send with `MessagingServiceSid` leaves from a number of that service's
  pool, the same one for a recipient each time (sticky sender); its answer has `from: null` and
  status `accepted`, as Twilio's does before it assigns the sender. An unknown service is 21701.
* **Status callbacks** (delivery_callbacks.py): a send with `StatusCallback` gets `sent`, then
  `delivered`, posted and signed as Twilio does, `callbacks.delay_seconds` apart; a phone marked
  with `callbacks.fail_deliveries_to(phone, 30007)` gets `undelivered` with that ErrorCode. The
  message's `status` and `error_code` follow.
* **Faults on demand**: `fail_next()` answers the next sends with 429 (with `Retry-After`), 500, 503...;
  `fail_next_lists()` does the same for the next list requests;
  `stall_next()` holds the response back long enough for a client timeout, optionally after
  accepting the message (the one window in which a reply may be sent twice).

Endpoints under `/_local/` (no auth, 127.0.0.1 only) let the web page and other processes read the
sent messages and drive the same switches; tests in the same process call the methods directly.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC
from email.utils import formatdate, parsedate_to_datetime
from typing import Any, Self
from urllib.parse import urlencode

from werkzeug.datastructures import Authorization
from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from serverless_rps_local.delivery_callbacks import DeliveryCallbacks
from serverless_rps_local.http_server import BackgroundHttpServer

__all__ = [
    "OPT_IN_KEYWORDS",
    "OPT_OUT_KEYWORDS",
    "LocalTwilioApi",
    "SegmentCount",
    "count_segments",
]

API_VERSION = "2010-04-01"
OPT_OUT_KEYWORDS = frozenset({"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE"})
OPT_IN_KEYWORDS = frozenset({"START", "UNSTOP", "YES"})

# Twilio's default confirmations; it sends them itself, so they never pass through our Messages API.
_OPT_OUT_CONFIRMATION = (
    "You have successfully been unsubscribed. You will not receive any more messages from this number. "
    "Reply START to resubscribe."
)
_OPT_IN_CONFIRMATION = (
    "You have successfully been re-subscribed to messages from this number. "
    "Reply HELP for help. Reply STOP to unsubscribe. Msg&Data Rates May Apply."
)

_E164 = re.compile(r"^\+[1-9]\d{1,14}$")
_MESSAGING_SERVICE_SID = re.compile(r"^MG[0-9a-fA-F]{32}$")
_MAX_BODY_CHARACTERS = 1600

_GSM7_BASIC = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
_GSM7_EXTENDED = set("^{}\\[~]|€\f")

_DEFAULT_FAULT_CODES = {429: 20429, 500: 20500, 503: 20503}


@dataclass(frozen=True)
class SegmentCount:
    """How a body travels: its encoding and how many SMS segments it takes."""

    encoding: str
    segments: int


def count_segments(body: str) -> SegmentCount:
    """GSM-7 bodies fit 160 septets in one segment (153 per part when split); UCS-2 fits 70 (67)."""
    if all(character in _GSM7_BASIC or character in _GSM7_EXTENDED for character in body):
        septets = sum(2 if character in _GSM7_EXTENDED else 1 for character in body)
        return SegmentCount("GSM-7", 1 if septets <= 160 else -(-septets // 153))
    units = len(body.encode("utf-16-le")) // 2
    return SegmentCount("UCS-2", 1 if units <= 70 else -(-units // 67))


@dataclass(frozen=True)
class _Fault:
    status: int
    code: int
    retry_after: float | None = None
    stall_seconds: float = 0.0
    accept_first: bool = False


class _TwilioError(Exception):
    def __init__(self, status: int, code: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def response(self) -> Response:
        payload = {
            "code": self.code,
            "message": self.message,
            "more_info": f"https://www.twilio.com/docs/errors/{self.code}",
            "status": self.status,
        }
        return Response(
            json.dumps(payload), status=self.status, headers=self.headers, mimetype="application/json"
        )


class LocalTwilioApi:
    """Twilio's Messages API for one account, in memory. Thread-safe; start it, send to it, read it."""

    def __init__(
        self, account_sid: str, auth_token: str, messaging_services: Mapping[str, Sequence[str]] | None = None
    ) -> None:
        """`messaging_services` maps each Messaging Service SID (MG...) to its pool of numbers."""
        self.account_sid = account_sid
        self._auth_token = auth_token
        self._messaging_services = {
            sid: tuple(numbers) for sid, numbers in (messaging_services or {}).items()
        }
        self._sticky_senders: dict[tuple[str, str], str] = {}
        self._condition = threading.Condition()
        self._sent: list[dict[str, Any]] = []
        self._attempts: list[dict[str, Any]] = []
        self._opted_out: set[str] = set()
        self._faults: list[_Fault] = []
        self._list_faults: list[_Fault] = []
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._refusal_listeners: list[Callable[[dict[str, Any]], None]] = []
        self._status_listeners: list[Callable[[dict[str, Any]], None]] = []
        self.callbacks = DeliveryCallbacks(account_sid, auth_token, self._record_status)
        self._server: BackgroundHttpServer | None = None
        self._urls = Map(
            [
                Rule(
                    f"/{API_VERSION}/Accounts/<account_sid>/Messages.json",
                    methods=["POST"],
                    endpoint="create",
                ),
                Rule(
                    f"/{API_VERSION}/Accounts/<account_sid>/Messages.json",
                    methods=["GET"],
                    endpoint="list",
                ),
                Rule("/_local/messages", methods=["GET"], endpoint="list_sent"),
                Rule("/_local/attempts", methods=["GET"], endpoint="list_attempts"),
                Rule("/_local/opt-outs", methods=["GET"], endpoint="list_opt_outs"),
                Rule("/_local/opt-outs", methods=["POST"], endpoint="add_opt_out"),
                Rule("/_local/opt-outs/<path:phone>", methods=["DELETE"], endpoint="remove_opt_out"),
                Rule("/_local/inbound", methods=["POST"], endpoint="inbound"),
                Rule("/_local/faults", methods=["POST"], endpoint="add_faults"),
                Rule("/_local/clear", methods=["POST"], endpoint="clear"),
                Rule("/_local/delivery", methods=["POST"], endpoint="set_delivery"),
            ]
        )

    # -- running ---------------------------------------------------------------------------------

    def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on `host:port` (0 picks a free port); returns the base URL for TWILIO_API_URL."""
        if self._server is not None:
            raise RuntimeError("the local Twilio API is already running")
        self._server = BackgroundHttpServer(self.wsgi_app, host, port)
        self.callbacks.start()
        return self._server.start()

    def stop(self) -> None:
        self.callbacks.stop()
        if self._server is not None:
            self._server.stop()
            self._server = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the local Twilio API is not running")
        return self._server.base_url

    def __enter__(self) -> Self:
        if self._server is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- what was sent -----------------------------------------------------------------------------

    def sent_messages(self, since: int = 0) -> list[dict[str, Any]]:
        """Copies of the accepted messages (Twilio's resource JSON), oldest first, from index `since`."""
        with self._condition:
            return [dict(message) for message in self._sent[since:]]

    def attempts(self) -> list[dict[str, Any]]:
        """Every authenticated send, accepted or refused: `to`, `from`, `body`, `status`, `code`."""
        with self._condition:
            return [dict(attempt) for attempt in self._attempts]

    def wait_for_messages(self, count: int, timeout: float) -> list[dict[str, Any]]:
        """Block until at least `count` messages were accepted; raises TimeoutError after `timeout` s."""
        with self._condition:
            if not self._condition.wait_for(lambda: len(self._sent) >= count, timeout):
                raise TimeoutError(f"{len(self._sent)} of {count} SMS sent within {timeout} s")
            return [dict(message) for message in self._sent]

    def subscribe(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Call `listener(message)` for every message accepted from now on (inside the request)."""
        with self._condition:
            self._listeners.append(listener)

    def subscribe_refusals(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Call `listener(attempt)` for every send refused for good from now on (21610 to an
        opted-out phone, 21211...; not injected faults, which a retry gets past). A refused reply
        leaves no message behind, so this is the only trace of it the simulator can show."""
        with self._condition:
            self._refusal_listeners.append(listener)

    def subscribe_statuses(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Call `listener({sid, to, status, error_code})` whenever a status callback changes a message."""
        with self._condition:
            self._status_listeners.append(listener)

    def _record_status(self, sid: str, status: str, error_code: int | None) -> None:
        with self._condition:
            message = next((message for message in self._sent if message["sid"] == sid), None)
            if message is None:
                return
            message.update(status=status, error_code=error_code)
            change = {"sid": sid, "to": message["to"], "status": status, "error_code": error_code}
            listeners = list(self._status_listeners)
            self._condition.notify_all()
        for listener in listeners:
            listener(dict(change))

    # -- switches ----------------------------------------------------------------------------------

    def opt_out(self, phone: str) -> None:
        with self._condition:
            self._opted_out.add(phone)

    def opt_in(self, phone: str) -> None:
        with self._condition:
            self._opted_out.discard(phone)

    def opted_out(self) -> set[str]:
        with self._condition:
            return set(self._opted_out)

    def receive_inbound(self, phone: str, body: str) -> str | None:
        """Twilio's handling of an inbound SMS before our webhook sees it: opt-out and opt-in words.

        Returns the confirmation Twilio itself texts back, or None. The SMS is still delivered to the
        webhook either way, as Twilio does.
        """
        keyword = body.strip().upper()
        if keyword in OPT_OUT_KEYWORDS:
            self.opt_out(phone)
            return _OPT_OUT_CONFIRMATION
        if keyword in OPT_IN_KEYWORDS:
            self.opt_in(phone)
            return _OPT_IN_CONFIRMATION
        return None

    def fail_next(
        self, count: int = 1, status: int = 500, code: int | None = None, retry_after: float | None = None
    ) -> None:
        """Refuse the next `count` sends with `status` (and a `Retry-After` header if given)."""
        fault = _Fault(
            status=status, code=code or _DEFAULT_FAULT_CODES.get(status, status), retry_after=retry_after
        )
        with self._condition:
            self._faults.extend([fault] * count)

    def fail_next_lists(
        self, count: int = 1, status: int = 429, code: int | None = None, retry_after: float | None = None
    ) -> None:
        """Refuse the next `count` Messages list requests with `status` (429: 20429, throttled)."""
        fault = _Fault(
            status=status, code=code or _DEFAULT_FAULT_CODES.get(status, status), retry_after=retry_after
        )
        with self._condition:
            self._list_faults.extend([fault] * count)

    def stall_next(self, count: int = 1, seconds: float = 30.0, accept: bool = False) -> None:
        """Hold the next `count` responses back `seconds` (the client times out); `accept` records the
        message first, as Twilio may have before a connection drops."""
        fault = _Fault(status=503, code=20503, stall_seconds=seconds, accept_first=accept)
        with self._condition:
            self._faults.extend([fault] * count)

    @property
    def faults_pending(self) -> int:
        """Faults armed by `fail_next` / `stall_next` that no send has met yet."""
        with self._condition:
            return len(self._faults)

    def clear(self) -> None:
        """Forget sent messages, attempts, opt-outs, pending faults and sticky senders."""
        with self._condition:
            self._sent.clear()
            self._attempts.clear()
            self._opted_out.clear()
            self._faults.clear()
            self._sticky_senders.clear()
            self._list_faults.clear()

    # -- state between runs ------------------------------------------------------------------------

    def export_state(self) -> dict[str, Any]:
        with self._condition:
            return {"sent": [dict(message) for message in self._sent], "opted_out": sorted(self._opted_out)}

    def import_state(self, state: dict[str, Any]) -> None:
        with self._condition:
            self._sent = [dict(message) for message in state.get("sent", [])]
            self._opted_out = set(state.get("opted_out", []))

    # -- HTTP --------------------------------------------------------------------------------------

    def wsgi_app(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        request = Request(environ)
        try:
            endpoint, arguments = self._urls.bind_to_environ(environ).match()
            response = getattr(self, f"_http_{endpoint}")(request, **arguments)
        except _TwilioError as error:
            response = error.response()
        except NotFound:
            response = _TwilioError(404, 20404, "The requested resource was not found").response()
        except HTTPException as error:
            response = error.get_response(environ)
        return response(environ, start_response)  # type: ignore[no-any-return]

    def _http_create(self, request: Request, account_sid: str) -> Response:
        self._authenticate(request.authorization, account_sid)
        to = request.form.get("To", "")
        body = request.form.get("Body", "")
        service = request.form.get("MessagingServiceSid") or None
        sender = request.form.get("From") or (self._pool_sender(service, to) if service else "")
        with self._condition:
            fault = self._faults.pop(0) if self._faults else None
        if fault is not None:
            return self._inject(fault, to, sender, body, service)
        try:
            self._validate(to, sender, body)
            validity = _validity_period(request.form.get("ValidityPeriod"))
        except _TwilioError as error:
            attempt = self._record_attempt(to, sender, body, error.status, error.code)
            with self._condition:
                listeners = list(self._refusal_listeners)
            for listener in listeners:
                listener(dict(attempt))
            raise
        message = self._accept(to, sender, body, service, validity)
        callback_url = request.form.get("StatusCallback")
        if callback_url:
            self.callbacks.schedule(dict(message), callback_url)
        if service:
            # Twilio answers before it assigns a sender of the pool.
            message = {**message, "from": None, "status": "accepted"}
        return Response(json.dumps(message), status=201, mimetype="application/json")

    def _pool_sender(self, service: str, to: str) -> str:
        """The number of the service's pool that sends to `to`: the one it used before (sticky
        sender), else the next in turn."""
        if not _MESSAGING_SERVICE_SID.match(service):
            raise _TwilioError(400, 21705, "The Messaging Service is invalid")
        pool = self._messaging_services.get(service)
        if pool is None:
            raise _TwilioError(400, 21701, "The Messaging Service does not exist")
        if not pool:
            raise _TwilioError(400, 21704, "The Messaging Service contains no phone numbers")
        with self._condition:
            sender = self._sticky_senders.get((service, to))
            if sender is None:
                recipients = sum(1 for known, _ in self._sticky_senders if known == service)
                sender = self._sticky_senders[service, to] = pool[recipients % len(pool)]
            return sender

    def _http_list(self, request: Request, account_sid: str) -> Response:
        self._authenticate(request.authorization, account_sid)
        with self._condition:
            fault = self._list_faults.pop(0) if self._list_faults else None
            newest_first = [dict(message) for message in reversed(self._sent)]
        if fault is not None:
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            raise _TwilioError(fault.status, fault.code, f"Injected failure {fault.status}", headers)
        arguments = request.args
        page_size = arguments.get("PageSize", default=50, type=int) or 50
        if not 1 <= page_size <= 1000:
            raise _TwilioError(400, 20001, "PageSize must be between 1 and 1000")
        matching = [
            _listed(message)
            for message in newest_first
            if arguments.get("To") in (None, message["to"])
            and arguments.get("From") in (None, message["from"])
            and _sent_on(message, arguments)
        ]
        token = arguments.get("PageToken")
        start = 0
        if token:
            # Twilio's PageToken points past the last message of the page before ("PA" + its SID).
            start = next((n + 1 for n, m in enumerate(matching) if "PA" + m["sid"] == token), len(matching))
        page = matching[start : start + page_size]
        number = arguments.get("Page", default=0, type=int)
        uri = f"/{API_VERSION}/Accounts/{account_sid}/Messages.json"
        query = {
            name: arguments[name]
            for name in ("To", "From", "DateSent", "DateSent<", "DateSent>")
            if name in arguments
        }

        def page_uri(page_number: int, page_token: str | None = None) -> str:
            more = {"PageSize": str(page_size), "Page": str(page_number)}
            if page_token:
                more["PageToken"] = page_token
            return f"{uri}?{urlencode({**query, **more})}"

        more_after = start + page_size < len(matching)
        return _json(
            {
                "messages": page,
                "uri": page_uri(number, token),
                "first_page_uri": page_uri(0),
                "next_page_uri": page_uri(number + 1, "PA" + page[-1]["sid"])
                if more_after and page
                else None,
                "previous_page_uri": None,
                "page": number,
                "page_size": page_size,
                "start": start,
                "end": start + max(len(page) - 1, 0),
            }
        )

    def _authenticate(self, authorization: Authorization | None, account_sid: str) -> None:
        valid = (
            authorization is not None
            and authorization.type == "basic"
            and secrets.compare_digest(authorization.username or "", self.account_sid)
            and secrets.compare_digest(authorization.password or "", self._auth_token)
            and account_sid == self.account_sid
        )
        if not valid:
            raise _TwilioError(401, 20003, "Authenticate", {"WWW-Authenticate": 'Basic realm="Twilio API"'})

    def _validate(self, to: str, sender: str, body: str) -> None:
        if not to:
            raise _TwilioError(400, 21604, "A 'To' phone number is required.")
        if not sender:
            raise _TwilioError(400, 21603, "A 'From' phone number is required.")
        if not body:
            raise _TwilioError(400, 21602, "Message body is required.")
        if not _E164.match(to):
            raise _TwilioError(400, 21211, f"Invalid 'To' Phone Number: {to}")
        if len(body) > _MAX_BODY_CHARACTERS:
            raise _TwilioError(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
        with self._condition:
            opted_out = to in self._opted_out
        if opted_out:
            raise _TwilioError(400, 21610, "Attempt to send to unsubscribed recipient")

    def _inject(self, fault: _Fault, to: str, sender: str, body: str, service: str | None) -> Response:
        if fault.accept_first:
            self._accept(to, sender, body, service)
        else:
            self._record_attempt(to, sender, body, fault.status, fault.code)
        if fault.stall_seconds:
            time.sleep(fault.stall_seconds)
        headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
        raise _TwilioError(fault.status, fault.code, f"Injected failure {fault.status}", headers)

    def _accept(
        self, to: str, sender: str, body: str, service: str | None = None, validity: int | None = None
    ) -> dict[str, Any]:
        sid = "SM" + secrets.token_hex(16)
        now = formatdate(usegmt=True)
        segments = count_segments(body)
        message: dict[str, Any] = {
            "sid": sid,
            "account_sid": self.account_sid,
            "api_version": API_VERSION,
            "to": to,
            "from": sender,
            "body": body,
            "status": "queued",
            "direction": "outbound-api",
            "num_segments": str(segments.segments),
            "num_media": "0",
            "encoding": segments.encoding,
            "date_created": now,
            "date_updated": now,
            "date_sent": None,
            "error_code": None,
            "error_message": None,
            "messaging_service_sid": service,
            # Not in Twilio's answer: the ValidityPeriod the send asked for, kept for the tests.
            "validity_period": validity,
            "price": None,
            "price_unit": "USD",
            "uri": f"/{API_VERSION}/Accounts/{self.account_sid}/Messages/{sid}.json",
            "subresource_uris": {
                "media": f"/{API_VERSION}/Accounts/{self.account_sid}/Messages/{sid}/Media.json"
            },
        }
        with self._condition:
            message["index"] = len(self._sent)
            self._sent.append(message)
            self._attempts.append(
                {"to": to, "from": sender, "body": body, "status": 201, "code": None, "sid": sid}
            )
            listeners = list(self._listeners)
            self._condition.notify_all()
        for listener in listeners:
            listener(dict(message))
        return message

    def _record_attempt(self, to: str, sender: str, body: str, status: int, code: int) -> dict[str, Any]:
        attempt: dict[str, Any] = {"to": to, "from": sender, "body": body, "status": status, "code": code}
        with self._condition:
            self._attempts.append(attempt)
        return attempt

    def _http_list_sent(self, request: Request) -> Response:
        since = request.args.get("since", default=0, type=int)
        messages = self.sent_messages(since)
        return _json({"messages": messages, "next": since + len(messages)})

    def _http_list_attempts(self, request: Request) -> Response:
        return _json({"attempts": self.attempts()})

    def _http_list_opt_outs(self, request: Request) -> Response:
        return _json({"opted_out": sorted(self.opted_out())})

    def _http_add_opt_out(self, request: Request) -> Response:
        self.opt_out(_json_body(request)["phone"])
        return _json({"opted_out": sorted(self.opted_out())})

    def _http_remove_opt_out(self, request: Request, phone: str) -> Response:
        self.opt_in(phone)
        return _json({"opted_out": sorted(self.opted_out())})

    def _http_inbound(self, request: Request) -> Response:
        payload = _json_body(request)
        return _json({"auto_reply": self.receive_inbound(payload["from"], payload["body"])})

    def _http_add_faults(self, request: Request) -> Response:
        payload = _json_body(request)
        if "stall_seconds" in payload:
            self.stall_next(
                int(payload.get("count", 1)), float(payload["stall_seconds"]), bool(payload.get("accept"))
            )
        else:
            retry_after = payload.get("retry_after")
            self.fail_next(
                int(payload.get("count", 1)),
                status=int(payload.get("status", 500)),
                code=payload.get("code"),
                retry_after=None if retry_after is None else float(retry_after),
            )
        return _json({"ok": True})

    def _http_set_delivery(self, request: Request) -> Response:
        """`{"phone": ..., "code": 30007}` (or `null`) marks a phone to fail; `{"delay_seconds": ...}`."""
        payload = _json_body(request)
        if "delay_seconds" in payload:
            self.callbacks.delay_seconds = max(0.0, float(payload["delay_seconds"]))
        if "phone" in payload:
            code = payload.get("code")
            self.callbacks.fail_deliveries_to(str(payload["phone"]), None if code is None else int(code))
        return _json({"delay_seconds": self.callbacks.delay_seconds, "failing": self.callbacks.failing()})

    def _http_clear(self, request: Request) -> Response:
        self.clear()
        return _json({"ok": True})


def _listed(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the list shows it: Twilio's resource, without our own bookkeeping."""
    return {name: value for name, value in message.items() if name != "index"}


def _sent_on(message: dict[str, Any], arguments: Any) -> bool:
    """Twilio's `DateSent` filters compare whole GMT dates (a time of day is ignored). A message
    not sent yet has no `date_sent`: it is compared by `date_created` here (Twilio does not say)."""
    stamp = message.get("date_sent") or message["date_created"]
    day = parsedate_to_datetime(stamp).astimezone(UTC).date().isoformat()
    bounds = {"DateSent": day.__eq__, "DateSent<": day.__le__, "DateSent>": day.__ge__}
    for name, compare in bounds.items():
        value = arguments.get(name)
        if value is not None and not compare(value.strip()[:10]):
            return False
    return True


def _json(payload: object, status: int = 200) -> Response:
    return Response(json.dumps(payload), status=status, mimetype="application/json")


def _json_body(request: Request) -> dict[str, Any]:
    payload = request.get_json(force=True, silent=True)
    if not isinstance(payload, dict):
        raise _TwilioError(400, 20001, "expected a JSON object")
    return payload


def _validity_period(value: str | None) -> int | None:
    """A send's ValidityPeriod as Twilio reads it: whole seconds, 1 to 36,000, or error 21624."""
    if value is None:
        return None
    if not value.isdigit() or not 1 <= int(value) <= 36_000:
        raise _TwilioError(400, 21624, "Validity period can only be set to integers between 1 and 36,000")
    return int(value)
