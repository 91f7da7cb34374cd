"""Every reply the code can produce fits one GSM-7 segment: each public function of `replies`,
called with worst-case arguments (longest names, every move and outcome, large numbers, long lists)."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from serverless_rps import replies
from serverless_rps.parsing import is_valid_nickname
from serverless_rps.rules import Move, Outcome

_GSM7 = "".join(sorted(replies.GSM7_BASIC - {"\n", "\r"}))
programs = st.builds(
    replies.Program,
    st.text(_GSM7, min_size=1, max_size=replies.PROGRAM_NAME_LIMIT),
    st.text(_GSM7, min_size=1, max_size=replies.SUPPORT_CONTACT_LIMIT),
)
nicknames = st.from_regex(r"[A-Za-z0-9_]{3,15}", fullmatch=True).filter(is_valid_nickname)
ARGUMENT_STRATEGIES: dict[Any, st.SearchStrategy[Any]] = {
    str: nicknames,
    Move: st.sampled_from(Move),
    Move | None: st.none() | st.sampled_from(Move),
    replies.Program: programs,
    Outcome: st.sampled_from(Outcome),
    int: st.integers(min_value=-99_999, max_value=99_999),
    str | None: st.none() | nicknames,
    Sequence[tuple[str, int]]: st.lists(st.tuples(nicknames, st.integers(0, 99_999)), max_size=30),
}
REPLY_FUNCTIONS = {
    name: function
    for name, function in inspect.getmembers(replies, inspect.isfunction)
    if name in replies.__all__ and name != "is_single_segment"
}


def strategy_for(hint: Any) -> st.SearchStrategy[Any]:
    if hint in ARGUMENT_STRATEGIES:
        return ARGUMENT_STRATEGIES[hint]
    if typing.get_origin(hint) is not None and typing.get_args(hint) == (str,):  # Sequence[str]
        return st.lists(nicknames, max_size=60)
    raise AssertionError(f"no worst-case strategy for {hint!r}: extend ARGUMENT_STRATEGIES")


def test_every_reply_function_is_exported_and_walked() -> None:
    # "mutmut" names are the copies `make mutants` plants beside each function (scripts/mutants.py).
    public = {
        name
        for name, _ in inspect.getmembers(replies, inspect.isfunction)
        if not name.startswith("_") and "mutmut" not in name
    }
    assert public <= set(replies.__all__)
    assert len(REPLY_FUNCTIONS) >= 25


@pytest.mark.parametrize("name", sorted(REPLY_FUNCTIONS))
def test_every_reply_fits_one_gsm7_segment(name: str) -> None:
    function: Callable[..., str | None] = REPLY_FUNCTIONS[name]
    hints = typing.get_type_hints(function)
    arguments = {param: strategy_for(hints[param]) for param in inspect.signature(function).parameters}

    @settings(max_examples=60, deadline=None)
    @given(st.fixed_dictionaries(arguments))
    def check(kwargs: dict[str, Any]) -> None:
        text = function(**kwargs)
        if text is None:  # help_topic for an unknown topic
            return
        assert replies.is_single_segment(text), f"{name}({kwargs}) -> {len(text)} chars: {text!r}"

    check()


def test_worst_case_names_still_fit() -> None:
    longest = "W" * 15
    for text in (
        replies.challenged(longest),
        replies.result(Outcome.LOSS, Move.SCISSORS, Move.SCISSORS, longest),
        replies.nick_changed(longest, longest),
        replies.games_summary([longest] * 20, [longest] * 50),
        replies.games_summary([longest] * 20, [longest] * 50, Move.SCISSORS, 10**9),
        replies.games_summary([], [], Move.SCISSORS, 10**9),
        replies.top_with_rank([(longest, 10**9)] * 20, 10**9, 10**9),
        replies.top_unranked([(longest, 10**9)] * 20),
        replies.nick_taken_look_alike(longest, longest),
        *(
            reply(replies.Program("W" * replies.PROGRAM_NAME_LIMIT, "W" * replies.SUPPORT_CONTACT_LIMIT))
            for reply in (replies.opt_in_confirmation, replies.program_help, replies.opt_out_confirmation)
        ),
    ):
        assert replies.is_single_segment(text), text


@pytest.mark.parametrize(
    ("name", "support", "error"),
    [
        ("", "help@acme.example", "the program name must be 1-30 GSM-7 characters, got ''"),
        ("R" * 31, "help@acme.example", f"the program name must be 1-30 GSM-7 characters, got {'R' * 31!r}"),
        (
            "Acme RPS\u2122",
            "help@acme.example",
            "the program name must be 1-30 GSM-7 characters, got 'Acme RPS\u2122'",
        ),
        ("Acme RPS", "", "the support contact must be 1-40 GSM-7 characters, got ''"),
        ("Acme RPS", "h" * 41, f"the support contact must be 1-40 GSM-7 characters, got {'h' * 41!r}"),
        (
            "Acme RPS",
            "\u260e 555 0100",
            "the support contact must be 1-40 GSM-7 characters, got '\u260e 555 0100'",
        ),
    ],
)
def test_a_program_name_or_support_contact_no_reply_could_carry_is_refused_saying_which(
    name: str, support: str, error: str
) -> None:
    # The operator reads this when the function refuses to start (config.py adds which setting).
    with pytest.raises(ValueError, match=f"^{re.escape(error)}$"):
        replies.Program(name, support)


def test_help_topics_cover_every_command() -> None:
    for topic in ("nick", "name", "throw", "t", "play", "games", "score", "stop", "again", "top"):
        text = replies.help_topic(topic)
        assert text is not None
        assert replies.is_single_segment(text)


def test_long_game_lists_are_shortened_with_a_count() -> None:
    text = replies.games_summary([f"player{n:03d}" for n in range(30)], [])
    assert "+" in text
    assert "more" in text
    assert replies.is_single_segment(text)


def test_gsm7_check_rejects_emoji_and_long_text() -> None:
    assert not replies.is_single_segment("hi 😀")
    assert not replies.is_single_segment("a" * 161)
    assert replies.is_single_segment("a" * 160)


# GSM 03.38's default alphabet as the standard tables it, 16 septets a row (0x00-0x7F), with 0x1B
# (the escape to the extension table) left out.
GSM_03_38_BASIC = (
    "@£$¥èéùìòÇ\nØø\rÅå"
    "Δ_ΦΓΛΩΠΨΣΘΞÆæßÉ"
    " !\"#¤%&'()*+,-./"
    "0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNO"
    "PQRSTUVWXYZÄÖÑÜ§"
    "¿abcdefghijklmno"
    "pqrstuvwxyzäöñüà"
)


@pytest.mark.parametrize("character", GSM_03_38_BASIC)
def test_every_character_of_gsm_03_38s_basic_alphabet_costs_one_septet_of_a_segment(character: str) -> None:
    assert replies.is_single_segment(character * 160)


@pytest.mark.parametrize("character", ["€", "^", "{", "[", "~", "|", "\\", "ç", "á", "\u2019"])
def test_a_character_of_the_escape_table_or_outside_gsm_7_does_not_fit(character: str) -> None:
    """The escape table's (€ ^ { [ ~ | \\) cost two septets; the others are not GSM-7 at all."""
    assert not replies.is_single_segment(character)
