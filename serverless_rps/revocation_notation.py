"""The small notation the revocation classifier's phrases are written in (`revocation_words.py`):
`stop [the|these] (text|message)`, where `(a|b)` is a choice and `[a|b]` an optional one, expanded
into tables of word sequences once, when the module loads; and what a phrase means. Pure: standard
library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Literal

__all__ = ["Language", "Meaning", "expand", "in_both_languages", "phrases"]

Language = Literal["en", "es"]

# --- The rules' notation --------------------------------------------------------------------------


def expand(pattern: str) -> list[tuple[str, ...]]:
    """`stop [the|these] (text|message)` -> every word sequence it allows. `(a|b)` is a choice,
    `[a|b]` an optional choice; a choice may hold several words (`[with the|your]`)."""
    if re.search(r"[\[(][^\])]*[\[(]", pattern):
        raise ValueError(f"a choice inside a choice, which the notation does not read: {pattern}")
    slots = re.findall(r"\[[^\]]*\]|\([^)]*\)|[^\s()\[\]]+", pattern)
    choices: list[list[tuple[str, ...]]] = []
    for slot in slots:
        if slot[0] in "[(":
            options = [tuple(option.split()) for option in slot[1:-1].split("|")]
            choices.append([*options, ()] if slot[0] == "[" else options)
        else:
            choices.append([(slot,)])
    return [tuple(word for part in parts for word in part) for parts in product(*choices)]


@dataclass(frozen=True)
class Meaning:
    """What a phrase is evidence of: the rule it matches and the language it is in."""

    rule: str  # "" for a courtesy or context word, which asks nothing by itself
    language: Language


def phrases(language: Language, rules: Mapping[str, Iterable[str]]) -> dict[tuple[str, ...], Meaning]:
    return {
        phrase: Meaning(rule, language)
        for rule, patterns in rules.items()
        for pattern in patterns
        for phrase in expand(pattern)
    }


def in_both_languages(
    english: dict[tuple[str, ...], Meaning], spanish: dict[tuple[str, ...], Meaning]
) -> dict[tuple[str, ...], Meaning]:
    """One table of both languages' phrases. A phrase written in both (Spanglish makes it easy:
    `stop [los] mensajes` is `stop text` without `los`) would be read in one language only, its
    negations the other's, so the tables refuse it when the module loads."""
    if shared := sorted(english.keys() & spanish.keys()):
        raise ValueError(f"phrases written in both languages: {shared[:5]}")
    return english | spanish
