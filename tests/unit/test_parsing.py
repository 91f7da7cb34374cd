from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverless_rps import replies
from serverless_rps.parsing import (
    AnsweredByTwilio,
    ListGames,
    OptOut,
    ReplyOnly,
    SetNickname,
    ShowHelp,
    ShowScore,
    Throw,
    is_valid_nickname,
    nickname_key,
    parse,
)
from serverless_rps.rules import Move


@pytest.mark.parametrize(
    ("body", "command"),
    [
        ("help", ShowHelp(replies.help_overview())),
        ("?", ShowHelp(replies.help_overview())),
        ("HELP throw", ShowHelp(replies.help_topic("throw") or "")),
        ("nick Alice", SetNickname("Alice")),
        ("  name   bob_2  ", SetNickname("bob_2")),
        ("throw rock bob", Throw(Move.ROCK, "bob")),
        ("T pap Bob", Throw(Move.PAPER, "Bob")),
        ("play s bob", Throw(Move.SCISSORS, "bob")),
        ("p rock bob", Throw(Move.ROCK, "bob")),
        ("p bob", Throw(Move.PAPER, "bob")),
        ("rock bob", Throw(Move.ROCK, "bob")),
        ("throw bob rock", Throw(Move.ROCK, "bob")),
        ("games", ListGames()),
        ("Score", ShowScore()),
        ("STOP", OptOut()),
        (" quit ", OptOut()),
        ("revoke", OptOut()),
        ("start", AnsweredByTwilio("START")),
        ("unstop", AnsweredByTwilio("START")),
    ],
)
def test_commands_are_case_insensitive_and_forgiving_of_spaces(body: str, command: object) -> None:
    assert parse(body) == command


@pytest.mark.parametrize(
    ("body", "reply"),
    [
        ("", replies.empty_message()),
        ("nick", replies.nick_usage()),
        ("nick two words", replies.nick_invalid()),
        ("nick ab", replies.nick_invalid()),
        ("nick sixteen_chars_xx", replies.nick_invalid()),
        ("nick help", replies.nick_invalid()),
        ("nick Scissor", replies.nick_invalid()),
        ("nick bøb", replies.nick_invalid()),
        ("throw", replies.throw_usage()),
        ("throw rock", replies.throw_usage()),
        ("throw lizard bob", replies.unknown_move()),
        ("throw rock b😀b", replies.unknown_player(None)),
        ("help nonsense", replies.unknown_help_topic()),
        ("hello there", replies.unknown_command()),
    ],
)
def test_bad_input_becomes_a_clear_reply(body: str, reply: str) -> None:
    assert parse(body) == ReplyOnly(reply) or parse(body) == ShowHelp(reply)


def test_stop_inside_a_sentence_is_not_an_opt_out() -> None:
    assert not isinstance(parse("please stop it"), OptOut)


def test_nicknames_cannot_be_commands_or_moves() -> None:
    for word in ("help", "Nick", "THROW", "games", "score", "stop", "rock", "pap", "sciss"):
        assert not is_valid_nickname(word)
    assert is_valid_nickname("Rocky")


@given(st.text(max_size=2500))
def test_any_text_parses_to_a_command_without_raising(body: str) -> None:
    command = parse(body)
    if isinstance(command, ReplyOnly | ShowHelp):
        assert replies.is_single_segment(command.text)
    if isinstance(command, SetNickname):
        assert is_valid_nickname(command.display_name)


# --- opt-out words as people type them ------------------------------------------------------------

TWILIO_OPT_OUT_WORDS = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\ufe0f"]


def _typed_forms(word: str) -> list[str]:
    full_width = "".join(chr(ord(letter) + 0xFEE0) for letter in word)
    return [
        word,
        word.lower(),
        word.capitalize(),
        f"  {word}  ",
        f"{word}.",
        f"{word.lower()}!",
        f"{word.capitalize()}!!!",
        f'"{word}"',
        f"¡{word}!",
        f"{word} 🛑",
        full_width,
        *(word[:2] + invisible + word[2:] for invisible in ZERO_WIDTH),
        f"\u200b{word}\u200b",
    ]


@pytest.mark.parametrize("word", TWILIO_OPT_OUT_WORDS)
def test_every_twilio_opt_out_word_opts_out_however_it_is_typed(word: str) -> None:
    for typed in _typed_forms(word):
        assert parse(typed) == OptOut(), repr(typed)


@pytest.mark.parametrize("word", ["START", "UNSTOP", "YES"])
def test_opt_in_words_are_left_to_twilio_to_answer(word: str) -> None:
    for typed in _typed_forms(word):
        assert parse(typed) == AnsweredByTwilio("START"), repr(typed)


@pytest.mark.parametrize("body", ["stop bob", "please stop", "stop it!", "end game", "stopp", "quitter"])
def test_an_opt_out_word_with_other_words_is_not_an_opt_out(body: str) -> None:
    assert not isinstance(parse(body), OptOut)


def test_help_typed_with_punctuation_is_still_help() -> None:
    assert parse("Help!") == ShowHelp(replies.help_overview())
    assert parse("ＨＥＬＰ") == ShowHelp(replies.help_overview())
    assert parse("info") == ShowHelp(replies.help_overview())


def test_full_width_and_invisible_characters_do_not_break_commands() -> None:
    assert parse("ｎｉｃｋ Ａｌｉｃｅ") == SetNickname("Alice")
    assert parse("throw\u200b rock bob") == Throw(Move.ROCK, "bob")


# --- Twilio's OptOutType (Advanced Opt-Out) ---------------------------------------------------------


@pytest.mark.parametrize("body", ["STOP", "arrêt", "BAJA", "rock bob", ""])
def test_opt_out_type_stop_opts_out_whatever_the_body(body: str) -> None:
    assert parse(body, "STOP") == OptOut()


@pytest.mark.parametrize(
    ("body", "kind"), [("START", "START"), ("ALTA", "START"), ("HELP", "HELP"), ("AIDE", "HELP")]
)
def test_opt_out_type_start_or_help_was_answered_by_twilio(body: str, kind: str) -> None:
    assert parse(body, kind) == AnsweredByTwilio(kind)
    assert parse(body, kind.lower()) == AnsweredByTwilio(kind)


def test_an_unknown_opt_out_type_is_ignored() -> None:
    assert parse("help", "SOMETHING_NEW") == ShowHelp(replies.help_overview())
    assert parse("rock bob", "") == Throw(Move.ROCK, "bob")


def test_help_without_opt_out_type_gets_our_help() -> None:
    # Without Advanced Opt-Out, Twilio does not tell us it answered: the game's help is the answer.
    assert parse("HELP", None) == ShowHelp(replies.help_overview())


# --- nicknames that look alike --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("aIice", "alice"),
        ("a1ice", "alice"),
        ("ALICE", "alice"),
        ("b0b", "bob"),
        ("B0B", "bob"),
        ("rnary", "mary"),
        ("vvendy", "wendy"),
        ("5am", "sam"),
        ("Ill_1", "lll_l"),
    ],
)
def test_nicknames_that_look_alike_are_the_same_nickname(one: str, other: str) -> None:
    assert nickname_key(one) == nickname_key(other)
    assert SetNickname(one).key == SetNickname(other).key
    assert Throw(Move.ROCK, one).opponent_key == SetNickname(other).key


@pytest.mark.parametrize(
    ("one", "other"), [("alice", "alicia"), ("bob", "rob"), ("sam", "pam"), ("max", "rnax_")]
)
def test_different_nicknames_stay_different(one: str, other: str) -> None:
    assert nickname_key(one) != nickname_key(other)


def test_a_look_alike_of_a_reserved_word_is_not_a_nickname() -> None:
    for name in ("st0p", "he1p", "R0CK", "5core", "garnes"):
        assert not is_valid_nickname(name), name
