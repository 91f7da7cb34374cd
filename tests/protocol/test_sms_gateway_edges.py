"""The Twilio adapter at its edges. Whether a failed send may have reached Twilio, at the edges of
the connection: a connection Twilio's end dropped before answering may follow its accepting the
SMS; a connection that was never made (the connect timed out) certainly did not. And each of
Twilio's refusals of a send as the adapter reports it: its words, its retry hint (a 0 included),
the warning for a code it does not know, the StatusCallback it asks for."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from twilio.http.http_client import TwilioHttpClient
from twilio.http.response import Response

from serverless_rps.exceptions import ConfigurationProblem, SmsPermanentlyRefused, SmsTemporarilyFailed
from serverless_rps.ports import ReplyId
from serverless_rps.sms_gateway import RedirectingHttpClient, TwilioSmsGateway
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import TWILIO_ACCOUNT, TWILIO_TOKEN
from tests.protocol.test_failure_visibility import json_log_lines
from tests.protocol.test_sms_gateway import HELLO, gateway

__all__ = ["gateway"]  # the fixture, from test_sms_gateway.py


@pytest.fixture
def hanging_up() -> Iterator[str]:
    """A server that takes each request, reads it, and closes the connection without a word."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:
                connection.recv(65536)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        server.close()


def test_a_connection_dropped_after_the_request_was_sent_may_have_been_sent(hanging_up: str) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, hanging_up)
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert failed.value.maybe_sent, "Twilio may have taken it before the connection dropped"


@pytest.mark.slow  # waits out the client's 5 s connect timeout
def test_a_connection_never_made_certainly_did_not_send() -> None:
    """A listener whose queue of connections is full: the connect times out, nothing was sent."""
    with socket.create_server(("127.0.0.1", 0), backlog=0) as server:
        address = server.getsockname()
        queued = [socket.create_connection(address, timeout=1)]  # fills the queue: never accepted
        try:
            gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, f"http://127.0.0.1:{address[1]}")
            with pytest.raises(SmsTemporarilyFailed) as failed:
                gateway.send(HELLO)
        finally:
            for connection in queued:
                connection.close()
    assert "ConnectTimeout" in str(failed.value)
    assert not failed.value.maybe_sent, "no connection was made: Twilio never saw it"


@pytest.mark.parametrize(
    ("header", "hint"), [(0, 0.0), (2.5, 2.5), (-3, 0.0)], ids=["zero", "fraction", "negative"]
)
def test_twilios_retry_after_is_the_hint_as_given_never_below_zero(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway, header: float, hint: float
) -> None:
    """A 0 is a hint too: retry at once, not "no hint" (which falls back to our own backoff)."""
    twilio.fail_next(status=429, retry_after=header)
    with pytest.raises(SmsTemporarilyFailed) as throttled:
        gateway.send(HELLO)
    assert throttled.value.retry_after == hint


def test_a_reply_asks_twilio_for_status_callbacks_only_when_the_route_is_configured(
    twilio: LocalTwilioApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(twilio.callbacks, "schedule", lambda message, url: asked.append(url))
    reply = ReplyId("SM" + "1" * 32, 2)

    TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url).send(HELLO, reply)
    assert asked == [], "no StatusCallback without the webhook's status route"

    route = "https://example.com/sms/s3cret/status"
    TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url, status_callback_url=route).send(
        HELLO, reply
    )
    assert asked == [f"{route}?key={'SM' + '1' * 32}&index=2"]


@pytest.mark.parametrize(("status", "code"), [(401, 20003), (403, 403)], ids=["credentials", "forbidden"])
def test_twilio_refusing_our_account_is_a_configuration_problem_tried_again_in_a_minute(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway, status: int, code: int
) -> None:
    """An error code of Twilio's own, or an HTTP status alone (a 403 whose code Twilio does not
    list): either way the account or the sender, which an operator must fix."""
    twilio.fail_next(status=status, code=code)
    with pytest.raises(ConfigurationProblem) as refused:
        gateway.send(HELLO)
    assert str(refused.value) == f"Twilio refused our account or sender: HTTP {status} code {code}"
    assert refused.value.retry_after == 60


@pytest.mark.parametrize(
    ("status", "code", "says", "maybe_sent", "unclassified"),
    [
        (500, 20500, "Twilio failed with HTTP 500 code 20500", True, False),
        (503, 20503, "Twilio failed with HTTP 503 code 20503", True, False),
        (429, 20429, "Twilio failed with HTTP 429 code 20429", False, False),
        (429, 14107, "Twilio failed with HTTP 429 code 14107", False, False),
        (400, 99999, "Twilio failed with HTTP 400 code 99999", False, True),
    ],
    ids=[
        "server-error",
        "unavailable",
        "throttled",
        "rate-limit",
        "unknown-code",
    ],
)
def test_a_failed_send_says_what_twilio_answered_and_whether_it_may_have_sent(
    twilio: LocalTwilioApi,
    gateway: TwilioSmsGateway,
    status: int,
    code: int,
    says: str,
    maybe_sent: bool,
    unclassified: bool,
) -> None:
    twilio.fail_next(status=status, code=code)
    with json_log_lines() as lines, pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert (str(failed.value), failed.value.maybe_sent) == (says, maybe_sent)
    warnings = [
        (line["message"], line["code"], line["status"]) for line in lines if line["level"] == "WARNING"
    ]
    assert warnings == ([("an unclassified Twilio error; retrying", code, status)] if unclassified else [])


def test_a_reply_twilio_refuses_for_good_names_the_masked_number_and_the_code(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    twilio.fail_next(status=400, code=21610)
    with pytest.raises(SmsPermanentlyRefused) as refused:
        gateway.send(HELLO)
    assert (str(refused.value), refused.value.code) == (
        "Twilio refused the SMS to +*******0001: 21610",
        21610,
    )


def test_without_a_local_api_a_send_goes_to_twilios_own(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def answer(self: TwilioHttpClient, method: str, url: str, *args: object, **kwargs: object) -> Response:
        asked.append(url)
        return Response(201, '{"sid": "SM' + "0" * 32 + '"}', {})

    monkeypatch.setattr(TwilioHttpClient, "request", answer)
    TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN).send(HELLO)
    assert asked == [f"https://api.twilio.com/2010-04-01/Accounts/{TWILIO_ACCOUNT}/Messages.json"]


def test_twilio_is_given_five_seconds_to_answer_a_send() -> None:
    """The client's timeout (the slow tier's test waits it out against a stalled local API)."""
    assert RedirectingHttpClient().timeout == 5.0
