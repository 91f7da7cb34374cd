"""Playing in Spanish, through the real protocol on moto, as the players see it: every reply in the
language of its reader (language.py), each one segment as Twilio bills it."""

from __future__ import annotations

from typing import Any

import pytest

from serverless_rps import replies, replies_es
from serverless_rps.processing import Result
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps.rules import Move, Outcome
from serverless_rps.segments import count_segments
from tests.conftest import ALICE, BOB, CAROL, STRANGER, FakeSms, Game

PROGRAM = replies.Program()  # the processor's default program


def _language(game: Game, phone: str) -> str | None:
    """The language attribute of a phone's record as stored (absent: English), or None with no record."""
    item = game.player(phone)
    if item is None:
        return None
    return str(item.get("language", {}).get("S", "en"))


def _one_segment_each(texts: list[str]) -> None:
    for text in texts:
        counted = count_segments(text)
        assert (counted.encoding, counted.segments) == ("GSM-7", 1), text


def test_a_spanish_game_is_played_in_spanish_from_the_first_reply_to_the_last(game: Game) -> None:
    game.text(ALICE, "apodo ana")
    assert game.sms.to(ALICE) == [replies_es.opt_in_confirmation(PROGRAM), replies_es.nick_registered("ana")]
    game.text(BOB, "Apodo Beto")
    assert game.sms.to(BOB) == [replies_es.opt_in_confirmation(PROGRAM), replies_es.nick_registered("Beto")]

    game.text(ALICE, "tirar piedra a beto")
    assert game.sms.last(ALICE) == replies_es.throw_waiting("Beto", Move.ROCK)
    assert game.sms.last(BOB) == replies_es.challenged("ana")
    game.text(BOB, "partidas")
    assert game.sms.last(BOB) == replies_es.games_summary([], ["ana"])
    game.text(BOB, "papel para ana")
    assert game.sms.last(BOB) == replies_es.result(Outcome.WIN, Move.PAPER, Move.ROCK, "ana")
    assert game.sms.last(ALICE) == replies_es.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "Beto")

    game.text(ALICE, "otra tijeras")
    assert game.sms.last(ALICE) == replies_es.throw_waiting("Beto", Move.SCISSORS)
    game.text(BOB, "otra piedra")
    assert game.sms.last(BOB) == replies_es.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "ana")
    game.text(BOB, "PUNTOS")
    assert game.sms.last(BOB) == replies_es.score(2, 0, 0, 2)
    game.text(ALICE, "top")
    assert game.sms.last(ALICE) == replies_es.top_unranked([("Beto", 2)])
    game.text(ALICE, "Ayuda")
    assert game.sms.to(ALICE)[-2:] == [replies_es.program_help(PROGRAM), replies_es.help_overview()]
    game.text(ALICE, "ayuda tirar")
    assert game.sms.last(ALICE) == replies_es.help_topic("throw")
    game.text(ALICE, "jugar")
    assert game.sms.last(ALICE) == replies_es.throw_usage()

    everything = game.sms.to(ALICE) + game.sms.to(BOB)
    english = {reply for reply in everything if reply in _every_english_text_of_this_game()}
    assert english == set()
    _one_segment_each(everything)
    assert _language(game, ALICE) == _language(game, BOB) == "es"


def _every_english_text_of_this_game() -> set[str]:
    names, moves = ("ana", "Beto"), list(Move)
    return {
        replies.opt_in_confirmation(PROGRAM),
        replies.program_help(PROGRAM),
        replies.help_overview(),
        replies.throw_usage(),
        *(replies.nick_registered(name) for name in names),
        *(replies.challenged(name) for name in names),
        *(replies.throw_waiting(name, move) for name in names for move in moves),
        *(replies.result(o, a, b, name) for o in Outcome for a in moves for b in moves for name in names),
    }


def test_a_mixed_pair_is_each_written_to_in_their_own_language(game: Game) -> None:
    game.text(ALICE, "apodo ana")  # Spanish
    game.text(BOB, "nick bob")  # English
    game.text(ALICE, "piedra bob")
    assert game.sms.last(ALICE) == replies_es.throw_waiting("bob", Move.ROCK)
    assert game.sms.last(BOB) == replies.challenged("ana")
    game.text(BOB, "paper ana")
    assert game.sms.last(BOB) == replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "ana")
    assert game.sms.last(ALICE) == replies_es.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob")

    game.text(BOB, "scissors ana")
    assert game.sms.last(ALICE) == replies_es.challenged("bob")
    game.text(ALICE, "piedra bob")
    assert game.sms.last(BOB) == replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "ana")
    assert (_language(game, ALICE), _language(game, BOB)) == ("es", "en")


def test_strangers_in_the_lobby_are_each_told_in_their_own_language(game: Game, clock: Any) -> None:
    game.text(ALICE, "apodo ana")
    game.text(BOB, "nick bob")
    game.text(ALICE, "piedra")
    assert game.sms.last(ALICE) == replies_es.lobby_waiting(Move.ROCK)
    clock.tick(60)  # their rooms may differ: she has waited alone long enough to be played from any
    game.text(BOB, "paper")
    assert game.sms.last(BOB) == replies.lobby_result(Outcome.WIN, Move.PAPER, Move.ROCK, "ana")
    assert game.sms.last(ALICE) == replies_es.lobby_result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob")


def test_a_player_who_switches_language_mid_game_reads_their_new_language_and_the_game_goes_on(
    game: Game,
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(ALICE, "idioma es")
    assert game.sms.last(ALICE) == replies_es.language_set()
    assert _language(game, ALICE) == "es"
    game.text(BOB, "paper alice")  # the open game, untouched by the switch
    assert game.sms.last(BOB) == replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "alice")
    assert game.sms.last(ALICE) == replies_es.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob")

    game.text(BOB, "rock alice")
    game.text(ALICE, "LANG en")
    assert game.sms.last(ALICE) == replies.language_set()
    game.text(ALICE, "scissors bob")
    assert game.sms.last(ALICE) == replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "bob")
    assert _language(game, ALICE) == "en"


def test_a_spanish_command_makes_a_player_spanish_and_an_english_one_leaves_them_so(game: Game) -> None:
    game.register((ALICE, "alice"))
    game.text(ALICE, "puntos")
    assert game.sms.last(ALICE) == replies_es.score(0, 0, 0, 0)
    assert _language(game, ALICE) == "es"
    game.text(ALICE, "score")  # everyone's words (NICK, TOP, SCORE...) answer in the player's language
    assert game.sms.last(ALICE) == replies_es.score(0, 0, 0, 0)
    game.text(ALICE, "throw")
    assert game.sms.last(ALICE) == replies_es.throw_usage()
    assert _language(game, ALICE) == "es"


@pytest.mark.parametrize("body", ["idioma klingon", "IDIOMA", "lang", "language en es", "lang fr"])
def test_a_language_command_without_a_language_it_knows_is_answered_in_both(game: Game, body: str) -> None:
    game.register((ALICE, "alice"))
    game.text(ALICE, body)
    usage = game.sms.last(ALICE)
    assert usage == replies.language_usage()  # her language's first, then the other's
    for said in ("LANG en (English)", "LANG es (Spanish)", "IDIOMA es (español)", "IDIOMA en (inglés)"):
        assert said in usage
    _one_segment_each([usage])
    assert _language(game, ALICE) == "en", "nothing changed"
    game.text(ALICE, "idioma es")
    game.text(ALICE, body)
    assert game.sms.last(ALICE) == replies_es.language_usage()
    assert sorted(replies_es.language_usage().rstrip(".").split(". ")) == sorted(
        usage.rstrip(".").split(". ")
    )


def test_a_new_number_choosing_a_language_is_told_in_it_to_pick_a_nickname(game: Game) -> None:
    game.text(STRANGER, "idioma español")
    assert game.sms.to(STRANGER) == [replies_es.opt_in_confirmation(PROGRAM), replies_es.not_registered()]
    assert game.player(STRANGER) is None, "no record: nothing to keep the language on"


@pytest.mark.parametrize(
    "body", ["piedra para bob", "rock para bob", "tirar piedra a bob", "Piedra contra bob"]
)
def test_a_throw_written_with_para_a_or_contra_is_a_throw_never_an_opt_out(game: Game, body: str) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, body)
    assert game.sms.last(ALICE) == replies_es.throw_waiting("bob", Move.ROCK)
    assert game.sms.last(BOB) == replies.challenged("alice")
    assert game.player(ALICE) is not None


@pytest.mark.parametrize(
    ("body", "first_replies"),
    [
        ("hola", [replies_es.unknown_command()]),
        ("¡Ayuda!", [replies_es.program_help(PROGRAM), replies_es.help_overview()]),
        ("jugar", [replies_es.throw_usage()]),
        ("piedra", [replies_es.not_registered()]),
        ("apodo", [replies_es.nick_usage()]),
        ("alta", []),
    ],
)
def test_the_first_reply_to_a_new_number_is_in_the_language_of_its_first_text(
    game: Game, body: str, first_replies: list[str]
) -> None:
    game.text(STRANGER, body)
    assert game.sms.to(STRANGER) == [replies_es.opt_in_confirmation(PROGRAM), *first_replies]


@pytest.mark.parametrize(
    ("body", "first_reply"),
    [("hello there", replies.unknown_command()), ("asdf", replies.unknown_command()), ("rock", None)],
)
def test_a_new_number_whose_first_text_shows_no_spanish_is_answered_in_english(
    game: Game, body: str, first_reply: str | None
) -> None:
    game.text(STRANGER, body)
    assert game.sms.to(STRANGER)[0] == replies.opt_in_confirmation(PROGRAM)
    assert game.sms.to(STRANGER)[-1] == (first_reply or replies.not_registered())


def test_a_text_no_command_reads_is_answered_in_the_language_it_looks_like(game: Game) -> None:
    game.text(ALICE, "apodo ana")  # Spanish
    game.register((BOB, "bob"))  # English
    game.text(ALICE, "hi there, how does this work")
    assert game.sms.last(ALICE) == replies.unknown_command()
    game.text(BOB, "hola, que es esto")
    assert game.sms.last(BOB) == replies_es.unknown_command()
    game.text(ALICE, "asdf")  # no word of either: her own language
    assert game.sms.last(ALICE) == replies_es.unknown_command()
    assert (_language(game, ALICE), _language(game, BOB)) == ("es", "en"), "a guess never changes a record"


def test_a_spanish_opt_out_is_confirmed_in_spanish_and_the_goodbyes_in_each_readers_language(
    game: Game,
) -> None:
    game.text(ALICE, "apodo ana")
    game.register((BOB, "bob"))
    game.text(CAROL, "apodo carla")
    game.text(BOB, "rock ana")
    game.text(CAROL, "papel ana")
    game.text(ALICE, "Alto.")
    assert game.sms.last(ALICE) == replies_es.opt_out_confirmation(PROGRAM)
    assert game.sms.last(BOB) == replies.opponent_left("ana")
    assert game.sms.last(CAROL) == replies_es.opponent_left("ana")


def test_an_opt_out_is_confirmed_in_the_language_it_was_asked_in(game: Game) -> None:
    game.register((ALICE, "alice"))  # English
    game.text(ALICE, "ya no me escriban por favor")
    assert game.sms.last(ALICE) == replies_es.opt_out_confirmation(PROGRAM)
    game.text(BOB, "apodo beto")  # Spanish
    game.text(BOB, "Stop.")
    assert game.sms.last(BOB) == replies.opt_out_confirmation(PROGRAM)


def test_alta_after_a_spanish_opt_out_rejoins_in_spanish(game: Game) -> None:
    game.text(ALICE, "apodo ana")
    game.text(ALICE, "baja")
    game.text(ALICE, "ALTA")
    assert game.sms.last(ALICE) == replies_es.opt_in_confirmation(PROGRAM)


def test_an_opt_out_erases_the_language_with_the_player(game: Game) -> None:
    game.text(ALICE, "apodo ana")
    assert _language(game, ALICE) == "es"
    game.text(ALICE, "STOP")
    assert game.player(ALICE) is None
    assert [item for item in game.items_holding(ALICE) if "language" in item] == []
    game.text(ALICE, "score")  # the number is new again: English, as any new number
    assert game.sms.to(ALICE)[-2:] == [replies.opt_in_confirmation(PROGRAM), replies.not_registered()]


def test_the_reply_budgets_notice_is_in_its_readers_language(dynamodb: Any, clock: Any) -> None:
    game = Game(dynamodb, FakeSms(), budget=BudgetPolicy(burst=3, per_hour=180))
    game.text(ALICE, "apodo ana")  # two replies: the welcome and the registration
    game.text(ALICE, "puntos")
    assert game.text(ALICE, "puntos") is Result.PROCESSED
    assert game.sms.last(ALICE) == replies_es.reply_limit_reached(2)
