"""From an SMS body to a command. Pure: standard library only.

Commands are case-insensitive and forgiving of extra spaces, of look-alike Unicode (full-width
letters, invisible characters) and of punctuation around a lone keyword. Bad input becomes a
`ReplyOnly` command carrying a short explanation, so the caller never has to handle a parse error.

Every command can be texted in English or in Spanish (`tirar piedra bob`, `apodo ana`, `otra
papel`; Spanish words with accents or without), and mixed (`rock para bob`, `throw piedra bob`).
Each command says the language its text is in (`language`: `es` when it holds a Spanish word of
the game, None when nothing in it is Spanish): language.py decides from it, and from the player's
record, in which language the replies go. What a command answers by itself (a usage error, help)
is a `catalogue.Wording`, written once that language is known.

Opt-out, opt-in and help keywords are Twilio's as much as ours (but for the Spanish opt-out
keywords, which only the bot reads); docs/opt-out.md says who answers which, with and without
Twilio's Advanced Opt-Out (which adds `OptOutType` to the webhook).

Words are looked up in tables, one look-up per word: a 1,600-character text costs a pass over it,
and no pattern here can backtrack.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from serverless_rps import revocation, revocation_words
from serverless_rps.catalogue import Wording
from serverless_rps.normalisation import normalised, without_accents
from serverless_rps.revocation_words import SPANISH_GAME_WORDS, SPANISH_MOVES, Language
from serverless_rps.rules import Move, move_from_word

__all__ = [
    "SPANISH_COMMAND_WORDS",
    "SPANISH_HELP_WORDS",
    "SPANISH_OPT_IN_WORDS",
    "SPANISH_OPT_OUT_WORDS",
    "AnsweredByTwilio",
    "Command",
    "ListGames",
    "LobbyThrow",
    "OptIn",
    "OptOut",
    "Rematch",
    "ReplyOnly",
    "SetLanguage",
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
    wording: Wording
    # The whole-message HELP (not `HELP <command>`): the program's help comes first (`program_help`).
    overview: bool = False
    language: Language | None = None


@dataclass(frozen=True)
class SetNickname:
    display_name: str
    language: Language | None = None

    @property
    def key(self) -> str:
        """The nickname table's key: look-alike names share it (see `nickname_skeleton`)."""
        return nickname_skeleton(self.display_name)


@dataclass(frozen=True)
class Throw:
    move: Move
    opponent: str
    language: Language | None = None

    @property
    def opponent_key(self) -> str:
        return nickname_skeleton(self.opponent)


@dataclass(frozen=True)
class LobbyThrow:
    """A throw with no opponent (`THROW rock`, or just `rock`): play a stranger."""

    move: Move
    language: Language | None = None


@dataclass(frozen=True)
class Rematch:
    """A throw at the player I last played (`AGAIN <move>`)."""

    move: Move
    language: Language | None = None


@dataclass(frozen=True)
class ListGames:
    language: Language | None = None


@dataclass(frozen=True)
class ShowScore:
    language: Language | None = None


@dataclass(frozen=True)
class ShowTop:
    language: Language | None = None


@dataclass(frozen=True)
class SetLanguage:
    """`IDIOMA es`, `LANG en`: the language every reply to the player is in from now on."""

    language: Language


@dataclass(frozen=True)
class OptOut:
    """A request to stop texting: delete the player's data. An exact carrier keyword is answered
    by Twilio itself; anything Twilio may not have matched gets the one confirmation we send."""

    confirm: bool = False  # True when Twilio may not have answered it: the bot sends the one confirmation
    rule: str = "keyword"  # which rule matched, for the operator's audit log
    language: Language = "en"  # the language the request was in, for the confirmation


@dataclass(frozen=True)
class OptIn:
    """An opt-in word Twilio answered with its generic text only (or the Spanish ALTA, which only
    the bot reads): we add the game's welcome."""

    language: Language | None = None


@dataclass(frozen=True)
class AnsweredByTwilio:
    """A keyword Twilio has already answered with the operator's own text (Advanced Opt-Out's
    START or HELP): nothing changes and nothing is sent, so the player gets one answer, not two."""

    language: Language | None = None


@dataclass(frozen=True)
class ReplyOnly:
    """Input that needs an answer but touches no state (bad usage, unknown words). `guessed`: the
    language is only what the words of a text no command reads look like (`hola`), which answers
    in it but never changes the player's own."""

    wording: Wording
    language: Language | None = None
    guessed: bool = False


Command = (
    ShowHelp
    | SetNickname
    | Throw
    | LobbyThrow
    | Rematch
    | ListGames
    | ShowScore
    | ShowTop
    | SetLanguage
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
# ALTA ("darse de alta", the pair of BAJA): the Spanish confirmation of an opt-out says it rejoins.
# Only the bot reads it, as the whole message: START still works in either language.
SPANISH_OPT_IN_WORDS = frozenset({"alta"})
HELP_WORDS = frozenset({"help", "?", "info"})
SPANISH_HELP_WORDS = SPANISH_GAME_WORDS["help"]  # AYUDA: only the bot reads it
NICK_WORDS = frozenset({"nick", "name"})
THROW_WORDS = frozenset({"throw", "t", "play", "p"})
GAMES_WORDS = frozenset({"games", "game"})
SCORE_WORDS = frozenset({"score", "scores"})
AGAIN_WORDS = frozenset({"again", "rematch"})
TOP_WORDS = frozenset({"top", "leaders"})
LANGUAGE_WORDS = frozenset({"lang", "language"}) | SPANISH_GAME_WORDS["language"]

# The Spanish commands' words (revocation_words.SPANISH_GAME_WORDS, which the classifier reads
# as game talk too), as typed but without accents and in any case. TOP is both languages' word.
SPANISH_COMMAND_WORDS = frozenset().union(*SPANISH_GAME_WORDS.values()) - TOP_WORDS
# Between a move and a nickname: `piedra para bob`, `rock para bob`, `tirar piedra a bob`,
# `jugar contra bob piedra`. None of them can be a nickname (`para` and `contra` are reserved,
# `a` is too short), so a throw reads past them; they are Spanish, and so is the throw.
THROW_CONNECTORS = frozenset({"para", "a", "contra"})
# What `IDIOMA <language>` may name.
LANGUAGE_NAMES: dict[str, Language] = {
    "es": "es",
    "espanol": "es",
    "spanish": "es",
    "castellano": "es",
    "en": "en",
    "ingles": "en",
    "english": "en",
}
# Help topics, by a word of a command in either language (`HELP play`, `AYUDA tirar`): the
# catalogues' `help_topic` keys.
HELP_TOPICS: dict[str, str] = {
    "nick": "nick",
    "name": "nick",
    "throw": "throw",
    "t": "throw",
    "play": "throw",
    "p": "throw",
    "again": "again",
    "rematch": "again",
    "games": "games",
    "top": "top",
    "leaders": "top",
    "score": "score",
    "stop": "stop",
    "quit": "stop",
    "start": "stop",
    **dict.fromkeys(LANGUAGE_WORDS, "language"),
    **{word: topic for topic, words in SPANISH_GAME_WORDS.items() for word in words if topic != "help"},
    **dict.fromkeys(SPANISH_OPT_OUT_WORDS | SPANISH_OPT_IN_WORDS, "stop"),
}

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


def _folded(word: str) -> str:
    """A word as the Spanish words are matched: casefolded, without accents (`Tíjeras` -> tijeras)."""
    return without_accents(word.casefold())


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
        | SPANISH_OPT_IN_WORDS
        | HELP_WORDS
        | NICK_WORDS
        | THROW_WORDS
        | GAMES_WORDS
        | SCORE_WORDS
        | AGAIN_WORDS
        | TOP_WORDS
        | LANGUAGE_WORDS
        | SPANISH_COMMAND_WORDS  # apodo, tirar, jugar, partidas, puntos, otra, ayuda, idioma
        | frozenset(SPANISH_MOVES)  # piedra, papel, tijera, tijeras
        | THROW_CONNECTORS
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
    stop` help, `rock para bob` a throw at bob."""
    verdict = (opt_out_type or "").strip().upper()
    if verdict == _TWILIO_OPT_OUT:
        return OptOut(confirm=False, rule="advanced-opt-out", language=revocation.language_of(body))
    if verdict in (_TWILIO_OPT_IN, _TWILIO_HELP):
        return AnsweredByTwilio()

    text = normalised(body)
    keyword = _lone_keyword(text)
    spanish_keyword = " ".join(without_accents(keyword).split())
    if keyword in OPT_OUT_WORDS:
        if _is_twilio_keyword(body):
            return OptOut(confirm=False, rule="keyword")
        return OptOut(confirm=True, rule="keyword-as-typed")
    if spanish_keyword in SPANISH_OPT_OUT_WORDS:
        return OptOut(confirm=True, rule="spanish-keyword", language="es")
    if keyword in OPT_IN_WORDS:
        return OptIn()
    if spanish_keyword in SPANISH_OPT_IN_WORDS:
        return OptIn(language="es")
    if keyword in HELP_WORDS or (not keyword and "?" in text):
        return ShowHelp(Wording("help_overview"), overview=True)
    if spanish_keyword in SPANISH_HELP_WORDS:
        return ShowHelp(Wording("help_overview"), overview=True, language="es")

    command = _command(text.split())
    if command == ReplyOnly(_UNKNOWN_COMMAND):
        command = ReplyOnly(_UNKNOWN_COMMAND, _looks_like(body), guessed=True)
    if isinstance(command, ReplyOnly) or (
        isinstance(command, ShowHelp) and command.wording == _UNKNOWN_HELP_TOPIC
    ):
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


_UNKNOWN_COMMAND = Wording("unknown_command")
_UNKNOWN_HELP_TOPIC = Wording("unknown_help_topic")

# The words that tell a language in a text no command reads: those only one language has
# (revocation_words, as the classifier counts them) and the game's own words of each.
_ENGLISH_GAME_WORDS = (
    frozenset(
        word for word in NICK_WORDS | THROW_WORDS | GAMES_WORDS | SCORE_WORDS | AGAIN_WORDS if len(word) > 1
    )
    | HELP_WORDS
    | revocation_words.ENGLISH_MOVES
)
_SPANISH_GAME_WORDS = SPANISH_COMMAND_WORDS | frozenset(SPANISH_MOVES) | SPANISH_OPT_OUT_WORDS


def _looks_like(body: str) -> Language | None:
    """The language most of the text's known words are in (`hola` es, `hi there` en), or None when
    it has none, or as many of each (`asdf`): the reply then goes in the player's own."""
    english = spanish = 0
    for word in revocation.words_of(body):
        english += word in revocation.ONLY_ENGLISH or word in _ENGLISH_GAME_WORDS
        spanish += word in revocation.ONLY_SPANISH or word in _SPANISH_GAME_WORDS
    if english == spanish:
        return None
    return "es" if spanish > english else "en"


def _command(words: list[str]) -> Command:
    if not words:
        return ReplyOnly(Wording("empty_message"))
    head, arguments = words[0].lower(), words[1:]
    word = _folded(words[0])
    spanish: Language | None = "es" if word in SPANISH_COMMAND_WORDS else None
    if head in HELP_WORDS or word in SPANISH_HELP_WORDS:
        return _help(arguments, spanish)
    if head in NICK_WORDS or word in SPANISH_GAME_WORDS["nick"]:
        return _nickname(arguments, spanish)
    if head in GAMES_WORDS or word in SPANISH_GAME_WORDS["games"]:
        return ListGames(spanish)
    if head in SCORE_WORDS or word in SPANISH_GAME_WORDS["score"]:
        return ShowScore(spanish)
    if head in TOP_WORDS:
        return ShowTop()
    if head in AGAIN_WORDS or word in SPANISH_GAME_WORDS["again"]:
        return _rematch(arguments, spanish)
    if word in LANGUAGE_WORDS:
        return _language(arguments)
    return _throw_command(words[0], arguments)


def _move(word: str) -> tuple[Move, Language | None] | None:
    """A move in either language (`r`, `Roc`, `PAPER`, `piedra`, `Tijeras`), and `es` if Spanish."""
    spanish = SPANISH_MOVES.get(_folded(word))
    if spanish is not None:
        return spanish, "es"
    move = move_from_word(word)
    return (move, None) if move is not None else None


def _throw_command(first: str, arguments: list[str]) -> Command:
    """`rock`, `rock bob`, `piedra para bob`, `throw rock`, `tirar piedra a bob`, `p rock bob`."""
    verb = _folded(first)
    spanish_verb: Language | None = "es" if verb in SPANISH_GAME_WORDS["throw"] else None
    is_verb = first.lower() in THROW_WORDS or spanish_verb is not None
    move = _move(first)
    lone_move = _move(arguments[0]) if len(arguments) == 1 else None
    if is_verb and lone_move is not None:
        # `throw rock`, `tirar piedra`, and `p rock` (a nickname is never a move)
        return LobbyThrow(lone_move[0], spanish_verb or lone_move[1])
    if move is not None and not arguments:
        return LobbyThrow(*move)  # just `rock`, `piedra`
    # `p bob` is paper at bob (a bare throw), `piedra para bob` rock at bob; `p rock bob` is play rock at bob.
    if move is not None and (
        len(arguments) == 1 or (len(arguments) == 2 and _folded(arguments[0]) in THROW_CONNECTORS)
    ):
        return _throw([first, *arguments], None)
    if is_verb:
        return _throw(arguments, spanish_verb)
    return ReplyOnly(_UNKNOWN_COMMAND)


def _help(arguments: list[str], language: Language | None) -> Command:
    if not arguments:
        return ShowHelp(Wording("help_overview"), language=language)
    topic = HELP_TOPICS.get(_folded(arguments[0]))
    if language == "es" and len(arguments) > 1:
        # `ayuda <comando>` is one word: a longer text is read on (the revocation rules may take it).
        topic = None
    if _folded(arguments[0]) in _SPANISH_GAME_WORDS:
        language = "es"
    if topic is None:
        return ShowHelp(_UNKNOWN_HELP_TOPIC, language=language)
    return ShowHelp(Wording("help_topic", (topic,)), language=language)


def _nickname(arguments: list[str], language: Language | None) -> Command:
    if not arguments:
        return ReplyOnly(Wording("nick_usage"), language)
    if len(arguments) > 1 or not is_valid_nickname(arguments[0]):
        return ReplyOnly(Wording("nick_invalid"), language)
    return SetNickname(arguments[0], language)


def _rematch(arguments: list[str], language: Language | None) -> Command:
    if len(arguments) != 1:
        return ReplyOnly(Wording("again_usage"), language)
    move = _move(arguments[0])
    if move is None:
        return ReplyOnly(Wording("unknown_move"), language)
    return Rematch(move[0], language or move[1])


def _language(arguments: list[str]) -> Command:
    chosen = LANGUAGE_NAMES.get(_folded(arguments[0])) if len(arguments) == 1 else None
    if chosen is None:
        return ReplyOnly(Wording("language_usage"))  # in both languages: either may be the reader's
    return SetLanguage(chosen)


def _throw(arguments: list[str], language: Language | None) -> Command:
    if len(arguments) == 3 and _folded(arguments[1]) in THROW_CONNECTORS:
        arguments, language = [arguments[0], arguments[2]], "es"  # `piedra para bob`
    elif len(arguments) == 3 and _folded(arguments[0]) in THROW_CONNECTORS:
        arguments, language = arguments[1:], "es"  # `jugar contra bob piedra`
    if len(arguments) != 2:
        return ReplyOnly(Wording("throw_usage"), language)
    first, second = arguments
    move, opponent = _move(first), second
    if move is None and _move(second) is not None:
        # Forgive the swapped order: `throw bob rock`.
        move, opponent = _move(second), first
    if move is None:
        return ReplyOnly(Wording("unknown_move"), language)
    language = language or move[1]
    if _NICKNAME.fullmatch(opponent) is None:
        return ReplyOnly(Wording("unknown_player", (None,)), language)
    return Throw(move[0], opponent, language)
