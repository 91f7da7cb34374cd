"""From an SMS body to a command. Pure: standard library only.

Commands are case-insensitive and forgiving of extra spaces. Bad input becomes a `ReplyOnly`
command carrying a short explanation, so the caller never has to handle a parse error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from serverless_rps import replies
from serverless_rps.rules import Move, move_from_word

__all__ = [
    "Command",
    "ListGames",
    "OptIn",
    "OptOut",
    "ReplyOnly",
    "SetNickname",
    "ShowHelp",
    "ShowScore",
    "Throw",
    "is_valid_nickname",
    "parse",
]


@dataclass(frozen=True)
class ShowHelp:
    text: str


@dataclass(frozen=True)
class SetNickname:
    display_name: str

    @property
    def key(self) -> str:
        return self.display_name.lower()


@dataclass(frozen=True)
class Throw:
    move: Move
    opponent: str

    @property
    def opponent_key(self) -> str:
        return self.opponent.lower()


@dataclass(frozen=True)
class ListGames:
    pass


@dataclass(frozen=True)
class ShowScore:
    pass


@dataclass(frozen=True)
class OptOut:
    """A carrier opt-out word: delete the player's data. Twilio answers the player itself."""


@dataclass(frozen=True)
class OptIn:
    pass


@dataclass(frozen=True)
class ReplyOnly:
    """Input that needs an answer but touches no state (bad usage, unknown words)."""

    text: str


Command = ShowHelp | SetNickname | Throw | ListGames | ShowScore | OptOut | OptIn | ReplyOnly

# Twilio's default opt-out and opt-in keywords; they act only as the whole message.
OPT_OUT_WORDS = frozenset({"stop", "stopall", "unsubscribe", "cancel", "end", "quit", "optout", "revoke"})
OPT_IN_WORDS = frozenset({"start", "unstop", "yes"})
HELP_WORDS = frozenset({"help", "?", "info"})
NICK_WORDS = frozenset({"nick", "name"})
THROW_WORDS = frozenset({"throw", "t", "play", "p"})
GAMES_WORDS = frozenset({"games", "game"})
SCORE_WORDS = frozenset({"score", "scores"})

_NICKNAME = re.compile(r"[A-Za-z0-9_]{3,15}")
_RESERVED = (
    OPT_OUT_WORDS | OPT_IN_WORDS | HELP_WORDS | NICK_WORDS | THROW_WORDS | GAMES_WORDS | SCORE_WORDS
) | {move.value[:length] for move in Move for length in range(3, len(move.value) + 1)}


def is_valid_nickname(name: str) -> bool:
    return _NICKNAME.fullmatch(name) is not None and name.lower() not in _RESERVED


def parse(body: str) -> Command:
    words = body.split()
    if not words:
        return ReplyOnly(replies.empty_message())
    keyword, arguments = words[0].lower(), words[1:]

    if not arguments and keyword in OPT_OUT_WORDS:
        return OptOut()
    if not arguments and keyword in OPT_IN_WORDS:
        return OptIn()
    if keyword in HELP_WORDS:
        return _help(arguments)
    if keyword in NICK_WORDS:
        return _nickname(arguments)
    if keyword in GAMES_WORDS:
        return ListGames()
    if keyword in SCORE_WORDS:
        return ShowScore()
    bare_throw = move_from_word(keyword) is not None and len(arguments) == 1
    # `p bob` is paper at bob (a bare throw); `p rock bob` is play rock at bob.
    if bare_throw:
        return _throw([keyword, *arguments])
    if keyword in THROW_WORDS:
        return _throw(arguments)
    return ReplyOnly(replies.unknown_command())


def _help(arguments: list[str]) -> Command:
    if not arguments:
        return ShowHelp(replies.help_overview())
    text = replies.help_topic(arguments[0])
    return ShowHelp(text if text is not None else replies.unknown_help_topic())


def _nickname(arguments: list[str]) -> Command:
    if not arguments:
        return ReplyOnly(replies.nick_usage())
    if len(arguments) > 1 or not is_valid_nickname(arguments[0]):
        return ReplyOnly(replies.nick_invalid())
    return SetNickname(arguments[0])


def _throw(arguments: list[str]) -> Command:
    if len(arguments) != 2:
        return ReplyOnly(replies.throw_usage())
    first, second = arguments
    move, opponent = move_from_word(first), second
    if move is None and move_from_word(second) is not None:
        # Forgive the swapped order: `throw bob rock`.
        move, opponent = move_from_word(second), first
    if move is None:
        return ReplyOnly(replies.unknown_move())
    if _NICKNAME.fullmatch(opponent) is None:
        return ReplyOnly(replies.unknown_player(None))
    return Throw(move, opponent)
