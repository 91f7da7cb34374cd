"""The words of the sentence around a stop that tell who is to stop and whether it is asked at
all, in English and in Spanish, for the revocation classifier (`revocation.py`): negations,
suppositions, third parties, names' places, clause starts and the everyday words no nickname is
taken for. Pure: standard library only. `revocation_words.py` holds what asks to stop and what is
about the game, and re-exports these; docs/opt-out.md says why each list is what it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

__all__ = [
    "ADDRESSEES",
    "AFFIRMATIVE_ORDERS",
    "BETWEEN_NEGATION_AND_STOP",
    "CLAUSE_STARTING_PAIRS",
    "CLAUSE_STARTS",
    "COMPLETE_PHRASE_ENDS",
    "FOR_A_DAY",
    "FROM_OR_WITH",
    "FUNCTION_WORDS",
    "GOING_TO",
    "HYPOTHETICALS",
    "INTERJECTIONS",
    "MODAL_CHAIN",
    "MODIFIERS",
    "NAMING_A_THIRD_PARTY",
    "NEGATIONS",
    "NEGATIVE_SUBJECTS",
    "NOT_BEFORE_A_CLAUSE",
    "PAUSED_FOR_A_DAY",
    "QUESTION_AUXILIARIES",
    "SPANISH_NAMING",
    "STATEMENTS",
    "THINGS",
    "THIRD_PERSON",
    "TO_SOMEONE",
    "UNTIL",
    "VERBS_OF_A_PERSON",
    "VERBS_OF_A_THING",
]

Language = Literal["en", "es"]

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
# Spanish orders with the pronoun after the verb, which no negation governs (a negated order puts it
# before: "no me borren"): "no sé jugar ni quiero, bórrenme".
AFFIRMATIVE_ORDERS = frozenset({"sacame", "borralo", "dejame", "parale"})
# Subjects that negate what they do, across a word at least: "nothing can stop me", "nadie me para"
# (but "I signed up for nothing, stop" and "a nada, quítenme de la lista" are requests).
NEGATIVE_SUBJECTS = frozenset({"nothing", "nobody", "nada", "nadie"})
# Words that make what follows a supposition, not a request: "what happens if I stop".
HYPOTHETICALS = frozenset(
    {"if", "when", "until", "till", "unless", "whether", "si", "cuando", "hasta", "aunque"}
    # A note to oneself about something else: "remind me to unsubscribe from that gym email".
    | {"remind"}
)


# After a request, words that make it a pause: "don't text me till 5", "stop texting me until tonight".
UNTIL = frozenset({"until", "till", "til"})
# Just after a request not to text or call, or for no more of them, a day that makes it a pause,
# as a friend is asked: "no me llames hoy, estoy en el trabajo", "don't call me tonight", "no more
# challenges for today". ("stop texting me today" and "bórrenme hoy mismo" stay requests: only
# these rules are read so.)
FOR_A_DAY = frozenset({"today", "tonight", "tomorrow", "hoy", "manana"})
PAUSED_FOR_A_DAY = frozenset({"do-not-text", "no-more-texts"})


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
    # "stop, isnt funny", "stop, not my number"
    | {"isnt", "not"}
    | {"someone", "somebody", "nobody", "how", "why", "idk", "or", "yo", "esto", "eso", "quien"}
)
# Two words that start a clause where the first alone may be the stop's object ("stop this"):
# "stop, this is my dad's phone", "quit, this was never mine".
CLAUSE_STARTING_PAIRS = frozenset({("this", "is"), ("this", "isnt"), ("this", "was"), ("this", "aint")})
# A stop word that is also a preposition, so no stop before a clause: "para eso practiqué".
NOT_BEFORE_A_CLAUSE = frozenset({"para"})
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
# Before "a", words that make what follows a verb, not a name: "los voy a reportar, dejen de escribir".
GOING_TO = frozenset({"voy", "vas", "va", "vamos", "van", "ir"})
# Of those, the Spanish ones, which name a third party only in a Spanish text.
SPANISH_NAMING = frozenset({"que", "a"})
# Rules that state something rather than ask someone to stop: no third party can be asked them.
STATEMENTS = frozenset(
    {"wrong-number", "no-more-texts", "do-not-want-texts", "revoke-consent", "block-number", "not-interested"}
    | {"i-quit"}
)
# Before a thing or a third party, a question about it stopping: "when does it stop", "did bob quit".
QUESTION_AUXILIARIES = frozenset({"do", "does", "did", "will", "would", "can", "could", "should"})
THINGS = frozenset({"it", "this", "that", "things"})
# Who is texted in the second person: "bob, can you stop texting me" asks bob.
ADDRESSEES = frozenset({"you"})
# The word before whom something is sent: "stop sending texts to bob", "deja de escribir a ana".
TO_SOMEONE: Mapping[Language, str] = {"en": "to", "es": "a"}
# Verbs whose object is a person: "unsubscribe bob" unsubscribes bob.
VERBS_OF_A_PERSON = frozenset({"text", "message", "contact", "call", "spam", "unsubscribe", "optout"})
FROM_OR_WITH = frozenset({"from", "with", "de", "con"})
# Verbs whose object is a thing: in "stop sending me junk", junk is what is sent, not a name.
VERBS_OF_A_THING = frozenset({"sending", "send", "escribir"})
# What may come before a name that starts a text: "hey bob, stop texting me".
INTERJECTIONS = frozenset(
    {"hey", "hi", "hello", "yo", "omg", "ok", "ugh", "wtf", "ffs", "god", "seriously", "please", "so"}
    | {"oye", "hola", "neta", "porfavor"}
    # Who the text is addressed to when it is the bot's company, not a player: "hey company, stop
    # texting me", "Attention RPS team", "mano, ya deja de escribirme", "acho, ya no me escriban".
    | {"attention", "company", "team", "bot", "rps", "dear", "whoever", "staff", "admin", "support"}
    | {"shh", "sh", "ahh", "argh"}
    # Regional ways of addressing anyone: "che, no me manden más", "tío, dejad de escribirme".
    | {"che", "tio", "tia", "parce", "pana", "mae", "chamo", "weon", "loco", "vale", "oiga", "mira", "mire"}
    | {"mano", "acho", "diache", "chale", "carnal", "compadre", "hermano", "senores", "equipo", "empresa"}
)
# Last words of clear phrases that complete them, so that a word after one is a name, not an
# object: "leave me alone bob", "wrong number alice".
COMPLETE_PHRASE_ENDS = frozenset(
    {"alone", "be", "number", "person", "paz", "tranquilo", "tranquila", "persona", "equivocado"}
)
# Between a third party and a stop: "bob needs to stop", "alice should just stop".
MODAL_CHAIN = frozenset(
    {"to", "needs", "need", "has", "have", "had", "gotta", "got", "should", "must", "will", "would"}
    | {"better", "just", "gonna", "going", "can", "could", "please", "ever", "ya", "que"}
)
# Words too common to be taken for a nickname in a name's place ("this is so annoying, stop").
FUNCTION_WORDS: Mapping[Language, frozenset[str]] = {
    "en": frozenset(
        {"that", "mine", "myself", "youve", "yours", "our", "was", "were", "being", "may"}
        | {"might", "yes", "yeah", "yea", "yep", "nah", "but", "too", "very", "only", "also", "still"}
        | {"then", "than", "about", "into", "over", "down", "some"}
        | {"every", "each", "many", "much", "most", "other", "another", "such", "what", "where", "which"}
        | {"there", "here", "today", "tonight", "tomorrow", "yesterday", "day", "days", "night", "week"}
        | {"time", "times", "always", "forever", "sometimes", "tho", "though", "like"}
        | {"literally", "honestly", "things", "stuff", "anything", "something", "everything"}
        | {"anyone", "everyone", "way", "lot", "people", "annoying", "whatever"}
        # Complaints and greetings that start a text: "so sick of this, stop", "reported as spam. stop".
        | {"sick", "tired", "fed", "annoyed", "reported", "report", "harassment", "scam"}
        | {"unreal", "unbelievable", "ridiculous", "insane", "crazy", "listen", "look"}
        | {"excuse", "dear", "good", "morning", "evening", "wow", "jeez", "smh", "nope", "damn"}
        | {"further", "future"}
    ),
    "es": frozenset(
        {"unos", "unas", "les", "usted", "ustedes", "nosotros", "sin", "sobre"}
        | {"pero", "menos", "toda", "todos", "todas", "cada", "otro", "ese", "esa", "ahi", "alla", "hoy"}
        | {"dia", "dias", "noche", "veces", "siempre", "como", "donde", "porque", "estan", "fue", "ser"}
        | {"estar", "hay", "tengo", "tiene", "tienen", "cosa", "cosas", "algo", "alguien"}
        | {"telefono", "cel", "celular", "juego", "nomas", "contactos", "grupo", "buscan"}
        # Complaints, greetings and ways of asking before a request: "qué fastidio, alto", "quisiera
        # darme de baja", "no soy la persona que buscan, dejen de escribir".
        | {"quisiera", "necesito", "queremos", "agradeceria"}
        | {"molestos", "molesto", "molesta", "molestas", "pesados", "latosos", "fastidiosos"}
        | {"fastidio", "molestia", "lata", "harto", "harta", "hartos", "cansado", "cansada", "acoso"}
        | {"reportado", "basura", "oigan", "miren", "disculpe", "perdon", "buenas", "bueno", "pues"}
        # Regional exclamations of annoyance before a request: "qué jartera, dejen de mandar eso".
        | {"jartera", "hartera", "pereza", "hueva", "flojera", "ladilla", "mamera", "pesadez", "rollo"}
        # Having said it before: "cuántas veces tengo que decir que no me escriban", "te dije que".
        | {"decir", "dije", "dijo", "digo", "dicho", "repetir", "repito", "pedir", "avisar", "avise"}
        | {"llegan", "vuestro", "vuestros"}
    ),
}
