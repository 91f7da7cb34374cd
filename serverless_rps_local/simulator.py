"""Simulated phones, and the web page that shows them.

A phone's text takes the path a real one does. The local Twilio API sees it first (STOP opts the
phone out, as Twilio's Advanced Opt-Out does); then it is POSTed to the webhook URL as Twilio would:
form-encoded with Twilio's parameter names and an `X-Twilio-Signature` computed with the auth token
for the public URL. The webhook function checks that signature for real. Replies come back through
the local Twilio API, which tells the simulator about every SMS it accepts, and about every reply
it refuses: a phone that texted STOP gets no replies (21610), and the page shows why instead of
leaving a text unanswered without a trace.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any

import requests
from twilio.request_validator import RequestValidator
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from serverless_rps_local.twilio_api import LocalTwilioApi, count_segments

__all__ = ["PhoneSimulator", "SimulatorApp", "inbound_parameters"]

_WEBHOOK_TIMEOUT_SECONDS = 30
_FIRST_GENERATED_NUMBER = 15550100001
_OPTED_OUT_CODE = 21610  # Twilio's "Attempt to send to unsubscribed recipient"


def inbound_parameters(message_sid: str, account_sid: str, sender: str, to: str, body: str) -> dict[str, str]:
    """The form fields of Twilio's inbound-SMS webhook request."""
    return {
        "ToCountry": "US",
        "ToState": "",
        "SmsMessageSid": message_sid,
        "NumMedia": "0",
        "ToCity": "",
        "FromZip": "",
        "SmsSid": message_sid,
        "FromState": "",
        "SmsStatus": "received",
        "FromCity": "",
        "Body": body,
        "FromCountry": "US",
        "To": to,
        "ToZip": "",
        "NumSegments": str(count_segments(body).segments),
        "MessageSid": message_sid,
        "AccountSid": account_sid,
        "From": sender,
        "ApiVersion": "2010-04-01",
    }


class PhoneSimulator:
    """Phones texting the game's number, and the conversation log of all of them."""

    def __init__(
        self,
        twilio_api: LocalTwilioApi,
        webhook_url: str,
        auth_token: str,
        service_number: str,
        phones: Iterable[str] = (),
    ) -> None:
        self._twilio = twilio_api
        self.webhook_url = webhook_url
        self._validator = RequestValidator(auth_token)
        self.service_number = service_number
        self._lock = threading.Condition()
        self._phones: list[str] = []
        self._entries: list[dict[str, Any]] = []
        self._session = requests.Session()
        for phone in phones:
            self.add_phone(phone)
        # Each reply's delivery as Twilio's status callbacks reported it: sid -> {status, error_code}.
        self._delivery: dict[str, dict[str, Any]] = {}
        twilio_api.subscribe(self._on_sms_sent)
        twilio_api.subscribe_refusals(self._on_reply_refused)
        twilio_api.subscribe_statuses(self._on_status)

    # -- phones ----------------------------------------------------------------------------------

    def phones(self) -> list[str]:
        with self._lock:
            return list(self._phones)

    def add_phone(self, number: str | None = None) -> str:
        with self._lock:
            if number is None:
                taken = set(self._phones) | {entry["phone"] for entry in self._entries}
                candidate = _FIRST_GENERATED_NUMBER
                while f"+{candidate}" in taken:
                    candidate += 1
                number = f"+{candidate}"
            if number not in self._phones:
                self._phones.append(number)
            return number

    def remove_phone(self, number: str) -> None:
        """Hide a phone; its conversation stays in the log and returns if the phone is added again."""
        with self._lock:
            if number in self._phones:
                self._phones.remove(number)

    def opted_out(self) -> list[str]:
        """Phones the local Twilio API holds as opted out (they texted STOP and not START since)."""
        return sorted(self._twilio.opted_out())

    # -- texting ---------------------------------------------------------------------------------

    def text(self, phone: str, body: str) -> int:
        """Send an SMS from `phone` to the game; returns the webhook's HTTP status."""
        self.add_phone(phone)
        message_sid = "SM" + secrets.token_hex(16)
        self._append(phone, "inbound", body, sid=message_sid)
        automatic_reply = self._twilio.receive_inbound(phone, body)
        parameters = inbound_parameters(
            message_sid, self._twilio.account_sid, phone, self.service_number, body
        )
        status, reason = self._post_to_webhook(parameters)
        if status != 200:
            self._append(phone, "system", f"webhook answered {status}: {reason[:200]}")
        if automatic_reply is not None:
            self._append(phone, "twilio", automatic_reply)
        return status

    def _post_to_webhook(self, parameters: dict[str, str]) -> tuple[int, str]:
        signature = self._validator.compute_signature(self.webhook_url, parameters)
        try:
            response = self._session.post(
                self.webhook_url,
                data=parameters,
                headers={
                    "X-Twilio-Signature": signature,
                    "User-Agent": "TwilioProxy/1.1",
                    "I-Twilio-Idempotency-Token": secrets.token_hex(16),
                },
                timeout=_WEBHOOK_TIMEOUT_SECONDS,
            )
        except requests.RequestException as exc:
            return 599, f"could not reach the webhook: {exc}"
        return response.status_code, response.text

    def _on_sms_sent(self, message: dict[str, Any]) -> None:
        self._append(message["to"], "outbound", message["body"], sid=message["sid"])

    def _on_reply_refused(self, attempt: dict[str, Any]) -> None:
        if attempt["code"] == _OPTED_OUT_CODE:
            note = (
                f"A reply was not delivered: this phone opted out (STOP), so Twilio refused it "
                f"({_OPTED_OUT_CODE}). Text START to opt back in."
            )
        else:
            note = f"A reply was not delivered: Twilio refused it ({attempt['code']})."
        self._append(attempt["to"], "refused", note)

    def _on_status(self, change: dict[str, Any]) -> None:
        with self._lock:
            self._delivery[change["sid"]] = {"status": change["status"], "error_code": change["error_code"]}
            self._lock.notify_all()

    def delivery(self) -> dict[str, dict[str, Any]]:
        """The last status Twilio reported of each reply, by its SID."""
        with self._lock:
            return {sid: dict(status) for sid, status in self._delivery.items()}

    # -- the log ---------------------------------------------------------------------------------

    def _append(self, phone: str, direction: str, body: str, sid: str | None = None) -> None:
        with self._lock:
            self._entries.append(
                {
                    "index": len(self._entries),
                    "at": time.time(),
                    "phone": phone,
                    "direction": direction,
                    "body": body,
                    "sid": sid,
                }
            )
            self._lock.notify_all()

    def conversation(self, since: int = 0, phone: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [
                dict(entry) for entry in self._entries[since:] if phone is None or entry["phone"] == phone
            ]

    def wait_for(
        self, predicate: Callable[[list[dict[str, Any]]], bool], timeout: float
    ) -> list[dict[str, Any]]:
        """Block until `predicate(all entries)` holds; raises TimeoutError after `timeout` seconds."""
        with self._lock:
            if not self._lock.wait_for(lambda: predicate(self._entries), timeout):
                raise TimeoutError(f"the conversation did not reach the expected state within {timeout} s")
            return [dict(entry) for entry in self._entries]

    def export_state(self) -> dict[str, Any]:
        with self._lock:
            return {"phones": list(self._phones), "entries": [dict(entry) for entry in self._entries]}

    def import_state(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._phones = list(state.get("phones", self._phones))
            self._entries = [dict(entry) for entry in state.get("entries", [])]


class SimulatorApp:
    """The web page and its JSON API (`/_sim/...`)."""

    def __init__(
        self, simulator: PhoneSimulator, panel: Callable[[], dict[str, Any]], info: dict[str, Any]
    ) -> None:
        self._simulator = simulator
        self._panel = panel
        self._info = info
        self._urls = Map(
            [
                Rule("/", methods=["GET"], endpoint="page"),
                Rule("/_sim/info", methods=["GET"], endpoint="info"),
                Rule("/_sim/conversation", methods=["GET"], endpoint="conversation"),
                Rule("/_sim/panel", methods=["GET"], endpoint="panel"),
                Rule("/_sim/phones", methods=["POST"], endpoint="add_phone"),
                Rule("/_sim/phones/<path:number>/texts", methods=["POST"], endpoint="text"),
                Rule("/_sim/phones/<path:number>", methods=["DELETE"], endpoint="remove_phone"),
            ]
        )

    def wsgi_app(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        request = Request(environ)
        try:
            endpoint, arguments = self._urls.bind_to_environ(environ).match()
            response = getattr(self, f"_http_{endpoint}")(request, **arguments)
        except HTTPException as error:
            response = error.get_response(environ)
        return response(environ, start_response)  # type: ignore[no-any-return]

    def _http_page(self, request: Request) -> Response:
        page = resources.files("serverless_rps_local").joinpath("simulator.html").read_text(encoding="utf-8")
        return Response(page, mimetype="text/html")

    def _http_info(self, request: Request) -> Response:
        return _json(self._info)

    def _http_conversation(self, request: Request) -> Response:
        since = request.args.get("since", default=0, type=int)
        entries = self._simulator.conversation(since)
        return _json(
            {
                "entries": entries,
                "next": since + len(entries),
                "phones": self._simulator.phones(),
                "opted_out": self._simulator.opted_out(),
                "delivery": self._simulator.delivery(),
            }
        )

    def _http_panel(self, request: Request) -> Response:
        return _json(self._panel())

    def _http_add_phone(self, request: Request) -> Response:
        payload = request.get_json(silent=True) or {}
        return _json({"number": self._simulator.add_phone(payload.get("number") or None)})

    def _http_remove_phone(self, request: Request, number: str) -> Response:
        self._simulator.remove_phone(number)
        return _json({"phones": self._simulator.phones()})

    def _http_text(self, request: Request, number: str) -> Response:
        payload = request.get_json(silent=True) or {}
        status = self._simulator.text(number, str(payload.get("body", "")))
        return _json({"webhook_status": status})


def _json(payload: object) -> Response:
    return Response(json.dumps(payload), mimetype="application/json")
