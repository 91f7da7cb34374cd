"""The game's use cases as pure decisions: given the players as read (and locked), what changes and
what to reply. No I/O here; `processing` reads, locks, commits and sends.

Pending games are stored against phone numbers, never nicknames, and each entry carries the
`player_id` of the other side: a player who quits and comes back gets a new id, so throws made at
their old self are never scored against them, and a nickname taken over by someone else points at
a different phone. Expired entries are ignored when read and dropped when their owner is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from serverless_rps import replies
from serverless_rps.parsing import SetNickname, Throw
from serverless_rps.rules import Move, Outcome, play

__all__ = [
    "Challenge",
    "Decision",
    "Limits",
    "PendingThrow",
    "Player",
    "Reply",
    "list_games",
    "opt_out",
    "reply_only",
    "set_nickname",
    "show_score",
    "throw",
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
        return sorted(set(self.games) | set(self.challenges))


@dataclass(frozen=True)
class Reply:
    to: str
    body: str


@dataclass(frozen=True)
class Decision:
    """The whole effect of one message, committed in one transaction.

    `players` holds the new state of changed players (None deletes the record). `claim_nickname`
    and `release_nickname` are nickname-table rows to take and to give up, by lowercase key.
    """

    replies: tuple[Reply, ...] = ()
    players: Mapping[str, Player | None] = field(default_factory=dict)
    claim_nickname: Player | None = None
    release_nickname: str | None = None


@dataclass(frozen=True)
class Limits:
    challenge_expiry_seconds: float = 7 * 24 * 60 * 60
    max_open_games: int = 20
    max_open_challenges: int = 50


def reply_only(phone: str, text: str) -> Decision:
    return Decision(replies=(Reply(phone, text),))


def set_nickname(
    phone: str, me: Player | None, command: SetNickname, current_owner: str | None, new_player_id: str
) -> Decision:
    """Register, rename or re-case a nickname. `current_owner` is the phone that holds the name now."""
    if current_owner is not None and current_owner != phone:
        return reply_only(phone, replies.nick_taken(command.display_name))
    if me is None:
        player = Player(phone, new_player_id, command.key, command.display_name)
        return Decision(
            replies=(Reply(phone, replies.nick_registered(player.display_name)),),
            players={phone: player},
            claim_nickname=player,
        )
    if me.display_name == command.display_name:
        return reply_only(phone, replies.nick_unchanged(me.display_name))
    renamed = replace(me, nickname=command.key, display_name=command.display_name)
    return Decision(
        replies=(Reply(phone, replies.nick_changed(me.display_name, renamed.display_name)),),
        players={phone: renamed},
        claim_nickname=renamed,
        release_nickname=me.nickname if me.nickname != renamed.nickname else None,
    )


def throw(
    phone: str, me: Player | None, opponent: Player | None, command: Throw, now: float, limits: Limits
) -> Decision:
    """Record a throw, or resolve the game if the opponent has already thrown at me."""
    if me is None:
        return reply_only(phone, replies.not_registered())
    if opponent is None:
        return reply_only(me.phone, replies.unknown_player(command.opponent))
    if opponent.phone == me.phone:
        return reply_only(me.phone, replies.cannot_throw_at_self())
    me, opponent = me.pruned(now), opponent.pruned(now)

    waiting = opponent.throw_at(me, now)
    if waiting is not None:
        return _resolve(me, opponent, command.move, waiting.move)
    if me.throw_at(opponent, now) is not None:
        return reply_only(me.phone, replies.already_thrown(opponent.display_name))
    if len(me.games) >= limits.max_open_games:
        return reply_only(me.phone, replies.too_many_open_games(limits.max_open_games))
    if len(opponent.challenges) >= limits.max_open_challenges:
        return reply_only(me.phone, replies.opponent_too_busy(opponent.display_name))

    expires_at = now + limits.challenge_expiry_seconds
    thrower = replace(
        me, games={**me.games, opponent.phone: PendingThrow(command.move, opponent.player_id, expires_at)}
    )
    challenged = replace(
        opponent,
        challenges={**opponent.challenges, me.phone: Challenge(me.player_id, expires_at)},
        # A stale throw of mine at their old incarnation is replaced, never scored.
        games={phone: entry for phone, entry in opponent.games.items() if phone != me.phone},
    )
    return Decision(
        replies=(
            Reply(me.phone, replies.throw_waiting(opponent.display_name, command.move)),
            Reply(opponent.phone, replies.challenged(me.display_name)),
        ),
        players={me.phone: thrower, opponent.phone: challenged},
    )


def _resolve(me: Player, opponent: Player, my_move: Move, their_move: Move) -> Decision:
    outcome = play(my_move, their_move)
    winner_side = _scored(me, outcome)
    other_side = _scored(opponent, outcome.reversed)
    me_after = replace(
        winner_side,
        challenges={phone: entry for phone, entry in me.challenges.items() if phone != opponent.phone},
        games={phone: entry for phone, entry in me.games.items() if phone != opponent.phone},
    )
    opponent_after = replace(
        other_side,
        games={phone: entry for phone, entry in opponent.games.items() if phone != me.phone},
        challenges={phone: entry for phone, entry in opponent.challenges.items() if phone != me.phone},
    )
    return Decision(
        replies=(
            Reply(me.phone, replies.result(outcome, my_move, their_move, opponent.display_name)),
            Reply(opponent.phone, replies.result(outcome.reversed, their_move, my_move, me.display_name)),
        ),
        players={me.phone: me_after, opponent.phone: opponent_after},
    )


def _scored(player: Player, outcome: Outcome) -> Player:
    if outcome is Outcome.WIN:
        return replace(player, wins=player.wins + 1, streak=max(player.streak, 0) + 1)
    if outcome is Outcome.LOSS:
        return replace(player, losses=player.losses + 1, streak=min(player.streak, 0) - 1)
    return replace(player, ties=player.ties + 1, streak=0)


def list_games(phone: str, me: Player | None, others: Mapping[str, Player], now: float) -> Decision:
    """`others` are the records of my counterparts, read without locks; stale entries are left out."""
    if me is None:
        return reply_only(phone, replies.not_registered())
    waiting_on = [
        others[other].display_name
        for other in sorted(me.games)
        if other in others and me.throw_at(others[other], now) is not None
    ]
    waiting_for_me = [
        others[other].display_name
        for other in sorted(me.challenges)
        if other in others and others[other].throw_at(me, now) is not None
    ]
    return reply_only(phone, replies.games_summary(waiting_on, waiting_for_me))


def show_score(phone: str, me: Player | None) -> Decision:
    if me is None:
        return reply_only(phone, replies.not_registered())
    return reply_only(phone, replies.score(me.wins, me.losses, me.ties, me.streak))


def opt_out(phone: str, me: Player | None) -> Decision:
    """Delete the player and their nickname; no reply (Twilio answers opt-outs itself).

    Their open challenges die with the record: entries elsewhere that point at this phone carry
    the old `player_id`, which no future record of this phone will have.
    """
    if me is None:
        return Decision()
    return Decision(players={phone: None}, release_nickname=me.nickname)
