"""One test per table of texts for the revocation classifier: every text of the table is checked,
none stops the others, and a failure names each text read wrong with what was expected and what
it got.

The revocation tests read thousands of texts. One test per text cost more in pytest's reporting
(about 1.4 ms a test on xdist's processes) than in reading the text, and most of `make check`'s
time went to it; one test per table reads the same texts against the same expectations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from serverless_rps.parsing import OptOut, parse
from serverless_rps.revocation import words_of

__all__ = [
    "assert_each_read_right",
    "holds",
    "missed",
    "not_held",
    "not_in_words",
    "opts_out",
    "phrase_missed",
    "taken",
]


def opts_out(text: str) -> bool:
    return isinstance(parse(text), OptOut)


def holds(text: str, phrase: str) -> bool:
    """Whether the text, as the classifier reads it, holds the phrase (as it reads it too)."""
    words, wanted = words_of(text), words_of(phrase)
    return any(words[start : start + len(wanted)] == wanted for start in range(len(words)))


def missed(text: str) -> str | None:
    """What is wrong when `text` is to be an opt-out: nothing when parse reads it as one."""
    command = parse(text)
    return None if isinstance(command, OptOut) else f"{text!r}: expected an opt-out, got {command!r}"


def taken(text: str) -> str | None:
    """What is wrong when `text` is to be no opt-out: nothing when parse reads it otherwise."""
    command = parse(text)
    if isinstance(command, OptOut):
        return f"{text!r}: expected no opt-out, got one by rule {command.rule!r}"
    return None


def not_held(text: str, phrase: str) -> str | None:
    """What is wrong when a table's text is to hold its phrase as the classifier reads it."""
    if holds(text, phrase):
        return None
    return f"{text!r} does not hold {phrase!r}: it reads {words_of(text)}"


def phrase_missed(phrase: str, text: str) -> str | None:
    """What is wrong when a table's text is to hold its phrase and be an opt-out."""
    return not_held(text, phrase) or missed(text)


def not_in_words(word: str, text: str) -> str | None:
    """What is wrong when a table's text is to hold its word as the classifier reads it."""
    if word in words_of(text):
        return None
    return f"{word!r} is not a word of {text!r}: it reads {words_of(text)}"


def assert_each_read_right(cases: Iterable[object], check: Callable[..., str | None]) -> None:
    """Check every case (a tuple is spread over `check`'s arguments); `check` says what is wrong
    with a case, or None. Fails once, listing every case that is wrong, with what was wrong."""
    every = list(cases)
    assert every, "a table with no texts checks nothing"
    wrong = []
    for case in every:
        problem = check(*case) if isinstance(case, tuple) else check(case)
        if problem is not None:
            # A case that is the text itself is named once, by the problem that names its text.
            wrong.append(f"  {problem}" if problem.startswith(repr(case)) else f"  {case!r}: {problem}")
    assert not wrong, f"{len(wrong)} of {len(every)} cases read wrong:\n" + "\n".join(wrong)
