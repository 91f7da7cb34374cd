"""language.py, the one place that decides a reply's language: whose record turns Spanish, which
language a reply to a text is in, and that everyone else reads their own."""

from __future__ import annotations

from dataclasses import replace

import pytest

from serverless_rps import language, replies, replies_es
from serverless_rps.catalogue import Wording
from serverless_rps.game import Decision, Reply
from serverless_rps.model import Player
from serverless_rps.parsing import Command, OptOut, ReplyOnly, SetLanguage, ShowScore, parse
from serverless_rps.revocation_words import Language

ALICE, BOB = "+15551110001", "+15552220002"


def _player(phone: str, spoken: Language = "en") -> Player:
    return Player(phone, f"id-{phone}", phone[-4:], f"p{phone[-4:]}", language=spoken)


@pytest.mark.parametrize(
    ("body", "before", "after"),
    [
        ("puntos", "en", "es"),  # a Spanish command
        ("tirar", "en", "es"),  # used wrong, still a Spanish command
        ("rock para bob", None, "es"),
        ("score", "es", "es"),  # an English command leaves the language as it is
        ("nick ana", None, None),
        ("idioma en", "es", "en"),
        ("lang es", None, "es"),
        ("hola", "en", "en"),  # free text is a guess: answered in it, never stored
        ("ALTO", "en", "en"),  # an opt-out erases the record: nothing to store
    ],
)
def test_a_players_language_after_a_text(body: str, before: Language | None, after: Language | None) -> None:
    assert language.stored_after(parse(body), before) == after


@pytest.mark.parametrize(
    ("command", "stored", "answered_in"),
    [
        (ShowScore("es"), "en", "es"),
        (ShowScore(), "es", "es"),
        (ShowScore(), None, "en"),
        (ReplyOnly(Wording("unknown_command"), "en", guessed=True), "es", "en"),
        (ReplyOnly(Wording("unknown_command"), None, guessed=True), "es", "es"),
        (OptOut(language="es"), "en", "es"),
        (OptOut(), "es", "en"),
        (SetLanguage("en"), "en", "en"),
    ],
)
def test_a_text_is_answered_in_its_own_language_else_the_players_else_english(
    command: Command, stored: Language | None, answered_in: Language
) -> None:
    assert language.for_sender(command, stored) == answered_in


def test_everyone_but_the_sender_reads_their_records_language() -> None:
    say = language.voices(ALICE, "es", {ALICE: _player(ALICE), BOB: _player(BOB, "en")})
    assert say(ALICE) is replies_es
    assert say(BOB) is replies
    spanish_bob = language.voices(ALICE, "en", {ALICE: None, BOB: _player(BOB, "es")})
    assert (spanish_bob(ALICE), spanish_bob(BOB)) == (replies, replies_es)


def test_the_new_language_is_written_on_the_record_the_decision_writes_or_on_the_locked_one() -> None:
    alice = _player(ALICE)
    untouched = Decision(replies=(Reply(ALICE, "hi"),))
    written = language.recorded(untouched, ALICE, alice, "es")
    assert written.players == {ALICE: replace(alice, language="es")}
    assert written.replies == untouched.replies

    renamed = replace(alice, display_name="queen")
    both = language.recorded(Decision(players={ALICE: renamed}), ALICE, alice, "es")
    assert both.players[ALICE] == replace(renamed, language="es")


@pytest.mark.parametrize(
    ("decision", "before", "stored"),
    [
        (Decision(players={ALICE: None}), _player(ALICE), "es"),  # an opt-out: erased, language and all
        (Decision(), None, "es"),  # no record to keep it on
        (Decision(), _player(ALICE, "es"), "es"),  # already so
        (Decision(), _player(ALICE), None),  # nothing to store
    ],
)
def test_no_record_is_written_for_the_language_alone_when_there_is_none_to_change(
    decision: Decision, before: Player | None, stored: Language | None
) -> None:
    assert language.recorded(decision, ALICE, before, stored) == decision
