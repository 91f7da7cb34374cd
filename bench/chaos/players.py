"""Simulated players who play real games: they register, challenge each other, answer the
challenges they are told about, ask for their games and score, send junk, and (the "churn" few)
rename, text STOP and come back. What they know comes only from the SMS they receive.
"""

from __future__ import annotations

import random
import re
import threading
from dataclasses import dataclass, field

__all__ = ["JUNK", "Players", "SoakPlayer"]

MOVES = ("rock", "paper", "scissors", "r", "p", "s")
JUNK = (
    "",
    "   ",
    "hello",
    "throw",
    "throw rock",
    "nick",
    "nick a",
    "nick has spaces in it",
    "rock rock rock",
    "\U0001f916 rock",
    "piedra contra juan",
    "камень",
    "石头",
    "help me",
    "help throw",
    "x" * 2000,
    "THROW ROCK nobody_here",
)
# What the game texts a player, in English or in Spanish: a soak player who texts a Spanish command
# (`piedra contra juan`, among the junk) reads Spanish from then on.
_CHALLENGED = re.compile(
    r"^(\w+) challenged you to rock-paper-scissors!|^¡(\w+) te reta a piedra, papel o tijera!"
)
_REGISTERED = ("Welcome, ", "You're now ", "You're already", "¡Listo, ", "Ahora eres ", "Ya eres ")


@dataclass
class SoakPlayer:
    phone: str
    name: str
    stable: bool
    registered: bool = False
    opted_out: bool = False
    renames: int = 0
    challenged_by: set[str] = field(default_factory=set)
    threw_at: set[str] = field(default_factory=set)


class Players:
    """The players and their view of the game. Thread-safe: replies arrive on other threads."""

    def __init__(self, count: int, churn_share: float, chance: random.Random) -> None:
        self._chance = chance
        self._lock = threading.Lock()
        self.players: dict[str, SoakPlayer] = {}
        for index in range(count):
            phone = f"+1555077{index:04d}"
            self.players[phone] = SoakPlayer(phone, f"p{index:03d}", stable=chance.random() >= churn_share)
        self._by_name = {player.name.lower(): player for player in self.players.values()}

    @property
    def stable_phones(self) -> set[str]:
        return {player.phone for player in self.players.values() if player.stable}

    def hear(self, to: str, body: str) -> None:
        """An SMS reached a player: learn what it says."""
        with self._lock:
            player = self.players.get(to)
            if player is None:
                return
            if body.startswith(_REGISTERED):
                player.registered = True
            challenger = _CHALLENGED.match(body)
            if challenger:
                player.challenged_by.add(challenger.group(1) or challenger.group(2))

    def next_message(self) -> tuple[str, str, str]:
        """(phone, body, kind) of the next text some player sends."""
        chance = self._chance
        with self._lock:
            player = chance.choice(list(self.players.values()))
            if player.opted_out:
                player.opted_out = False
                player.registered = False
                return player.phone, "START", "start"
            if not player.registered:
                return player.phone, f"nick {player.name}", "nick"
            if player.challenged_by and chance.random() < 0.7:
                opponent = chance.choice(sorted(player.challenged_by))
                player.challenged_by.discard(opponent)
                return player.phone, f"throw {chance.choice(MOVES)} {opponent}", "answer"
            roll = chance.random()
            if roll < 0.50:
                others = [
                    other for other in self.players.values() if other is not player and other.registered
                ]
                if others:
                    opponent_player = chance.choice(others)
                    return player.phone, f"throw {chance.choice(MOVES)} {opponent_player.name}", "challenge"
            if roll < 0.62:
                return player.phone, "games", "games"
            if roll < 0.72:
                return player.phone, "score", "score"
            if roll < 0.76:
                return player.phone, "help", "help"
            if not player.stable and roll < 0.80:
                player.renames += 1
                new_name = f"{player.name.split('x')[0]}x{player.renames}"
                self._by_name.pop(player.name.lower(), None)
                player.name = new_name
                self._by_name[new_name.lower()] = player
                return player.phone, f"nick {new_name}", "rename"
            if not player.stable and roll < 0.84:
                player.opted_out = True
                player.challenged_by.clear()
                return player.phone, "STOP", "stop"
            return player.phone, chance.choice(JUNK), "junk"
