"""The rules of rock-paper-scissors. Pure: standard library only."""

from __future__ import annotations

import enum

__all__ = ["Move", "Outcome", "move_from_word", "play"]


class Move(enum.Enum):
    ROCK = "rock"
    PAPER = "paper"
    SCISSORS = "scissors"

    @property
    def beats(self) -> Move:
        return _BEATS[self]


_BEATS = {Move.ROCK: Move.SCISSORS, Move.PAPER: Move.ROCK, Move.SCISSORS: Move.PAPER}


class Outcome(enum.Enum):
    """The result of a game from the point of view of one player."""

    WIN = "win"
    LOSS = "loss"
    TIE = "tie"

    @property
    def reversed(self) -> Outcome:
        return {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN, Outcome.TIE: Outcome.TIE}[self]


def play(mine: Move, theirs: Move) -> Outcome:
    """My outcome when I throw `mine` and they throw `theirs`."""
    if mine is theirs:
        return Outcome.TIE
    return Outcome.WIN if mine.beats is theirs else Outcome.LOSS


def move_from_word(word: str) -> Move | None:
    """`r`, `Roc`, `PAPER`, `sc` ... -> the move they start; anything else -> None.

    The three moves start with different letters, so every non-empty prefix is unambiguous.
    """
    word = word.strip().lower()
    if not word:
        return None
    for move in Move:
        if move.value.startswith(word):
            return move
    return None
