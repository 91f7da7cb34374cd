"""The crowd reads the bot's replies as a player would, and answers in its rhythm."""

from __future__ import annotations

import random

import pytest

from bench.burst.players import ArrivalProfile, Crowd, Heard, heard
from bench.burst.twilio_messages import AcceptedSms
from bench.burst.virtual_time import Scheduler
from serverless_rps import replies
from serverless_rps.rules import Move, Outcome

PROGRAM = replies.Program()


@pytest.mark.parametrize(
    ("body", "meaning"),
    [
        (replies.nick_registered("alice"), Heard.REGISTERED),
        (replies.nick_taken("alex"), Heard.NAME_REFUSED),
        (replies.nick_taken_look_alike("aIex", "alex"), Heard.NAME_REFUSED),
        (replies.nick_invalid(), Heard.NAME_REFUSED),
        (replies.not_registered(), Heard.NEEDS_NAME),
        (replies.unknown_command(), Heard.NEEDS_NAME),
        (replies.lobby_waiting(Move.ROCK), Heard.WAITING),
        (replies.lobby_already_waiting(Move.PAPER), Heard.WAITING),
        (replies.throw_waiting("bob", Move.SCISSORS), Heard.WAITING),
        (replies.lobby_result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "bob"), Heard.LOBBY_RESULT),
        (replies.result(Outcome.TIE, Move.ROCK, Move.ROCK, "bob"), Heard.RESULT),
        (replies.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob"), Heard.RESULT),
        (replies.unknown_player("bobby"), Heard.THROW_REFUSED),
        (replies.already_thrown("bob"), Heard.THROW_REFUSED),
        (replies.no_last_opponent(), Heard.THROW_REFUSED),
        (replies.opt_in_confirmation(PROGRAM), Heard.INFORMATION),
        (replies.score(1, 2, 0, -2), Heard.OTHER),
    ],
)
def test_a_player_reads_each_reply_for_what_it_means(body: str, meaning: Heard) -> None:
    assert heard(body)[0] is meaning


def test_a_challenge_names_the_challenger() -> None:
    assert heard(replies.challenged("bob_77")) == (Heard.CHALLENGED, "bob_77")


def _crowd(**profile: float) -> tuple[Scheduler, Crowd, list[tuple[float, str, str, str]]]:
    scheduler = Scheduler()
    texts: list[tuple[float, str, str, str]] = []
    options = {"phones": 1, "arrival_seconds": 1.0, "wrong_first_text_share": 0.0, "resend_share": 0.0}
    crowd = Crowd(
        ArrivalProfile(**{**options, **profile}),  # type: ignore[arg-type]
        scheduler,
        random.Random(3),
        lambda phone, body, kind: texts.append((scheduler.now, phone, body, kind)),
    )
    return scheduler, crowd, texts


def _reply(crowd: Crowd, scheduler: Scheduler, phone: str, body: str) -> None:
    crowd.hear(AcceptedSms("SM1", phone, "+15550000000", body, None, scheduler.now, 36_000, scheduler.now))


def test_a_new_phone_registers_first_and_tries_another_name_when_its_name_is_taken() -> None:
    scheduler, crowd, texts = _crowd()
    crowd.arrive_over_the_window()
    scheduler.run()
    [(_, phone, first, kind)] = texts
    assert (first.split()[0], kind) == ("nick", "nick")

    _reply(crowd, scheduler, phone, replies.nick_taken(first.split()[1]))
    scheduler.run()

    second = texts[-1][2]
    assert second.startswith("nick ")
    assert second != first


def test_a_challenged_player_answers_with_a_throw_at_the_challenger_after_thinking() -> None:
    scheduler, crowd, texts = _crowd()
    crowd.arrive_over_the_window()
    scheduler.run()
    phone = texts[0][1]
    heard_at = scheduler.now

    _reply(crowd, scheduler, phone, replies.challenged("bob"))
    scheduler.run()

    answered_at, _, answer, kind = texts[-1]
    assert kind == "answer"
    assert answer.split()[0] in {"rock", "paper", "scissors"}
    assert answer.split()[1] == "bob"
    assert answered_at > heard_at + crowd.profile.delivery_seconds


def test_a_player_plays_its_games_then_stops_texting() -> None:
    scheduler, crowd, texts = _crowd(games_per_phone=2, top_share=0.0, score_share=0.0, stop_share=0.0)
    crowd.arrive_over_the_window()
    scheduler.run()
    phone = texts[0][1]
    _reply(crowd, scheduler, phone, replies.nick_registered("alice"))
    scheduler.run()
    for _ in range(3):
        _reply(crowd, scheduler, phone, replies.lobby_result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "bob"))
        scheduler.run()

    games_started = [kind for *_, kind in texts if kind in {"lobby", "challenge", "rematch"}]
    assert len(games_started) == 2
    assert crowd.players[phone].done


def test_new_phones_arrive_within_the_window_and_a_cut_keeps_the_first_ones() -> None:
    scheduler, crowd, texts = _crowd(phones=200, arrival_seconds=300.0)
    crowd.arrive_over_the_window(until=100.0)
    scheduler.run(until=300.0)

    first_texts = [at for at, *_ in texts[: len(crowd.players)]]
    assert 0 < len(crowd.players) < 200
    assert max(first_texts) < 100.0


def test_new_phones_come_fastest_between_the_rise_and_the_fall() -> None:
    scheduler, crowd, texts = _crowd(phones=3000, arrival_seconds=100.0, rise=0.2, fall=0.2)
    crowd.arrive_over_the_window()
    scheduler.run(until=100.0)

    first_texts = [at for at, _, _, kind in texts if kind in {"nick", "first text"}]
    rising = sum(1 for at in first_texts if at < 10)
    peak = sum(1 for at in first_texts if 40 <= at < 50)
    falling = sum(1 for at in first_texts if at >= 90)
    # A trapezoid: 3,000 phones over 80 s at the full rate; the first and last tenths of the window,
    # halfway up its ramps, hold a quarter of that.
    assert peak == pytest.approx(3000 / 80 * 10, rel=0.15)
    assert rising == pytest.approx(peak / 4, rel=0.3)
    assert falling == pytest.approx(peak / 4, rel=0.3)


def test_a_replica_of_the_profile_has_its_share_of_the_phones() -> None:
    assert ArrivalProfile().scaled(1 / 5).phones == 4_000
    assert ArrivalProfile().scaled(10).phones == 200_000
