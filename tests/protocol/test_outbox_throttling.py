"""Twilio's 429 (our account's concurrent requests) is waited out in the invocation: a send Twilio
did not process is tried again after a short pause, a few times, and only then left for SQS to
bring back. Nothing is lost, nothing is sent twice."""

from __future__ import annotations

import pytest

from serverless_rps.exceptions import SmsTemporarilyFailed
from serverless_rps.outbox import THROTTLED_TRIES
from serverless_rps.processing import Result
from tests.conftest import ALICE, Game, new_engine


def throttled(retry_after: float | None = None) -> SmsTemporarilyFailed:
    return SmsTemporarilyFailed("Twilio 429 code 20429", retry_after, throttled=True)


@pytest.fixture
def paused(game: Game) -> list[float]:
    """The game's engine again, its outbox pausing into this list (at jitter 1, the longest)."""
    pauses: list[float] = []
    game.engine = new_engine(
        game.store, game.sms, lock_wait_seconds=0.2, sleep=pauses.append, jitter=lambda: 1.0
    )
    game.processor = game.engine.processor
    return pauses


def test_a_send_twilio_throttles_is_tried_again_after_a_pause_and_goes_once(
    game: Game, paused: list[float]
) -> None:
    game.register((ALICE, "alice"))
    game.sms.fail_next(throttled(), throttled())

    assert game.text(ALICE, "score") is Result.PROCESSED

    assert game.sms.to(ALICE).count(game.sms.last(ALICE)) == 1
    assert paused == [0.25, 0.5], "full jitter, doubling"


@pytest.mark.parametrize("retry_after", [0.8, 1.0], ids=["under a second", "a second"])
def test_twilios_retry_after_is_the_least_pause(game: Game, paused: list[float], retry_after: float) -> None:
    """A Retry-After of up to a second, a whole second included, is waited out in the invocation."""
    game.register((ALICE, "alice"))
    game.sms.fail_next(throttled(retry_after=retry_after))

    assert game.text(ALICE, "score") is Result.PROCESSED

    assert paused == [retry_after]


@pytest.mark.parametrize(
    ("failures", "why"),
    [
        ([throttled()] * THROTTLED_TRIES, "every try throttled"),
        ([throttled(retry_after=5)], "Twilio asks for longer than the invocation should wait"),
        # A number, not the constant under test: a second is the longest wait in the invocation.
        ([throttled(retry_after=1.5)], "Twilio asks for a second and a half: longer than a second"),
        (
            [SmsTemporarilyFailed("Twilio 503", 2, maybe_sent=True)],
            "a 5xx may have been taken: never at once",
        ),
    ],
)
def test_a_send_still_failing_is_left_for_the_redelivery_which_sends_it_once(
    game: Game, paused: list[float], failures: list[Exception], why: str
) -> None:
    game.register((ALICE, "alice"))
    message = game.inbound(ALICE, "score")
    game.sms.fail_next(*failures)

    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)

    assert game.processor.process(message) is Result.RESENT, why
    score = game.sms.last(ALICE)
    assert game.sms.to(ALICE).count(score) == 1 + sum(
        f.maybe_sent for f in failures if isinstance(f, SmsTemporarilyFailed)
    )


def test_three_tries_at_most(game: Game, paused: list[float]) -> None:
    """A number, not the constant under test: three tries, then the message goes back to SQS."""
    game.register((ALICE, "alice"))
    game.sms.fail_next(throttled(), throttled(), throttled(), None)
    with pytest.raises(SmsTemporarilyFailed):
        game.text(ALICE, "score")
    assert len(paused) == 2, "a pause between tries, none after the last"
    assert game.sms.failures == [None], "the fourth send was never tried in this invocation"


def test_the_pause_is_a_random_share_of_the_back_off(game: Game) -> None:
    """Full jitter: at a draw of 0.5, half of each back-off (0.25 s, then 0.5 s), so that senders
    throttled together do not come back together."""
    pauses: list[float] = []
    game.engine = new_engine(
        game.store, game.sms, lock_wait_seconds=0.2, sleep=pauses.append, jitter=lambda: 0.5
    )
    game.processor = game.engine.processor
    game.register((ALICE, "alice"))
    game.sms.fail_next(throttled(), throttled())

    assert game.text(ALICE, "score") is Result.PROCESSED

    assert pauses == [0.125, 0.25]
