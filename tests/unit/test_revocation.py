"""Free-text revocation (serverless_rps/revocation.py, read by parsing.parse): what counts as a
request to stop texting, what does not, and bad input. The test set's two halves are
revocation_tuning.py (every text must be read right) and revocation_held_out.py (measured only:
recall at least 98%, and game talk never taken for a revocation)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverless_rps import replies, revocation
from serverless_rps.parsing import (
    Command,
    ListGames,
    OptOut,
    ReplyOnly,
    SetNickname,
    ShowHelp,
    ShowScore,
    Throw,
    parse,
)
from serverless_rps.revocation import Revocation, classify
from serverless_rps.rules import Move
from tests.unit import revocation_held_out, revocation_tuning
from tests.unit.revocation_corpus import HELD_OUT, measure


@pytest.mark.parametrize("text", revocation_tuning.REVOCATIONS)
def test_a_request_to_stop_is_an_opt_out(text: str) -> None:
    assert isinstance(parse(text), OptOut)


@pytest.mark.parametrize("text", revocation_tuning.GAME_TALK + revocation_tuning.OTHER_TEXT)
def test_game_talk_and_other_text_are_not_opt_outs(text: str) -> None:
    assert not isinstance(parse(text), OptOut)


def test_the_held_out_half_is_read_with_at_least_98_percent_recall_and_no_game_talk_taken() -> None:
    held_out = measure(*HELD_OUT[0])
    assert held_out.recall >= 0.98, held_out.report()
    assert held_out.game_talk_taken == (), held_out.report()


def test_the_test_set_has_150_texts_of_both_kinds_in_two_halves() -> None:
    for half in (revocation_tuning, revocation_held_out):
        assert half.REVOCATIONS
        assert half.GAME_TALK
        texts = half.REVOCATIONS + half.GAME_TALK + half.OTHER_TEXT
        assert len(set(texts)) == len(texts)
    tuning = revocation_tuning.REVOCATIONS + revocation_tuning.GAME_TALK + revocation_tuning.OTHER_TEXT
    held_out = (
        revocation_held_out.REVOCATIONS + revocation_held_out.GAME_TALK + revocation_held_out.OTHER_TEXT
    )
    assert len(tuning) + len(held_out) >= 150


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("stop texting me pls", "stop-texting"),
        ("quit msging me", "stop-texting"),
        ("stop sending me messages", "stop-texting"),
        ("Stop please", "stop-courtesy"),
        ("stop it now thx", "stop-courtesy"),
        ("how do i unsubscribe", "unsubscribe"),
        ("opt me out", "opt-out"),
        ("don't contact me", "do-not-text"),
        ("I dont want any more texts", "do-not-want-texts"),
        ("no more msgs", "no-more-texts"),
        ("leave me alone", "leave-me-alone"),
        ("delete my number", "delete-my-number"),
        ("cancel my subscription", "cancel-subscription"),
        ("wrong number", "wrong-number"),
        ("remove me from your list", "remove-me"),
        ("take me off", "take-me-off"),
        ("delete me", "delete-me"),
        ("I quit", "i-quit"),
        ("S T O P", "spelled-out-keyword"),
    ],
)
def test_each_opt_out_names_the_rule_that_matched_and_gets_our_confirmation(text: str, rule: str) -> None:
    assert parse(text) == OptOut(confirm=True, rule=rule)
    assert classify(text) == Revocation(rule)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("nick stop", ReplyOnly(replies.nick_invalid())),
        ("nick stop_texting", SetNickname("stop_texting")),
        ("throw rock stop", Throw(Move.ROCK, "stop")),
        ("rock stop", Throw(Move.ROCK, "stop")),
        ("help stop", ShowHelp(replies.help_topic("stop") or "")),
        ("games stop", ListGames()),
        ("score please stop", ShowScore()),
    ],
)
def test_a_real_command_always_wins(text: str, command: Command) -> None:
    assert parse(text) == command


@pytest.mark.parametrize(
    "text",
    [
        "nick stop texting me",
        "throw lizard, and stop texting me",
        "help i want to unsubscribe",
        "again, leave me alone",
    ],
)
def test_a_usage_error_may_be_a_revocation(text: str) -> None:
    # Text a command word starts but no command reads would be answered with a usage error.
    assert isinstance(parse(text), OptOut)


@pytest.mark.parametrize(
    "text",
    [
        "don't stop texting me",
        "I can't ever stop messaging this bot lol",
        "bob won't stop texting me about rock",
        "never unsubscribe",
    ],
)
def test_a_negated_phrase_is_not_a_revocation(text: str) -> None:
    assert classify(text) is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # A negation reaches three words: one further back negates nothing after it.
        ("I don't know who this is, stop texting me", "stop-texting"),
        ("Not sure how I got on this, but stop texting me", "stop-texting"),
        # A one-word clear phrase stands anywhere, whatever follows it.
        ("Unsubscribe from this game", "unsubscribe"),
        ("optout of this game", "opt-out"),
        # A clear phrase that a courtesy word negates still counts when the whole text is
        # courtesy and stop phrases: "not interested" is a polite no, not a negation.
        ("Not interested. Unsubscribe", "unsubscribe"),
        ("not interested, stop texting me", "stop-texting"),
    ],
)
def test_a_revocation_is_read_past_what_comes_before_or_after_it(text: str, rule: str) -> None:
    assert parse(text) == OptOut(confirm=True, rule=rule)


@pytest.mark.parametrize(
    ("text", "rule"), [("S T O P", "spelled-out-keyword"), ("st op", None), ("qu it", None)]
)
def test_only_single_letters_spell_out_a_keyword(text: str, rule: str | None) -> None:
    # Pieces of words that happen to join into a keyword are not spelling it out.
    assert classify(text) == (Revocation(rule) if rule else None)


@pytest.mark.parametrize(
    ("pattern", "phrases"),
    [
        ("leave me alone", {("leave", "me", "alone")}),
        ("no more (text|message)", {("no", "more", "text"), ("no", "more", "message")}),
        (
            "opt [me|this number] out",
            {("opt", "me", "out"), ("opt", "this", "number", "out"), ("opt", "out")},
        ),
    ],
)
def test_the_rules_notation_allows_the_word_sequences_it_says(
    pattern: str, phrases: set[tuple[str, ...]]
) -> None:
    # `(a|b)` is a choice, `[a|b]` an optional one, a choice may hold several words. The rules'
    # tables are expanded from this notation once, when the module loads; the tests above read
    # texts through them, and this pins the notation a new rule is written in. (A mutation run
    # switches a planted bug on only inside a test's calls, which that load is not.)
    assert set(revocation._expand(pattern)) == phrases


# Bad input: mixed scripts, full-width letters, zero-width characters, emoji, punctuation runs.


def full_width(text: str) -> str:
    return "".join(
        chr(ord(character) + 0xFEE0) if "!" <= character <= "~" else character for character in text
    )


def with_zero_width_characters(text: str) -> str:
    return "\u200b".join(text[index : index + 2] for index in range(0, len(text), 2)) + "\ufeff"


def with_emoji_between_words(text: str) -> str:
    return " 😤 ".join(text.split()) + " 🙏🏽"


def with_punctuation_runs(text: str) -> str:
    return "!!! ".join(text.split()) + "?!?!..."


def shouted(text: str) -> str:
    return text.upper()


TYPED_FORMS = [
    full_width,
    with_zero_width_characters,
    with_emoji_between_words,
    with_punctuation_runs,
    shouted,
]
ALL_TEXTS = [
    *revocation_tuning.REVOCATIONS,
    *revocation_tuning.GAME_TALK,
    *revocation_tuning.OTHER_TEXT,
    *revocation_held_out.REVOCATIONS,
    *revocation_held_out.GAME_TALK,
    *revocation_held_out.OTHER_TEXT,
]


@given(text=st.sampled_from(ALL_TEXTS), typed=st.sampled_from(TYPED_FORMS))
def test_a_text_is_classified_the_same_however_it_is_typed(text: str, typed: Callable[[str], str]) -> None:
    assert classify(typed(text)) == classify(text)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("ＳＴＯＰ ＴＥＸＴＩＮＧ ＭＥ", "stop-texting"),
        ("stop texting me спасибо", "stop-texting"),
        ("αλήθεια, leave me alone", "leave-me-alone"),
        ("لا شكرا unsubscribe", "unsubscribe"),
        ("ѕтор texting me", None),  # Cyrillic look-alikes are other letters, as for commands
        ("stop спасибо", None),  # a bare stop with a word we cannot read stays game talk
        ("stop" + "!" * 1596, "keyword-as-typed"),
    ],
)
def test_mixed_scripts_are_read_word_by_word(text: str, rule: str | None) -> None:
    command = parse(text)
    if rule is None:
        assert not isinstance(command, OptOut)
    else:
        assert command == OptOut(confirm=True, rule=rule)


VOCABULARY = sorted(
    {word for text in ALL_TEXTS for word in text.split()} | {"😤", "!!!", "\u200b", "ＳＴＯＰ", "#"}
)


@given(st.lists(st.sampled_from(VOCABULARY), max_size=400).map(" ".join).map(lambda text: text[:1600]))
def test_any_mix_of_the_test_sets_words_parses_to_a_command(text: str) -> None:
    command = parse(text)
    if isinstance(command, OptOut):
        assert command.rule
    if isinstance(command, ReplyOnly | ShowHelp):
        assert replies.is_single_segment(command.text)


@given(st.text(max_size=1600))
def test_any_text_is_classified_without_raising(text: str) -> None:
    verdict = classify(text)
    assert verdict is None or verdict.rule


class CountingLookups(dict[tuple[str, ...], str]):
    lookups = 0

    def get(self, key: tuple[str, ...], default: str | None = None) -> str | None:  # type: ignore[override]
        CountingLookups.lookups += 1
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        CountingLookups.lookups += 1
        return super().__contains__(key)


@pytest.mark.parametrize(
    "text",
    [
        "stop " * 320,
        "please " * 227 + "stop",
        "a " * 800,
        "dont " * 320,
        "stop texting " * 123,
        "!" * 1600,
        "s t o p " * 200,
    ],
    ids=["stops", "courtesy-then-stop", "letters", "negations", "phrases", "punctuation", "spelled-out"],
)
def test_a_1600_character_text_costs_a_bounded_number_of_look_ups_per_word(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No backtracking: the rules look phrases up in sets, at most four times per word and
    # phrase length, so the work grows with the text's length and no faster.
    for table in ("_CLEAR_PHRASES", "_BARE_STOPS", "_COURTESY_AND_CONTEXT"):
        monkeypatch.setattr(revocation, table, CountingLookups(getattr(revocation, table)))
    CountingLookups.lookups = 0
    classify(text)
    words = len(revocation.words_of(text))
    assert CountingLookups.lookups <= 4 * revocation._LONGEST_PHRASE * (words + 1)
