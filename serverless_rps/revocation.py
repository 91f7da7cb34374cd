"""Is this free text a request to stop texting, in English or in Spanish? Pure: standard library only.

Since 11 April 2025 a person may revoke consent to texts "by any reasonable means" (the FCC's
rule, 47 CFR 64.1200(a)(10)): "please stop texting me" and "ya no me escriban" count as much as
STOP. Twilio acts only on its single-word English keywords, so the rest reaches the bot, and
`parsing.parse` asks `classify` about any text that is not a real command. docs/opt-out.md says
what counts and why.

The classifier weighs what in a text asks to stop texting against what in it is about the game,
word by word, not with a model. A text is read as command keywords are
(`normalisation.normalised`), casefolded, without accents (`número` is `numero`) or apostrophes
(`don't` is `dont`); every other non-letter separates words, and people's spellings become one
word (`txt`, `msgs` -> `text`, `message`; `porfa`, `xfa` -> `porfavor`; `escríbanme`,
`mándame` -> `escribir`). Punctuation never decides: people leave it out ("this is harassment
stop"), and a rule that needed it would miss them.

What asks to stop:

- a **clear phrase** ("stop texting", "unsubscribe", "wrong number", "remove me from", "no me
  escribas", "número equivocado"), wherever it stands;
- a **stop request** ("stop", "quit it", "no more", "remove me", "alto", "basta", "sáquenme")
  whose only company is courtesy and address words ("please", "now", "bro"; "ya", "porfa",
  "amigo"), as the whole text, as its end ("this is so annoying, stop") or as its start before a
  new clause ("stop it, I'm done with this game").

What outweighs it (the game signals):

- a **move or a word of the contest** ("rock", "win", "cheating", "leaderboard", "piedra",
  "trampa") anywhere outside the phrase: the text is about the game;
- **laughter or a nickname's shape** ("lol", "jaja", `alice_99`): enough against a stop request,
  not against a clear phrase;
- **the sentence around the stop**: a negation or an "if" before it ("can't stop texting", "no
  para de ganar", "what if I stop"); a third party who is to stop ("tell bob to stop", "make him
  stop", "bob needs to stop", "stop texting me bob", "dile a ana que deje de escribirme", "when
  does it stop"); "stop" as a noun or "alto" as an adjective ("bus stop", "muy alto"); a stop
  with an object other than texting ("stop bob", "stop winning", "para bob": the word after a
  stop request must be courtesy or start a new clause); a command's shape (`nick unsubscribe`,
  `apodo baja`).

A third party is a word that may be a nickname (one no list here knows: `bob`, not `this`,
`spam` or `annoying`) in the place a name takes: first, after "tell", "make", "dile a"..., or
after a complete phrase at the end. The words a stop request may keep as company are reserved
from nicknames (`RESERVED_WORDS`, read by `parsing.is_valid_nickname`), so "stop bro" and
"stop please" never name a player.

Matching looks words up in tables, a bounded number of times per word: a 1,600-character text
costs a few tens of thousands of look-ups at most, and no pattern can backtrack.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import accumulate, product
from typing import Literal

from serverless_rps.normalisation import normalised, without_accents
from serverless_rps.rules import Move

__all__ = [
    "RESERVED_WORDS",
    "SPANISH_GAME_WORDS",
    "SPANISH_MOVES",
    "Language",
    "Revocation",
    "classify",
    "language_of",
    "words_of",
]

Language = Literal["en", "es"]


@dataclass(frozen=True)
class Revocation:
    """The text reads as "stop texting me"; `rule` names the rule that matched, for the audit log,
    and `language` the language the text is in, for the confirmation."""

    rule: str
    language: Language = "en"


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

# --- Reading --------------------------------------------------------------------------------------

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


_CANONICAL = _canonical(_ENGLISH_SPELLINGS) | _canonical(_SPANISH_SPELLINGS)

_APOSTROPHES = re.compile("['\u2018\u2019\u02bc`\u00b4]")
_WORD = re.compile(r"\w+")


def _folded_words(body: str) -> list[str]:
    """The words as typed, casefolded, without accents or apostrophes: `¡Déjame!` -> ['dejame']."""
    text = without_accents(_APOSTROPHES.sub("", normalised(body).casefold()))
    return _WORD.findall(text.replace("#", " number "))


def words_of(body: str) -> list[str]:
    """The text as the rules read it: `Don’t TXT me!!` -> ['dont', 'text', 'me']."""
    return _canonical_words(_folded_words(body))


def _canonical_words(folded_words: list[str]) -> list[str]:
    return [_CANONICAL.get(word, word) for word in folded_words]


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
class _Meaning:
    rule: str  # "" for a courtesy or context word, which asks nothing by itself
    language: Language


def _phrases(language: Language, rules: Mapping[str, Iterable[str]]) -> dict[tuple[str, ...], _Meaning]:
    return {
        phrase: _Meaning(rule, language)
        for rule, patterns in rules.items()
        for pattern in patterns
        for phrase in _expand(pattern)
    }


# --- Revocation signals ---------------------------------------------------------------------------

_STOP_VERBS = "(stop|quit|end|cancel|cease|halt|discontinue)"
_CONTACT_NOUNS = "(text|message|contact|call|spam|notification|communication)"
_TO_ME = "(me|this number|my number|my phone)"

# Clear phrases: a revocation wherever they stand (unless a game signal outweighs them).
_CLEAR_PHRASES = _phrases(
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
_STOP_REQUESTS = _phrases(
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
_SPANISH_KEYWORDS = frozenset({"alto", "parar", "para", "detener", "cancelar", "baja"})
_SPELLED_OUT_KEYWORDS = (
    frozenset({"stop", "stopall", "unsubscribe", "optout", "revoke", "quit"}) | _SPANISH_KEYWORDS
)

# Words that address someone: "stop bro", "alto amigo". They are reserved from nicknames, so that a
# stop with one of them never names a player.
_ADDRESS_WORDS: Mapping[Language, frozenset[str]] = {
    "en": frozenset({"bro", "bruh", "dude", "man", "sir", "maam", "madam", "mate", "buddy", "pal", "guys"})
    | frozenset({"yall", "fam"}),
    "es": frozenset({"amigo", "amiga", "wey", "guey", "compa", "boludo", "boluda", "vos", "senor", "senora"}),
}

# Courtesy and context: what may stand around a stop request and leave it one.
_COURTESY = _phrases(
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
_NOT_AT_THE_END = frozenset({("end",), ("quit",)})

# --- Game signals ---------------------------------------------------------------------------------

# A move or the contest: a text that names them is about the game.
_CONTEST_WORDS = frozenset(
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
_LAUGHTER = frozenset({"lol", "lolol", "lmao", "lmfao", "rofl", "xd"})
# `nick unsubscribe`, `apodo baja`, `ayuda alto`: a command word and its argument, in either
# language (parsing reads the English ones first; the Spanish ones are SPANISH_GAME_WORDS).
_COMMANDS_WITH_AN_ARGUMENT = frozenset(
    {"nick", "name", "t", "play", "again", "help", "lang"}
) | frozenset().union(
    *(SPANISH_GAME_WORDS[command] for command in ("throw", "nick", "again", "help", "language"))
)
_NICKNAME_SHAPE = re.compile(r"[a-z0-9_]{3,15}")  # parsing's nickname alphabet, casefolded
_NAME_WITH_DIGITS_OR_UNDERSCORE = re.compile(r"[a-z]+[0-9]+|\w*_\w*")
_ENGLISH_MOVES = frozenset(
    move.value[:length] for move in Move for length in range(3, len(move.value) + 1)
) | frozenset({"rocks", "papers"})


# --- The sentence around a stop -------------------------------------------------------------------

_NEGATIONS: Mapping[Language, frozenset[str]] = {
    "en": frozenset(
        {"dont", "not", "never", "cant", "cannot", "wont", "wouldnt", "shouldnt", "couldnt", "didnt"}
        | {"doesnt", "isnt", "aint"}
    ),
    "es": frozenset({"no", "nunca", "jamas", "ni", "tampoco"}),
}
# Words that may stand between a negation and what it negates: "I can't ever stop", "no puedo parar".
_BETWEEN_NEGATION_AND_STOP = frozenset(
    {"ever", "even", "really", "just", "gonna", "going", "to", "want", "wanna", "be", "able", "you", "make"}
    | {"let", "get", "me", "i", "we", "it", "can", "could", "will", "would", "should"}
    | {"puedo", "puede", "puedes", "pueden", "podemos", "quiero", "quiere", "vas", "va", "voy", "vamos"}
    | {"a", "te", "se", "lo", "que"}
)
# Subjects that negate what they do, across a word at least: "nothing can stop me", "nadie me para"
# (but "I signed up for nothing, stop" and "a nada, quítenme de la lista" are requests).
_NEGATIVE_SUBJECTS = frozenset({"nothing", "nobody", "nada", "nadie"})
# Words that make what follows a supposition, not a request: "what happens if I stop".
_HYPOTHETICALS = frozenset(
    {"if", "when", "until", "till", "unless", "whether", "si", "cuando", "hasta", "aunque"}
)
_REACH = 4  # how far back a negation or a third party is looked for: "I can't ever stop texting"


# Before "stop", words that make it a noun; before "alto" or "baja", words that make them
# adjectives ("muy alto", "está baja").
_MODIFIERS = frozenset(
    {"bus", "full", "pit", "non", "next", "last", "one", "truck", "rest", "whistle"}
) | frozenset(
    {"muy", "mas", "tan", "bien", "esta", "es", "son", "estoy", "soy", "eres", "estas", "el", "la", "lo"}
    | {"los", "las", "un", "una", "super", "demasiado", "bastante", "de", "del", "al", "que"}
)
# After a stop request that starts a text, a word that starts a new clause: "stop, I never..."
_CLAUSE_STARTS = frozenset(
    {"i", "im", "ive", "id", "ill", "you", "youre", "we", "thats", "its", "who", "whos", "whoever"}
    | {"someone", "somebody", "nobody", "how", "why", "idk", "yo", "esto", "eso", "quien"}
)
# Someone other than the texter or the bot: "make him stop", "que ella pare".
_THIRD_PERSON = frozenset(
    {"he", "she", "they", "him", "her", "them", "hes", "shes", "theyre", "ella", "ellos", "dile", "diles"}
    | {"digale", "digales", "pidele"}
)
# Words that put a third party before a stop: "tell bob to stop", "bob and alice stop", "dile a ana que".
_NAMING_A_THIRD_PARTY = frozenset(
    {"tell", "told", "make", "made", "let", "get", "ask", "asked", "want", "need", "wish", "hope", "and"}
    | {"que", "a"}
)
# Rules that state something rather than ask someone to stop: no third party can be asked them.
_STATEMENTS = frozenset(
    {"wrong-number", "no-more-texts", "do-not-want-texts", "revoke-consent", "block-number", "not-interested"}
    | {"i-quit"}
)
# Before a thing or a third party, a question about it stopping: "when does it stop", "did bob quit".
_QUESTION_AUXILIARIES = frozenset({"do", "does", "did", "will", "would", "can", "could", "should"})
_THINGS = frozenset({"it", "this", "that", "things"})
# Verbs whose object is a person: "unsubscribe bob" unsubscribes bob.
_VERBS_OF_A_PERSON = frozenset({"text", "message", "contact", "call", "spam", "unsubscribe", "optout"})
_FROM_OR_WITH = frozenset({"from", "with", "de", "con"})
# Verbs whose object is a thing: in "stop sending me junk", junk is what is sent, not a name.
_VERBS_OF_A_THING = frozenset({"sending", "send", "escribir"})
# What may come before a name that starts a text: "hey bob, stop texting me".
_INTERJECTIONS = frozenset(
    {"hey", "hi", "hello", "yo", "omg", "ok", "ugh", "wtf", "ffs", "god", "seriously", "please", "so"}
    | {"oye", "hola", "neta", "porfavor"}
)
# Last words of clear phrases that complete them, so that a word after one is a name, not an
# object: "leave me alone bob", "wrong number alice".
_COMPLETE_PHRASE_ENDS = frozenset({"alone", "number", "person", "paz", "persona", "equivocado"})
# Between a third party and a stop: "bob needs to stop", "alice should just stop".
_MODAL_CHAIN = frozenset(
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


_LONGEST_PHRASE = max(len(phrase) for phrase in (*_CLEAR_PHRASES, *_STOP_REQUESTS, *_COURTESY))

# The words that are a stop request by themselves, or may follow one and leave it one: no
# nickname may be one of them (parsing reserves them), so that "stop please" never names a player.
RESERVED_WORDS = _single_words((*_STOP_REQUESTS, *_COURTESY)) | _SPELLED_OUT_KEYWORDS

# Words a nickname is not taken for: those of every list here but the stop words themselves
# (players were named `alto` and `quit` before those were reserved, and throws at them still work).
_ORDINARY_WORDS = (
    (
        _words_in((*_CLEAR_PHRASES, *_STOP_REQUESTS, *_COURTESY))
        | _COMMANDS_WITH_AN_ARGUMENT
        | _FUNCTION_WORDS["en"]
        | _FUNCTION_WORDS["es"]
        | _CLAUSE_STARTS
        | _MODAL_CHAIN
        | _NAMING_A_THIRD_PARTY
        | _BETWEEN_NEGATION_AND_STOP
        | _NEGATIONS["en"]
        | _NEGATIONS["es"]
        | _HYPOTHETICALS
        | _NEGATIVE_SUBJECTS
        | _MODIFIERS
        | _THIRD_PERSON
        | _QUESTION_AUXILIARIES
        | _FROM_OR_WITH
        | _INTERJECTIONS
        | _LAUGHTER
    )
    - _single_words(_STOP_REQUESTS)
    - _SPELLED_OUT_KEYWORDS
)

_COURTESY_ONLY = _Meaning("", "en")


def _may_be_a_nickname(word: str) -> bool:
    return (
        _NICKNAME_SHAPE.fullmatch(word) is not None and word not in _ORDINARY_WORDS and not _is_laughter(word)
    )


def _may_name_a_player(word: str) -> bool:
    """A word that may be a nickname and is not reserved: a stop word ("stop, stop texting me") or
    a word a stop request keeps as company names no one."""
    return _may_be_a_nickname(word) and word not in RESERVED_WORDS


def _is_laughter(word: str) -> bool:
    """`lol`, `haha`, `jajaja`, `jeje`..."""
    return word in _LAUGHTER or (
        len(word) >= 4 and frozenset(word) in ({"h", "a"}, {"j", "a"}, {"h", "e"}, {"j", "e"})
    )


# --- Deciding -------------------------------------------------------------------------------------


def classify(body: str) -> Revocation | None:
    """A `Revocation` naming the rule that matched and the text's language, or None. Says nothing
    about commands: the caller asks only about text that is not one."""
    folded_words = _folded_words(body)
    words = _canonical_words(folded_words)
    if _has_a_commands_shape(words):
        return None
    game_words_before = list(accumulate((_names_the_game(word) for word in words), initial=0))
    meaning = _clear_phrase(words, game_words_before)
    if meaning is None and not game_words_before[-1] and not _sounds_playful(words):
        meaning = _stop_request(words)
    if meaning is not None:
        return Revocation(meaning.rule, _language(folded_words, meaning.language))
    spelled_out = _spelled_out(folded_words)  # as typed: `k` and `u` are letters here, not ok and you
    return Revocation(spelled_out.rule, spelled_out.language) if spelled_out else None


def language_of(body: str) -> Language:
    """The language most of the text's known words are in; English when none or as many."""
    return _language(_folded_words(body), "en")


def _names_the_game(word: str) -> bool:
    """A move or a word of the contest: the strong game signal."""
    return word in _ENGLISH_MOVES or word in SPANISH_MOVES or word in _CONTEST_WORDS


def _has_a_commands_shape(words: list[str]) -> bool:
    """`nick unsubscribe`, `apodo baja`, `ayuda alto`: a command word and an argument that may be a
    nickname or a topic (a keyword is one, as far as the command can tell)."""
    return (
        2 <= len(words) <= 3
        and words[0] in _COMMANDS_WITH_AN_ARGUMENT
        and all(_may_be_a_nickname(word) or word in RESERVED_WORDS for word in words[1:])
    )


def _sounds_playful(words: list[str]) -> bool:
    """Laughter or a nickname's shape: the weak game signal, enough to outweigh a stop request."""
    return any(_is_laughter(word) or _NAME_WITH_DIGITS_OR_UNDERSCORE.fullmatch(word) for word in words)


def _clear_phrase(words: list[str], game_words_before: list[int]) -> _Meaning | None:
    """The first clear phrase no game signal outweighs. `game_words_before[i]` counts the words
    before position i that name the game; those inside the phrase do not count ("lose my number")."""
    for start in range(len(words)):
        for length in range(1, min(_LONGEST_PHRASE, len(words) - start) + 1):
            end = start + length
            meaning = _CLEAR_PHRASES.get(tuple(words[start:end]))
            if meaning is None:
                continue
            names_the_game = game_words_before[-1] - (game_words_before[end] - game_words_before[start])
            if not (
                names_the_game
                or _is_negated(words, start, meaning.language)
                or _is_asked_of_a_third_party(words, start, meaning)
                or _names_someone_after(words, end)
            ):
                return meaning
    return None


def _stop_request(words: list[str]) -> _Meaning | None:
    """A stop request with courtesy words that is the whole text, its end or its start."""
    heads = _heads(words)
    if heads[-1] is not None and heads[-1].rule:
        return heads[-1]
    if _starts_with_a_third_party(words):
        return None
    tails = _tails(words)
    # Right to left, from the last stop to the courtesy words before it: a negation governs the
    # stop itself ("nadie me para"), while a name or a modifier is only the word just before.
    for start in range(len(words) - 1, 0, -1):
        tail = tails[start]
        if tail is None or not tail.rule:
            continue
        if _is_negated(words, start, tail.language):
            break
        if _ends_a_sentence(words, start, tail):
            return tail
    for start_of_the_rest, head in enumerate(heads[1:-1], start=1):
        if head is not None and head.rule and words[start_of_the_rest] in _CLAUSE_STARTS:
            return head
    return None


def _run_meaning(phrase: tuple[str, ...]) -> _Meaning | None:
    return _STOP_REQUESTS.get(phrase) or _CLEAR_PHRASES.get(phrase) or _COURTESY.get(phrase)


def _heads(words: list[str]) -> list[_Meaning | None]:
    """Entry i: how words[:i] splits wholly into stop requests, clear phrases and courtesy words:
    the first stop's meaning, `_COURTESY_ONLY`, or None for no split. One pass, left to right, a
    few look-ups per position and phrase length."""
    heads: list[_Meaning | None] = [None] * (len(words) + 1)
    heads[0] = _COURTESY_ONLY
    for start in range(len(words)):
        so_far = heads[start]
        if so_far is None:
            continue
        for length in range(1, min(_LONGEST_PHRASE, len(words) - start) + 1):
            meaning = _run_meaning(tuple(words[start : start + length]))
            if meaning is not None:
                _keep_a_stop(heads, start + length, so_far if so_far.rule else meaning)
    return heads


def _tails(words: list[str]) -> list[_Meaning | None]:
    """Entry i: how words[i:] splits, as `_heads` says, right to left. At the end of a text "end"
    and "quit" alone are no stop request (`_NOT_AT_THE_END`)."""
    tails: list[_Meaning | None] = [None] * (len(words) + 1)
    tails[-1] = _COURTESY_ONLY
    for end in range(len(words), 0, -1):
        after = tails[end]
        if after is None:
            continue
        for length in range(1, min(_LONGEST_PHRASE, end) + 1):
            phrase = tuple(words[end - length : end])
            meaning = None if phrase in _NOT_AT_THE_END else _run_meaning(phrase)
            if meaning is not None:
                _keep_a_stop(tails, end - length, meaning if meaning.rule else after)
    return tails


def _keep_a_stop(splits: list[_Meaning | None], position: int, meaning: _Meaning) -> None:
    """Record a split at `position`, preferring one with a stop request to courtesy words only."""
    known = splits[position]
    if known is None or (meaning.rule and not known.rule):
        splits[position] = meaning


def _ends_a_sentence(words: list[str], start: int, meaning: _Meaning) -> bool:
    """Whether the stop request at words[start:] ends a sentence of its own: `this is so annoying
    stop`, not `full stop` or `bob stop` (a negation is looked for by the caller)."""
    return not (words[start - 1] in _MODIFIERS or _is_asked_of_a_third_party(words, start, meaning))


def _is_negated(words: list[str], start: int, language: Language) -> bool:
    """A negation or an "if" just before words[start], with only words like "ever" between: "I
    can't ever stop texting", "no puedo parar", "what if I stop". A phrase that starts with a
    negation is one ("no me escribas")."""
    negations = _NEGATIONS[language]
    if words[start] in negations:
        return False
    for index in range(start - 1, max(-1, start - 1 - _REACH), -1):
        if words[index] in negations or words[index] in _HYPOTHETICALS:
            return True
        if words[index] in _NEGATIVE_SUBJECTS and index < start - 1:
            return True
        if words[index] not in _BETWEEN_NEGATION_AND_STOP:
            return False
    return False


def _is_asked_of_a_third_party(words: list[str], start: int, meaning: _Meaning) -> bool:
    """Whether the stop at words[start] is someone else's: "make him stop", "tell bob to stop",
    "bob needs to stop", "hey alice stop texting me", "when does it stop", "dile a ana que deje de
    escribirme". A word that may be a nickname is a third party only in a name's place: first
    (after interjections), or after "tell", "make", "a"... A statement ("wrong number", "I don't
    want texts") asks nothing of anyone."""
    if meaning.rule in _STATEMENTS:
        return False
    index = start - 1
    while index >= 0 and start - index <= _REACH and words[index] in _MODAL_CHAIN:
        index -= 1
    if index < 0:
        return False
    agent = words[index]
    asked = index > 0 and words[index - 1] in _QUESTION_AUXILIARIES
    if agent in _THIRD_PERSON or (asked and agent in _THINGS):
        return True
    return _may_name_a_player(agent) and _is_in_a_names_place(words, index)


def _is_in_a_names_place(words: list[str], index: int) -> bool:
    before = index - 1
    while before >= 0 and index - before <= _REACH and words[before] in _INTERJECTIONS:
        before -= 1
    return before < 0 or words[before] in _NAMING_A_THIRD_PARTY or words[before] in _QUESTION_AUXILIARIES


def _names_someone_after(words: list[str], end: int) -> bool:
    """`unsubscribe bob`, `stop texting alice`: a name as the object of a phrase whose verb takes a
    person; `stop texting me bob`, `leave me alone alice`: a name that ends the text once the phrase
    is complete (after "me", "alone", a courtesy word). Not the object of a verb that takes a thing:
    `stop sending alerts`, `deja de enviar alertas`."""
    if end < len(words) and words[end - 1] in _VERBS_OF_A_PERSON and _may_name_a_player(words[end]):
        return True
    last = len(words) - 1
    if last > end and words[last - 1] in _FROM_OR_WITH and _may_name_a_player(words[last]):
        return True  # `unsubscribe me from bob`
    if words[end - 1] in _VERBS_OF_A_THING or not 0 <= last - end <= _REACH:
        return False
    if not _may_name_a_player(words[last]):
        return False
    between = words[end:last]
    return all((word,) in _COURTESY for word in between) and (
        bool(between) or words[end - 1] in _COMPLETE_PHRASE_ENDS
    )


def _starts_with_a_third_party(words: list[str]) -> bool:
    """`bob is so annoying stop`: a text about someone else, whose stop is theirs to do."""
    first = next((index for index, word in enumerate(words) if word not in _INTERJECTIONS), None)
    return first is not None and (words[first] in _THIRD_PERSON or _may_name_a_player(words[first]))


def _spelled_out(words: list[str]) -> _Meaning | None:
    """`S T O P`, `A L T O`: single letters that spell a keyword. Its letters are no language's words."""
    spelled = "".join(words)
    if len(words) > 1 and all(len(word) == 1 for word in words) and spelled in _SPELLED_OUT_KEYWORDS:
        return _Meaning("spelled-out-keyword", "es" if spelled in _SPANISH_KEYWORDS else "en")
    return None


def _vocabulary(spellings: Mapping[str, str], language: Language) -> frozenset[str]:
    tables = (_CLEAR_PHRASES, _STOP_REQUESTS, _COURTESY)
    in_tables = _words_in(
        phrase for table in tables for phrase, meaning in table.items() if meaning.language == language
    )
    spelled = frozenset(_canonical(spellings)) | frozenset(spellings)
    return in_tables | spelled | _FUNCTION_WORDS[language] | _NEGATIONS[language] | _ADDRESS_WORDS[language]


# Words of one language and not the other, to tell which a text is in ("stop" is both's).
_ENGLISH_WORDS = _vocabulary(_ENGLISH_SPELLINGS, "en")
_SPANISH_WORDS = _vocabulary(_SPANISH_SPELLINGS, "es")
_ONLY_ENGLISH = _ENGLISH_WORDS - _SPANISH_WORDS - {"stop"}
_ONLY_SPANISH = _SPANISH_WORDS - _ENGLISH_WORDS - {"stop"}


def _language(folded_words: list[str], fallback: Language) -> Language:
    """The language with more of the text's words as typed; `fallback` (the matched rule's) if as many."""
    english = sum(word in _ONLY_ENGLISH for word in folded_words)
    spanish = sum(word in _ONLY_SPANISH for word in folded_words)
    if english == spanish:
        return fallback
    return "es" if spanish > english else "en"
