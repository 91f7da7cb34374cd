"""The game's use cases as pure decisions: given the players as read (and locked), what changes and
what to reply. No I/O here; `processing` reads, locks, commits and sends.

Pending games are stored against phone numbers, never nicknames, and each entry carries the
`player_id` of the other side: a player who quits and comes back gets a new id, so throws made at
their old self are never scored against them, and a nickname taken over by someone else points at
a different phone.

Entries come in mirrored pairs: my throw at you (`games`) is your challenge from me
(`challenges`), written in one commit that holds both locks. An entry is removed only in a commit
that holds both players' locks too (the game resolving, a new throw replacing it, or an opt-out),
so two records always mention each other or neither. That is what lets an opt-out find every
record that holds the number: the player's own record lists them all. Expired entries are
ignored when read; they stay stored until the pair meets again or one of them opts out, and
`Limits.max_counterparts` bounds how many a record may hold.

The records themselves (`Player` and its entries, the leaderboard, the lobby) are in model.py;
this module names them too, so that `game.Player` and `game.throw` come from one import.

Every reply is written from `say(recipient)`, the catalogue of the language its reader reads
(language.py decides which; `catalogue.english`, everyone in English, when nobody said).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from serverless_rps import replies
from serverless_rps.catalogue import Say, english
from serverless_rps.model import (
    LEADERBOARD_SHARDS,
    LOBBY_SHARDS,
    SHARDS,
    SHARED_KEY_PREFIX,
    Challenge,
    LastOpponent,
    Leaderboard,
    Lobby,
    LobbyEntry,
    NicknameHolder,
    PendingThrow,
    Player,
    Ranking,
    SharedRecord,
    board_shard,
    is_shared_key,
    lobby_shard,
    lock_position,
    shared_record,
)
from serverless_rps.parsing import Rematch, SetNickname, Throw
from serverless_rps.rules import Move, Outcome, play

__all__ = [
    "LEADERBOARD_SHARDS",
    "LOBBY_SHARDS",
    "SHARDS",
    "SHARED_KEY_PREFIX",
    "Challenge",
    "Decision",
    "LastOpponent",
    "Leaderboard",
    "Limits",
    "Lobby",
    "LobbyEntry",
    "NicknameHolder",
    "PendingThrow",
    "Player",
    "Ranking",
    "Reply",
    "SharedRecord",
    "board_shard",
    "board_shards",
    "is_shared_key",
    "list_games",
    "lobby_pairs",
    "lobby_shard",
    "lobby_throw",
    "lock_position",
    "opt_in",
    "opt_out",
    "rematch",
    "reply_only",
    "resolves",
    "set_language",
    "set_nickname",
    "shared_record",
    "show_score",
    "show_top",
    "throw",
    "with_opt_in_confirmation",
]


@dataclass(frozen=True)
class Reply:
    to: str
    body: str
    # The one text after an opt-out Twilio did not answer: sent at most once, within minutes or
    # never, and never swapped for the reply budget's notice (docs/privacy.md).
    opt_out_confirmation: bool = False


@dataclass(frozen=True)
class Decision:
    """The whole effect of one message, committed in one transaction.

    `players` holds the new state of changed players (None deletes the record). `claim_nickname`
    and `release_nickname` are nickname-table rows to take and to give up, by key (the name's
    look-alike skeleton).
    """

    replies: tuple[Reply, ...] = ()
    players: Mapping[str, Player | None] = field(default_factory=dict)
    claim_nickname: Player | None = None
    release_nickname: str | None = None
    # New states of the shared records (by key) this message locked; those not named are unchanged.
    shared: Mapping[str, SharedRecord] = field(default_factory=dict)
    # Phones whose opt-in marker this commit sets (True: they were sent the opt-in confirmation)
    # or erases (False: they opted out, so their next reply is an opt-in confirmation again).
    opt_in: Mapping[str, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class Limits:
    challenge_expiry_seconds: float = 7 * 24 * 60 * 60
    max_open_games: int = 20
    max_open_challenges: int = 50
    # Stored entries, live or expired: an opt-out locks and rewrites every phone a record mentions
    # in one transaction (at most 100 items: these, the player, its nickname, the claim and more).
    max_counterparts: int = 90
    # An opt-out's transaction items that are player records, the leaderboard or goodbyes (each
    # goodbye writes its recipient's contact record): 100 less the nickname, the sender's contact
    # record, the day's SMS counter, the claim and the two proof records (the opt-out's and the
    # number's status). A player who mentions many phones may have more goodbyes than fit: the
    # most recent throws are told, the rest see the game gone from GAMES.
    max_opt_out_writes: int = 94
    # Rankings kept on the leaderboard (`top` shows those that fit one SMS): more than shown, so
    # that an opt-out's gap rarely shows.
    leaderboard_size: int = 20


def reply_only(phone: str, text: str) -> Decision:
    return Decision(replies=(Reply(phone, text),))


def set_nickname(
    phone: str,
    me: Player | None,
    command: SetNickname,
    holder: NicknameHolder | None,
    new_player_id: str,
    say: Say = english,
) -> Decision:
    """Register, rename or re-case a nickname. `holder` is whoever holds the name (or a look-alike
    of it: they share the key) now."""
    if holder is not None and holder.phone != phone:
        if holder.display_name.lower() == command.display_name.lower():
            return reply_only(phone, say(phone).nick_taken(command.display_name))
        # `aIice` for `alice`: the player cannot see why it is taken unless told what it looks like.
        return reply_only(phone, say(phone).nick_taken_look_alike(command.display_name, holder.display_name))
    if me is None:
        player = Player(phone, new_player_id, command.key, command.display_name)
        return Decision(
            replies=(Reply(phone, say(phone).nick_registered(player.display_name)),),
            players={phone: player},
            claim_nickname=player,
        )
    if me.display_name == command.display_name:
        return reply_only(phone, say(phone).nick_unchanged(me.display_name))
    renamed = replace(me, nickname=command.key, display_name=command.display_name)
    return Decision(
        replies=(Reply(phone, say(phone).nick_changed(me.display_name, renamed.display_name)),),
        players={phone: renamed},
        claim_nickname=renamed,
        release_nickname=me.nickname if me.nickname != renamed.nickname else None,
    )


def resolves(me: Player | None, opponent: Player | None, now: float) -> bool:
    """Would my throw at `opponent` finish a game (their live throw waits on me)? Only then does a
    throw need the leaderboard: the processor locks the players' shards of it (`board_shards`)
    after the two players."""
    return (
        me is not None
        and opponent is not None
        and opponent.phone != me.phone
        and opponent.throw_at(me, now) is not None
    )


def board_shards(*players: Player) -> tuple[str, ...]:
    """The leaderboard shards that hold these players' lines (one or two for a result)."""
    return tuple(sorted({board_shard(player.player_id) for player in players}))


def throw(
    phone: str,
    me: Player | None,
    opponent: Player | None,
    command: Throw,
    now: float,
    limits: Limits,
    boards: Mapping[str, Leaderboard] | None = None,
    say: Say = english,
) -> Decision:
    """Record a throw, or resolve the game if the opponent has already thrown at me. `boards` are
    the locked leaderboard shards of both players when the game resolves (see `resolves`, and
    `board_shards`); without them, scores change alone."""
    if me is None:
        return reply_only(phone, say(phone).not_registered())
    if opponent is None:
        return reply_only(me.phone, say(me.phone).unknown_player(command.opponent))
    if opponent.phone == me.phone:
        return reply_only(me.phone, say(me.phone).cannot_throw_at_self())
    live_me, live_opponent = me.pruned(now), opponent.pruned(now)

    waiting = live_opponent.throw_at(me, now)
    if waiting is not None:
        return _resolve(me, opponent, command.move, waiting.move, now, limits, boards, say)
    if live_me.throw_at(opponent, now) is not None:
        return reply_only(me.phone, say(me.phone).already_thrown(opponent.display_name))
    if len(live_me.games) >= limits.max_open_games or _is_full(me, opponent.phone, limits):
        return reply_only(me.phone, say(me.phone).too_many_open_games(limits.max_open_games))
    if len(live_opponent.challenges) >= limits.max_open_challenges or _is_full(opponent, me.phone, limits):
        return reply_only(me.phone, say(me.phone).opponent_too_busy(opponent.display_name))

    expires_at = now + limits.challenge_expiry_seconds
    # Whatever the pair had before (expired, or aimed at an old incarnation) is replaced, never scored.
    mine, theirs = me.without(opponent.phone), opponent.without(me.phone)
    thrower = replace(
        mine, games={**mine.games, opponent.phone: PendingThrow(command.move, opponent.player_id, expires_at)}
    )
    challenged = replace(
        theirs, challenges={**theirs.challenges, me.phone: Challenge(me.player_id, expires_at)}
    )
    return Decision(
        replies=(
            Reply(me.phone, say(me.phone).throw_waiting(opponent.display_name, command.move)),
            Reply(opponent.phone, say(opponent.phone).challenged(me.display_name)),
        ),
        players={me.phone: thrower, opponent.phone: challenged},
    )


def rematch(
    phone: str,
    me: Player | None,
    opponent: Player | None,
    command: Rematch,
    now: float,
    limits: Limits,
    boards: Mapping[str, Leaderboard] | None = None,
    say: Say = english,
) -> Decision:
    """`AGAIN <move>`: a throw at my last opponent. `opponent` is whoever holds their nickname now;
    it is them only if the `player_id` still matches (they may have quit, or renamed and someone
    else took the name)."""
    if me is None:
        return reply_only(phone, say(phone).not_registered())
    last = me.last_opponent
    if last is None:
        return reply_only(phone, say(phone).no_last_opponent())
    if opponent is None or opponent.player_id != last.player_id:
        return reply_only(phone, say(phone).last_opponent_gone(last.display_name))
    return throw(phone, me, opponent, Throw(command.move, opponent.display_name), now, limits, boards, say)


def lobby_throw(
    phone: str,
    me: Player | None,
    stranger: Player | None,
    lobby: Lobby,
    move: Move,
    now: float,
    limits: Limits,
    boards: Mapping[str, Leaderboard] | None = None,
    say: Say = english,
) -> Decision:
    """A throw with no opponent: play whoever waits in `lobby` (a locked lobby shard), or wait in
    my own shard (`lobby_shard`), which `lobby` then is.

    `stranger` is the locked record of the phone the shard names, if it names another's; `boards`
    the locked leaderboard shards of both players when they will play (see `lobby_pairs`). Both
    are told the other's nickname and the result; the shard is emptied in the same commit, so
    nobody is paired twice. A throw that waits replaces an expired entry, whose player then no
    longer waits (they are locked too).
    """
    if me is None:
        return reply_only(phone, say(phone).not_registered())
    key = lobby_shard(stranger.phone) if stranger is not None else lobby_shard(me.phone)
    waiting = lobby.live(now)
    if waiting is not None and waiting.phone == me.phone:
        return reply_only(me.phone, say(me.phone).lobby_already_waiting(waiting.move))
    if waiting is not None and stranger is not None and stranger.player_id == waiting.player_id:
        outcome = play(move, waiting.move)
        result = _resolve(me, stranger, move, waiting.move, now, limits, boards, say)
        mine, scored = result.players[me.phone], result.players[stranger.phone]
        # A result rewrites both players, deleting neither.
        assert mine is not None
        assert scored is not None
        # A game between them by nickname is another game: it stays pending, mirrored as it was.
        mine = replace(mine, games=me.games, challenges=me.challenges)
        paired = replace(scored, games=stranger.games, challenges=stranger.challenges, in_lobby=False)
        return replace(
            result,
            replies=(
                Reply(
                    me.phone, say(me.phone).lobby_result(outcome, move, waiting.move, stranger.display_name)
                ),
                Reply(
                    stranger.phone,
                    say(stranger.phone).lobby_result(outcome.reversed, waiting.move, move, me.display_name),
                ),
            ),
            players={me.phone: mine, stranger.phone: paired},
            shared={**result.shared, key: Lobby()},
        )
    # My shard is empty, or holds an expired entry (mine, or that of another phone of the shard,
    # who no longer waits): this throw waits there, replacing it.
    home = lobby_shard(me.phone)
    if key != home:
        raise ValueError("a lobby throw waits only in its own phone's shard")
    entry = LobbyEntry(
        me.phone, me.player_id, me.display_name, move, now + limits.challenge_expiry_seconds, now
    )
    players: dict[str, Player | None] = {me.phone: replace(me, in_lobby=True)}
    if stranger is not None and stranger.in_lobby:
        players[stranger.phone] = replace(stranger, in_lobby=False)
    return Decision(
        replies=(Reply(me.phone, say(me.phone).lobby_waiting(move)),),
        players=players,
        shared={home: Lobby(entry)},
    )


def lobby_pairs(me: Player | None, lobby: Lobby, now: float) -> bool:
    """Would a lobby throw from `me` play whoever waits there (so it needs the leaderboard)?"""
    waiting = lobby.live(now)
    return me is not None and waiting is not None and waiting.phone != me.phone


def _is_full(player: Player, newcomer: str, limits: Limits) -> bool:
    """Would one more counterpart take the record past what an opt-out can rewrite at once?"""
    mentioned = player.counterpart_phones()
    return newcomer not in mentioned and len(mentioned) >= limits.max_counterparts


def _resolve(
    me: Player,
    opponent: Player,
    my_move: Move,
    their_move: Move,
    now: float,
    limits: Limits,
    boards: Mapping[str, Leaderboard] | None,
    say: Say,
) -> Decision:
    outcome = play(my_move, their_move)
    mine = replace(
        _scored(me.without(opponent.phone), outcome),
        last_opponent=LastOpponent(opponent.nickname, opponent.display_name, opponent.player_id),
    )
    theirs = replace(
        _scored(opponent.without(me.phone), outcome.reversed),
        last_opponent=LastOpponent(me.nickname, me.display_name, me.player_id),
    )
    shared: dict[str, SharedRecord] = {}
    if boards is not None:
        # Each line in its player's own shard (both may share one).
        updated = dict(boards)
        for player in (mine, theirs):
            key = board_shard(player.player_id)
            updated[key] = updated[key].with_result(player, now, limits.leaderboard_size)
        shared.update(updated)
        mine = replace(mine, ranked=mine.ranked or updated[board_shard(mine.player_id)].ranks(mine.player_id))
        theirs = replace(
            theirs, ranked=theirs.ranked or updated[board_shard(theirs.player_id)].ranks(theirs.player_id)
        )
    return Decision(
        replies=(
            Reply(me.phone, say(me.phone).result(outcome, my_move, their_move, opponent.display_name)),
            Reply(
                opponent.phone,
                say(opponent.phone).result(outcome.reversed, their_move, my_move, me.display_name),
            ),
        ),
        players={me.phone: mine, opponent.phone: theirs},
        shared=shared,
    )


def _scored(player: Player, outcome: Outcome) -> Player:
    if outcome is Outcome.WIN:
        return replace(player, wins=player.wins + 1, streak=max(player.streak, 0) + 1)
    if outcome is Outcome.LOSS:
        return replace(player, losses=player.losses + 1, streak=min(player.streak, 0) - 1)
    return replace(player, ties=player.ties + 1, streak=0)


def list_games(
    phone: str,
    me: Player | None,
    others: Mapping[str, Player],
    now: float,
    lobby: Lobby | None = None,
    say: Say = english,
) -> Decision:
    """`others` are the records of my counterparts, read without locks; stale entries are left out.
    `lobby` is the lobby as read when my record says I may wait there (`Player.in_lobby`)."""
    if me is None:
        return reply_only(phone, say(phone).not_registered())
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
    waiting = lobby.live(now) if lobby is not None else None
    if waiting is None or waiting.player_id != me.player_id:
        return reply_only(phone, say(phone).games_summary(waiting_on, waiting_for_me))
    seconds_left = int(waiting.expires_at - now)
    return reply_only(phone, say(phone).games_summary(waiting_on, waiting_for_me, waiting.move, seconds_left))


def show_top(
    phone: str,
    shards: Mapping[str, Leaderboard],
    limits: Limits,
    me: Player | None = None,
    say: Say = english,
) -> Decision:
    """Anyone may look, registered or not: the board names no phone. `shards` are the leaderboard's
    shards, read without a lock; the board is their merge. A registered player (`me`) is also told
    their own place when their line does not show, or that they have none."""
    rankings = Leaderboard.merged(shards.values(), limits.leaderboard_size).rankings
    leaders = [(entry.display_name, entry.wins) for entry in rankings]
    if me is None or not rankings:
        return reply_only(phone, say(phone).top(leaders))
    for rank, entry in enumerate(rankings, start=1):
        if entry.player_id == me.player_id:
            return reply_only(phone, say(phone).top_with_rank(leaders, rank, entry.wins))
    return reply_only(phone, say(phone).top_unranked(leaders))


def show_score(phone: str, me: Player | None, say: Say = english) -> Decision:
    if me is None:
        return reply_only(phone, say(phone).not_registered())
    return reply_only(phone, say(phone).score(me.wins, me.losses, me.ties, me.streak))


def set_language(phone: str, me: Player | None, say: Say = english) -> Decision:
    """`IDIOMA es`, `LANG en`: said in the language chosen. The record changes in the message's
    commit (language.recorded); a number with no record has none to keep it on: it picks a
    nickname first (in the language it chose)."""
    if me is None:
        return reply_only(phone, say(phone).not_registered())
    return reply_only(phone, say(phone).language_set())


def opt_in(phone: str, program: replies.Program, say: Say = english) -> Decision:
    """START (or YES, UNSTOP, ALTA): the opt-in confirmation, whether or not the phone had opted out."""
    return Decision(replies=(Reply(phone, say(phone).opt_in_confirmation(program)),), opt_in={phone: True})


def with_opt_in_confirmation(
    decision: Decision, phone: str, program: replies.Program, say: Say = english
) -> Decision:
    """For a phone never answered before (or not since it opted out): its first reply is the opt-in
    confirmation, before whatever the command answers (both do not fit one SMS). A decision that
    settles the phone's consent itself (an opt-out, START) and one that answers nothing are left
    alone: nothing is sent, so there is nothing to confirm."""
    if phone in decision.opt_in or not any(reply.to == phone for reply in decision.replies):
        return decision
    return replace(
        decision,
        replies=(Reply(phone, say(phone).opt_in_confirmation(program)), *decision.replies),
        opt_in={**decision.opt_in, phone: True},
    )


def opt_out(
    phone: str,
    me: Player | None,
    counterparts: Mapping[str, Player | None],
    now: float,
    limits: Limits,
    board: Leaderboard | None = None,
    lobby: Lobby | None = None,
    confirmation: str | None = None,
    say: Say = english,
) -> Decision:
    """Delete the player, their nickname and every entry about them in other records, and forget
    that the phone ever opted in. `confirmation` is the one text to send the phone when Twilio did
    not answer the opt-out itself; it goes first, as the rule's five minutes run from the text.
    Everyone with a live throw waiting on them is told the game is off, by nickname only. Once:
    the entries go in the same commit, so a second STOP finds none.

    `counterparts` are the locked records of every phone `me` mentions (see the module docstring:
    those are all the records that mention `me`); `board` is the locked shard of the leaderboard
    that holds `me`'s line when they may have one (`Player.ranked`), and the line leaves it;
    `lobby` the locked shard of `me`'s phone when they may wait there (`Player.in_lobby`), and
    their entry leaves it.
    """
    confirmed = (Reply(phone, confirmation, opt_out_confirmation=True),) if confirmation is not None else ()
    if me is None:
        return Decision(replies=confirmed, opt_in={phone: False})
    players: dict[str, Player | None] = {phone: None}
    waiting: list[tuple[float, str]] = []
    for other, record in sorted(counterparts.items()):
        if other == phone or record is None or phone not in record.counterpart_phones():
            continue
        players[other] = record.without(phone)
        thrown = record.throw_at(me, now)
        if thrown is not None:
            waiting.append((thrown.expires_at, other))
    # The latest throws first, when not every goodbye fits in the one transaction.
    # The leaderboard and the lobby, when locked, are one more item of the transaction each.
    room = max(limits.max_opt_out_writes - len(players) - (board is not None) - (lobby is not None), 0)
    told = sorted(other for _, other in sorted(waiting, key=lambda entry: (-entry[0], entry[1]))[:room])
    # Each in its reader's own language, whatever the language of the opt-out.
    goodbyes = tuple(Reply(other, say(other).opponent_left(me.display_name)) for other in told)
    shared: dict[str, SharedRecord] = {}
    if board is not None:
        shared[board_shard(me.player_id)] = board.without(me.player_id)
    if lobby is not None and lobby.waiting is not None and lobby.waiting.phone == phone:
        shared[lobby_shard(phone)] = Lobby()  # the entry holds the number: it goes, live or expired
    return Decision(
        replies=(*confirmed, *goodbyes),
        players=players,
        release_nickname=me.nickname,
        shared=shared,
        opt_in={phone: False},
    )
