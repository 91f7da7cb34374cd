"""The simulated Twilio, reached through the real gateway: each sender's queue leaves at its rate,
a message that would wait past its validity expires, an opted-out phone is refused."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.burst.latencies import Latencies
from bench.burst.observations import InvocationContext, Observations
from bench.burst.twilio_messages import AcceptedSms, SenderQueue, SimulatedTwilio
from bench.burst.virtual_time import Actor, Scheduler
from serverless_rps.exceptions import SmsPermanentlyRefused
from serverless_rps.ports import OutboundSms
from serverless_rps.sms_gateway import TwilioSmsGateway

BOT = "+15550000000"
ALICE = "+15551110001"


def _sms(accepted_at: float, validity: float = 36_000.0) -> AcceptedSms:
    return AcceptedSms("SM1", ALICE, BOT, "hi", None, accepted_at, validity)


def test_a_sender_sends_at_its_rate_in_the_order_twilio_accepted() -> None:
    queue = SenderQueue(rate=10.0)
    burst = [_sms(0.0) for _ in range(3)]
    for sms in burst:
        queue.enqueue(sms)

    assert [sms.sent_at for sms in burst] == pytest.approx([0.0, 0.1, 0.2])


def test_a_message_that_would_wait_past_its_validity_expires_and_takes_no_slot() -> None:
    queue = SenderQueue(rate=1.0)
    waiting = [_sms(0.0) for _ in range(5)]
    short_lived, patient = _sms(0.0, validity=2.0), _sms(0.0)
    for sms in [*waiting, short_lived, patient]:
        queue.enqueue(sms)

    assert short_lived.sent_at is None
    assert short_lived.expired_at == 2.0
    assert patient.sent_at == 5.0


def _through_the_gateway(twilio: SimulatedTwilio, scheduler: Scheduler, work: Any) -> list[Any]:
    with twilio.gateway_http_client():
        gateway = TwilioSmsGateway("AC" + "0" * 32, "token")
    outcome: list[Any] = []

    def body() -> None:
        try:
            outcome.append(work(gateway))
        except Exception as exc:
            outcome.append(exc)

    scheduler.start(Actor(scheduler, "invocation", body, start=0.0, context=InvocationContext(instance=1)))
    scheduler.run()
    return outcome


def _twilio(scheduler: Scheduler, rate: float = 100.0) -> SimulatedTwilio:
    return SimulatedTwilio(scheduler, Latencies(random.Random(7), 256), Observations(), rate, epoch=1.8e9)


def test_a_post_through_the_real_gateway_is_accepted_halfway_through_its_latency() -> None:
    scheduler = Scheduler()
    twilio = _twilio(scheduler)

    [sid] = _through_the_gateway(
        twilio, scheduler, lambda gateway: gateway.send(OutboundSms(ALICE, BOT, "hi"))
    )

    [sms] = twilio.accepted
    assert sms.sid == sid
    assert 0.05 <= sms.accepted_at <= 0.16  # half of 100-300 ms, and the SDK's CPU
    assert sms.sent_at == sms.accepted_at  # nothing queued before it


def test_a_send_to_a_phone_that_texted_stop_is_refused_for_good() -> None:
    scheduler = Scheduler()
    twilio = _twilio(scheduler)
    twilio.opt_out(ALICE)

    [refusal] = _through_the_gateway(
        twilio, scheduler, lambda gateway: gateway.send(OutboundSms(ALICE, BOT, "hi"))
    )

    assert isinstance(refusal, SmsPermanentlyRefused)
    assert refusal.code == 21610
    assert twilio.accepted == []


def test_the_messages_list_shows_what_was_accepted_to_a_number_newest_first() -> None:
    scheduler = Scheduler()
    twilio = _twilio(scheduler)

    def send_then_list(gateway: TwilioSmsGateway) -> list[str]:
        for body in ("one", "two"):
            gateway.send(OutboundSms(ALICE, BOT, body))
        gateway.send(OutboundSms("+15552220002", BOT, "to bob"))
        return [sms.body for sms in gateway.sent_to(ALICE, 100)]

    [listed] = _through_the_gateway(twilio, scheduler, send_then_list)

    assert listed == ["two", "one"]


def test_a_send_whose_validity_period_its_wait_would_pass_expires_and_never_leaves() -> None:
    scheduler = Scheduler()
    twilio = _twilio(scheduler, rate=1.0)
    fields = {"To": ALICE, "From": BOT, "Body": "hi"}

    def post_three() -> list[int]:
        return [twilio.create({**fields, "ValidityPeriod": "1"})[0] for _ in range(3)]

    scheduler.start(
        Actor(scheduler, "invocation", post_three, start=0.0, context=InvocationContext(instance=1))
    )
    scheduler.run()

    first, second, third = twilio.accepted
    assert first.sent_at is not None
    assert second.sent_at is not None  # waits 0.8-1 s behind the first: within its second
    assert (third.sent_at, third.expired_at) == (None, pytest.approx(third.accepted_at + 1))
