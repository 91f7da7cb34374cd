"""The crowd on the day the game goes viral: who texts, what, and in what rhythm.

`ArrivalProfile` is the input (the reference burst by default); `Crowd` plays it. New phones
arrive over the arrival window, most of them brought by a friend who arrived shortly before. Each
phone registers a nickname first (a few text something else first, and a common name is often
taken: they try again with digits), then plays its games:

* mostly lobby throws (`rock` alone: play a stranger), answered at once or when a stranger comes;
* some challenges to the friend who brought them (`rock bob`), which the friend answers
  (`paper alice`) after a moment's thought, and rematches (`again paper`) after a game;
* after a game, now and then `top` or `score`; at the end, a few text STOP.

A player acts only on what reaches its phone: a reply arrives (Twilio sends it, the carrier
delivers it), the player thinks, then texts. Some text again when no reply came for a minute. So
the inbound rate follows the replies: a slow engine gets fewer texts, later.
"""

from __future__ import annotations

import enum
import functools
import itertools
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from bench.burst.twilio_messages import AcceptedSms
from bench.burst.virtual_time import Scheduler
from serverless_rps import replies
from serverless_rps.parsing import is_valid_nickname
from serverless_rps.rules import Move, Outcome

__all__ = ["ArrivalProfile", "Crowd", "Heard", "heard"]


@dataclass(frozen=True)
class ArrivalProfile:
    """Who texts the bot and how; the default is the reference burst."""

    phones: int = 20_000
    arrival_seconds: float = 300.0  # every new phone texts for the first time within this
    # New phones a second rise from none over the first `rise` of the window, stay at their peak,
    # and fall to none over the last `fall` (a trapezoid: the peak is 1/(1 - (rise + fall)/2)
    # times the mean, 83 a second for the reference burst).
    rise: float = 0.2
    fall: float = 0.2
    games_per_phone: int = 3
    # What a player starts a game with (answering a challenge is not starting one).
    lobby_share: float = 0.75
    challenge_share: float = 0.15  # the friend who brought them
    rematch_share: float = 0.10  # once they have played
    friend_share: float = 0.8  # phones brought by someone who arrived in the last friend_window
    friend_window_seconds: float = 120.0
    friends_brought: int = 3  # at most, by one phone
    wrong_first_text_share: float = 0.06  # `hi`, `help` or `rock` before NICK
    top_share: float = 0.12  # `top` after a game
    score_share: float = 0.08  # `score` after a game
    stop_share: float = 0.01  # STOP once done
    answer_share: float = 0.9  # challenges answered by players already done
    resend_share: float = 0.25  # players who text the same again when no reply came ...
    resend_after_seconds: float = 60.0  # ... for this long
    give_up_seconds: float = 300.0  # a player's own game with no result this long is let go
    # From a reply reaching the phone to the player's next text (lognormal): a few seconds within an
    # exchange (registering, answering a challenge, asking for the score), longer after a game's
    # result before the next game: the three games are not played back to back.
    think_median_seconds: float = 6.0
    think_sigma: float = 0.6
    between_games_median_seconds: float = 180.0
    between_games_sigma: float = 0.8
    delivery_seconds: float = 2.0  # from Twilio sending a reply to its reaching the phone
    duplicate_share: float = 0.002  # inbound SMS Twilio posts twice (a webhook retry)
    poison: int = 5  # queue messages no retry can process
    very_late_duplicates: int = 10  # duplicates of completed messages, once the queue drained
    seed: int = 1

    def scaled(self, factor: float) -> ArrivalProfile:
        """The same burst with `factor` times the phones (a larger burst, or a 1/k replica)."""
        return replace(
            self,
            phones=max(1, round(self.phones * factor)),
            poison=max(1, round(self.poison * min(factor, 1.0))),
            very_late_duplicates=max(1, round(self.very_late_duplicates * min(factor, 1.0))),
        )


class Heard(enum.Enum):
    """What a reply means to the player who gets it."""

    REGISTERED = "registered"
    NAME_REFUSED = "name refused"
    NEEDS_NAME = "needs a name"
    WAITING = "waiting"
    CHALLENGED = "challenged"
    RESULT = "result"
    LOBBY_RESULT = "lobby result"
    THROW_REFUSED = "throw refused"
    INFORMATION = "information"
    QUIET = "the bot will be quiet"
    OTHER = "other"


def _prefix(first: str, second: str) -> str:
    return first[: next((n for n, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), 0)]


def _suffix(first: str, second: str) -> str:
    return _prefix(first[::-1], second[::-1])[::-1]


_PROGRAM = replies.Program()
_RESULT_HEADLINES = tuple(
    _prefix(
        replies.result(outcome, Move.ROCK, Move.SCISSORS, "aaa"),
        replies.result(outcome, Move.PAPER, Move.ROCK, "bbb"),
    )
    for outcome in Outcome
)
_LOBBY_RESULT = replies.lobby_result(Outcome.TIE, Move.ROCK, Move.ROCK, "zzz").split("zzz", 1)[0]
_CHALLENGED = re.compile(r"^(\w+)" + re.escape(replies.challenged("zzz").split("zzz", 1)[1][:30]))
_WAITING_ENDS = (
    _suffix(replies.lobby_waiting(Move.ROCK), replies.lobby_waiting(Move.PAPER)),
    _suffix(replies.lobby_already_waiting(Move.ROCK), replies.lobby_already_waiting(Move.PAPER)),
    _suffix(replies.throw_waiting("aaa", Move.ROCK), replies.throw_waiting("bbb", Move.PAPER)),
)
_REFUSED_THROWS = (
    _prefix(replies.unknown_player("aaa"), replies.unknown_player("bbb")),
    _prefix(replies.already_thrown("aaa"), replies.already_thrown("bbb")),
    _suffix(replies.last_opponent_gone("aaa"), replies.last_opponent_gone("bbb")),
    _suffix(replies.opponent_too_busy("aaa"), replies.opponent_too_busy("bbb")),
    _suffix(replies.opponent_left("aaa"), replies.opponent_left("bbb")),
    replies.no_last_opponent(),
    replies.cannot_throw_at_self(),
    replies.too_many_open_games(20)[:20],
)
_NEEDS_NAME = (
    replies.not_registered(),
    replies.help_overview(),
    replies.unknown_command(),
    replies.nick_usage(),
)
_INFORMATION = (
    replies.opt_in_confirmation(_PROGRAM),
    replies.program_help(_PROGRAM),
    replies.opt_out_confirmation(_PROGRAM),
)
_QUIET = _prefix(replies.reply_limit_reached(5), replies.reply_limit_reached(50))


def heard(body: str) -> tuple[Heard, str | None]:
    """What a reply means, and the nickname it names when that matters (a challenger)."""
    challenger = _CHALLENGED.match(body)
    if challenger:
        return Heard.CHALLENGED, challenger.group(1)
    if body.startswith(_LOBBY_RESULT):
        return Heard.LOBBY_RESULT, None
    if any(body.startswith(headline) for headline in _RESULT_HEADLINES):
        return Heard.RESULT, None
    if body.startswith(_prefix(replies.nick_registered("aaa"), replies.nick_registered("bbb"))):
        return Heard.REGISTERED, None
    if "taken" in body or body == replies.nick_invalid():
        return Heard.NAME_REFUSED, None
    if any(body.endswith(end) for end in _WAITING_ENDS):
        return Heard.WAITING, None
    if any(body.startswith(text) or body.endswith(text) for text in _REFUSED_THROWS):
        return Heard.THROW_REFUSED, None
    if body in _NEEDS_NAME:
        return Heard.NEEDS_NAME, None
    if body in _INFORMATION:
        return Heard.INFORMATION, None
    if body.startswith(_QUIET):
        return Heard.QUIET, None
    return Heard.OTHER, None


# First names players pick nicknames from: common ones are taken, and the next try adds digits.
_NAMES = (
    "alex",
    "sam",
    "jordan",
    "taylor",
    "chris",
    "pat",
    "jamie",
    "casey",
    "morgan",
    "riley",
    "drew",
    "max",
    "charlie",
    "lee",
    "kim",
    "robin",
    "dana",
    "jesse",
    "blake",
    "quinn",
    "avery",
    "emma",
    "olivia",
    "ava",
    "mia",
    "sofia",
    "isabella",
    "amelia",
    "harper",
    "ella",
    "liam",
    "noah",
    "oliver",
    "elijah",
    "james",
    "william",
    "ben",
    "lucas",
    "henry",
    "theo",
    "jack",
    "leo",
    "owen",
    "luke",
    "ryan",
    "nate",
    "zoe",
    "lily",
    "chloe",
    "grace",
    "nora",
    "hazel",
    "aria",
    "luna",
    "layla",
    "maya",
    "ruby",
    "anna",
    "sara",
    "eva",
    "ivy",
    "iris",
    "jade",
    "rosa",
    "lucia",
    "elena",
    "marco",
    "luca",
    "diego",
    "mateo",
    "pablo",
    "hugo",
    "omar",
    "ali",
    "yusuf",
    "amir",
    "zara",
    "leila",
    "nina",
    "tara",
    "priya",
    "ravi",
    "arjun",
    "kai",
    "yuki",
    "hana",
    "mei",
    "chen",
    "wei",
    "lin",
    "jun",
    "tom",
    "tim",
    "joe",
    "dan",
    "ken",
    "ray",
    "ron",
    "jon",
    "matt",
    "mike",
    "dave",
    "nick",
    "steve",
    "paul",
    "mark",
    "adam",
    "josh",
    "katie",
    "kate",
    "beth",
    "amy",
    "jen",
    "liz",
    "meg",
    "sue",
    "ann",
    "tess",
    "rose",
    "kara",
    "cole",
    "troy",
    "wade",
    "finn",
    "gus",
    "ike",
    "abe",
    "cal",
)
_MOVES = ("rock", "paper", "scissors")
_WRONG_FIRST_TEXTS = ("hi", "help", "rock", "hello?", "how do i play")


@dataclass
class CrowdPlayer:
    phone: str
    name: str
    impatient: bool
    starts_left: int
    inviter: CrowdPlayer | None = None
    brought: int = 0  # phones this one brought
    registered: bool = False
    done: bool = False
    opted_out: bool = False
    played: int = 0
    own_game: int = 0  # the number of the game it started and waits on (0: none)
    answers_pending: int = 0
    extras_due: bool = False
    step_due: bool = False
    last_text: str = ""
    replied_since_text: bool = True
    games_started: itertools.count[int] = field(default_factory=lambda: itertools.count(1))


@dataclass
class Crowd:
    profile: ArrivalProfile
    scheduler: Scheduler
    chance: random.Random
    # Posts one inbound SMS to the webhook: (phone, body, kind).
    text: Callable[[str, str, str], None]
    players: dict[str, CrowdPlayer] = field(default_factory=dict)

    def arrive_over_the_window(self, until: float | None = None) -> None:
        """Schedule every new phone's first text; with `until`, only those of the phones that
        arrive before it (the same arrival curve, cut short)."""
        times = sorted(self._arrival() for _ in range(self.profile.phones))
        arrived: list[tuple[float, CrowdPlayer]] = []
        for number, at in enumerate(times):
            if until is not None and at >= until:
                break
            player = self._new_player(number)
            if self.chance.random() < self.profile.friend_share:
                friends = [
                    friend
                    for t, friend in arrived[-50:]
                    if at - t <= self.profile.friend_window_seconds
                    and friend.brought < self.profile.friends_brought
                ]
                if friends:
                    player.inviter = self.chance.choice(friends)
                    player.inviter.brought += 1
            arrived.append((at, player))
            self.scheduler.call_at(at, functools.partial(self._first_text, player))

    def _arrival(self) -> float:
        """When one new phone first texts, drawn from the trapezoid."""
        window, rise, fall = self.profile.arrival_seconds, self.profile.rise, self.profile.fall
        flat = 1 - rise - fall
        part = self.chance.random() * (rise / 2 + flat + fall / 2)
        if part < rise / 2:
            return window * rise * math.sqrt(self.chance.random())
        if part < rise / 2 + flat:
            return window * (rise + flat * self.chance.random())
        return window * (1 - fall * math.sqrt(self.chance.random()))

    def hear(self, sms: AcceptedSms) -> None:
        """Twilio accepted a reply: it reaches the phone once sent (never, if it expired)."""
        player = self.players.get(sms.to)
        if player is None or sms.sent_at is None:
            return
        at = sms.sent_at + self.profile.delivery_seconds
        self.scheduler.call_at(at, lambda: self._hear(player, sms.body))

    @property
    def stable_phones(self) -> set[str]:
        """Phones that never opted out: their scores must match the results they were sent."""
        return {phone for phone, player in self.players.items() if not player.opted_out}

    # -- one player ------------------------------------------------------------------------------

    def _new_player(self, number: int) -> CrowdPlayer:
        phone = f"+1556{number:07d}"
        player = CrowdPlayer(
            phone,
            self._nickname(),
            impatient=self.chance.random() < self.profile.resend_share,
            starts_left=self.profile.games_per_phone,
        )
        self.players[phone] = player
        return player

    def _nickname(self, taken: str | None = None) -> str:
        base = taken.rstrip("0123456789_") if taken else self.chance.choice(_NAMES)
        roll = self.chance.random()
        if taken is None and roll < 0.5:
            name = base
        elif roll < 0.8:
            name = f"{base}{self.chance.randrange(1, 100)}"
        else:
            name = f"{base}_{self.chance.randrange(1, 10_000)}"
        return name if is_valid_nickname(name) else f"{base}{self.chance.randrange(100, 1000)}"

    def _first_text(self, player: CrowdPlayer) -> None:
        if self.chance.random() < self.profile.wrong_first_text_share:
            self._send(player, self.chance.choice(_WRONG_FIRST_TEXTS), "first text")
        else:
            self._send(player, f"nick {player.name}", "nick")

    def _hear(self, player: CrowdPlayer, body: str) -> None:
        player.replied_since_text = True
        meaning, name = heard(body)
        if meaning is Heard.REGISTERED:
            player.registered = True
            self._step_soon(player)
        elif meaning is Heard.NAME_REFUSED:
            player.name = self._nickname(taken=player.name)
            self._later(player, lambda: self._send(player, f"nick {player.name}", "nick"))
        elif meaning is Heard.NEEDS_NAME:
            self._step_soon(player)
        elif meaning is Heard.CHALLENGED and name is not None:
            if not player.done or self.chance.random() < self.profile.answer_share:
                self._later(player, lambda: self._answer(player, name))
        elif meaning in (Heard.RESULT, Heard.LOBBY_RESULT):
            player.played += 1
            if meaning is Heard.RESULT and player.answers_pending:
                player.answers_pending -= 1
            else:
                player.own_game = 0
            player.extras_due = True
            self._step_soon(player, between_games=True)
        elif meaning is Heard.THROW_REFUSED:
            player.own_game = 0
            self._step_soon(player)
        elif meaning is Heard.QUIET:
            player.done = True
        elif meaning is Heard.OTHER:
            self._step_soon(player)

    def _step_soon(self, player: CrowdPlayer, between_games: bool = False) -> None:
        if not player.step_due:
            player.step_due = True
            self._later(player, lambda: self._step(player), between_games)

    def _step(self, player: CrowdPlayer) -> None:
        player.step_due = False
        if player.done or player.own_game:
            return
        if not player.registered:
            self._send(player, f"nick {player.name}", "nick")
            return
        if player.extras_due:
            player.extras_due = False
            roll = self.chance.random()
            if roll < self.profile.top_share:
                self._send(player, "top", "top")
                return
            if roll < self.profile.top_share + self.profile.score_share:
                self._send(player, "score", "score")
                return
        if player.starts_left > 0:
            self._start_game(player)
        elif not player.answers_pending:
            player.done = True
            if self.chance.random() < self.profile.stop_share:
                player.opted_out = True
                self._send(player, "STOP", "stop")

    def _start_game(self, player: CrowdPlayer) -> None:
        player.starts_left -= 1
        move = self.chance.choice(_MOVES)
        roll = self.chance.random()
        friend = player.inviter
        if roll < self.profile.rematch_share and player.played:
            self._send(player, f"again {move}", "rematch")
        elif (
            roll < self.profile.rematch_share + self.profile.challenge_share and friend and friend.registered
        ):
            self._send(player, f"{move} {friend.name}", "challenge")
        else:
            self._send(player, move, "lobby")
        game = next(player.games_started)
        player.own_game = game

        def give_up() -> None:
            if player.own_game == game:
                player.own_game = 0
                self._step_soon(player)

        self.scheduler.call_later(self.profile.give_up_seconds, give_up)

    def _answer(self, player: CrowdPlayer, challenger: str) -> None:
        player.starts_left = max(0, player.starts_left - 1)
        player.answers_pending += 1
        self._send(player, f"{self.chance.choice(_MOVES)} {challenger}", "answer")

    def _later(self, player: CrowdPlayer, action: Callable[[], None], between_games: bool = False) -> None:
        """After the player's thought, or pause between games (from the reply reaching the phone)."""
        profile = self.profile
        if between_games:
            median, sigma = profile.between_games_median_seconds, profile.between_games_sigma
        else:
            median, sigma = profile.think_median_seconds, profile.think_sigma
        self.scheduler.call_later(self.chance.lognormvariate(0, sigma) * median, action)

    def _send(self, player: CrowdPlayer, body: str, kind: str) -> None:
        player.last_text, player.replied_since_text = body, False
        self.text(player.phone, body, kind)
        if player.impatient:
            self.scheduler.call_later(
                self.profile.resend_after_seconds, lambda: self._resend_if_unanswered(player, body)
            )

    def _resend_if_unanswered(self, player: CrowdPlayer, body: str) -> None:
        if not player.replied_since_text and player.last_text == body and not player.done:
            player.replied_since_text = True  # once
            self.text(player.phone, body, "resend")
