from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverless_rps import replies
from serverless_rps.parsing import (
    ListGames,
    OptIn,
    OptOut,
    ReplyOnly,
    SetNickname,
    ShowHelp,
    ShowScore,
    Throw,
    is_valid_nickname,
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
        ("start", OptIn()),
        ("unstop", OptIn()),
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
