"""The game's records: a player and the entries it holds (pending throws, challenges, the last
opponent), the shared records (the leaderboard, the lobby) and who holds a nickname. Frozen values
with the small queries and changes the decisions (game.py) make of them; no I/O, no clock (`now`
is an argument). game_store/ stores them (items.py has their item formats).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from serverless_rps.revocation_words import Language
from serverless_rps.rules import Move

__all__ = [
    "LEADERBOARD_SHARDS",
    "LOBBY_SHARDS",
    "LOBBY_SWEEP_SECONDS",
    "SHARDS",
    "SHARED_KEY_PREFIX",
    "Challenge",
    "LastOpponent",
    "Leaderboard",
    "Lobby",
    "LobbyEntry",
    "NicknameHolder",
    "PendingThrow",
    "Player",
    "Ranking",
    "SharedRecord",
    "board_shard",
    "is_shared_key",
    "lobby_shard",
    "lock_position",
    "shared_record",
]


@dataclass(frozen=True)
class PendingThrow:
    """My move against an opponent, waiting for theirs."""

    move: Move
    opponent_player_id: str
    expires_at: float


@dataclass(frozen=True)
class Challenge:
    """An opponent's throw waiting for my move (the move itself stays on their record)."""

    challenger_player_id: str
    expires_at: float


@dataclass(frozen=True)
class LastOpponent:
    """Whom I last finished a game with, for `AGAIN`: their nickname (key and display form) and
    `player_id`, never their phone, so that an opt-out has nothing to erase here (the nickname is
    looked up again, and the id tells whether it still belongs to the same player)."""

    nickname: str
    display_name: str
    player_id: str


@dataclass(frozen=True)
class Player:
    phone: str
    player_id: str
    nickname: str
    display_name: str
    games: Mapping[str, PendingThrow] = field(default_factory=dict)
    challenges: Mapping[str, Challenge] = field(default_factory=dict)
    wins: int = 0
    losses: int = 0
    ties: int = 0
    streak: int = 0
    last_opponent: LastOpponent | None = None
    # Set when a result put the player on the leaderboard, never cleared when someone overtakes
    # them (their record is not locked then): an opt-out locks the board only when this is set.
    ranked: bool = False
    # Set when the player's lobby throw waits for a stranger (in their phone's shard, `lobby_shard`),
    # cleared when the lobby pairs them or another throw replaces their expired entry: the lobby
    # holds their phone, so an opt-out locks that shard when this is set.
    in_lobby: bool = False
    # The language the game texts them in (language.py decides it: Spanish once they text a Spanish
    # command, or as `IDIOMA`/`LANG` sets it). It lives and goes with the record: STOP erases it.
    language: Language = "en"

    def pruned(self, now: float) -> Player:
        """The same player without expired entries."""
        return replace(
            self,
            games={phone: entry for phone, entry in self.games.items() if entry.expires_at > now},
            challenges={phone: entry for phone, entry in self.challenges.items() if entry.expires_at > now},
        )

    def throw_at(self, opponent: Player, now: float) -> PendingThrow | None:
        """My live throw at this opponent (their current incarnation), if any."""
        entry = self.games.get(opponent.phone)
        if entry is None or entry.expires_at <= now or entry.opponent_player_id != opponent.player_id:
            return None
        return entry

    def counterpart_phones(self) -> list[str]:
        """Every phone this record mentions, live or expired: the records that mention me back."""
        return sorted(set(self.games) | set(self.challenges))

    def without(self, phone: str) -> Player:
        """The same player with no entry about `phone`, either way."""
        return replace(
            self,
            games={other: entry for other, entry in self.games.items() if other != phone},
            challenges={other: entry for other, entry in self.challenges.items() if other != phone},
        )


# Shared records live in the game-state table beside the players, under keys no phone can have
# (no E.164 number starts with "~"). Where each stands in the one lock order: `lock_position`.
SHARED_KEY_PREFIX = "~"

# The leaderboard and the lobby are each split in SHARDS items, so that a crowd does not queue on
# one item: every result locks the leaderboard and every lobby throw the lobby, from the lock to
# the commit. A player's line lives in the shard of their player id, their lobby entry in the
# shard of their phone: each always in the same one, found without a read. Two digits, so that
# the keys' order (the lock order) is the shards' order. Changing SHARDS moves lines and entries:
# it is a migration (docs/protocol.md, "Shards").
SHARDS = 16
LEADERBOARD_SHARDS = tuple(f"{SHARED_KEY_PREFIX}leaderboard#{shard:02d}" for shard in range(SHARDS))
_LOBBY_PREFIX = f"{SHARED_KEY_PREFIX}lobby#"
LOBBY_SHARDS = tuple(f"{_LOBBY_PREFIX}{shard:02d}" for shard in range(SHARDS))


def is_shared_key(key: str) -> bool:
    """A shared record's key, not a phone's: no E.164 number starts with `~`."""
    return key.startswith(SHARED_KEY_PREFIX)


def lock_position(key: str) -> tuple[int, str]:
    """Where a key stands in the one canonical lock order every message follows: the lobby's rooms
    first, then the phones in ascending order, then the leaderboard's shards.

    A room comes first so that a throw reads it under its lock and only then names whom to lock:
    the phone waiting in it, exactly, not as a read without a lock said (commands.LookedUp.first).
    A leaderboard shard comes last: which one a result locks is known only from the locked
    players' records (their player ids)."""
    if key.startswith(_LOBBY_PREFIX):
        return (0, key)
    return (2 if is_shared_key(key) else 1, key)


def _shard_of(text: str) -> int:
    # A hash that is the same in every process and release (Python's own `hash` is salted).
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") % SHARDS


def board_shard(player_id: str) -> str:
    """The leaderboard shard that holds this player's line, if they have one."""
    return LEADERBOARD_SHARDS[_shard_of(player_id)]


def lobby_shard(phone: str) -> str:
    """The lobby shard where this phone's lobby throw waits, if it waits: its room."""
    return LOBBY_SHARDS[_shard_of(phone)]


# A lobby throw plays whoever waits in its own room (its phone's shard); someone left waiting
# alone in another room for this long is played by the next throw from any room. Longer than any
# attempt can take from its read to its commit (the lock lease, config.py checks, plus the wait
# for a lock), so that every throw sees such a waiter, and the lobby behaves as if its throws came
# one at a time (docs/protocol.md, "Shards").
LOBBY_SWEEP_SECONDS = 30.0


@dataclass(frozen=True)
class Ranking:
    """One line of the leaderboard. No phone: the nickname as of the player's last result, and
    the `player_id` that an opt-out removes."""

    player_id: str
    display_name: str
    wins: int
    losses: int
    since: float  # when they reached `wins`: among equals, whoever got there first ranks higher

    @property
    def order(self) -> tuple[int, int, float, str]:
        return (-self.wins, self.losses, self.since, self.player_id)


@dataclass(frozen=True)
class Leaderboard:
    """The best players by wins, then fewer losses, then who got there first, kept exact by every
    result's commit (wins only grow, so whoever is not on it ranks below its last line until
    their own next result). An opt-out leaves a gap that the next results fill."""

    rankings: tuple[Ranking, ...] = ()

    def with_result(self, player: Player, now: float, size: int) -> Leaderboard:
        """The board after `player`'s new totals (a player with no win is not ranked)."""
        old = next((entry for entry in self.rankings if entry.player_id == player.player_id), None)
        others = tuple(entry for entry in self.rankings if entry.player_id != player.player_id)
        if player.wins == 0:
            return Leaderboard(others)
        since = old.since if old is not None and old.wins == player.wins else now
        entry = Ranking(player.player_id, player.display_name, player.wins, player.losses, since)
        return Leaderboard(tuple(sorted((*others, entry), key=lambda ranking: ranking.order))[:size])

    def without(self, player_id: str) -> Leaderboard:
        return Leaderboard(tuple(entry for entry in self.rankings if entry.player_id != player_id))

    def ranks(self, player_id: str) -> bool:
        return any(entry.player_id == player_id for entry in self.rankings)

    @staticmethod
    def merged(shards: Iterable[Leaderboard], size: int) -> Leaderboard:
        """The whole board from its shards: each shard keeps the best `size` of its own players,
        so the best `size` of all are among them."""
        lines = [entry for shard in shards for entry in shard.rankings]
        return Leaderboard(tuple(sorted(lines, key=lambda ranking: ranking.order))[:size])


@dataclass(frozen=True)
class LobbyEntry:
    """A lobby throw waiting for a stranger. It holds the phone (the pairing replies to it), so the
    player's record says `in_lobby` and an opt-out removes it."""

    phone: str
    player_id: str
    display_name: str
    move: Move
    expires_at: float
    since: float  # when the throw began to wait


@dataclass(frozen=True)
class Lobby:
    """At most one stranger waiting: the next lobby throw from anyone else plays them."""

    waiting: LobbyEntry | None = None

    def live(self, now: float) -> LobbyEntry | None:
        return self.waiting if self.waiting is not None and self.waiting.expires_at > now else None

    def left_waiting(self, now: float) -> LobbyEntry | None:
        """The live entry, if it has waited alone long enough to be played from any room."""
        waiting = self.live(now)
        return waiting if waiting is not None and now - waiting.since >= LOBBY_SWEEP_SECONDS else None


SharedRecord = Leaderboard | Lobby


def shared_record(key: str) -> SharedRecord:
    """The empty record for a shared key (what a lock on a missing one holds)."""
    if key in LEADERBOARD_SHARDS:
        return Leaderboard()
    if key in LOBBY_SHARDS:
        return Lobby()
    raise ValueError(f"no shared record is called {key!r}")


@dataclass(frozen=True)
class NicknameHolder:
    """Who holds a nickname, as its row says: the phone, and the name as they typed it (which a
    look-alike of it does not show)."""

    phone: str
    display_name: str
