"""The words the revocation classifier (`revocation.py`) reads, in English and in Spanish: what
asks to stop, what is courtesy around it, what is about the game, and the words of a sentence
that tell who is to stop. Pure: standard library only.

Phrases are written in a small notation (`_expand`): `stop [the|these] (text|message)`, where
`(a|b)` is a choice and `[a|b]` an optional one, expanded into tables of word sequences once,
when the module loads. Every word of every list has a text of its own in
tests/unit/test_revocation_words.py that reads otherwise without it; docs/opt-out.md says why
each list is what it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Literal

from serverless_rps.rules import Move

__all__ = [
    "BETWEEN_NEGATION_AND_STOP",
    "CANONICAL",
    "CLAUSE_STARTS",
    "CLEAR_PHRASES",
    "COMMANDS_WITH_AN_ARGUMENT",
    "COMPLETE_PHRASE_ENDS",
    "CONTEST_WORDS",
    "COURTESY",
    "COURTESY_ONLY",
    "ENGLISH_MOVES",
    "FROM_OR_WITH",
    "HYPOTHETICALS",
    "INTERJECTIONS",
    "LAUGHTER",
    "LONGEST_PHRASE",
    "MODAL_CHAIN",
    "MODIFIERS",
    "NAME_WITH_DIGITS_OR_UNDERSCORE",
    "NAMING_A_THIRD_PARTY",
    "NEGATIONS",
    "NEGATIVE_SUBJECTS",
    "NICKNAME_SHAPE",
    "NOT_AT_THE_END",
    "ONLY_ENGLISH",
    "ONLY_SPANISH",
    "ORDINARY_WORDS",
    "QUESTION_AUXILIARIES",
    "RESERVED_WORDS",
    "SPANISH_GAME_WORDS",
    "SPANISH_KEYWORDS",
    "SPANISH_MOVES",
    "SPELLED_OUT_KEYWORDS",
    "STATEMENTS",
    "STOP_REQUESTS",
    "THINGS",
    "THIRD_PERSON",
    "VERBS_OF_A_PERSON",
    "VERBS_OF_A_THING",
    "Language",
    "Meaning",
]

Language = Literal["en", "es"]

# The Spanish game's words, in one place: the classifier reads texts built from them as game talk,
# and the Spanish commands are to be read from them. Keys are the English commands.
SPANISH_GAME_WORDS: Mapping[str, frozenset[str]] = {
    "throw": frozenset({"jugar", "tirar"}),
    "nick": frozenset({"apodo"}),
    "games": frozenset({"partidas"}),
    "score": frozenset({"puntos"}),
    "top": frozenset({"top"}),
    "again": frozenset({"otra"}),
    "help": frozenset({"ayuda"}),
    "language": frozenset({"idioma"}),
}
SPANISH_MOVES: Mapping[str, Move] = {
    "piedra": Move.ROCK,
    "papel": Move.PAPER,
    "tijera": Move.SCISSORS,
    "tijeras": Move.SCISSORS,
}

# --- Spellings --------------------------------------------------------------------------------------

# People's spellings, each to one word the rules below are written in (accents already gone).
_ENGLISH_SPELLINGS = {
    "text": "texts texting texted textin txt txts txting txtin txtng txtn sms smss smses",
    "message": "messages messaging messaged msg msgs msging msgng msgin mesage mesages messege messeges",
    "contact": "contacting contacted",
    "call": "calls calling",
    "spam": "spamming spaming spammed",
    "notification": "notifications alert alerts update updates",
    "communication": "communications",
    "stop": "stopp stahp stp sotp stpo",
    "unsubscribe": "unsub unsubscribed unsubcribe unsuscribe unsubscibe unsubsribe unsubscirbe",
    "please": "pls plz plez plse pleas pleez pleeze plss plzz pleeease pleaseee",
    "thanks": "thx thnx thnks thanx tnx ty tyvm",
    "ok": "okay k kk okk",
    "you": "u",
    "your": "ur yr",
    "number": "numbr nmbr num",
}
_SPANISH_SPELLINGS = {
    # `text` and `number` are the English words' concepts: "textos", "número" read as they do.
    "text": "texto textos",
    "number": "numero numeros",
    "message": "mensaje mensajes mensajito mensajitos msj msjs mensages",
    "porfavor": "porfa porfas xfa xfavor xf plis",
    "gracias": "grax graciaas",
    "que": "q",
    # Any verb of contacting, as an infinitive (with or without "me"), after "deja de", "para de".
    "escribir": "escribirme escribirnos enviar enviarme enviarnos mandar mandarme mandarnos "
    "textear textearme contactar contactarme llamar llamarme molestar molestarme escribiendo enviando "
    "mandando texteando contactando llamando molestando",
    # The same verbs as a request not to: "no me escribas", "ya no manden", "no me molesten".
    "escribas": "escriba escriban escribais envies envie envien mandes mande manden "
    "textees textee texteen contactes contacte contacten llames llame llamen molestes moleste molesten",
    "vuelvas": "vuelva vuelvan vuelve",
    # Stop doing it: "deja de", "dejen de", "dejá de" (vos), "deje de" (usted).
    "deja": "dejen deje dejes dejas dejar",
    "dejame": "dejenme dejeme dejarme",
    # Take me off / delete me, as an order to tú, usted or ustedes.
    "sacame": "saquenme saqueme sacarme quitame quitenme quiteme quitarme borrame borrenme "
    "borreme borrarme eliminame eliminenme elimineme eliminarme",
    "borralo": "borrenlo borrelo borrala borrenla eliminalo eliminenlo eliminelo",
    "borra": "borren borre borrar elimina eliminen elimine eliminar quita quiten quite quitar",
    "dar": "darme denme dame den dan da deme darnos doy",
    "cancelar": "cancela cancelen cancele",
    "suscripcion": "suscripciones subscripcion",
    "revoco": "retiro revocar retirar",
    "consentimiento": "autorizacion autorizaciones permiso permisos",
    "equivocado": "equivocada equivocados equivocadas incorrecto incorrecta",
    "equivocaron": "equivocaste equivocan",
    "interesa": "interesan",
    "parale": "parenle pararle",
    "detener": "detente detenganse detengase",
}


def _canonical(spellings: Mapping[str, str]) -> dict[str, str]:
    return {spelling: word for word, variants in spellings.items() for spelling in variants.split()}


CANONICAL = _canonical(_ENGLISH_SPELLINGS) | _canonical(_SPANISH_SPELLINGS)

# --- The rules' notation --------------------------------------------------------------------------


def _expand(pattern: str) -> list[tuple[str, ...]]:
    """`stop [the|these] (text|message)` -> every word sequence it allows. `(a|b)` is a choice,
    `[a|b]` an optional choice; a choice may hold several words (`[with the|your]`)."""
    slots = re.findall(r"\[[^\]]*\]|\([^)]*\)|[^\s()\[\]]+", pattern)
    choices: list[list[tuple[str, ...]]] = []
    for slot in slots:
        if slot[0] in "[(":
            options = [tuple(option.split()) for option in slot[1:-1].split("|")]
            choices.append([*options, ()] if slot[0] == "[" else options)
        else:
            choices.append([(slot,)])
    return [tuple(word for part in parts for word in part) for parts in product(*choices)]


@dataclass(frozen=True)
class Meaning:
    """What a phrase is evidence of: the rule it matches and the language it is in."""

    rule: str  # "" for a courtesy or context word, which asks nothing by itself
    language: Language


def _phrases(language: Language, rules: Mapping[str, Iterable[str]]) -> dict[tuple[str, ...], Meaning]:
    return {
        phrase: Meaning(rule, language)
        for rule, patterns in rules.items()
        for pattern in patterns
        for phrase in _expand(pattern)
    }


# --- Revocation signals ---------------------------------------------------------------------------

_STOP_VERBS = "(stop|quit|end|cancel|cease|halt|discontinue)"
_CONTACT_NOUNS = "(text|message|contact|call|spam|notification|communication)"
_TO_ME = "(me|this number|my number|my phone)"

# Clear phrases: a revocation wherever they stand (unless a game signal outweighs them).
CLEAR_PHRASES = _phrases(
    "en",
    {
        "stop-texting": (
            f"{_STOP_VERBS} [with|with the|with all the|all|all the|all these|all your|the|these|those"
            f"|your|them] {_CONTACT_NOUNS}",
            # Whatever is sent: only texts reach a phone from the bot. "stop sending rock" is a
            # throw, and the move outweighs it.
            f"{_STOP_VERBS} (sending|send)",
            f"{_STOP_VERBS} (bothering|bugging|harassing|pestering) me",
            f"{_STOP_VERBS} (getting|receiving) (these|those|them|this)",
            f"{_STOP_VERBS} (getting|receiving) [any|the|these|those|your|all] {_CONTACT_NOUNS}",
            "cease and desist",
        ),
        "unsubscribe": ("unsubscribe",),
        "opt-out": ("opt [me|this number|my number] out", "optout"),
        "do-not-text": (f"(dont|do not|never) [ever] (text|message|contact|call|spam|send) {_TO_ME}",),
        "do-not-want-texts": (
            "(dont|do not|no longer) (want|wish) [to get] [any|any more|anymore|more|these|those|the|your"
            "|all these] (text|message|call|notification)",
            "(dont|do not|no longer) (want|wish) to receive",
            "(dont|do not|no longer) (want|wish) you [to] (text|message|contact|call)",
        ),
        "no-more-texts": ("(no more|enough) [of|with] [the|these|those|your] (text|message|call)",),
        "leave-me-alone": ("leave me alone", "leave me the hell alone"),
        "delete-my-number": ("(delete|remove|erase|lose|forget) (my|this) number",),
        "cancel-subscription": ("(cancel|end) [my|the|this] (subscription|subscriptions)",),
        "wrong-number": ("wrong number", "wrong person"),
        "revoke-consent": (
            "(revoke|revoking|withdraw|withdrawing) [my|all] consent",
            "(dont|do not|no longer) consent",
        ),
        "block-number": ("(block|blocking|blocked) (you|this number|your number|the number)",),
        # From whatever the list is called: "remove me from whatever this is", "take me off this thing".
        "remove-me": ("remove me (from|off)", "(be|get|been) removed"),
        "take-me-off": ("take (me|my number|this number) off",),
        "delete-me": ("delete me from",),
    },
) | _phrases(
    "es",
    {
        "stop-texting": ("(deja|para|paren|pare|parar|parale|detener) de escribir",),
        "do-not-text": (
            "no [me|nos] escribas",
            "no [me|nos] vuelvas a escribir",
            "nunca [mas] [me|nos] escribas",
            "no quiero que [me|nos] [sigas|sigan] (escribas|escribir)",
        ),
        "do-not-want-texts": (
            "no quiero [recibir] [mas|los|tus|sus|estos|esos|ningun|ninguno|ningunos|nada de]"
            " (message|text|llamadas|notificaciones)",
            "no quiero recibir",
        ),
        "no-more-texts": ("(no mas|basta de|basta ya de) [los|tus|sus|estos] (message|text)",),
        "leave-me-alone": ("dejame en paz",),
        "delete-my-number": ("borra (mi|este|el) number",),
        "remove-me": ("sacame de (la|su|tu|esta|sus|mi) (lista|sistema|base de datos|contactos)",),
        "unsubscribe": ("dar de baja",),
        "cancel-subscription": ("cancelar [mi|la|su|esta] suscripcion",),
        "wrong-number": (
            "(number|persona) equivocado",
            "equivocaron de (number|persona)",
            "equivocado de (number|persona)",
        ),
        "revoke-consent": ("revoco [mi|el|mis] consentimiento",),
    },
)

# Stop requests: a revocation as the whole text with courtesy words, or as its end or start.
STOP_REQUESTS = _phrases(
    "en",
    {
        "stop-courtesy": (
            "(stop|stopall|revoke|quit|end|cancel|halt|cease|remove|enough)",
            "(stop|quit) it",
            "cut it out",
            "(stop|cancel) [all] this",
            "knock it off",
            "go away",
        ),
        "no-more": ("no more", "(no more|enough) (of|with) (this|these|those|them|it)"),
        "not-interested": ("not interested",),
        "do-not-want-texts": (
            "(dont|do not|no longer) (want|wish) [to get] (this|these|them|it|any of this)",
        ),
        "remove-me": ("(remove|erase) (it|my info|my data|my details|my contact)", "erase me"),
        "take-me-off": ("(get me|i want) off",),
        "delete-me": ("delete (me|it|my info|my data|my details|my account)",),
        "block-number": ("block",),
        "i-quit": (
            "(i|im|i am) (quit|quitting|done|out)",
            "(i|im|i am) (quit|quitting|done|out) [with|of] (this|the|your) (game|games|thing|bot)",
            "i want out",
            "count me out",
        ),
    },
) | _phrases(
    "es",
    {
        "stop-courtesy": ("(alto|para|parar|pare|paren|parale|detener|basta|baja|cancelar)",),
        "no-more": ("no mas",),
        "not-interested": ("no (me|nos) interesa",),
        "do-not-want-texts": ("no quiero (nada|esto|eso)",),
        "remove-me": ("sacame", "borralo"),
    },
)

# Twilio's keywords, and their Spanish kin, when a text spells them out letter by letter: `S T O P`.
SPANISH_KEYWORDS = frozenset({"alto", "parar", "para", "detener", "cancelar", "baja"})
SPELLED_OUT_KEYWORDS = (
    frozenset({"stop", "stopall", "unsubscribe", "optout", "revoke", "quit"}) | SPANISH_KEYWORDS
)

# Words that address someone: "stop bro", "alto amigo". They are reserved from nicknames, so that a
# stop with one of them never names a player.
_ADDRESS_WORDS: Mapping[Language, frozenset[str]] = {
    "en": frozenset({"bro", "bruh", "dude", "man", "sir", "maam", "madam", "mate", "buddy", "pal", "guys"})
    | frozenset({"yall", "fam"}),
    "es": frozenset({"amigo", "amiga", "wey", "guey", "compa", "boludo", "boluda", "vos", "senor", "senora"}),
}

# Courtesy and context: what may stand around a stop request and leave it one.
COURTESY = _phrases(
    "en",
    {
        "": (
            "please",
            "thanks",
            "thank you",
            "[right] now",
            "rn",
            "already",
            "asap",
            "immediately",
            "all",
            "ok",
            "sorry",
            "seriously",
            "really",
            "for real",
            "fr",
            "ffs",
            "omg",
            "wtf",
            "god",
            "again",
            "anymore",
            "any more",
            "ever",
            "me",
            "hey",
            "hi",
            "hello",
            "no thanks",
            "no thank you",
            "[from|off|of] (the|this|your|my) [mailing|contact] (list|lists|system|database|contacts)",
            "with (the|these|those|your|all the|all these|all your) (text|message|call|notification)",
            *_ADDRESS_WORDS["en"],
        )
    },
) | _phrases(
    "es",
    {
        "": (
            "por favor",
            "porfavor",
            "gracias",
            "muchas gracias",
            "ya",
            "todo",
            "ahora",
            "ahorita",
            "ya mismo",
            "inmediatamente",
            "de inmediato",
            "de una vez",
            "oye",
            "hola",
            "en serio",
            "de verdad",
            "neta",
            "de (la|su|tu|esta|mi) lista",
            "de (aqui|aca|esto)",
            "este number",
            *_ADDRESS_WORDS["es"],
        )
    },
)

# What a stop request at the end of a text may not be: "end" and "quit" alone end too many
# sentences about the game ("when does it end", "alice rage quit").
NOT_AT_THE_END = frozenset({("end",), ("quit",)})

# --- Game signals ---------------------------------------------------------------------------------

# A move or the contest: a text that names them is about the game.
CONTEST_WORDS = frozenset(
    {"win", "wins", "winning", "won", "winner", "lose", "loses", "losing", "lost", "loser", "beat"}
    | {"beats", "beating", "beaten", "cheat", "cheats", "cheating", "cheated", "cheater", "rematch"}
    | {"leaderboard", "leaders", "scoreboard", "score", "scores", "top", "rank", "ranking", "ranked"}
    | {"points", "gg", "challenge", "challenges", "challenged", "challenging", "opponent", "streak"}
    | {"throw", "throws", "threw", "move", "moves"}
    | {"gano", "gana", "ganas", "ganan", "ganar", "gane", "ganaste", "ganando", "ganador", "pierdo"}
    | {"pierde", "pierdes", "perder", "perdi", "perdiste", "perdio", "perdiendo", "perdedor", "trampa"}
    | {"trampas", "tramposo", "tramposa", "revancha", "reto", "retos", "retar", "puntos", "puntaje"}
    | {"jugada", "jugadas", "tirar", "tira", "tiro", "tire", "tiras"}
)
LAUGHTER = frozenset({"lol", "lolol", "lmao", "lmfao", "rofl", "xd"})
# `nick unsubscribe`, `apodo baja`, `ayuda alto`: a command word and its argument, in either
# language (parsing reads the English ones first; the Spanish ones are SPANISH_GAME_WORDS).
COMMANDS_WITH_AN_ARGUMENT = frozenset(
    {"nick", "name", "t", "play", "again", "help", "lang"}
) | frozenset().union(
    *(SPANISH_GAME_WORDS[command] for command in ("throw", "nick", "again", "help", "language"))
)
NICKNAME_SHAPE = re.compile(r"[a-z0-9_]{3,15}")  # parsing's nickname alphabet, casefolded
NAME_WITH_DIGITS_OR_UNDERSCORE = re.compile(r"[a-z]+[0-9]+|\w*_\w*")
ENGLISH_MOVES = frozenset(
    move.value[:length] for move in Move for length in range(3, len(move.value) + 1)
) | frozenset({"rocks", "papers"})


# --- The sentence around a stop -------------------------------------------------------------------

NEGATIONS: Mapping[Language, frozenset[str]] = {
    "en": frozenset(
        {"dont", "not", "never", "cant", "cannot", "wont", "wouldnt", "shouldnt", "couldnt", "didnt"}
        | {"doesnt", "isnt", "aint"}
    ),
    "es": frozenset({"no", "nunca", "jamas", "ni", "tampoco"}),
}
# Words that may stand between a negation and what it negates: "I can't ever stop", "no puedo parar".
BETWEEN_NEGATION_AND_STOP = frozenset(
    {"ever", "even", "really", "just", "gonna", "going", "to", "want", "wanna", "be", "able", "you", "make"}
    | {"let", "get", "me", "i", "we", "it", "can", "could", "will", "would", "should"}
    | {"puedo", "puede", "puedes", "pueden", "podemos", "quiero", "quiere", "vas", "va", "voy", "vamos"}
    | {"a", "te", "se", "lo", "que"}
)
# Subjects that negate what they do, across a word at least: "nothing can stop me", "nadie me para"
# (but "I signed up for nothing, stop" and "a nada, quítenme de la lista" are requests).
NEGATIVE_SUBJECTS = frozenset({"nothing", "nobody", "nada", "nadie"})
# Words that make what follows a supposition, not a request: "what happens if I stop".
HYPOTHETICALS = frozenset(
    {"if", "when", "until", "till", "unless", "whether", "si", "cuando", "hasta", "aunque"}
)


# Before "stop", words that make it a noun; before "alto" or "baja", words that make them
# adjectives ("muy alto", "está baja").
MODIFIERS = frozenset(
    {"bus", "full", "pit", "non", "next", "last", "one", "truck", "rest", "whistle"}
) | frozenset(
    {"muy", "mas", "tan", "bien", "esta", "es", "son", "estoy", "soy", "eres", "estas", "el", "la", "lo"}
    | {"los", "las", "un", "una", "super", "demasiado", "bastante", "de", "del", "al", "que"}
)
# After a stop request that starts a text, a word that starts a new clause: "stop, I never..."
CLAUSE_STARTS = frozenset(
    {"i", "im", "ive", "id", "ill", "you", "youre", "we", "thats", "its", "who", "whos", "whoever"}
    | {"someone", "somebody", "nobody", "how", "why", "idk", "yo", "esto", "eso", "quien"}
)
# Someone other than the texter or the bot: "make him stop", "que ella pare".
THIRD_PERSON = frozenset(
    {"he", "she", "they", "him", "her", "them", "hes", "shes", "theyre", "ella", "ellos", "dile", "diles"}
    | {"digale", "digales", "pidele"}
)
# Words that put a third party before a stop: "tell bob to stop", "bob and alice stop", "dile a ana que".
NAMING_A_THIRD_PARTY = frozenset(
    {"tell", "told", "make", "made", "let", "get", "ask", "asked", "want", "need", "wish", "hope", "and"}
    | {"que", "a"}
)
# Rules that state something rather than ask someone to stop: no third party can be asked them.
STATEMENTS = frozenset(
    {"wrong-number", "no-more-texts", "do-not-want-texts", "revoke-consent", "block-number", "not-interested"}
    | {"i-quit"}
)
# Before a thing or a third party, a question about it stopping: "when does it stop", "did bob quit".
QUESTION_AUXILIARIES = frozenset({"do", "does", "did", "will", "would", "can", "could", "should"})
THINGS = frozenset({"it", "this", "that", "things"})
# Verbs whose object is a person: "unsubscribe bob" unsubscribes bob.
VERBS_OF_A_PERSON = frozenset({"text", "message", "contact", "call", "spam", "unsubscribe", "optout"})
FROM_OR_WITH = frozenset({"from", "with", "de", "con"})
# Verbs whose object is a thing: in "stop sending me junk", junk is what is sent, not a name.
VERBS_OF_A_THING = frozenset({"sending", "send", "escribir"})
# What may come before a name that starts a text: "hey bob, stop texting me".
INTERJECTIONS = frozenset(
    {"hey", "hi", "hello", "yo", "omg", "ok", "ugh", "wtf", "ffs", "god", "seriously", "please", "so"}
    | {"oye", "hola", "neta", "porfavor"}
)
# Last words of clear phrases that complete them, so that a word after one is a name, not an
# object: "leave me alone bob", "wrong number alice".
COMPLETE_PHRASE_ENDS = frozenset({"alone", "number", "person", "paz", "persona", "equivocado"})
# Between a third party and a stop: "bob needs to stop", "alice should just stop".
MODAL_CHAIN = frozenset(
    {"to", "needs", "need", "has", "have", "had", "gotta", "got", "should", "must", "will", "would"}
    | {"better", "just", "gonna", "going", "can", "could", "please", "ever", "ya", "que"}
)
# Words too common to be taken for a nickname in a name's place ("this is so annoying, stop").
_FUNCTION_WORDS: Mapping[Language, frozenset[str]] = {
    "en": frozenset(
        {"that", "mine", "myself", "youve", "yours", "our", "was", "were", "being", "may"}
        | {"might", "yes", "yeah", "yea", "yep", "nah", "but", "too", "very", "only", "also", "still"}
        | {"then", "than", "about", "into", "over", "down", "some"}
        | {"every", "each", "many", "much", "most", "other", "another", "such", "what", "where", "which"}
        | {"there", "here", "today", "tonight", "tomorrow", "yesterday", "day", "days", "night", "week"}
        | {"time", "times", "always", "forever", "sometimes", "tho", "though", "like"}
        | {"literally", "honestly", "things", "stuff", "anything", "something", "everything"}
        | {"anyone", "everyone", "way", "lot", "people", "annoying", "whatever"}
    ),
    "es": frozenset(
        {"unos", "unas", "les", "usted", "ustedes", "nosotros", "sin", "sobre"}
        | {"pero", "menos", "toda", "todos", "todas", "cada", "otro", "ese", "esa", "ahi", "alla", "hoy"}
        | {"dia", "dias", "noche", "veces", "siempre", "como", "donde", "porque", "estan", "fue", "ser"}
        | {"estar", "hay", "tengo", "tiene", "tienen", "cosa", "cosas", "algo", "alguien"}
        | {"telefono", "cel", "celular", "juego"}
    ),
}


def _words_in(phrases: Iterable[tuple[str, ...]]) -> frozenset[str]:
    return frozenset(word for phrase in phrases for word in phrase)


def _single_words(phrases: Iterable[tuple[str, ...]]) -> frozenset[str]:
    return frozenset(phrase[0] for phrase in phrases if len(phrase) == 1)


LONGEST_PHRASE = max(len(phrase) for phrase in (*CLEAR_PHRASES, *STOP_REQUESTS, *COURTESY))

# The words that are a stop request by themselves, or may follow one and leave it one: no
# nickname may be one of them (parsing reserves them), so that "stop please" never names a player.
RESERVED_WORDS = _single_words((*STOP_REQUESTS, *COURTESY)) | SPELLED_OUT_KEYWORDS

# Words a nickname is not taken for: those of every list here but the stop words themselves
# (players were named `alto` and `quit` before those were reserved, and throws at them still work).
ORDINARY_WORDS = (
    (
        _words_in((*CLEAR_PHRASES, *STOP_REQUESTS, *COURTESY))
        | COMMANDS_WITH_AN_ARGUMENT
        | _FUNCTION_WORDS["en"]
        | _FUNCTION_WORDS["es"]
        | CLAUSE_STARTS
        | MODAL_CHAIN
        | NAMING_A_THIRD_PARTY
        | BETWEEN_NEGATION_AND_STOP
        | NEGATIONS["en"]
        | NEGATIONS["es"]
        | HYPOTHETICALS
        | NEGATIVE_SUBJECTS
        | MODIFIERS
        | THIRD_PERSON
        | QUESTION_AUXILIARIES
        | FROM_OR_WITH
        | INTERJECTIONS
        | LAUGHTER
    )
    - _single_words(STOP_REQUESTS)
    - SPELLED_OUT_KEYWORDS
)

COURTESY_ONLY = Meaning("", "en")


def _vocabulary(spellings: Mapping[str, str], language: Language) -> frozenset[str]:
    tables = (CLEAR_PHRASES, STOP_REQUESTS, COURTESY)
    in_tables = _words_in(
        phrase for table in tables for phrase, meaning in table.items() if meaning.language == language
    )
    spelled = frozenset(_canonical(spellings)) | frozenset(spellings)
    return in_tables | spelled | _FUNCTION_WORDS[language] | NEGATIONS[language] | _ADDRESS_WORDS[language]


# Words of one language and not the other, to tell which a text is in ("stop" is both's).
_ENGLISH_WORDS = _vocabulary(_ENGLISH_SPELLINGS, "en")
_SPANISH_WORDS = _vocabulary(_SPANISH_SPELLINGS, "es")
ONLY_ENGLISH = _ENGLISH_WORDS - _SPANISH_WORDS - {"stop"}
ONLY_SPANISH = _SPANISH_WORDS - _ENGLISH_WORDS - {"stop"}
