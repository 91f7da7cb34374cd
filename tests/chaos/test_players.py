"""The soak's players learn only from the SMS they receive, in English or in Spanish: a player who
texted a Spanish command (there is one among the junk) reads Spanish from then on, and must still
answer the challenges they are told about, or the soak's games would stop in Spanish."""

from __future__ import annotations

import random

import pytest

from bench.chaos.players import Players
from serverless_rps import replies, replies_es
from serverless_rps.catalogue import CATALOGUES, Catalogue


def _players() -> tuple[Players, str]:
    players = Players(count=2, churn_share=0.0, chance=random.Random(3))
    return players, "+15550770000"


@pytest.mark.parametrize("say", CATALOGUES.values(), ids=CATALOGUES.keys())
def test_a_player_learns_they_are_registered_and_challenged_in_either_language(say: Catalogue) -> None:
    players, phone = _players()
    player = players.players[phone]
    assert not player.registered
    players.hear(phone, say.nick_registered("p000"))
    assert player.registered
    players.hear(phone, say.challenged("p001"))
    assert player.challenged_by == {"p001"}


@pytest.mark.parametrize("say", CATALOGUES.values(), ids=CATALOGUES.keys())
def test_a_renamed_or_returning_player_counts_as_registered_in_either_language(say: Catalogue) -> None:
    for reply in (say.nick_changed("p000", "p000x1"), say.nick_unchanged("p000")):
        players, phone = _players()
        players.hear(phone, reply)
        assert players.players[phone].registered, reply


def test_a_challenge_is_answered_with_a_throw_at_the_challenger_in_spanish_too() -> None:
    players, phone = _players()
    players.hear(phone, replies_es.nick_registered("p000"))
    players.hear(phone, replies_es.challenged("p001"))
    answers = set()
    for _ in range(200):
        sender, body, kind = players.next_message()
        if sender == phone and kind == "answer":
            answers.add(body.rsplit(" ", 1)[1])
    assert answers == {"p001"}


def test_other_replies_teach_a_player_nothing() -> None:
    players, phone = _players()
    for reply in (replies.unknown_command(), replies_es.unknown_command(), replies_es.not_registered()):
        players.hear(phone, reply)
    player = players.players[phone]
    assert not player.registered
    assert player.challenged_by == set()
