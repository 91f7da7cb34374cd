"""Who is to stop, in a text the revocation classifier (`revocation.py`) reads: whether a stop
is negated or supposed ("I can't stop texting", "what if I stop"), asked of a third party ("tell
bob to stop", "dile a ana que deje de escribirme"), said of what "you" do ("you never text me
back"), or followed by a name ("stop texting me bob", "no me mandes más retos luis"); and which
words may be a nickname. Pure: standard library only. docs/opt-out.md ("What outweighs it") says
why.
"""

from __future__ import annotations

from serverless_rps import revocation_words as vocabulary
from serverless_rps.revocation_words import Language, Meaning

__all__ = [
    "REACH",
    "ends_a_sentence",
    "is_asked_of_a_third_party",
    "is_laughter",
    "is_negated",
    "may_be_a_nickname",
    "may_name_a_player",
    "names_someone_after",
    "says_what_you_do",
    "starts_with_a_third_party",
]

REACH = 4  # how far back a negation or a third party is looked for: "I can't ever stop texting"


# --- Names ----------------------------------------------------------------------------------------


def may_be_a_nickname(word: str) -> bool:
    """A word of the nickname alphabet no list knows. Digits alone (`555`) are more likely part
    of a phone number than a player."""
    return (
        vocabulary.NICKNAME_SHAPE.fullmatch(word) is not None
        and not word.isdigit()
        and word not in vocabulary.ORDINARY_WORDS
    )


def may_name_a_player(word: str) -> bool:
    """A word that may be a nickname and is not reserved: a stop word ("stop, stop texting me") or
    a word a stop request keeps as company names no one."""
    return may_be_a_nickname(word) and word not in vocabulary.RESERVED_WORDS


def is_laughter(word: str) -> bool:
    """`lol`, `haha`, `jajaja`, `jeje`..."""
    return word in vocabulary.LAUGHTER or (
        len(word) >= 4 and frozenset(word) in ({"h", "a"}, {"j", "a"}, {"h", "e"}, {"j", "e"})
    )


# --- The sentence around a stop ------------------------------------------------------------------


def is_negated(words: list[str], start: int, language: Language) -> bool:
    """A negation or an "if" just before words[start], with only words like "ever" between: "I
    can't ever stop texting", "no puedo parar", "what if I stop". A phrase that starts with a
    negation is one ("no me escribas")."""
    negations = vocabulary.NEGATIONS[language]
    if words[start] in negations or words[start] in vocabulary.AFFIRMATIVE_ORDERS:
        return False
    if language == "en" and start >= 2 and words[start - 1] == "me" and words[start - 2] in negations:
        return False  # "that isn't me. stop texting": the negation ends its own sentence
    for index in range(start - 1, max(-1, start - 1 - REACH), -1):
        if words[index] in negations or words[index] in vocabulary.HYPOTHETICALS:
            return True
        if words[index] in vocabulary.NEGATIVE_SUBJECTS and index < start - 1:
            return True
        if words[index] not in vocabulary.BETWEEN_NEGATION_AND_STOP:
            return False
    return False


def says_what_you_do(words: list[str], start: int, language: Language) -> bool:
    """ "you never text me back": a phrase that starts with a negation after "you" says what the
    addressee does; it asks nothing."""
    return (
        start > 0
        and words[start - 1] in vocabulary.ADDRESSEES
        and words[start] in vocabulary.NEGATIONS[language]
    )


def is_asked_of_a_third_party(words: list[str], start: int, meaning: Meaning) -> bool:
    """Whether the stop at words[start] is someone else's: "make him stop", "tell bob to stop",
    "bob needs to stop", "hey alice stop texting me", "when does it stop", "dile a ana que deje de
    escribirme". A word that may be a nickname is a third party only in a name's place: first
    (after interjections), or after "tell", "make", "a"... A statement ("wrong number", "I don't
    want texts") asks nothing of anyone."""
    if meaning.rule in vocabulary.STATEMENTS:
        return False
    index = start - 1
    while index >= 0 and start - index <= REACH and words[index] in vocabulary.MODAL_CHAIN:
        index -= 1
    if index < 0:
        return False
    agent = words[index]
    asked = index > 0 and words[index - 1] in vocabulary.QUESTION_AUXILIARIES
    if agent in vocabulary.THIRD_PERSON or (asked and agent in vocabulary.THINGS):
        return True
    if agent in vocabulary.ADDRESSEES:
        return _is_addressed_to_a_player(words, index)
    return may_name_a_player(agent) and _is_in_a_names_place(words, index, meaning.language)


def _is_addressed_to_a_player(words: list[str], you: int) -> bool:
    """Whether the "you" at words[you] is a player the text names first: "alice can u stop
    messaging me", "bob you need to stop texting me"."""
    first = next((index for index, word in enumerate(words) if word not in vocabulary.INTERJECTIONS), you)
    return (
        first < you
        and may_name_a_player(words[first])
        and all(word in vocabulary.QUESTION_AUXILIARIES for word in words[first + 1 : you])
    )


def _is_in_a_names_place(words: list[str], index: int, language: Language) -> bool:
    """First, or after "tell", "make"..., or "dile a", "que" in Spanish ("a" and "que" name no one
    in English: "a joke. please remove it"; nor "a" after "voy": "los voy a reportar")."""
    before = index - 1
    while before >= 0 and index - before <= REACH and words[before] in vocabulary.INTERJECTIONS:
        before -= 1
    return (
        before < 0
        or (
            words[before] in vocabulary.NAMING_A_THIRD_PARTY
            and (language == "es" or words[before] not in vocabulary.SPANISH_NAMING)
            and not (before > 0 and words[before] == "a" and words[before - 1] in vocabulary.GOING_TO)
        )
        or words[before] in vocabulary.QUESTION_AUXILIARIES
    )


def names_someone_after(words: list[str], end: int, meaning: Meaning) -> bool:
    """`unsubscribe bob`, `stop texting alice`: a name as the object of a phrase whose verb takes a
    person; `stop sending texts to bob`, `dejen de molestar a ana`: a name the phrase is sent to;
    `stop texting me bob`, `leave me alone alice`: a name that ends the text once the phrase is
    complete (after "me", "alone", a courtesy word), or starts a new clause after it (`leave me be
    bob, im thinking`). Not the object of a verb that takes a thing: `stop sending alerts`, `deja de
    enviar alertas`."""
    if end < len(words) and words[end - 1] in vocabulary.VERBS_OF_A_PERSON and may_name_a_player(words[end]):
        return True
    if _names_whose_game_it_is(words, end):
        return True
    to_someone = vocabulary.TO_SOMEONE[meaning.language]
    if any(
        words[index] == to_someone and may_name_a_player(words[index + 1])
        for index in range(end, min(end + REACH, len(words) - 1))
    ):
        return True
    if (
        end + 1 < len(words)
        and words[end - 1] in vocabulary.COMPLETE_PHRASE_ENDS
        and may_name_a_player(words[end])
        and words[end + 1] in vocabulary.CLAUSE_STARTS
    ):
        return True
    last = len(words) - 1
    while last > end and (words[last],) in vocabulary.COURTESY:
        last -= 1  # `stop texting me bob please`
    if last > end and words[last - 1] in vocabulary.FROM_OR_WITH and may_name_a_player(words[last]):
        return True  # `unsubscribe me from bob`
    if words[end - 1] in vocabulary.VERBS_OF_A_THING or not 0 <= last - end <= REACH:
        return False
    if not may_name_a_player(words[last]):
        return False
    between = words[end:last]
    return all((word,) in vocabulary.COURTESY for word in between) and (
        bool(between) or words[end - 1] in vocabulary.COMPLETE_PHRASE_ENDS
    )


def _names_whose_game_it_is(words: list[str], end: int) -> bool:
    """`stop sending me bob's challenges`, `no me mandes más retos luis`: a name just before or
    just after the game's noun the phrase sends (then only courtesy to the end), which makes the
    challenges a player's, and the request one about that player."""
    for index in range(end, min(len(words), end + REACH)):
        if words[index] not in vocabulary.GAME_SENDS:
            continue
        before, after = words[index - 1], words[index + 1 : index + 2]
        if (
            before not in vocabulary.SENDING
            and (before,) not in vocabulary.COURTESY
            and may_name_a_player(before)
        ):
            return True
        rest = words[index + 2 :]
        return (
            bool(after)
            and may_name_a_player(after[0])
            and all((word,) in vocabulary.COURTESY for word in rest)
        )
    return False


def starts_with_a_third_party(words: list[str]) -> bool:
    """`bob is so annoying stop`: a text about someone else, whose stop is theirs to do."""
    first = next((index for index, word in enumerate(words) if word not in vocabulary.INTERJECTIONS), None)
    return first is not None and (words[first] in vocabulary.THIRD_PERSON or may_name_a_player(words[first]))


def ends_a_sentence(words: list[str], start: int, meaning: Meaning) -> bool:
    """Whether the stop request at words[start:] ends a sentence of its own: `this is so annoying
    stop`, not `full stop` or `bob stop` (a negation is looked for by the caller)."""
    # An order with its pronoun after the verb is no noun or adjective: "es demasiado, bájenme".
    modified = words[start - 1] in vocabulary.MODIFIERS and words[start] not in vocabulary.AFFIRMATIVE_ORDERS
    return not (modified or is_asked_of_a_third_party(words, start, meaning))
