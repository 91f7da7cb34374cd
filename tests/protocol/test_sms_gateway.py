"""The real Twilio client, through our adapter, against the local Twilio-compatible API:
errors are classified as Twilio's documentation says they should be."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from twilio.request_validator import RequestValidator
from werkzeug.wrappers import Request, Response

from serverless_rps.exceptions import ConfigurationProblem, SmsPermanentlyRefused, SmsTemporarilyFailed
from serverless_rps.ports import OutboundSms, ReplyId
from serverless_rps.sms_gateway import TwilioSmsGateway
from serverless_rps_local.http_server import BackgroundHttpServer
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import TWILIO_ACCOUNT, TWILIO_TOKEN

HELLO = OutboundSms("+15551110001", "+15550000000", "hello")


@pytest.fixture
def gateway(twilio: LocalTwilioApi) -> TwilioSmsGateway:
    return TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url)


def test_a_sent_sms_reaches_the_api_with_our_sender_and_returns_its_sid(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    sid = gateway.send(HELLO)
    [sent] = twilio.sent_messages()
    assert sid.startswith("SM")
    assert sent["sid"] == sid
    assert (sent["to"], sent["from"], sent["body"]) == (HELLO.to, HELLO.from_, HELLO.body)


def test_an_opted_out_recipient_is_a_permanent_refusal(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    twilio.opt_out(HELLO.to)
    with pytest.raises(SmsPermanentlyRefused) as refused:
        gateway.send(HELLO)
    assert refused.value.code == 21610
    # What a traceback or an operator reads: whom (masked: never the whole number) and why.
    assert str(refused.value) == "Twilio refused the SMS to +*******0001: 21610"


def test_an_invalid_number_is_a_permanent_refusal(gateway: TwilioSmsGateway) -> None:
    with pytest.raises(SmsPermanentlyRefused) as refused:
        gateway.send(OutboundSms("not-a-number", HELLO.from_, "hi"))
    assert refused.value.code == 21211


def test_throttling_is_transient_and_carries_retry_after(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    twilio.fail_next(status=429, code=20429, retry_after=7)
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert failed.value.retry_after == 7
    assert not failed.value.maybe_sent, "Twilio answered 429: it did not take the SMS"
    assert failed.value.throttled, "safe to send again after a pause, in the same invocation"
    assert gateway.send(HELLO).startswith("SM"), "the next send goes through"


def test_a_server_error_is_not_mistaken_for_throttling(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    twilio.fail_next(status=503, code=20503)
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert not failed.value.throttled, "a 5xx may follow Twilio's accepting it: never tried again at once"


@pytest.mark.parametrize(("code", "expired"), [(30036, True), (30001, True), (21611, True), (21610, False)])
def test_a_refusal_says_whether_the_reply_came_too_late(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway, code: int, expired: bool
) -> None:
    twilio.fail_next(status=400, code=code)
    with pytest.raises(SmsPermanentlyRefused) as refused:
        gateway.send(HELLO)
    assert (refused.value.code, refused.value.expired) == (code, expired)


def test_every_reply_carries_the_validity_period_so_a_late_one_fails_instead_of_arriving(
    twilio: LocalTwilioApi,
) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url, validity_seconds=600)
    gateway.send(HELLO)
    [sent] = twilio.sent_messages()
    assert sent["validity_period"] == 600


def test_an_opt_out_confirmation_may_wait_only_what_is_left_of_its_five_minutes() -> None:
    now = 1_800_000_000.0
    gateway = TwilioSmsGateway(
        TWILIO_ACCOUNT, TWILIO_TOKEN, "http://127.0.0.1:9", validity_seconds=600, clock=lambda: now
    )
    assert gateway.valid_for(OutboundSms(HELLO.to, HELLO.from_, "Bye", send_by=now + 120.9)) == 120
    assert gateway.valid_for(OutboundSms(HELLO.to, HELLO.from_, "Bye", send_by=now + 0.5)) == 1, (
        "Twilio's least"
    )
    assert gateway.valid_for(OutboundSms(HELLO.to, HELLO.from_, "Bye", send_by=now + 3600)) == 600
    assert gateway.valid_for(HELLO) == 600


@pytest.mark.parametrize(("configured", "sent"), [(50_000, 36_000), (0, 1)])
def test_a_validity_period_beyond_twilios_range_is_kept_within_it(
    twilio: LocalTwilioApi, configured: int, sent: int
) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url, validity_seconds=configured)
    gateway.send(HELLO)
    assert twilio.sent_messages()[0]["validity_period"] == sent


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_transient(twilio: LocalTwilioApi, gateway: TwilioSmsGateway, status: int) -> None:
    twilio.fail_next(status=status)
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert twilio.sent_messages() == []
    assert failed.value.maybe_sent, "a 5xx may follow Twilio's accepting it"


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_api_is_transient(closed_port: int) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, f"http://127.0.0.1:{closed_port}")
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert not failed.value.maybe_sent, "no connection was made: Twilio never saw it"


@pytest.mark.slow  # waits out the client's 5 s timeout
def test_an_answer_lost_to_the_client_timeout_may_have_been_sent(twilio: LocalTwilioApi) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url)
    twilio.stall_next(seconds=8, accept=True)  # past the client's 5 s timeout, after accepting it
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert failed.value.maybe_sent
    assert [message["to"] for message in twilio.sent_messages()] == [HELLO.to]


def test_wrong_credentials_are_a_configuration_error_retried_not_recorded(twilio: LocalTwilioApi) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, "wrong-token", twilio.base_url)
    with pytest.raises(ConfigurationProblem, match="20003"):
        gateway.send(HELLO)


@pytest.mark.parametrize(
    ("status", "code", "raised"),
    [
        (400, 21265, SmsPermanentlyRefused),  # 'To' is a short code: this reply can never go
        (400, 21266, SmsPermanentlyRefused),  # 'To' and 'From' are the same
        (400, 21660, ConfigurationProblem),  # our 'From' is not our account's: an operator acts
        (400, 21606, ConfigurationProblem),
        (400, 30001, SmsPermanentlyRefused),  # queue overflow: too late to be worth sending
        (400, 21611, SmsPermanentlyRefused),  # the sender's queue holds ten hours: too late too
        (400, 12345, SmsTemporarilyFailed),  # unknown: kept and retried, never dropped
    ],
)
def test_each_class_of_twilio_error_through_the_real_client(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway, status: int, code: int, raised: type[Exception]
) -> None:
    twilio.fail_next(status=status, code=code)
    with pytest.raises(raised):
        gateway.send(HELLO)
    assert gateway.send(HELLO).startswith("SM"), "the fault was one send only"


MESSAGING_SERVICE = "MG" + "5" * 32
POOL = ("+15550000001", "+15550000002")


def test_with_a_messaging_service_a_reply_goes_out_through_it_from_a_number_of_its_pool() -> None:
    with LocalTwilioApi(TWILIO_ACCOUNT, TWILIO_TOKEN, messaging_services={MESSAGING_SERVICE: POOL}) as twilio:
        gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url, MESSAGING_SERVICE)

        sid = gateway.send(HELLO)

        [sent] = twilio.sent_messages()
        [attempt] = twilio.attempts()
    assert sent["sid"] == sid
    assert sent["messaging_service_sid"] == MESSAGING_SERVICE
    assert (sent["to"], sent["body"]) == (HELLO.to, HELLO.body)
    assert attempt["from"] in POOL, "the service chose the sender, not the outbox's `from`"


def test_the_messages_list_names_the_messaging_service_a_reply_went_through() -> None:
    with LocalTwilioApi(TWILIO_ACCOUNT, TWILIO_TOKEN, messaging_services={MESSAGING_SERVICE: POOL}) as twilio:
        gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url, MESSAGING_SERVICE)
        sid = gateway.send(HELLO)
        listed = gateway.sent_to(HELLO.to, 5)
    assert [(sms.sid, sms.messaging_service_sid) for sms in listed] == [(sid, MESSAGING_SERVICE)]


def test_a_messaging_service_twilio_does_not_know_is_a_configuration_error_retried_not_recorded(
    twilio: LocalTwilioApi,
) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url, MESSAGING_SERVICE)

    with pytest.raises(ConfigurationProblem, match="21701"):
        gateway.send(HELLO)
    assert twilio.sent_messages() == []


class StatusReceiver:
    """Stands where the webhook's status route would: keeps what Twilio posts, answers 200."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, str], str]] = []
        self._arrived = threading.Condition()
        self._server = BackgroundHttpServer(self._app)
        self.url = self._server.start() + "/sms/secret/status"

    def _app(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        with self._arrived:
            self.posts.append(
                (request.url, dict(request.form), request.headers.get("X-Twilio-Signature", ""))
            )
            self._arrived.notify_all()
        return Response("", status=200)(environ, start_response)

    def wait_for(self, count: int) -> list[tuple[str, dict[str, str], str]]:
        with self._arrived:
            assert self._arrived.wait_for(lambda: len(self.posts) >= count, timeout=10), self.posts
            return list(self.posts)

    def stop(self) -> None:
        self._server.stop()


@pytest.fixture
def receiver() -> Iterator[StatusReceiver]:
    receiving = StatusReceiver()
    yield receiving
    receiving.stop()


@pytest.mark.parametrize(("failure", "final"), [(None, "delivered"), (30007, "undelivered")])
def test_a_reply_sent_with_its_identity_gets_signed_status_callbacks_at_its_own_url(
    twilio: LocalTwilioApi, receiver: StatusReceiver, failure: int | None, final: str
) -> None:
    twilio.callbacks.delay_seconds = 0
    twilio.callbacks.fail_deliveries_to(HELLO.to, failure)
    gateway = TwilioSmsGateway(
        TWILIO_ACCOUNT, TWILIO_TOKEN, twilio.base_url, status_callback_url=receiver.url
    )

    sid = gateway.send(HELLO, ReplyId("SM" + "a" * 32, 2))
    posts = receiver.wait_for(2)

    validator = RequestValidator(TWILIO_TOKEN)
    for url, form, signature in posts:
        assert url == f"{receiver.url}?key={'SM' + 'a' * 32}&index=2"
        assert validator.validate(url, form, signature), "signed as Twilio signs, over the whole URL"
        assert form["MessageSid"] == sid
    assert [form["MessageStatus"] for _, form, _ in posts] == ["sent", final]
    assert posts[-1][1].get("ErrorCode") == (None if failure is None else str(failure))
    assert twilio.sent_messages()[-1]["status"] == final


def test_the_messages_list_reads_back_what_was_sent_newest_first(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    first = gateway.send(HELLO)
    gateway.send(OutboundSms("+15551110002", HELLO.from_, "someone else"))
    second = gateway.send(OutboundSms(HELLO.to, HELLO.from_, "again"))

    listed = gateway.sent_to(HELLO.to, 10)

    assert [(sms.sid, sms.body) for sms in listed] == [(second, "again"), (first, "hello")]
    assert all(sms.direction == "outbound-api" and sms.from_ == HELLO.from_ for sms in listed)
    assert all(sms.to == HELLO.to and sms.messaging_service_sid is None for sms in listed)
    assert listed[0].created_at >= listed[1].created_at > 0
    assert [sms.sid for sms in gateway.sent_to(HELLO.to, 1)] == [second], "one page of `limit`, no more"


def test_a_throttled_list_is_a_transient_failure_with_twilios_retry_after(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    twilio.fail_next_lists(1, status=429, retry_after=4)
    with pytest.raises(SmsTemporarilyFailed) as throttled:
        gateway.sent_to(HELLO.to, 10)
    assert str(throttled.value) == "Twilio's Messages list failed with HTTP 429 code 20429"
    assert throttled.value.retry_after == 4


def test_a_failing_list_is_a_transient_failure(twilio: LocalTwilioApi, gateway: TwilioSmsGateway) -> None:
    twilio.fail_next_lists(1, status=503)
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.sent_to(HELLO.to, 10)
    assert str(failed.value) == "Twilio's Messages list failed with HTTP 503 code 20503"


def test_a_list_with_refused_credentials_is_a_configuration_problem(twilio: LocalTwilioApi) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, "wrong-token", twilio.base_url)
    with pytest.raises(ConfigurationProblem) as refused:
        gateway.sent_to(HELLO.to, 10)
    assert str(refused.value) == "Twilio refused to list our messages: HTTP 401 code 20003"
    assert refused.value.retry_after == 60


@pytest.mark.parametrize(("status", "code"), [(400, 21660), (403, 403)], ids=["by-code", "by-status"])
def test_a_list_refused_for_the_account_by_its_code_or_its_status_alone_is_a_configuration_problem(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway, status: int, code: int
) -> None:
    twilio.fail_next_lists(1, status=status, code=code)
    with pytest.raises(ConfigurationProblem) as refused:
        gateway.sent_to(HELLO.to, 10)
    assert str(refused.value) == f"Twilio refused to list our messages: HTTP {status} code {code}"


def test_an_unreachable_list_is_a_transient_failure_named_by_its_kind(closed_port: int) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, f"http://127.0.0.1:{closed_port}")
    with pytest.raises(SmsTemporarilyFailed) as unreachable:
        gateway.sent_to(HELLO.to, 10)
    assert str(unreachable.value) == "Twilio unreachable: ConnectionError"


@pytest.fixture
def answering() -> Iterator[Callable[[int, str], str]]:
    """A server that is not Twilio's, answering every request with the (status, body) last set:
    `answering(status, body)` sets it and gives the base URL."""
    answer = [(200, "{}")]

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        status, body = answer[-1]
        return Response(body, status=status, mimetype="application/json")(environ, start_response)

    server = BackgroundHttpServer(app)
    base_url = server.start()

    def set_answer(status: int, body: str) -> str:
        answer.append((status, body))
        return base_url

    yield set_answer
    server.stop()


@pytest.mark.parametrize(
    ("status", "body", "says"),
    [
        (200, "{}", "Twilio's Messages list failed: Page Records can not be deserialized"),
        (500, '{"code": "E42"}', "Twilio's Messages list failed with HTTP 500 code None"),
        (502, "<html>Bad gateway</html>", "Twilio's Messages list failed with HTTP 502 code None"),
        (500, '["code", 20500]', "Twilio's Messages list failed with HTTP 500 code None"),
    ],
    ids=["no-records", "code-not-a-number", "not-json", "not-an-object"],
)
def test_a_list_answer_that_is_not_twilios_is_a_transient_failure_saying_what_came(
    answering: Callable[[int, str], str], status: int, body: str, says: str
) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, answering(status, body))
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.sent_to(HELLO.to, 10)
    assert str(failed.value) == says


def test_a_listed_message_without_a_body_or_a_date_is_read_as_empty_and_at_zero(
    answering: Callable[[int, str], str],
) -> None:
    message = {
        "sid": "SM" + "1" * 32,
        "to": HELLO.to,
        "from": HELLO.from_,
        "body": None,
        "direction": "outbound-api",
        "date_created": None,
        "messaging_service_sid": None,
    }
    page = {"messages": [message], "next_page_uri": None, "page": 0, "page_size": 10}
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, answering(200, json.dumps(page)))
    [listed] = gateway.sent_to(HELLO.to, 10)
    assert (listed.body, listed.created_at) == ("", 0.0)
