"""Twilio's Messages API as the real gateway (serverless_rps.sms_gateway.TwilioSmsGateway) reaches
it, in virtual time: the gateway, the Twilio SDK and `requests` run as deployed, and a transport
adapter mounted on the SDK's session answers instead of the network.

    POST /Messages.json ── half the latency ── take a turn: Twilio accepts it (a SID, status
                                               queued) into its sender's queue ── the other half ──►

Twilio queues each sender's messages and sends them at the sender's rate (messages a second: a
short code 100 by default; 10DLC about 225 at the best vetting score; toll-free 3 by default, up
to 150; research notes from Twilio's pages). A message leaves when the sender's earlier messages
have left; one whose wait would pass its ValidityPeriod (the POST's, else Twilio's 36,000 s
window) fails with 30036 instead, and takes no sending slot. "Sent" is when it leaves the queue.

A phone that texted STOP is opted out at Twilio at that moment: a send to it is refused with 21610,
as Twilio refuses it. GET /Messages.json (a redelivery looking before re-sending) lists what was
accepted to a number, newest first.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from bench.burst.latencies import Latencies
from bench.burst.observations import InvocationContext, Observations
from bench.burst.virtual_time import Actor, Scheduler, current_actor
from serverless_rps import sms_gateway

__all__ = ["DEFAULT_VALIDITY_SECONDS", "AcceptedSms", "SimulatedTwilio"]

# Twilio keeps a message queued for at most this long when the send gives no ValidityPeriod.
DEFAULT_VALIDITY_SECONDS = 36_000.0
_OPTED_OUT = 21610
_EXPIRED = 30036


@dataclass
class AcceptedSms:
    sid: str
    to: str
    from_: str
    body: str
    key: str | None  # the message record whose reply it is, as the sending invocation had claimed
    accepted_at: float
    validity_seconds: float
    sent_at: float | None = None  # when it left Twilio's queue for the carrier
    expired_at: float | None = None  # failed 30036: its wait would have passed its validity


@dataclass
class SenderQueue:
    """One sender's queue at Twilio: messages leave in order, one every 1/rate seconds."""

    rate: float
    next_free: float = 0.0

    def enqueue(self, sms: AcceptedSms) -> None:
        leaves = max(self.next_free, sms.accepted_at)
        if leaves - sms.accepted_at > sms.validity_seconds:
            sms.expired_at = sms.accepted_at + sms.validity_seconds
            return
        sms.sent_at = leaves
        self.next_free = leaves + 1 / self.rate


@dataclass
class SimulatedTwilio:
    scheduler: Scheduler
    latencies: Latencies
    observations: Observations
    sender_rate: float
    epoch: float  # what virtual time 0 is in epoch seconds (Twilio's `date_created`)
    accepted: list[AcceptedSms] = field(default_factory=list)
    refused: int = 0
    opted_out: set[str] = field(default_factory=set)
    lists: int = 0  # reads of the Messages list (a redelivery looking before re-sending)
    # Told of every SMS Twilio accepts (the crowd hears a reply once it is sent).
    listeners: list[Callable[[AcceptedSms], None]] = field(default_factory=list)
    _senders: dict[str, SenderQueue] = field(default_factory=dict)
    _sids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def opt_out(self, phone: str) -> None:
        """The phone texted STOP: Twilio refuses every send to it from now (21610)."""
        self.opted_out.add(phone)

    def gateway_http_client(self) -> Any:
        """A context manager under which `TwilioSmsGateway` is built on this Twilio: the SDK's
        HTTP client gets this transport mounted on its session."""
        transport = _Transport(self)

        class SimulatedHttpClient(sms_gateway.RedirectingHttpClient):
            def __init__(self, base_url: str | None = None, timeout: float = 5.0) -> None:
                super().__init__(base_url, timeout)
                assert self.session is not None
                self.session.trust_env = False  # no proxy or .netrc lookups: nothing leaves
                self.session.mount("https://", transport)

        return mock.patch.object(sms_gateway, "RedirectingHttpClient", SimulatedHttpClient)

    # -- the API (on the calling actor's thread) ---------------------------------------------------

    def create(self, fields: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
        return _caller().round_trip(self.latencies.twilio(), lambda: self._accept(fields))

    def list_to(self, query: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
        self.lists += 1
        return _caller().round_trip(self.latencies.twilio(), lambda: self._list(query))

    def _accept(self, fields: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
        """Twilio receives the POST (at the caller's turn)."""
        actor = _caller()
        context: InvocationContext = actor.context
        to, body = fields["To"], fields["Body"]
        sender = fields.get("MessagingServiceSid") or fields["From"]
        if to in self.opted_out:
            self.refused += 1
            return 400, {
                "code": _OPTED_OUT,
                "message": "Attempt to send to unsubscribed recipient",
                "status": 400,
            }
        sms = AcceptedSms(
            sid=f"SM{next(self._sids):032x}",
            to=to,
            from_=fields.get("From", sender),
            body=body,
            key=context.key,
            accepted_at=actor.now,
            validity_seconds=float(fields.get("ValidityPeriod", DEFAULT_VALIDITY_SECONDS)),
        )
        self._senders.setdefault(sender, SenderQueue(self.sender_rate)).enqueue(sms)
        self.accepted.append(sms)
        self.observations.sent(context, actor.now, to, body, sms.sid)
        for listener in self.listeners:
            listener(sms)
        return 201, self._resource(sms)

    def _list(self, query: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
        actor = _caller()
        to, size = query.get("To"), int(query.get("PageSize", 50))
        page = [self._resource(sms) for sms in reversed(self.accepted) if to in (None, sms.to)][:size]
        self.observations.looked(actor.context, actor.now, to or "", [message["sid"] for message in page])
        return 200, {
            "messages": page,
            "uri": "/2010-04-01/Messages.json",
            "first_page_uri": "/2010-04-01/Messages.json",
            "next_page_uri": None,
            "previous_page_uri": None,
            "page": 0,
            "page_size": size,
            "start": 0,
            "end": max(len(page) - 1, 0),
        }

    def _resource(self, sms: AcceptedSms) -> dict[str, Any]:
        created = formatdate(self.epoch + sms.accepted_at, usegmt=True)
        return {
            "sid": sms.sid,
            "to": sms.to,
            "from": sms.from_,
            "body": sms.body,
            "status": "queued",
            "direction": "outbound-api",
            "date_created": created,
            "date_updated": created,
            "date_sent": None,
            "messaging_service_sid": None,
            "num_segments": "1",
            "num_media": "0",
        }


class _Transport(BaseAdapter):
    def __init__(self, twilio: SimulatedTwilio) -> None:
        super().__init__()
        self._twilio = twilio

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        url = urlsplit(request.url or "")
        if not url.path.endswith("/Messages.json"):
            raise NotImplementedError(f"the simulated Twilio has no {request.method} {url.path}")
        if request.method == "POST":
            body = request.body.decode() if isinstance(request.body, bytes) else str(request.body or "")
            status, payload = self._twilio.create(_first_values(body))
        else:
            status, payload = self._twilio.list_to(_first_values(url.query))
        response = requests.Response()
        response.status_code = status
        response._content = json.dumps(payload).encode()
        response.headers = CaseInsensitiveDict({"Content-Type": "application/json"})
        response.encoding = "utf-8"
        response.url = request.url or ""
        response.request = request
        return response

    def close(self) -> None:
        pass


def _caller() -> Actor:
    actor = current_actor()
    if actor is None:
        raise RuntimeError("Twilio was called outside a simulated invocation")
    return actor


def _first_values(form: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(form).items()}
