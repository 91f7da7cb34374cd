"""The real Twilio client, through our adapter, against the local Twilio-compatible API:
errors are classified as Twilio's documentation says they should be."""

from __future__ import annotations

import socket

import pytest

from serverless_rps.exceptions import SmsPermanentlyRefused, SmsTemporarilyFailed
from serverless_rps.local.twilio_api import LocalTwilioApi
from serverless_rps.ports import OutboundSms
from serverless_rps.sms_gateway import TwilioSmsGateway
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


def test_an_invalid_number_is_a_permanent_refusal(gateway: TwilioSmsGateway) -> None:
    with pytest.raises(SmsPermanentlyRefused) as refused:
        gateway.send(OutboundSms("not-a-number", HELLO.from_, "hi"))
    assert refused.value.code == 21211


def test_throttling_is_transient_and_carries_retry_after(
    twilio: LocalTwilioApi, gateway: TwilioSmsGateway
) -> None:
    twilio.fail_next(status=429, retry_after=7)
    with pytest.raises(SmsTemporarilyFailed) as failed:
        gateway.send(HELLO)
    assert failed.value.retry_after == 7
    assert gateway.send(HELLO).startswith("SM"), "the next send goes through"


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_transient(twilio: LocalTwilioApi, gateway: TwilioSmsGateway, status: int) -> None:
    twilio.fail_next(status=status)
    with pytest.raises(SmsTemporarilyFailed):
        gateway.send(HELLO)
    assert twilio.sent_messages() == []


def test_an_unreachable_api_is_transient() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, TWILIO_TOKEN, f"http://127.0.0.1:{closed_port}")
    with pytest.raises(SmsTemporarilyFailed):
        gateway.send(HELLO)


def test_wrong_credentials_are_retried_not_recorded_as_delivered(twilio: LocalTwilioApi) -> None:
    gateway = TwilioSmsGateway(TWILIO_ACCOUNT, "wrong-token", twilio.base_url)
    with pytest.raises(SmsTemporarilyFailed):
        gateway.send(HELLO)
