"""Every reply the code can produce fits one segment as Twilio bills it, in English and in Spanish:
each function of both catalogues (`catalogue.Catalogue`), called with worst-case arguments (longest
names, the longest program name and support contact, every move and outcome, large numbers, long
lists), is one GSM-7 segment by `segments.count_segments`, and from GSM-7's basic table only (so
Smart Encoding never rewrites it)."""

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
from serverless_rps.catalogue import CATALOGUES, Catalogue
from serverless_rps.parsing import is_valid_nickname
from serverless_rps.rules import Move, Outcome
from serverless_rps.segments import count_segments

_GSM7 = "".join(sorted(replies.GSM7_BASIC - {"\n", "\r"}))
# The longest the template allows: a 30-character program name and a 40-character support contact.
programs = st.builds(
    replies.Program,
    st.text(_GSM7, min_size=replies.PROGRAM_NAME_LIMIT, max_size=replies.PROGRAM_NAME_LIMIT),
    st.text(_GSM7, min_size=replies.SUPPORT_CONTACT_LIMIT, max_size=replies.SUPPORT_CONTACT_LIMIT),
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
# What every catalogue has: the protocol's functions.
CATALOGUE_FUNCTIONS = sorted(
    name for name, member in vars(Catalogue).items() if callable(member) and not name.startswith("_")
)


def bills_one_segment(text: str) -> bool:
    """One GSM-7 segment as Twilio counts it, and nothing Smart Encoding or an escape could change."""
    return (
        count_segments(text).segments == 1
        and count_segments(text).encoding == "GSM-7"
        and (replies.is_single_segment(text))
    )


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


def test_both_catalogues_have_every_english_reply_and_nothing_else() -> None:
    assert set(CATALOGUE_FUNCTIONS) == set(REPLY_FUNCTIONS)
    for language, catalogue in CATALOGUES.items():
        for name in CATALOGUE_FUNCTIONS:
            assert inspect.signature(getattr(catalogue, name)) == inspect.signature(REPLY_FUNCTIONS[name]), (
                language,
                name,
            )


@pytest.mark.parametrize("language", sorted(CATALOGUES))
@pytest.mark.parametrize("name", CATALOGUE_FUNCTIONS)
def test_every_reply_fits_one_segment_as_twilio_bills_it_in_both_languages(language: str, name: str) -> None:
    function: Callable[..., str | None] = getattr(CATALOGUES[language], name)
    hints = typing.get_type_hints(function)
    arguments = {param: strategy_for(hints[param]) for param in inspect.signature(function).parameters}

    @settings(max_examples=60, deadline=None)
    @given(st.fixed_dictionaries(arguments))
    def check(kwargs: dict[str, Any]) -> None:
        text = function(**kwargs)
        if text is None:  # help_topic for an unknown topic
            return
        assert bills_one_segment(text), f"{language} {name}({kwargs}) -> {len(text)} chars: {text!r}"

    check()


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_worst_case_names_still_fit(language: str) -> None:
    say: Catalogue = CATALOGUES[language]
    longest = "W" * 15
    for text in (
        say.challenged(longest),
        *(say.result(outcome, Move.SCISSORS, Move.SCISSORS, longest) for outcome in Outcome),
        *(say.lobby_result(outcome, Move.SCISSORS, Move.SCISSORS, longest) for outcome in Outcome),
        say.nick_changed(longest, longest),
        say.games_summary([longest] * 20, [longest] * 50),
        say.games_summary([longest] * 20, [longest] * 50, Move.SCISSORS, 10**9),
        say.games_summary([], [], Move.SCISSORS, 10**9),
        say.top_with_rank([(longest, 10**9)] * 20, 10**9, 10**9),
        say.top_unranked([(longest, 10**9)] * 20),
        say.nick_taken_look_alike(longest, longest),
        *(
            reply(replies.Program("W" * replies.PROGRAM_NAME_LIMIT, "W" * replies.SUPPORT_CONTACT_LIMIT))
            for reply in (say.opt_in_confirmation, say.program_help, say.opt_out_confirmation)
        ),
    ):
        assert bills_one_segment(text), text


@pytest.mark.parametrize(
    ("text", "encoding", "segments"),
    [
        ("¡Ganaste! Tu piedra le gana a la tijera de bob.", "GSM-7", 1),  # é, ñ, ¿, ¡ are GSM-7
        ("¿Qué tal? Añade tu apodo: Ñandú", "UCS-2", 1),  # ú is not: 31 characters of UCS-2
        ("Ganó " + "a" * 65, "UCS-2", 1),  # one ó: 70 characters, one UCS-2 segment
        ("Ganó " + "a" * 66, "UCS-2", 2),  # 71: two
        ("a" * 160, "GSM-7", 1),
        ("€" * 81, "GSM-7", 2),  # the extension table costs two septets
    ],
)
def test_segments_are_counted_as_twilio_bills_them(text: str, encoding: str, segments: int) -> None:
    assert (count_segments(text).encoding, count_segments(text).segments) == (encoding, segments)


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
