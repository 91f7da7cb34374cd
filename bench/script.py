"""The scripted 1,000-message game: 50 players register, then 475 pairs each throw once at each
other, in a shuffled order (the first throw of a pair waits, the second resolves the game).

Every player is in exactly 19 pairs (a circulant graph: neighbours at distance 1-9 and 25), so no
player ever has more than 19 open games and no throw is refused for the 20-game limit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["PLAYERS", "ScriptedMessage", "nickname", "pairs", "phone", "scripted_game"]

PLAYERS = 50
_MOVES = ("rock", "paper", "scissors")


def phone(index: int) -> str:
    return f"+1555600{index:04d}"


def nickname(index: int) -> str:
    return f"player{index:02d}"


@dataclass(frozen=True)
class ScriptedMessage:
    sender: str
    body: str
    kind: str  # "nick" or "throw"


def pairs(players: int = PLAYERS) -> list[tuple[int, int]]:
    distances = [*range(1, 10), players // 2]
    found = {
        (min(i, (i + d) % players), max(i, (i + d) % players)) for i in range(players) for d in distances
    }
    return sorted(found)


def scripted_game(seed: int = 2026) -> list[ScriptedMessage]:
    chance = random.Random(seed)
    messages = [ScriptedMessage(phone(i), f"nick {nickname(i)}", "nick") for i in range(PLAYERS)]
    throws = [
        ScriptedMessage(phone(a), f"throw {chance.choice(_MOVES)} {nickname(b)}", "throw")
        for x, y in pairs()
        for a, b in ((x, y), (y, x))
    ]
    chance.shuffle(throws)
    return messages + throws
