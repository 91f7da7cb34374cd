"""From an SMS body to a command. Pure: standard library only.

Commands are case-insensitive and forgiving of extra spaces. Bad input becomes a `ReplyOnly`
command carrying a short explanation, so the caller never has to handle a parse error.

The body is normalised first as people's phones type it: NFKC (full-width `ＳＴＯＰ` is `STOP`),
invisible characters removed (zero-width spaces, joiners, BOMs, variation selectors), and a
keyword alone is recognised with punctuation or symbols around it (`Stop.`, `stop!`, `"END"`).
Twilio's opt-out, opt-in and help keywords (docs/opt-out.md) act only as the whole message.

Nicknames are unique by their *skeleton* (`nickname_key`): lowercase, with the characters that look
alike in a text message's font folded together (`aIice` is `alice`, `b0b` is `bob`), after
Unicode's confusable-detection idea (UTS #39), within the alphabet nicknames may use.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from serverless_rps import replies
from serverless_rps.rules import Move, move_from_word

__all__ = [
    "AnsweredByTwilio",
    "Command",
    "ListGames",
    "OptOut",
    "ReplyOnly",
    "SetNickname",
    "ShowHelp",
    "ShowScore",
    "Throw",
    "is_valid_nickname",
    "nickname_key",
    "normalise",
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
        return nickname_key(self.display_name)


@dataclass(frozen=True)
class Throw:
    move: Move
    opponent: str

    @property
    def opponent_key(self) -> str:
        return nickname_key(self.opponent)


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
class AnsweredByTwilio:
    """An opt-in (START) or, with Advanced Opt-Out, a HELP keyword: Twilio has answered it
    already, so we change nothing and send nothing (the player gets one answer, not two)."""

    keyword: str


@dataclass(frozen=True)
class ReplyOnly:
    """Input that needs an answer but touches no state (bad usage, unknown words)."""

    text: str


Command = ShowHelp | SetNickname | Throw | ListGames | ShowScore | OptOut | AnsweredByTwilio | ReplyOnly

# Twilio's default keywords on long codes (its Advanced Opt-Out guide and support article "Twilio
# support for opt-out keywords"): opt-out STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE,
# OPTOUT; opt-in START, UNSTOP, YES; help HELP, INFO. They act only as the whole message.
OPT_OUT_WORDS = frozenset({"stop", "stopall", "unsubscribe", "cancel", "end", "quit", "optout", "revoke"})
OPT_IN_WORDS = frozenset({"start", "unstop", "yes"})
HELP_WORDS = frozenset({"help", "?", "info"})
# What Twilio's Advanced Opt-Out puts in the webhook's OptOutType when a keyword matched (its own
# or an operator's custom or other-language ones): authoritative over our own word lists.
TWILIO_OPT_OUT_TYPES = frozenset({"STOP", "START", "HELP"})
NICK_WORDS = frozenset({"nick", "name"})
THROW_WORDS = frozenset({"throw", "t", "play", "p"})
GAMES_WORDS = frozenset({"games", "game"})
SCORE_WORDS = frozenset({"score", "scores"})

_NICKNAME = re.compile(r"[A-Za-z0-9_]{3,15}")
_RESERVED = (
    OPT_OUT_WORDS | OPT_IN_WORDS | HELP_WORDS | NICK_WORDS | THROW_WORDS | GAMES_WORDS | SCORE_WORDS
) | {move.value[:length] for move in Move for length in range(3, len(move.value) + 1)}


# Look-alikes within [a-z0-9_] once lowercased: capital I and lowercase l are both `l` (so is 1,
# and i, whose capital is I), 0 and O are `o`, 5 is `s`; `rn` reads as `m` and `vv` as `w`.
_LOOK_ALIKE_PAIRS = (("rn", "m"), ("vv", "w"))
_LOOK_ALIKE_CHARACTERS = str.maketrans({"1": "l", "i": "l", "0": "o", "5": "s"})
_VARIATION_SELECTORS = (range(0xFE00, 0xFE10), range(0xE0100, 0xE01F0))


def nickname_key(name: str) -> str:
    """The nickname's identity: names that look alike in an SMS (`aIice`, `alice`, `a1ice`) share it."""
    key = name.lower()
    for pair, single in _LOOK_ALIKE_PAIRS:
        key = key.replace(pair, single)
    return key.translate(_LOOK_ALIKE_CHARACTERS)


_RESERVED_KEYS = frozenset(nickname_key(word) for word in _RESERVED)


def _is_invisible(character: str) -> bool:
    code = ord(character)
    return (unicodedata.category(character) in {"Cf", "Cc"} and character not in "\t\n\r") or any(
        code in selectors for selectors in _VARIATION_SELECTORS
    )


def normalise(body: str) -> str:
    """NFKC, then without invisible characters (zero-width spaces and joiners, BOM, soft hyphen,
    variation selectors): what the player meant to type."""
    return "".join(
        character for character in unicodedata.normalize("NFKC", body) if not _is_invisible(character)
    )


def _bare_word(text: str) -> str:
    """The message as one lowercase word without the punctuation and symbols around it."""
    stripped = text.strip()
    while stripped and unicodedata.category(stripped[0])[0] in "PSZ":
        stripped = stripped[1:]
    while stripped and unicodedata.category(stripped[-1])[0] in "PSZ":
        stripped = stripped[:-1]
    return stripped.casefold()


def is_valid_nickname(name: str) -> bool:
    return _NICKNAME.fullmatch(name) is not None and nickname_key(name) not in _RESERVED_KEYS


def parse(body: str, opt_out_type: str | None = None) -> Command:
    """The command in an SMS body. `opt_out_type` is Twilio's OptOutType, when Advanced Opt-Out
    matched a keyword: it decides, whatever the body says (an unknown value is ignored)."""
    kind = (opt_out_type or "").strip().upper()
    if kind == "STOP":
        return OptOut()
    if kind in TWILIO_OPT_OUT_TYPES:
        return AnsweredByTwilio(kind)
    body = normalise(body)
    word = _bare_word(body)
    if word in OPT_OUT_WORDS:
        return OptOut()
    if word in OPT_IN_WORDS:
        return AnsweredByTwilio("START")
    words = body.split()
    if not words:
        return ReplyOnly(replies.empty_message())
    keyword, arguments = words[0].lower(), words[1:]
    if not arguments and word in HELP_WORDS:
        keyword = word
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
