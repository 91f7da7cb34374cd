"""From an SMS body to a command. Pure: standard library only.

Commands are case-insensitive and forgiving of extra spaces, of look-alike Unicode (full-width
letters, invisible characters) and of punctuation around a lone keyword. Bad input becomes a
`ReplyOnly` command carrying a short explanation, so the caller never has to handle a parse error.

Opt-out, opt-in and help keywords are Twilio's as much as ours (but for the Spanish opt-out
keywords, which only the bot reads); docs/opt-out.md says who answers which, with and without
Twilio's Advanced Opt-Out (which adds `OptOutType` to the webhook).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from serverless_rps import replies, revocation, revocation_words
from serverless_rps.normalisation import normalised, without_accents
from serverless_rps.rules import Move, move_from_word

__all__ = [
    "SPANISH_OPT_OUT_WORDS",
    "AnsweredByTwilio",
    "Command",
    "ListGames",
    "LobbyThrow",
    "OptIn",
    "OptOut",
    "Rematch",
    "ReplyOnly",
    "SetNickname",
    "ShowHelp",
    "ShowScore",
    "ShowTop",
    "Throw",
    "is_valid_nickname",
    "nickname_skeleton",
    "parse",
]


@dataclass(frozen=True)
class ShowHelp:
    text: str
    # The whole-message HELP (not `HELP <command>`): the program's help comes first (`replies.program_help`).
    overview: bool = False


@dataclass(frozen=True)
class SetNickname:
    display_name: str

    @property
    def key(self) -> str:
        """The nickname table's key: look-alike names share it (see `nickname_skeleton`)."""
        return nickname_skeleton(self.display_name)


@dataclass(frozen=True)
class Throw:
    move: Move
    opponent: str

    @property
    def opponent_key(self) -> str:
        return nickname_skeleton(self.opponent)


@dataclass(frozen=True)
class LobbyThrow:
    """A throw with no opponent (`THROW rock`, or just `rock`): play a stranger."""

    move: Move


@dataclass(frozen=True)
class Rematch:
    """A throw at the player I last played (`AGAIN <move>`)."""

    move: Move


@dataclass(frozen=True)
class ListGames:
    pass


@dataclass(frozen=True)
class ShowScore:
    pass


@dataclass(frozen=True)
class ShowTop:
    pass


@dataclass(frozen=True)
class OptOut:
    """A request to stop texting: delete the player's data. An exact carrier keyword is answered
    by Twilio itself; anything Twilio may not have matched gets the one confirmation we send."""

    confirm: bool = False  # True when Twilio may not have answered it: the bot sends the one confirmation
    rule: str = "keyword"  # which rule matched, for the operator's audit log
    language: revocation_words.Language = "en"  # the language the request was in, for the confirmation


@dataclass(frozen=True)
class OptIn:
    """An opt-in word Twilio answered with its generic text only: we add the game's welcome."""


@dataclass(frozen=True)
class AnsweredByTwilio:
    """A keyword Twilio has already answered with the operator's own text (Advanced Opt-Out's
    START or HELP): nothing changes and nothing is sent, so the player gets one answer, not two."""


@dataclass(frozen=True)
class ReplyOnly:
    """Input that needs an answer but touches no state (bad usage, unknown words)."""

    text: str


Command = (
    ShowHelp
    | SetNickname
    | Throw
    | LobbyThrow
    | Rematch
    | ListGames
    | ShowScore
    | ShowTop
    | OptOut
    | OptIn
    | AnsweredByTwilio
    | ReplyOnly
)

# Twilio's default keywords on long codes; each acts only as the whole message, in any case
# ("Stop" opts out, "Stop please" does not):
# - opt-out: STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, and since 14 May 2025 (the FCC's
#   revocation rule) REVOKE and OPTOUT, "OPT OUT" with a space not supported
#   (https://help.twilio.com/articles/223134027, https://www.twilio.com/en-us/blog/update-to-fcc-s-sms-opt-out-keywords,
#   https://www.twilio.com/docs/messaging/tutorials/advanced-opt-out);
# - opt-in: START, YES, UNSTOP; help: HELP, INFO (https://www.twilio.com/docs/api/errors/23004,
#   https://www.twilio.com/help/faq/sms/does-twilio-support-stop-block-and-cancel-aka-sms-filtering);
# - whole-message matching: https://help.twilio.com/articles/31560110671259 (OptOutType).
OPT_OUT_WORDS = frozenset({"stop", "stopall", "unsubscribe", "cancel", "end", "quit", "optout", "revoke"})
# Spanish opt-out keywords, as the whole message and as typed (accents or none: `Álto`, `NO MAS`).
# Twilio's defaults are English only, so it neither answers nor blocks these: the bot confirms
# them, unless the operator added them to Advanced Opt-Out (its `OptOutType` decides first).
SPANISH_OPT_OUT_WORDS = frozenset({"alto", "parar", "para", "detener", "cancelar", "baja", "no mas"})
OPT_IN_WORDS = frozenset({"start", "unstop", "yes"})
HELP_WORDS = frozenset({"help", "?", "info"})
NICK_WORDS = frozenset({"nick", "name"})
THROW_WORDS = frozenset({"throw", "t", "play", "p"})
GAMES_WORDS = frozenset({"games", "game"})
SCORE_WORDS = frozenset({"score", "scores"})
AGAIN_WORDS = frozenset({"again", "rematch"})
TOP_WORDS = frozenset({"top", "leaders"})

# Advanced Opt-Out's verdict, sent as `OptOutType` for the operator's keywords in any language.
_TWILIO_OPT_OUT = "STOP"
_TWILIO_OPT_IN = "START"
_TWILIO_HELP = "HELP"


def _is_punctuation_or_symbol(character: str) -> bool:
    return unicodedata.category(character)[0] in "PS"


def _lone_keyword(text: str) -> str:
    """The message as one casefolded word, punctuation, symbols and spaces around it removed:
    `Stop.`, `"quit"!`, ` END 🙏 ` -> stop, quit, end. Spaces inside remain, so `stop bob` never
    matches a keyword."""
    folded = text.casefold().strip()
    start, end = 0, len(folded)
    while start < end and (folded[start].isspace() or _is_punctuation_or_symbol(folded[start])):
        start += 1
    while end > start and (folded[end - 1].isspace() or _is_punctuation_or_symbol(folded[end - 1])):
        end -= 1
    return folded[start:end]


# Look-alikes within the nickname alphabet, after lowercasing, in the spirit of Unicode TR39's
# "skeleton": a lowercase l, a capital I (lowercased to i) and the digit 1 are one stroke in most
# phone fonts; O and 0 differ by a slash at best; m reads as rn and w as vv in small type (both
# pairs are in TR39's confusables data). Left apart on purpose: 5/S, 2/Z, 8/B, 6/b, which a
# phone's font tells apart, and whose merging would refuse many ordinary names with digits.
_SKELETON_CHARACTERS = str.maketrans({"i": "l", "1": "l", "0": "o", "m": "rn", "w": "vv"})


def nickname_skeleton(name: str) -> str:
    """The form two nicknames share when they look alike: `aIice`, `a1ice`, `ALICE` -> `allce`."""
    return name.lower().translate(_SKELETON_CHARACTERS)


_NICKNAME = re.compile(r"[A-Za-z0-9_]{3,15}")
_RESERVED = frozenset(
    nickname_skeleton(word)
    for word in (
        OPT_OUT_WORDS
        | SPANISH_OPT_OUT_WORDS
        | revocation_words.RESERVED_WORDS  # "stop please", "stop bro", "alto amigo" never name a player
        | OPT_IN_WORDS
        | HELP_WORDS
        | NICK_WORDS
        | THROW_WORDS
        | GAMES_WORDS
        | SCORE_WORDS
        | AGAIN_WORDS
        | TOP_WORDS
        | {move.value[:length] for move in Move for length in range(3, len(move.value) + 1)}
    )
)


def is_valid_nickname(name: str) -> bool:
    return _NICKNAME.fullmatch(name) is not None and nickname_skeleton(name) not in _RESERVED


def parse(body: str, opt_out_type: str | None = None) -> Command:
    """`opt_out_type` is Twilio's `OptOutType` webhook parameter (Advanced Opt-Out only): when it
    is STOP, START or HELP it decides, whatever the body says; any other value counts as absent.

    In order: Twilio's verdict; a lone keyword (opt-out in English or Spanish, opt-in, help); a
    command; and only for text no command reads (what would be answered "didn't get that" or a
    usage error) the free-text revocation rules of `revocation.py`. So a real command always
    wins: `nick stop` is a bad nickname, `throw rock stop` a throw at a player called stop, `help
    stop` help."""
    verdict = (opt_out_type or "").strip().upper()
    if verdict == _TWILIO_OPT_OUT:
        return OptOut(confirm=False, rule="advanced-opt-out", language=revocation.language_of(body))
    if verdict in (_TWILIO_OPT_IN, _TWILIO_HELP):
        return AnsweredByTwilio()

    text = normalised(body)
    keyword = _lone_keyword(text)
    if keyword in OPT_OUT_WORDS:
        if _is_twilio_keyword(body):
            return OptOut(confirm=False, rule="keyword")
        return OptOut(confirm=True, rule="keyword-as-typed")
    if " ".join(without_accents(keyword).split()) in SPANISH_OPT_OUT_WORDS:
        return OptOut(confirm=True, rule="spanish-keyword", language="es")
    if keyword in OPT_IN_WORDS:
        return OptIn()
    if keyword in HELP_WORDS or (not keyword and "?" in text):
        return ShowHelp(replies.help_overview(), overview=True)

    command = _command(text.split())
    if isinstance(command, ReplyOnly) or command == ShowHelp(replies.unknown_help_topic()):
        revoked = revocation.classify(body)
        if revoked is not None:
            return OptOut(confirm=True, rule=revoked.rule, language=revoked.language)
    return command


def _is_twilio_keyword(body: str) -> bool:
    """Whether Twilio itself matches `body` as an opt-out keyword: the whole message, in any
    case, surrounding whitespace ignored. Anything else (`Stop.`, `ＳＴＯＰ`, a zero-width space
    inside) it may not match, so it may not have confirmed it either."""
    word = body.strip()
    return word.isascii() and word.lower() in OPT_OUT_WORDS


def _command(words: list[str]) -> Command:
    if not words:
        return ReplyOnly(replies.empty_message())
    command, arguments = words[0].lower(), words[1:]
    if command in HELP_WORDS:
        return _help(arguments)
    if command in NICK_WORDS:
        return _nickname(arguments)
    if command in GAMES_WORDS:
        return ListGames()
    if command in SCORE_WORDS:
        return ShowScore()
    if command in TOP_WORDS:
        return ShowTop()
    if command in AGAIN_WORDS:
        return _rematch(arguments)
    move = move_from_word(command)
    lone_move = move_from_word(arguments[0]) if len(arguments) == 1 else None
    if command in THROW_WORDS and lone_move is not None:
        return LobbyThrow(lone_move)  # `throw rock`, and `p rock` (a nickname is never a move)
    if move is not None and not arguments:
        return LobbyThrow(move)  # just `rock`
    bare_throw = move is not None and len(arguments) == 1
    # `p bob` is paper at bob (a bare throw); `p rock bob` is play rock at bob.
    if bare_throw:
        return _throw([command, *arguments])
    if command in THROW_WORDS:
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


def _rematch(arguments: list[str]) -> Command:
    if len(arguments) != 1:
        return ReplyOnly(replies.again_usage())
    move = move_from_word(arguments[0])
    return Rematch(move) if move is not None else ReplyOnly(replies.unknown_move())


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
