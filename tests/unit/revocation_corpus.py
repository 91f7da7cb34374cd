"""Precision and recall of the opt-out reading on each half of the revocation test set.

    .venv/bin/python -m tests.unit.revocation_corpus

A text counts as taken for a revocation when `parse` returns `OptOut` for it, so the figures are
those of the bot as a whole: Twilio's keywords, the keyword as typed, the free-text rules and
the rule that a real command always wins. docs/opt-out.md quotes the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from serverless_rps.parsing import OptOut, parse
from tests.unit import revocation_held_out, revocation_tuning


def taken_for_revocation(text: str) -> bool:
    return isinstance(parse(text), OptOut)


@dataclass(frozen=True)
class Measure:
    """How one half of the test set is read."""

    name: str
    missed: tuple[str, ...]  # revocations not taken for one
    game_talk_taken: tuple[str, ...]  # game talk taken for a revocation
    other_taken: tuple[str, ...]  # other text taken for a revocation
    revocations: int
    texts: int

    @property
    def recall(self) -> float:
        return (self.revocations - len(self.missed)) / self.revocations

    @property
    def precision(self) -> float:
        found = self.revocations - len(self.missed)
        return found / (found + len(self.game_talk_taken) + len(self.other_taken))

    def report(self) -> str:
        lines = [
            f"{self.name}: {self.texts} texts, {self.revocations} revocations; "
            f"recall {self.recall:.1%}, precision {self.precision:.1%}",
            *(f"  missed: {text!r}" for text in self.missed),
            *(f"  game talk taken: {text!r}" for text in self.game_talk_taken),
            *(f"  other text taken: {text!r}" for text in self.other_taken),
        ]
        return "\n".join(lines)


def measure(name: str, half: ModuleType) -> Measure:
    revocations: tuple[str, ...] = half.REVOCATIONS
    game_talk: tuple[str, ...] = half.GAME_TALK
    other: tuple[str, ...] = half.OTHER_TEXT
    return Measure(
        name=name,
        missed=tuple(text for text in revocations if not taken_for_revocation(text)),
        game_talk_taken=tuple(text for text in game_talk if taken_for_revocation(text)),
        other_taken=tuple(text for text in other if taken_for_revocation(text)),
        revocations=len(revocations),
        texts=len(revocations) + len(game_talk) + len(other),
    )


TUNING = ("tuning half", revocation_tuning)
HELD_OUT = ("held-out half", revocation_held_out)

if __name__ == "__main__":
    for name, half in (TUNING, HELD_OUT):
        print(measure(name, half).report())
