"""How a typed word is read before the revocation rules match it (serverless_rps/normalisation.py):
its shapes (letters typed over and over, digits for letters) and typos of key words. Which key
words and which real words near them are listed is tested word by word, through the texts they
decide, in test_revocation_words.py."""

from __future__ import annotations

import pytest

from serverless_rps.normalisation import SPELLINGS, key_word_typed, spelled, typed_shapes


@pytest.mark.parametrize(
    ("typed", "shapes"),
    [
        ("stoppppp", ["stop", "stopp"]),  # once first, then twice: `sooo good` is `so`, `meee` is `me`
        ("pleeease", ["please", "pleease"]),
        ("st0p", ["stop"]),
        ("0pt", ["opt"]),
        ("m4s", ["mas"]),
        ("n0", ["no"]),
        ("unsubscr1be", ["unsubscribe", "unsubscrlbe"]),  # a 1 is an i or an l
        ("3ra5e", ["erase"]),
        ("s7op", ["stop"]),
        ("st0ppp", ["stoppp", "st0p", "st0pp", "stop", "stopp"]),
    ],
)
def test_a_word_typed_with_repeated_letters_or_digits_has_the_shapes_of_the_words_it_may_be(
    typed: str, shapes: list[str]
) -> None:
    assert typed_shapes(typed) == shapes


@pytest.mark.parametrize("typed", ["stop", "bob2", "rocky99", "alice_99", "555", "hahaha", "jajaja", "me"])
def test_a_word_with_no_letter_typed_three_times_and_no_digit_among_letters_has_no_other_shape(
    typed: str,
) -> None:
    # `bob2` has a digit, but 2 looks like no letter: it stays a name.
    assert typed_shapes(typed) == []


@pytest.mark.parametrize(
    ("typed", "key_word"),
    [
        ("remvoe", "remove"),  # two letters swapped
        ("remoce", "remove"),  # one wrong
        ("delte", "delete"),  # one missing
        ("unsubscrbe", "unsubscribe"),
        ("textign", "text"),  # read as the rules read `texting`
        ("pleease", "please"),  # one extra
        ("sotp", "stop"),  # a short key word, two letters swapped
        ("levae", "leave"),
        ("escirbirme", "escribir"),
        ("escribirm", "escribir"),  # `escribirme` missing a letter or `escribir` with one extra: both read so
    ],
)
def test_a_typo_of_a_key_word_is_read_as_it(typed: str, key_word: str) -> None:
    assert key_word_typed(typed) == key_word


@pytest.mark.parametrize(
    "typed",
    [
        "stoop",  # a short key word is read only with two letters swapped: `stoop` is a word
        "step",
        "quite",
        "cancer",
        "leaves",
        "bob",  # too short to be anyone's typo
        "st0p",  # not letters: digits are a shape, read before
        "remote",  # a real word one edit from a key word
        "testing",
    ],
)
def test_a_word_that_is_no_typo_of_a_key_word_is_none(typed: str) -> None:
    assert key_word_typed(typed) is None


def test_a_typo_of_two_key_words_read_differently_is_none() -> None:
    # `messagez` is one letter from `message` and `messages`, which the rules read alike; were
    # two key words read differently one edit away, neither would be chosen.
    assert key_word_typed("messagez") == "message"
    assert SPELLINGS["messages"] == "message"


def test_spellings_map_each_variant_to_its_word() -> None:
    assert spelled({"text": "txt sms"}) == {"txt": "text", "sms": "text"}
