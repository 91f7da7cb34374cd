"""Each command as data: what it reads without a lock, whom it locks, what it checks once the locks
are held, and which pure `game` function decides. `processing` walks one of these descriptions
for every message and has no branch per command, so the protocol (claim, ordered locks, one
commit, outbox) is the same code for all of them; a new command is a parser case, a decision
function in `game` and its replies, and one row in `COMMANDS`. `CommandSpec` says in which order
its hooks run.

No I/O here either: the lock-free reads go through the `Reads` port the processor passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from serverless_rps import game, opt_out_proof, replies
from serverless_rps.catalogue import Say, english
from serverless_rps.exceptions import StaleRead
from serverless_rps.game import (
    LEADERBOARD_SHARDS,
    LOBBY_SHARDS,
    Decision,
    Leaderboard,
    Limits,
    Lobby,
    NicknameHolder,
    Player,
    SharedRecord,
    board_shard,
    board_shards,
    lobby_shard,
)
from serverless_rps.opt_out_proof import OptOutReading
from serverless_rps.parsing import (
    AnsweredByTwilio,
    Command,
    ListGames,
    LobbyThrow,
    OptIn,
    OptOut,
    Rematch,
    ReplyOnly,
    SetLanguage,
    SetNickname,
    ShowHelp,
    ShowScore,
    ShowTop,
    Throw,
)

__all__ = ["COMMANDS", "CommandSpec", "Facts", "LookedUp", "Needs", "Reads", "RememberedReads", "spec_for"]


class Reads(Protocol):
    """The reads a command may make without holding a lock (`ports.GameStore` has them all)."""

    def nickname_holder(self, nickname: str) -> NicknameHolder | None: ...

    def get_player(self, phone: str) -> Player | None: ...

    def get_players(self, phones: Sequence[str]) -> dict[str, Player]: ...

    def get_shared(self, keys: Sequence[str]) -> Mapping[str, SharedRecord]: ...


class RememberedReads:
    """A look-up's lock-free reads, each made once: the look-up made again reads the same answers
    without a request, but for the records since locked (`lay_over`), which it reads as locked."""

    def __init__(self, store: Reads) -> None:
        self._store = store
        self._answers: dict[tuple[str, object], Any] = {}
        self._locked: dict[str, SharedRecord] = {}

    def lay_over(self, locked: Mapping[str, SharedRecord]) -> None:
        self._locked = dict(locked)

    def _once[T](self, question: tuple[str, object], read: Callable[[], T]) -> T:
        if question not in self._answers:
            self._answers[question] = read()
        answer: T = self._answers[question]
        return answer

    def nickname_holder(self, nickname: str) -> NicknameHolder | None:
        return self._once(("nickname", nickname), lambda: self._store.nickname_holder(nickname))

    def get_player(self, phone: str) -> Player | None:
        return self._once(("player", phone), lambda: self._store.get_player(phone))

    def get_players(self, phones: Sequence[str]) -> dict[str, Player]:
        return self._once(("players", tuple(phones)), lambda: self._store.get_players(phones))

    def get_shared(self, keys: Sequence[str]) -> Mapping[str, SharedRecord]:
        read = self._once(("shared", tuple(keys)), lambda: self._store.get_shared(keys))
        return {**read, **{key: record for key, record in self._locked.items() if key in keys}}


@dataclass(frozen=True)
class LookedUp:
    """What the lock-free reads before any lock found: the phones to lock besides the sender, and
    what the decision or the staleness check needs to know of the read (a nickname's owner).

    `first` names lobby rooms to lock before any phone (`game.lock_position`). The look-up is then
    made again over them as locked (the rest as first read, `RememberedReads`), so that `lock`, the
    phones, is what the locked room says, not what a read without a lock said: it must name the
    same `first` again, or the processor starts over."""

    first: tuple[str, ...] = ()
    lock: tuple[str, ...] = ()
    owner: str | None = None
    # The nickname key `owner` was looked up for: the locked owner must still hold it.
    nickname: str | None = None
    # Shared records read without a lock (`top` reads the leaderboard's shards and locks nothing but
    # itself; a lobby throw reads the lobby's).
    shared: Mapping[str, SharedRecord] = field(default_factory=dict)
    # The lobby shard a lobby throw plays in or waits in, chosen from what the read found.
    lobby: str | None = None
    # The nickname's row as read (`nick`: its spelling names the look-alike that holds the key).
    holder: NicknameHolder | None = None


@dataclass(frozen=True)
class Needs:
    """What a command needs once its players are locked, as their records say: the shared records
    to lock too (the leaderboard's shards: they come after every phone in the one canonical order,
    `game.lock_position`), and what to read without a lock."""

    lock: tuple[str, ...] = ()
    read: tuple[str, ...] = ()  # shared records
    counterparts: bool = False  # the players the sender's record names


@dataclass(frozen=True)
class Facts:
    """What the hooks after the locks see: the locked records as read with their leases, and the
    lock-free reads. `needs` sees the players only; `check` and `decide` see everything."""

    sender: str
    locked: Mapping[str, Player | None]
    looked_up: LookedUp
    now: float
    limits: Limits
    new_id: Callable[[], str]
    # The operator's program name and support contact, for the consent replies.
    program: replies.Program = field(default_factory=replies.Program)
    # The shared records locked after the players (`Needs.lock`), by key.
    shared: Mapping[str, SharedRecord] = field(default_factory=dict)
    # Shared records read without a lock once the locks are held (`Needs.read`), by key.
    read_shared: Mapping[str, SharedRecord] = field(default_factory=dict)
    # The sender's counterparts read without a lock once the locks are held (`Needs.counterparts`).
    counterparts: Mapping[str, Player] = field(default_factory=dict)
    # The catalogue each reply is written from, by its recipient (language.voices: the one place
    # that decides a reply's language).
    say: Say = english

    @property
    def me(self) -> Player | None:
        return self.locked[self.sender]


def _reads_nothing(command: Any, sender: str, reads: Reads, now: float) -> LookedUp:
    return LookedUp()


def _needs_nothing(command: Any, facts: Facts) -> Needs:
    return Needs()


def _nothing_to_check(command: Any, facts: Facts) -> None:
    return None


@dataclass(frozen=True)
class CommandSpec[C]:
    """One command's needs, as hooks the processor runs in this order, the same for every command
    (processing.MessageProcessor._apply_command reads top to bottom the same way):

      1. look_up(command, sender, reads, now)  before any lock: lock-free reads (a nickname's owner,
                                            the lobby), the rooms to lock first, and the phones to
                                            lock besides the sender
         -- lock LookedUp.first (a lobby room), then make look_up again over it as locked --
         -- lock the sender and LookedUp.lock, in ascending phone order --
      2. needs(command, facts)              the players are locked (facts.locked): which leaderboard
                                            shards to lock too, and what to read without a lock
         -- lock Needs.lock (after every phone); read Needs.read and the counterparts --
      3. check(command, facts)              every lock is held: raise StaleRead if a lock-free read
                                            no longer holds (the processor starts over)
      4. decide(command, facts)             pure: the new records and the replies
      5. erases_sender                      an opt-out: the number leaves every outbox still
                                            waiting to send to it, before the commit
         -- commit: one transaction, which also releases every lock; an opt-out's proof record
            (`proves`: how it was read) is one of its items --
      6. audit(command)                     fields logged once the commit is done

    `texted_as` is how a text of this command counts as the first text after an opt-out, on that
    opt-out's proof record (opt_out_proof.py), never its words.
    """

    decide: Callable[[C, Facts], Decision]
    look_up: Callable[[C, str, Reads, float], LookedUp] = _reads_nothing
    needs: Callable[[C, Facts], Needs] = _needs_nothing
    check: Callable[[C, Facts], None] = _nothing_to_check
    erases_sender: bool = False
    proves: Callable[[C], OptOutReading] | None = None
    audit: Callable[[C], Mapping[str, object]] | None = None
    texted_as: str = opt_out_proof.OTHER_TEXT


# -- throw at a nickname --------------------------------------------------------------------------


def _opponent_by_nickname(nickname: str | None, sender: str, reads: Reads) -> LookedUp:
    holder = reads.nickname_holder(nickname) if nickname is not None else None
    owner = holder.phone if holder is not None else None
    # Nothing changes on a throw at nobody or at yourself but the sender's reply budget.
    return LookedUp(
        lock=(owner,) if owner is not None and owner != sender else (), owner=owner, nickname=nickname
    )


def _nickname_still_owned(command: object, facts: Facts) -> None:
    for phone in facts.looked_up.lock:
        opponent = facts.locked[phone]
        if opponent is None or opponent.nickname != facts.looked_up.nickname:
            raise StaleRead("the nickname moved to another phone after the lookup")


def _opponent(facts: Facts) -> Player | None:
    owner = facts.looked_up.owner
    return facts.me if owner == facts.sender else facts.locked.get(owner) if owner is not None else None


def _leaderboard_if_it_resolves(command: object, facts: Facts) -> Needs:
    # The locks on both players freeze whether it resolves: a throw at me is written only under mine.
    me, opponent = facts.me, _opponent(facts)
    if me is None or opponent is None or not game.resolves(me, opponent, facts.now):
        return Needs()
    return Needs(lock=board_shards(me, opponent))


def _shared[R: SharedRecord](records: Mapping[str, SharedRecord], key: str, kind: type[R]) -> R | None:
    """The shared record `key` (locked: `facts.shared`; read without a lock: `looked_up.shared`
    before the locks, `read_shared` after them)."""
    record = records.get(key)
    return record if isinstance(record, kind) else None


def _boards(facts: Facts) -> dict[str, Leaderboard] | None:
    """The leaderboard shards locked for a result, by key; None when the command locked none."""
    boards = {key: record for key, record in facts.shared.items() if isinstance(record, Leaderboard)}
    return boards or None


def _throw_decide(command: Throw, facts: Facts) -> Decision:
    return game.throw(
        facts.sender, facts.me, _opponent(facts), command, facts.now, facts.limits, _boards(facts), facts.say
    )


# -- rematch --------------------------------------------------------------------------------------


def _rematch_look_up(command: Rematch, sender: str, reads: Reads, now: float) -> LookedUp:
    """The sender's record names the last opponent (no phone: see `game.LastOpponent`); their
    nickname then gives the phone to lock."""
    me = reads.get_player(sender)
    last = me.last_opponent if me is not None else None
    return _opponent_by_nickname(last.nickname if last is not None else None, sender, reads)


def _rematch_check(command: Rematch, facts: Facts) -> None:
    me = facts.me
    last = me.last_opponent if me is not None else None
    if (last.nickname if last is not None else None) != facts.looked_up.nickname:
        raise StaleRead("the last opponent changed after the lookup")
    _nickname_still_owned(command, facts)


def _rematch_decide(command: Rematch, facts: Facts) -> Decision:
    return game.rematch(
        facts.sender, facts.me, _opponent(facts), command, facts.now, facts.limits, _boards(facts), facts.say
    )


# -- a throw at a stranger (the lobby) -------------------------------------------------------------


def _lobby_look_up(command: LobbyThrow, sender: str, reads: Reads, now: float) -> LookedUp:
    """Read every lobby shard (room) without a lock, and choose where to play: my own room (my
    phone's shard) if someone else waits there; else the first other room, after mine in the
    rooms' order, where someone has waited alone for LOBBY_SWEEP_SECONDS; else my own room, to
    wait in. The chosen room is locked first; made again over it as locked, the choice names
    exactly whom to lock with me: whoever the room holds now (another phone).

    Only a waiter that old is played from another room: any attempt that began by now has
    committed (its lease is shorter), so every throw sees the same old waiters, and throws
    decide as if they came one at a time. Two strangers of different rooms who throw within
    that time of each other both wait: the next throw after it plays one of them."""
    rooms = reads.get_shared(LOBBY_SHARDS)
    home = lobby_shard(sender)
    start = LOBBY_SHARDS.index(home)
    elsewhere = [*LOBBY_SHARDS[start + 1 :], *LOBBY_SHARDS[:start]]
    home_waiter = _waiting(rooms[home], now)
    left_waiting = [key for key in elsewhere if _waiting(rooms[key], now, alone=True) is not None]
    chosen = left_waiting[0] if (home_waiter is None or home_waiter == sender) and left_waiting else home
    if home_waiter == sender:
        chosen = home  # already waiting: the answer is mine to give, from my own room
    lobby = rooms[chosen]
    assert isinstance(lobby, Lobby)
    waiting = lobby.waiting
    # An expired entry is locked too if it is someone else's: its player no longer waits.
    return LookedUp(
        first=(chosen,),
        lock=(waiting.phone,) if waiting is not None and waiting.phone != sender else (),
        shared={chosen: lobby},
        lobby=chosen,
    )


def _waiting(record: SharedRecord, now: float, *, alone: bool = False) -> str | None:
    """The phone waiting live in a lobby room, as read (exact for the room locked first); with
    `alone`, only one that has waited long enough to be played from any room."""
    if not isinstance(record, Lobby):
        return None
    waiting = record.left_waiting(now) if alone else record.live(now)
    return waiting.phone if waiting is not None else None


def _lobby(facts: Facts) -> Lobby:
    """The room the throw plays or waits in, as locked (the look-up was made again over it)."""
    key = facts.looked_up.lobby
    return (_shared(facts.looked_up.shared, key, Lobby) if key is not None else None) or Lobby()


def _lobby_needs(command: LobbyThrow, facts: Facts) -> Needs:
    me = facts.me
    lobby = _lobby(facts)
    if me is None or not game.lobby_pairs(me, lobby, facts.now):
        return Needs()  # the room, locked first, is all a wait (or a refusal) changes
    # A pairing is a result: both players' leaderboard shards too, after every phone.
    waiting = lobby.waiting
    assert waiting is not None
    return Needs(lock=tuple(sorted({board_shard(me.player_id), board_shard(waiting.player_id)})))


def _stranger_still_there(command: LobbyThrow, facts: Facts) -> None:
    """Another room is only ever played in, never waited in: the phone locked there must still be
    the player whose entry the room holds (a number erased since comes back as a new player)."""
    if facts.me is None or facts.looked_up.lobby == lobby_shard(facts.sender):
        return
    stranger = _stranger(facts)
    waiting = _lobby(facts).left_waiting(facts.now)
    if waiting is None or stranger is None or stranger.player_id != waiting.player_id:
        raise StaleRead("the stranger chosen in another room no longer waits there")


def _stranger(facts: Facts) -> Player | None:
    return next((player for phone, player in facts.locked.items() if phone != facts.sender), None)


def _lobby_decide(command: LobbyThrow, facts: Facts) -> Decision:
    return game.lobby_throw(
        facts.sender,
        facts.me,
        _stranger(facts),
        _lobby(facts),
        command.move,
        facts.now,
        facts.limits,
        _boards(facts),
        facts.say,
    )


# -- games ----------------------------------------------------------------------------------------


def _games_needs(command: ListGames, facts: Facts) -> Needs:
    # The counterparts the sender's record names; and my lobby shard, read, not locked, yet exact
    # about the sender: their entry is added or removed only by a commit that holds their lock
    # (their own lobby throw, the throw that plays them or replaces their expired entry, their
    # STOP), and that lock is held now.
    me = facts.me
    if me is None:
        return Needs()
    return Needs(read=(lobby_shard(me.phone),) if me.in_lobby else (), counterparts=True)


def _games_decide(command: ListGames, facts: Facts) -> Decision:
    lobby = _shared(facts.read_shared, lobby_shard(facts.sender), Lobby)
    return game.list_games(facts.sender, facts.me, facts.counterparts, facts.now, lobby, facts.say)


# -- opt-out --------------------------------------------------------------------------------------


def _opt_out_look_up(command: OptOut, sender: str, reads: Reads, now: float) -> LookedUp:
    """Every record that mentions the phone is listed in its own record (see `game`); my lobby
    entry, if I wait, is in my phone's room, locked first."""
    before = reads.get_player(sender)
    if before is None:
        return LookedUp()
    return LookedUp(
        first=(lobby_shard(sender),) if before.in_lobby else (), lock=tuple(before.counterpart_phones())
    )


def _board_holding_me(command: OptOut, facts: Facts) -> Needs:
    # `ranked` is set only under the player's own lock, which we hold: it cannot change now. My
    # line is in my player id's leaderboard shard.
    me = facts.me
    return Needs(lock=(board_shard(me.player_id),) if me is not None and me.ranked else ())


def _opt_out_check(command: OptOut, facts: Facts) -> None:
    me = facts.me
    if me is None:
        return
    if not set(me.counterpart_phones()) <= {facts.sender, *facts.looked_up.lock}:
        raise StaleRead("a game with a new counterpart began after the lookup")
    if me.in_lobby and lobby_shard(facts.sender) not in facts.shared:
        # `in_lobby` is set only under my lock: my lobby throw committed between the read and it.
        raise StaleRead("the player began to wait in the lobby after the lookup")


def _opt_out_decide(command: OptOut, facts: Facts) -> Decision:
    # In the language the opt-out was asked in (language.for_sender: an opt-out's own).
    confirmation = facts.say(facts.sender).opt_out_confirmation(facts.program) if command.confirm else None
    me = facts.me
    board = _shared(facts.shared, board_shard(me.player_id), Leaderboard) if me is not None else None
    waits = me is not None and me.in_lobby
    lobby = _shared(facts.shared, lobby_shard(facts.sender), Lobby) if waits else None
    return game.opt_out(
        facts.sender, me, facts.locked, facts.now, facts.limits, board, lobby, confirmation, facts.say
    )


def _help_decide(command: ShowHelp, facts: Facts) -> Decision:
    say = facts.say(facts.sender)
    if not command.overview:
        return game.reply_only(facts.sender, command.wording.in_(say))
    # The program, its support and STOP (what a carrier's vetting looks for), then the commands:
    # both do not fit one SMS.
    return Decision(
        replies=(
            game.Reply(facts.sender, say.program_help(facts.program)),
            game.Reply(facts.sender, command.wording.in_(say)),
        )
    )


# -- the table ------------------------------------------------------------------------------------


COMMANDS: Mapping[type[Any], CommandSpec[Any]] = {
    Throw: CommandSpec[Throw](
        decide=_throw_decide,
        look_up=lambda command, sender, reads, now: _opponent_by_nickname(
            command.opponent_key, sender, reads
        ),
        needs=_leaderboard_if_it_resolves,
        check=_nickname_still_owned,
    ),
    Rematch: CommandSpec[Rematch](
        decide=_rematch_decide,
        look_up=_rematch_look_up,
        needs=_leaderboard_if_it_resolves,
        check=_rematch_check,
    ),
    LobbyThrow: CommandSpec[LobbyThrow](
        decide=_lobby_decide,
        look_up=_lobby_look_up,
        needs=_lobby_needs,
        check=_stranger_still_there,
    ),
    ShowTop: CommandSpec[ShowTop](
        decide=lambda command, facts: game.show_top(
            facts.sender,
            {
                key: record
                for key, record in facts.looked_up.shared.items()
                if isinstance(record, Leaderboard)
            },
            facts.limits,
            facts.me,
            facts.say,
        ),
        # Every shard of the leaderboard, in one read.
        look_up=lambda command, sender, reads, now: LookedUp(shared=reads.get_shared(LEADERBOARD_SHARDS)),
    ),
    SetNickname: CommandSpec[SetNickname](
        decide=lambda command, facts: game.set_nickname(
            facts.sender, facts.me, command, facts.looked_up.holder, facts.new_id(), facts.say
        ),
        # One read of the nickname's row gives both its owner and how they spelled it.
        look_up=lambda command, sender, reads, now: LookedUp(holder=reads.nickname_holder(command.key)),
    ),
    OptOut: CommandSpec[OptOut](
        decide=_opt_out_decide,
        look_up=_opt_out_look_up,
        needs=_board_holding_me,
        check=_opt_out_check,
        erases_sender=True,
        proves=lambda command: opt_out_proof.reading_of(
            command.rule, command.language, confirm=command.confirm
        ),
        audit=lambda command: {"decision": "opt-out", "rule": command.rule, "confirm": command.confirm},
        texted_as=opt_out_proof.OPT_OUT_AGAIN,
    ),
    ListGames: CommandSpec[ListGames](decide=_games_decide, needs=_games_needs),
    ShowScore: CommandSpec[ShowScore](
        decide=lambda command, facts: game.show_score(facts.sender, facts.me, facts.say)
    ),
    # The record's language changes in the commit of every message (language.recorded): this
    # command only says so.
    SetLanguage: CommandSpec[SetLanguage](
        decide=lambda command, facts: game.set_language(facts.sender, facts.me, facts.say)
    ),
    ShowHelp: CommandSpec[ShowHelp](decide=_help_decide),
    ReplyOnly: CommandSpec[ReplyOnly](
        decide=lambda command, facts: game.reply_only(
            facts.sender, command.wording.in_(facts.say(facts.sender))
        )
    ),
    OptIn: CommandSpec[OptIn](
        decide=lambda command, facts: game.opt_in(facts.sender, facts.program, facts.say),
        texted_as=opt_out_proof.OPT_IN_KEYWORD,
    ),
    # Twilio has answered with the operator's own text: nothing more to say or change.
    AnsweredByTwilio: CommandSpec[AnsweredByTwilio](decide=lambda command, facts: Decision()),
}


def spec_for(command: Command) -> CommandSpec[Any]:
    spec = COMMANDS.get(type(command))
    if spec is None:
        raise TypeError(f"no description for {command!r}")
    return spec
