"""The game's signals in a text, and the second reading of a free text (`revocation.py` asks it
when no phrase matched): a stop intent aimed at the bot's texts or at the sender, scored against
the game signals near it. Pure: standard library only.

The phrase grammar (`revocation_words.CLEAR_PHRASES`) knows whole phrases, and each blind set
showed people writing the same request in words no phrase held: "quit blowing up my phone",
"turn these messages off", "stop the notifications on this phone", "ya no me spameen". What
those share is not a phrase but two signals: an **intent** to stop (stop, quit, end, cancel,
block, remove, no more, not interested, don't want, turn off; cancelar, desactiven, no más, basta,
ya chole, salir) and a **target** that is what the bot sends or who receives it (texts,
messages, notifications, my phone, my inbox, me, this number, the list, the bot; mensajes,
escribirme, la lista, aquí), with nothing between them but words that carry neither meaning
(the, these, my, all; a verb's -ing form: "quit *blowing up* my phone"). Either may come first:
"stop these texts", "make the texts stop", "can the texts just stop", "paren los mensajes".

Against them stand the game signals, read near the intent only (the caller weighs them): a move
or a word of the contest within a few words, a negation or an "if" before the intent, a third
party who is to stop, a name after the request. A text far longer than its request is read by
the request's neighbourhood, not by the whole, so a long complaint about the game that ends in
"please stop messaging me" is still a request.
"""

from __future__ import annotations

from collections.abc import Callable

from serverless_rps import revocation_words as vocabulary
from serverless_rps.revocation_words import Language, Meaning
from serverless_rps.rules import Move, move_from_word

__all__ = ["INTENTS", "OFF_VERBS", "TARGETS", "aimed_intent", "game_signals", "move", "the_games_name_as_one"]

# Intents, as the rules read words (`texts` is `text`, `mándenme` is `escribir`), longest first.
INTENTS: dict[tuple[str, ...], Language] = {
    **{
        (word,): "en"
        for word in (
            *("stop", "quit", "cease", "halt", "end", "cancel", "discontinue", "terminate", "pause"),
            *("block", "remove", "delete", "erase", "disable", "deactivate", "mute", "silence"),
        )
    },
    ("no", "more"): "en",
    ("not", "interested"): "en",
    ("no", "longer", "interested"): "en",
    ("dont", "want"): "en",
    ("do", "not", "want"): "en",
    ("get", "off"): "en",
    ("take", "off"): "en",
    ("off",): "en",  # only after "turn", "shut" or "switch": "turn off the alerts", "turn these texts off"
    **{
        (word,): "es"
        for word in (
            *("detener", "cancelar", "bloquea", "sacame", "borra", "salir", "desactiva", "apaga"),
            *("basta", "paren", "pare"),
        )
    },
    ("no", "mas"): "es",
    ("no", "quiero"): "es",
    ("ya", "chole"): "es",
    ("ya", "estuvo"): "es",
}
LONGEST_INTENT = max(len(intent) for intent in INTENTS)
# "turn these texts off": the verb, its target, then "off".
OFF_VERBS = frozenset({"turn", "shut", "switch"})

# What the bot sends, or who receives it.
TARGETS = frozenset(
    {"text", "message", "notification", "call", "spam", "communication", "contact", "phone", "cell"}
    | {"inbox", "number", "me", "us", "list", "service", "bot", "rps", "subscription", "invite"}
    | {"escribir", "lista", "aqui", "servicio", "esto"}
)
# Who receives them, and the intents they are no target of by themselves: "stop me if you can".
PEOPLE = frozenset({"me", "us"})
STOPPING = frozenset(
    {("stop",), ("quit",), ("cease",), ("halt",), ("end",), ("pause",), ("basta",), ("paren",)}
)
# What is done to the sender by texts, when no list's phrase says it: "stop pinging me", "quit
# hounding us". Not any verb: "stop testing me" is no request about texts.
CONTACTING = frozenset(
    {"pinging", "bugging", "bothering", "harassing", "hitting", "blowing", "flooding", "hounding"}
    | {"pestering", "nagging", "sending", "emailing", "buzzing", "blasting", "bombarding", "reaching"}
    | {"targeting", "adding", "signing", "subscribing"}
)
# What the bot sends, named before an intent that ends the text: "make the texts stop".
TEXTS = frozenset({"text", "message", "notification", "call", "spam", "escribir"})
# Pronouns that stand for the texts when the text named them before: "I keep getting texts... I
# want them to stop".
PRONOUNS_OF_TEXTS = frozenset({"them", "it", "these", "those", "this", "they"})
# Words between an intent and its target that carry neither meaning.
BETWEEN = frozenset(
    {"the", "these", "those", "this", "all", "my", "your", "any", "of", "from", "on", "to", "up", "in"}
    | {"a", "an", "every", "daily", "game", "games", "automated", "random", "stupid", "dumb", "constant"}
    | {"just", "please", "now", "de", "los", "las", "tus", "sus", "estos", "esos", "mis", "mi", "su", "tu"}
    | {"con", "ya", "por", "mas", "todos", "todas", "el", "la", "este", "esta", "recibir", "del", "al"}
)
# Words between a target named first and the intent that ends the text: "i need these messages
# to stop", "can the texts just stop", "que paren".
BEFORE = frozenset(
    {"to", "just", "all", "please", "can", "could", "will", "would", "need", "want", "i", "going", "gonna"}
    | {"que", "se", "ya"}
)
# A question about how to do what the intent says, when it ends the text: "how do i stop", "cómo
# me salgo". The sender wants out: reading it so is the safe side of the FCC's rule.
HOW = frozenset({"how", "como", "where", "donde"})
_REACH = 5  # words between an intent and its target, at most
_SENT_REACH = 3  # words between "sending", "more"... and the game's noun they send: "send me any challenges"

Guard = Callable[[int, int, Meaning], bool]


def aimed_intent(words: list[str], outweighed: Guard, at_the_end: Callable[[int], bool]) -> Meaning | None:
    """The first stop intent aimed at a target that `outweighed(start, end, meaning)` (the
    caller's game signals around words[start:end]) does not outweigh, or None. `at_the_end(i)`:
    whether words[i:] is empty or courtesy only. A bounded look around each word: no
    backtracking."""
    for start in range(len(words)):
        for length in range(min(LONGEST_INTENT, len(words) - start), 0, -1):
            intent = tuple(words[start : start + length])
            language = INTENTS.get(intent)
            if language is None:
                continue
            end = start + length
            # "off" asks only after "turn", "shut" or "switch", where the request starts.
            verb = start
            if intent == ("off",):
                verb = next(
                    (i for i in range(start - 1, max(-1, start - 4), -1) if words[i] in OFF_VERBS), -1
                )
                if verb < 0:
                    break
            meaning = Meaning("stop-intent", language)
            span = _target_after(words, end, intent) or _target_before(words, start, end, at_the_end)
            if span is None and at_the_end(end) and _asked_how(words, verb):
                span = (verb, end)
            if span is not None and not outweighed(min(verb, span[0]), max(end, span[1]), meaning):
                return meaning
            break
    return None


def _target_after(words: list[str], end: int, intent: tuple[str, ...]) -> tuple[int, int] | None:
    """`stop [the daily] texts`, `quit [blowing up] my phone`, `block me`. The sender is a target
    of an intent that takes a person (`block me`, `take me off`) or after what is done to them
    (`stop pinging me`); "stop me" alone is a taunt ("stop me if you can")."""
    contacting = False
    for index in range(end, min(len(words), end + _REACH + 1)):
        word = words[index]
        if word in TARGETS and (word not in PEOPLE or contacting or intent not in STOPPING):
            return (end, index + 1)
        contacting = contacting or word in CONTACTING
        if word not in BETWEEN and not _is_a_gerund(word):
            return None
    return None


def _target_before(
    words: list[str], start: int, end: int, at_the_end: Callable[[int], bool]
) -> tuple[int, int] | None:
    """`make the texts stop`, `I want them to stop` (after texts named earlier), `turn these
    texts off`: a target before an intent that ends the text."""
    if not at_the_end(end):
        return None
    named_texts = any(word in TEXTS for word in words[:start])
    for index in range(start - 1, max(-1, start - 1 - _REACH), -1):
        word = words[index]
        if word in TEXTS or (named_texts and word in PRONOUNS_OF_TEXTS):
            return (index, end)
        if words[start] == "off" and (word in OFF_VERBS or word in PRONOUNS_OF_TEXTS):
            if word in PRONOUNS_OF_TEXTS and words[index - 1 : index] and words[index - 1] in OFF_VERBS:
                return (index, end)  # "turn this off"
            continue
        if word not in BEFORE:
            return None
    return None


def _is_a_gerund(word: str) -> bool:
    """A verb's -ing form: what the intent stops doing (`blowing`, `pinging`), the target after it."""
    return len(word) > 5 and word.endswith("ing")


def game_signals(words: list[str]) -> list[bool]:
    """For each word, whether it is a move or a word of the contest: the strong game signal. Not
    the three moves that name the game ("these rock paper scissors texts", "mensajes de piedra,
    papel o tijera"): they say what the texts are, not what a player threw."""
    signals = [move(word) is not None or word in vocabulary.CONTEST_WORDS for word in words]
    for index, word in enumerate(words):  # "stop sending me challenges": what is sent, not the contest
        if word in vocabulary.GAME_SENDS and any(
            before in vocabulary.SENDING for before in words[max(0, index - _SENT_REACH) : index]
        ):
            signals[index] = False
    for index in range(1, len(words)):  # "get lost" is go away, not a game lost
        if words[index - 1] == "get" and words[index] == "lost":
            signals[index] = False
    for start in range(len(words)):
        end = _end_of_the_games_name(words, start)
        signals[start:end] = [False] * (end - start)
    return signals


def move(word: str) -> Move | None:
    """The move a word names (`rocks`, `piedra`), or None."""
    if word in vocabulary.ENGLISH_MOVES:
        return move_from_word(word[:3])  # `rocks`, `papers`: their first three letters name the move
    return vocabulary.SPANISH_MOVES.get(word)


def _end_of_the_games_name(words: list[str], start: int) -> int:
    """Where the game's name that starts at words[start] ends (its three moves, each once, an
    "and" or "o" between allowed), or `start` if none does. Five words at most are looked at."""
    moves: set[Move] = set()
    index = start
    while index < len(words) and len(moves) < len(Move):
        thrown = move(words[index])
        if thrown is None or thrown in moves:
            return start
        moves.add(thrown)
        index += 1
        if len(moves) < len(Move) and index < len(words) and words[index] in vocabulary.AND_OR:
            index += 1
    return index if len(moves) == len(Move) else start


def the_games_name_as_one(words: list[str]) -> list[str]:
    """The game's name, its three moves (`rock paper scissors`, `piedra, papel o tijera`), as the
    one word `rps`: in "stop the rock paper scissors texts" it says which texts, and no move."""
    named: list[str] = []
    index = 0
    while index < len(words):
        end = _end_of_the_games_name(words, index)
        named.append("rps" if end > index else words[index])
        index = max(end, index + 1)
    return named


def _asked_how(words: list[str], start: int) -> bool:
    """ "how do I stop?", "¿cómo me salgo?": a question how to do what the intent at words[start] says."""
    return any(word in HOW for word in words[max(0, start - 4) : start])
