from __future__ import annotations

import pytest

from serverless_rps.rules import Move, Outcome, move_from_word, play


@pytest.mark.parametrize(
    ("mine", "theirs", "outcome"),
    [
        (Move.ROCK, Move.SCISSORS, Outcome.WIN),
        (Move.SCISSORS, Move.PAPER, Outcome.WIN),
        (Move.PAPER, Move.ROCK, Outcome.WIN),
        (Move.SCISSORS, Move.ROCK, Outcome.LOSS),
        (Move.ROCK, Move.ROCK, Outcome.TIE),
    ],
)
def test_each_move_beats_exactly_one_other(mine: Move, theirs: Move, outcome: Outcome) -> None:
    assert play(mine, theirs) is outcome


def test_the_game_is_symmetric() -> None:
    for mine in Move:
        for theirs in Move:
            assert play(theirs, mine) is play(mine, theirs).reversed


@pytest.mark.parametrize(
    ("word", "move"),
    [
        ("r", Move.ROCK),
        ("ROC", Move.ROCK),
        ("pap", Move.PAPER),
        ("sc", Move.SCISSORS),
        (" Paper ", Move.PAPER),
    ],
)
def test_moves_are_recognised_by_any_prefix(word: str, move: Move) -> None:
    assert move_from_word(word) is move


@pytest.mark.parametrize("word", ["", "rocks", "x", "papers", "scissorss", "🪨"])
def test_other_words_are_not_moves(word: str) -> None:
    assert move_from_word(word) is None
