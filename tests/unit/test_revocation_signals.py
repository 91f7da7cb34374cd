"""Round 3 of the revocation classifier: the second reading (a stop intent aimed at the texts or
the sender, weighed against the game signals near it: serverless_rps/revocation_signals.py), the
reading of words run together or split apart, and every word round 3 added to a list, each with a
text of its own. As in test_revocation_words.py, each table is written out, not read from the
module; where a list is read when a text is (the signals' lists), the test also takes the word out
of it and sees the text read otherwise, so that no word is kept that reads nothing. A table is one
test, which reads all its texts and names each one read wrong (tests/unit/revocation_checks.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from serverless_rps import normalisation, revocation, revocation_signals
from serverless_rps.revocation import classify, words_of
from tests.unit.revocation_checks import (
    assert_each_read_right,
    missed,
    not_in_words,
    opts_out,
    phrase_missed,
    taken,
)


def without(monkeypatch: pytest.MonkeyPatch, table: str, entry: object) -> None:
    """The signals' list `table` without `entry`, for the rest of the test."""
    words = getattr(revocation_signals, table)
    if isinstance(words, dict):
        monkeypatch.setattr(
            revocation_signals, table, {key: value for key, value in words.items() if key != entry}
        )
    else:
        monkeypatch.setattr(revocation_signals, table, words - {entry})


def read_without(table: str, entry: object, text: str, reads: Callable[[str], bool]) -> str | None:
    """What is wrong when `text` is to be read otherwise without `entry` in the signals' list
    `table` (the list is whole again afterwards): nothing when `reads` no longer finds it."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        without(monkeypatch, table, entry)
        if reads(text):
            return f"{text!r} is read the same without {entry!r} in {table}: the entry reads nothing"
    return None


# --- The second reading: intent and target --------------------------------------------------------

INTENTS = {
    ("stop",): "stop pinging my phone",
    ("quit",): "quit pinging my phone",
    ("cease",): "cease pinging my phone",
    ("halt",): "halt pinging my phone",
    ("end",): "end the pinging of my phone",
    ("cancel",): "cancel pinging my phone",
    ("discontinue",): "discontinue pinging my phone",
    ("terminate",): "terminate pinging my phone",
    ("pause",): "pause these texts",
    ("block",): "block my phone from this bot",
    ("remove",): "remove my phone from this thing",
    ("delete",): "delete my cell from this",
    ("erase",): "erase my cell",
    ("disable",): "disable these texts",
    ("deactivate",): "deactivate the notifications",
    ("mute",): "mute these messages",
    ("silence",): "silence the notifications",
    ("no", "more"): "no more pinging my phone",
    ("not", "interested"): "not interested in the messages",
    ("no", "longer", "interested"): "no longer interested in the messages",
    ("dont", "want"): "i dont want pinging on my phone",
    ("do", "not", "want"): "i do not want pinging on my phone",
    ("get", "off"): "get off my phone",
    ("take", "off"): "take off my number",
    ("off",): "turn these alerts off",
    ("detener",): "detengan el servicio",
    ("cancelar",): "cancela el servicio",
    ("bloquea",): "bloqueen este servicio",
    ("sacame",): "sáquenme del servicio",
    ("borra",): "borren el servicio",
    ("salir",): "quiero salir del servicio",
    ("desactiva",): "desactiven el servicio",
    ("apaga",): "apaguen el servicio",
    ("basta",): "basta con el servicio",
    ("paren",): "paren el servicio",
    ("pare",): "pare el servicio",
    ("no", "mas"): "no más spam aquí",
    ("no", "quiero"): "no quiero el servicio",
    ("ya", "chole"): "ya chole con el servicio",
    ("ya", "estuvo"): "ya estuvo con el servicio",
}


def test_each_intent_aimed_at_the_texts_is_an_opt_out_and_nothing_else_reads_it() -> None:
    assert_each_read_right(
        INTENTS.items(),
        lambda intent, text: (
            phrase_missed(" ".join(intent), text) or read_without("INTENTS", intent, text, opts_out)
        ),
    )


TARGETS = {
    "text": "mute these texts",
    "message": "mute these messages",
    "notification": "mute these notifications",
    "call": "mute these calls",
    "spam": "mute this spam",
    "communication": "mute these communications",
    "contact": "mute the contact",
    "phone": "quit pinging my phone",
    "cell": "quit pinging my cell",
    "inbox": "quit flooding my inbox",
    "number": "quit pinging my number",
    "me": "quit pinging me",
    "us": "quit pinging us",
    "list": "disable this list",
    "service": "disable this service",
    "bot": "mute this bot",
    "rps": "mute rps",
    "subscription": "pause my subscription",
    "invite": "mute the invites",
    "escribir": "desactiven escribirme",
    "lista": "desactiven la lista",
    "aqui": "paren aqui",
    "servicio": "desactiven el servicio",
    "esto": "apaguen esto",
}


def test_each_target_of_an_intent_makes_it_an_opt_out() -> None:
    assert_each_read_right(
        TARGETS.items(),
        lambda target, text: (
            (None if target == "rps" else not_in_words(target, text))
            or missed(text)
            or read_without("TARGETS", target, text, opts_out)
        ),
    )


def test_the_games_name_is_one_word_that_says_which_texts() -> None:
    assert opts_out("stop the rock paper scissors texts")
    assert opts_out("mute rock, paper and scissors")
    assert not opts_out("mute rock")  # a move, not the game's name


BETWEEN = {
    "the": "mute the spam",
    "these": "mute these spam",
    "those": "mute those spam",
    "this": "mute this spam",
    "all": "mute all spam",
    "my": "mute my phone",
    "your": "mute your spam",
    "any": "mute any spam",
    "of": "end the pinging of my phone",
    "from": "mute from this bot",
    "on": "mute on my phone",
    "to": "stop pinging to my phone",
    "up": "quit hitting up my phone",
    "in": "not interested in the messages",
    "a": "mute a phone",
    "an": "mute an inbox",
    "every": "mute every spam",
    "daily": "mute daily spam",
    "game": "mute game spam",
    "games": "mute games spam",
    "automated": "mute automated spam",
    "random": "mute random spam",
    "stupid": "mute stupid spam",
    "dumb": "mute dumb spam",
    "constant": "mute constant spam",
    "just": "mute just spam",
    "please": "mute please spam",
    "now": "mute now the spam",
    "de": "desactiven de servicio",
    "los": "desactiven los servicio",
    "las": "desactiven las listas",
    "tus": "desactiven tus servicio",
    "sus": "desactiven sus servicio",
    "estos": "desactiven estos servicio",
    "esos": "desactiven esos servicio",
    "mis": "desactiven mis servicio",
    "mi": "desactiven mi servicio",
    "su": "desactiven su servicio",
    "tu": "desactiven tu servicio",
    "con": "basta con servicio",
    "ya": "desactiven ya el servicio",
    "por": "desactiven por servicio",
    "mas": "desactiven mas servicio",
    "todos": "desactiven todos servicio",
    "todas": "desactiven todas las listas",
    "el": "desactiven el servicio",
    "la": "desactiven la lista",
    "este": "desactiven este servicio",
    "esta": "desactiven esta lista",
    "recibir": "desactiven recibir servicio",
    "del": "desactiven del servicio",
    "al": "desactiven al servicio",
}


def test_each_word_between_an_intent_and_its_target_leaves_it_one() -> None:
    assert_each_read_right(
        BETWEEN.items(),
        lambda word, text: (
            not_in_words(word, text) or missed(text) or read_without("BETWEEN", word, text, opts_out)
        ),
    )


def aimed(text: str) -> bool:
    """Whether the second reading alone finds an intent aimed at a target in the text, with no game
    signal to weigh against it and courtesy only at the end."""
    words = revocation.the_games_name_as_one(words_of(text))
    return (
        revocation_signals.aimed_intent(
            words, lambda start, end, meaning: False, lambda end: end == len(words)
        )
        is not None
    )


def not_aimed(text: str) -> str | None:
    """What is wrong when the second reading is to find an intent aimed at a target in `text`."""
    return None if aimed(text) else f"{text!r}: the second reading finds no intent aimed at a target"


BEFORE = {
    "to": "i need the spam to stop",
    "just": "can the texts just stop",
    "all": "make the texts all stop",
    "please": "texts please stop",
    "can": "texts can stop",
    "could": "texts could stop",
    "will": "the texts will stop",
    "would": "texts would stop",
    "need": "texts need to stop",
    "want": "texts i want to stop",
    "i": "the texts i want to stop",
    "que": "mensajes que paren",
    "se": "mensajes se paren",
    "ya": "mensajes ya paren",
    "going": "texts going to stop",
    "gonna": "texts gonna stop",
}


def test_each_word_between_the_texts_named_first_and_an_intent_that_ends_the_text_leaves_it_one() -> None:
    assert_each_read_right(
        BEFORE.items(),
        lambda word, text: (
            not_in_words(word, text) or not_aimed(text) or read_without("BEFORE", word, text, aimed)
        ),
    )


SECOND_READING_WORDS = [
    ("TEXTS", "text", "make the texts stop"),
    ("TEXTS", "message", "make the messages stop"),
    ("TEXTS", "notification", "make the alerts stop"),
    ("TEXTS", "call", "make the calls stop"),
    ("TEXTS", "spam", "make the spam stop"),
    ("TEXTS", "escribir", "que escribirme pare"),
    ("PRONOUNS_OF_TEXTS", "them", "so many texts. i want them to stop"),
    ("PRONOUNS_OF_TEXTS", "it", "so many texts. make it stop"),
    ("PRONOUNS_OF_TEXTS", "these", "so many texts. i need these to stop"),
    ("PRONOUNS_OF_TEXTS", "those", "so many texts. i need those to stop"),
    ("PRONOUNS_OF_TEXTS", "this", "so many texts. i need this to stop"),
    ("PRONOUNS_OF_TEXTS", "they", "so many texts. can they stop"),
    ("OFF_VERBS", "turn", "turn off the alerts"),
    ("OFF_VERBS", "shut", "shut off the alerts"),
    ("OFF_VERBS", "switch", "switch off the alerts"),
    ("HOW", "how", "how do i stop"),
    ("HOW", "como", "cómo me salgo"),
    ("HOW", "where", "where do i cancel"),
    ("HOW", "donde", "dónde me salgo"),
    ("CONTACTING", "pinging", "stop pinging me"),
    ("CONTACTING", "bugging", "quit bugging us"),
    ("CONTACTING", "bothering", "stop bothering us"),
    ("CONTACTING", "harassing", "stop harassing us"),
    ("CONTACTING", "hitting", "quit hitting me up"),
    ("CONTACTING", "blowing", "quit blowing me up"),
    ("CONTACTING", "flooding", "quit flooding me"),
    ("CONTACTING", "hounding", "quit hounding me"),
    ("CONTACTING", "pestering", "quit pestering us"),
    ("CONTACTING", "nagging", "quit nagging me"),
    ("CONTACTING", "sending", "quit sending us"),
    ("CONTACTING", "emailing", "quit emailing me"),
    ("CONTACTING", "buzzing", "quit buzzing me"),
    ("CONTACTING", "blasting", "quit blasting me"),
    ("CONTACTING", "bombarding", "quit bombarding me"),
    ("CONTACTING", "reaching", "quit reaching me"),
    ("CONTACTING", "targeting", "quit targeting me"),
    ("CONTACTING", "adding", "quit adding me"),
    ("CONTACTING", "signing", "quit signing me"),
    ("CONTACTING", "subscribing", "quit subscribing me"),
]


def test_each_word_of_the_second_readings_lists_is_read() -> None:
    assert_each_read_right(
        SECOND_READING_WORDS,
        lambda table, word, text: (
            (None if word in ("how", "where") else not_in_words(word, text))
            or not_aimed(text)
            or read_without(table, word, text, aimed)
        ),
    )


@pytest.mark.parametrize("text", ["stop me if you can", "quit me", "end us", "paren me"])
def test_the_sender_alone_is_no_target_of_stop_quit_or_end(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "stop me if you can" is a taunt; "stop pinging me" and "block me" are requests.
    assert not aimed(text)
    monkeypatch.setattr(revocation_signals, "STOPPING", frozenset())
    assert aimed(text)
    monkeypatch.setattr(revocation_signals, "PEOPLE", frozenset())
    assert aimed(text)


@pytest.mark.parametrize(
    "text",
    [
        "stop pinging my phone, i won",  # the contest near the request
        "stop sending rock to my phone",  # a move
        "i cant stop pinging my phone",  # a negation
        "tell bob to stop pinging my phone",  # a third party
        "mute these texts until 5",  # a pause
        "mute these texts alice_99",  # a nickname's shape (laughter is read out since round 4)
        "how do i stop losing",  # the contest, asked how
        "how do i stop a game",  # not at the end: what is stopped is the game
        "turn off the lights",  # no target
        "stop pinging me bob",  # a name after the request
        "i quit this game with bob",  # "this" starts no clause
        "how do i turn off my alarm lol",  # no target, and laughter
    ],
)
def test_the_game_signals_near_an_intent_outweigh_it(text: str) -> None:
    assert not opts_out(text)


# --- Round 3's phrases, each with a text of its own ---------------------------------------------

ROUND_3_PHRASES = {
    # English clear phrases
    "dont send anything": "No longer interested, please don't send anything else",
    "if you could just stop": "so if you could just stop that would be great",
    "if i get one more text": "i swear if i get one more text from you",
    "if you dont stop": "I will report you if you don't stop",
    "text me again and": "text me again and i'll report you",
    "want unsubscribed": "I want unsubscribed",
    "do not wish to be contact": "I do not wish to be contacted",
    "rather not get these": "I'd rather not get these",
    "let me alone": "let me alone please",
    "lemme alone": "lemme alone",
    "lemme be": "lemme be",
    "be left alone": "I want to be left alone",
    "revoking any consent": "I am revoking any consent I gave",
    "take back my permission": "I take back my permission to message this number",
    "never signed up": "I never signed up",
    "never asked for this": "never asked for this",
    "never gave you my number": "I never gave you my number",
    "unwanted text": "unwanted texts again",
    "text are unwanted": "Your texts are unwanted",
    "not my number": "not my number",
    "wrong guy": "you've got the wrong guy",
    "like it taken off": "I'd like it taken off, thanks",
    "be taken off": "I'd like to be taken off your mailing list",
    "get me out of here": "get me out of here",
    "whats the stop word": "what's the stop word?",
    "terminate my subscription": "terminate my subscription",
    "terminate these text": "terminate these texts",
    # Spanish clear phrases
    "sacame de aqui": "sáquenme de aki",
    "salir de esta": "quiero salir de esta lista",
    "que paren": "¿qué tengo que poner para que paren?",
    "ya chole con los message": "ya chole con los mensajes",
    "chale con los message": "chale con los mensajes",
    "no soy la persona": "no soy la persona que buscan",
    "no es mi number": "no es mi número",
    "ni un message mas": "ni un mensaje más",
    "harto de los message": "harto de los mensajes",
    "harta con tus message": "ya estoy harta con tus mensajes",
}


def test_each_phrase_round_3_added_is_an_opt_out() -> None:
    assert_each_read_right(ROUND_3_PHRASES.items(), phrase_missed)


ROUND_3_STOP_REQUESTS = {
    "f off": "f off with these texts",
    "get lost": "get lost",
    "shut up": "Shut up",
    "stfu": "stfu",
    "do not text": "please do not text",
    "dont message": "dont message",
    "spam": "spam",
    "harassment": "harassment!!",
    "this is spam": "this is spam",
    "thats harassment": "that's harassment",
    "reported as spam": "reported as spam",
    "blocked": "blocked",
    "blocking": "blocking",
    "youre blocked": "you're blocked",
    "blocking this": "blocking this",
    "ya estuvo": "ya estuvo",
    "ya chole": "ya chole",
    "no estoy interesado": "no estoy interesado",
    "no estamos interesadas": "no estamos interesadas",
    "no quiero participar": "no deseo participar",
    "borra": "eliminar",
    "quiero salir": "quiero salir",
    "me quiero salir": "me quiero salir",
    "bloqueado": "bloqueado",
    "los voy a bloquea": "los voy a bloquear",
    "te bloquea": "te bloqueé",
    "se equivocaron": "no soy yo, se equivocaron",
}


def test_each_stop_request_round_3_added_is_an_opt_out_on_its_own_but_not_with_the_game() -> None:
    assert_each_read_right(
        ROUND_3_STOP_REQUESTS.items(),
        lambda phrase, text: phrase_missed(phrase, text) or taken(f"{text} rock"),
    )


@pytest.mark.parametrize(
    "text",
    ["piss off with this", "count me out of these texts", "no more of the texts", "stop from these messages"],
)
def test_the_texts_or_this_after_with_of_or_from_is_courtesy(text: str) -> None:
    assert opts_out(text)


# --- Who is addressed, who is named ----------------------------------------------------------------

ADDRESSED = (
    *("attention", "company", "team", "bot", "rps", "dear", "whoever", "staff", "admin", "support"),
    *("mano", "acho", "diache", "chale", "carnal", "compadre", "hermano", "senores", "equipo", "empresa"),
)


def test_the_bots_company_addressed_first_is_no_third_party() -> None:
    def misread(word: str) -> str | None:
        request = "stop texting me" if word.isascii() and word not in ADDRESSED[10:] else "deja de escribirme"
        return missed(f"{word}, {request}") or taken(f"zorblax, {request}")  # a name there is a player's

    assert_each_read_right(ADDRESSED, misread)


@pytest.mark.parametrize("word", ["voy", "vas", "va", "vamos", "van", "ir"])
def test_a_after_going_to_names_no_one(word: str) -> None:
    assert opts_out(f"los {word} a acusar, dejen de escribir")
    assert not opts_out("los mando a acusar, dejen de escribir")  # "acusar" may be a player here


def test_a_and_que_name_a_third_party_only_in_spanish() -> None:
    assert opts_out("someone put my number in as a joke. please remove it")
    assert not opts_out("dile a ana que deje de escribirme")


@pytest.mark.parametrize(
    ("word", "text"),
    [("isnt", "stop, isnt funny"), ("not", "stop, not funny")],
)
def test_a_stop_before_a_clause_that_starts_with_a_negation_is_an_opt_out(word: str, text: str) -> None:
    assert word in words_of(text)
    assert opts_out(text)


@pytest.mark.parametrize("verb", ["is", "isnt", "was", "aint"])
def test_this_and_its_verb_start_a_clause_after_a_stop(verb: str) -> None:
    assert opts_out(f"STOP!!! This {verb} my dad's phone")
    assert not opts_out("stop this guy bob")  # "this" alone is the stop's object


def test_end_this_is_a_stop_request() -> None:
    assert opts_out("end this")
    assert not opts_out("end this round")


def test_a_negation_that_ends_its_own_sentence_does_not_negate_the_stop_after_it() -> None:
    assert opts_out("new number, whoever had it before isn't me. stop texting")
    assert not opts_out("i cant stop texting")


# --- Round 3's spellings ---------------------------------------------------------------------------

SPELLINGS = {
    "opt": ("I'm {} out", "opting opted"),
    "invite": ("mute the {}", "invites inviting invitation invitations"),
    "quiero": ("no {} recibir mensajes", "deseo"),
    "escribir": ("dejen de {}", "spamear spamearme spameando spamearnos"),
    "escribas": ("ya no me {}", "spamees spamee spameen busques busque busquen"),
    "sacame": ("{} de la lista", "saquen saque sacar sakenme sakame"),
    "desuscribir": ("{} ya", "desuscrivanme desuscrivirme desuscrivir desuscrivame"),
    "cancelar": ("{} estos mensajes", "cancelo kancelar kanselar"),
    "pare": ("como {} estos mensajes", "paro"),
    "aqui": ("sáquenme de {}", "aki aca"),
    "salir": ("quiero {} de esta lista", "salirme salgo salga salgan salimos salirnos"),
    "deja": ("cómo {} de recibir mensajes", "dejo"),
    "desactiva": ("{} el servicio", "desactiven desactive desactivar desactivo desactivame desactivenme"),
    "apaga": ("{} el servicio", "apaguen apague apagar apago"),
    "lista": ("desactiven las {}", "listas"),
}
SPELLING_CASES = [
    (word, template.format(spelling), spelling)
    for word, (template, spellings) in SPELLINGS.items()
    for spelling in spellings.split()
]


def test_each_spelling_round_3_added_reads_as_its_word(monkeypatch: pytest.MonkeyPatch) -> None:
    def misread(word: str, text: str, spelling: str) -> str | None:
        if spelling in words_of(text):
            return f"{spelling!r} is read as typed in {text!r}, not as {word!r}: it reads {words_of(text)}"
        return not_in_words(word, text) or missed(text)

    monkeypatch.setattr(revocation, "key_word_typed", lambda word: None)
    assert_each_read_right(SPELLING_CASES, misread)


# --- Words run together, split apart, doubled -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("stoptexting", ["stop", "text"]),
        ("stopmessagingme", ["stop", "message", "me"]),
        ("nomoretexts", ["no", "more", "text"]),
        ("pleasestop", ["please", "stop"]),
        ("leavemealone", ["leave", "me", "alone"]),
        ("removeme", ["remove", "me"]),
        ("nomasmensajes", ["no", "mas", "message"]),
        ("nomasmsjs", ["no", "mas", "message"]),
        ("dejenmeenpaz", ["dejame", "en", "paz"]),
        ("dejendeescribir", ["deja", "de", "escribir"]),
        ("yanomemandenmensajes", ["ya", "no", "me", "escribas", "message"]),
    ],
)
def test_words_run_together_are_split_when_one_of_them_asks_to_stop(text: str, words: list[str]) -> None:
    assert words_of(text) == words
    assert opts_out(text)


@pytest.mark.parametrize(
    "text",
    [
        "unstoppable",  # a stop word with an affix is one word
        "unendable",
        "stopwatch",  # no word of the lists after "stop"
        "rockstop",  # a move
        "winstop",  # the contest
        "paraguas",
        "nomad",
    ],
)
def test_a_word_is_not_split_into_a_stop_with_an_affix_a_move_the_contest_or_no_word(text: str) -> None:
    assert words_of(text) == [text]
    assert not opts_out(text)


def test_nick_and_a_word_that_would_split_is_a_command() -> None:
    assert not opts_out("apodo olvidame")
    assert not opts_out("nick EndGame")


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("un subscribe", "unsubscribe"),
        ("Un-subscribe", "unsubscribe"),
        ("unsub scribe", "unsubscribe"),
        ("un-sub", "unsubscribe"),
    ],
)
def test_a_key_word_split_in_two_is_joined(text: str, word: str) -> None:
    assert words_of(text) == [word]
    assert opts_out(text)


def test_a_letter_and_a_key_word_are_not_joined() -> None:
    assert words_of("t unsubscribe") == ["t", "unsubscribe"]
    assert not opts_out("t unsubscribe")


DOUBLED_LETTERS = [
    ("altoo", "alto"),
    ("bastaa", "basta"),
    ("paraa", "para"),
    ("parenn", "paren"),
    ("quitt", "quit"),
    ("endd", "end"),
    ("cancell", "cancel"),
    ("removee", "remove"),
    ("deletee", "delete"),
    ("blockk", "block"),
    ("leavve", "leave"),
    ("noo more texts", "no"),
    ("dejaa de escribir", "deja"),
    ("cancelarr", "cancelar"),
    ("bloqueaa mi número", "bloquea"),
    ("sacamee", "sacame"),
    ("borraa mi número", "borra"),
    ("dejamee en paz", "dejame"),
    ("pare", "pare"),
    ("stopp", "stop"),
    ("unsubscribee", "unsubscribe"),
    ("optoutt", "optout"),
]


def test_a_stop_word_typed_with_a_letter_doubled_is_read_as_it() -> None:
    assert_each_read_right(DOUBLED_LETTERS, lambda text, word: not_in_words(word, text))


def test_no_plus_is_no_mas_and_the_stop_sign_is_stop() -> None:
    assert words_of("no+ msjs plis") == ["no", "mas", "message", "porfavor"]
    assert opts_out("no+ msjs plis")
    assert opts_out("\N{OCTAGONAL SIGN}")
    assert not opts_out("\N{OCTAGONAL SIGN} rock")


def test_split_run_together_is_bounded_by_the_words_length() -> None:
    lexicon = frozenset({"ab", "ba"})
    assert normalisation.split_run_together("abba", lexicon, 2) == ["ab", "ba"]
    assert normalisation.split_run_together("ab" * 20, lexicon, 2) == ["ab"] * 20
    assert (
        normalisation.split_run_together("ab" * 21, lexicon, 2) is None
    )  # longer than any run-together word
    assert normalisation.split_run_together("abc", lexicon, 2) is None
    assert normalisation.split_run_together("ab", lexicon, 2) is None  # one word is no split


class CountingIntents(dict[tuple[str, ...], object]):
    lookups = 0

    def get(self, key: tuple[str, ...], default: object = None) -> object:  # type: ignore[override]
        CountingIntents.lookups += 1
        return super().get(key, default)


class CountingLexicon(frozenset[str]):
    lookups = 0

    def __contains__(self, key: object) -> bool:
        CountingLexicon.lookups += 1
        return super().__contains__(key)


# (text, whether its every word reaches the second reading: a contest word or laughter keeps the
# stop requests from reading it first; whether it has words no list knows that hold a stop word,
# which splitting looks into).
SIGNAL_TEXTS = {
    "intents": (("won " + "stop pinging " * 123)[:1600], True, False),
    "intents-and-targets": ("mute these texts " * 94, True, False),
    "far-targets": (("won " + "mute the the the the the " * 64)[:1600], True, False),
    "offs": ("turn off " * 177, True, False),
    "targets-first": ("lol zqzqzq " + "texts to " * 175 + "stop", True, False),
    "run-together": ("stoptexting " * 133, False, True),
    "run-together-unknown": ("nozqzqzqzqzqzqzqzqzqzqzqzqzqzqzqzqzqzqzq " * 39, True, True),
    "mixed": (("won " + "nomasmensajes turn these off how do i stop " * 36)[:1600], True, True),
}


@pytest.mark.parametrize(("text", "reads_intents", "splits"), SIGNAL_TEXTS.values(), ids=SIGNAL_TEXTS.keys())
def test_the_second_reading_and_the_splitting_cost_a_bounded_number_of_look_ups_per_word(
    text: str, reads_intents: bool, splits: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No backtracking: a few intent look-ups per word, and splitting a word looks up each of its
    # parts of each length once, so the work grows with the text's length and no faster.
    assert len(text) <= 1600
    monkeypatch.setattr(revocation_signals, "INTENTS", CountingIntents(revocation_signals.INTENTS))
    monkeypatch.setattr(revocation, "_SPLIT_LEXICON", CountingLexicon(revocation._SPLIT_LEXICON))
    CountingIntents.lookups = CountingLexicon.lookups = 0
    classify(text)
    words = len(words_of(text))
    assert CountingIntents.lookups <= revocation_signals.LONGEST_INTENT * (words + 1)
    assert (CountingIntents.lookups >= words) == reads_intents
    assert CountingLexicon.lookups <= len(text) * revocation._LONGEST_KNOWN_WORD
    assert (CountingLexicon.lookups > 0) == splits


# --- The third probe's kinds ----------------------------------------------------------------------

THIRD_PROBE_PHRASES = {
    "never agreed to": "I never agreed to receive these",
    "never subscribed to": "i never subscribed to this",
    "fcc": "I will file a complaint with the FCC",
    "tcpa": "you are breaking the tcpa",
    "ftc": "reporting this to the ftc",
    "file a complaint": "I will file a complaint",
    "why are you still text": "why are you still texting me",
    "why do you keep text": "why do you keep texting me",
    "take my name off": "please take my name off",
    "no pedi estos": "no pedí estos mensajes",
    "no solicite esto": "no solicité esto",
    "si no paren": "los voy a denunciar si no paren",
    "voy a reportar este number": "voy a reportar este número",
}


def test_each_phrase_the_third_probe_added_is_an_opt_out() -> None:
    assert_each_read_right(THIRD_PROBE_PHRASES.items(), phrase_missed)


THIRD_PROBE_STOP_REQUESTS = {
    "give it a rest": "give it a rest",
    "no text": "no texts please",
    "no message": "no messages",
    "no call": "no calls",
    "no notification": "no notifications",
    "salir": "salirme",
    "acoso": "acoso",
    "esto es acoso": "esto es acoso",
    "es spam": "es spam",
    "te voy a denunciar": "te voy a denunciar",
    "los voy a demandar": "los voy a demandar",
}


def test_each_stop_request_the_third_probe_added_is_an_opt_out_on_its_own_but_not_with_the_game() -> None:
    assert_each_read_right(
        THIRD_PROBE_STOP_REQUESTS.items(),
        lambda phrase, text: phrase_missed(phrase, text) or taken(f"{text} rock"),
    )


def test_thanks_anyway_is_courtesy_and_the_no_entry_sign_is_no() -> None:
    assert opts_out("not interested, thanks anyway")
    assert not opts_out("not interested, thanks zorblax")
    assert words_of("\N{NO ENTRY SIGN} texts") == ["no", "text"]
    assert opts_out("\N{NO ENTRY SIGN} texts")


@pytest.mark.parametrize("order", ["bórrenme", "sáquenme", "déjenme en paz", "párale"])
def test_no_negation_governs_a_spanish_order_with_its_pronoun_after_the_verb(order: str) -> None:
    assert opts_out(f"no sé jugar ni quiero, {order}")
    assert not opts_out("no sé jugar ni quiero, paren")  # "ni quiero paren": the negation reaches it


# --- The fourth probe's kinds ---------------------------------------------------------------------

FOURTH_PROBE_PHRASES = {
    "mind not text me": "would you mind not texting me",
    "appreciate it if you stopped": "i'd appreciate it if you stopped",
    "leave me out of this": "leave me out of this",
    "sick of these text": "sick of these texts",
    "tired of the message": "I'm tired of the messages",
    "done with these text": "so done with these texts",
    "over these message": "I'm so over these messages",
    "fed up with your text": "fed up with your texts",
    "blowing up my phone": "you're blowing up my phone",
    "want nothing to do with this": "i want nothing to do with this",
    "want no part of this": "I want no part of this",
    "never want to hear from you": "I never want to hear from you again",
    "not the right number": "this is not the right number",
    "deja de estar escribir": "dejen de estar mandando mensajes",
    "para ya no recibir": "¿cómo le hago para ya no recibir esto?",
    "bajale a los message": "ya bájale a los mensajes",
    "no me esten escribir": "ya no me estén mandando mensajes",
    "no me anden escribir": "no me anden mandando mensajes",
    "no aguanto tantos message": "ya no aguanto tantos mensajes",
    "no usen mi number": "ya no usen mi número",
    "no soy esa persona": "yo no soy esa persona",
    "no es de esa persona": "este número ya no es de esa persona",
    "nunca pedi esto": "yo nunca pedí esto",
    "no me suscribi": "no me suscribí a nada",
}


def test_each_phrase_the_fourth_probe_added_is_an_opt_out() -> None:
    assert_each_read_right(FOURTH_PROBE_PHRASES.items(), phrase_missed)


FOURTH_PROBE_STOP_REQUESTS = {
    "desist": "desist",
    "no interest": "no interest",
    "no interest in this": "I have no interest in this",
    "uninterested": "uninterested",
    "ya estuvo bueno": "ya estuvo bueno",
    "me tienen harta": "me tienen harta",
    "no me interesa nada de esto": "no me interesa nada de esto",
    "para nada me interesa": "para nada me interesa",
    "no quiero saber de ustedes": "ya no quiero saber de ustedes",
    "los bloquea": "si siguen escribiendo los bloqueo",
    "dar de baja": "darse de baja",
}


def test_each_stop_request_the_fourth_probe_added_is_an_opt_out_on_its_own_but_not_with_the_game() -> None:
    assert_each_read_right(
        FOURTH_PROBE_STOP_REQUESTS.items(),
        lambda phrase, text: phrase_missed(phrase, text) or taken(f"{text} rock"),
    )


@pytest.mark.parametrize("word", ["shh", "sh", "ahh", "argh"])
def test_a_hush_before_a_stop_is_no_name(word: str) -> None:
    assert opts_out(f"{word} stop")
    assert not opts_out("zorblax stop")


@pytest.mark.parametrize(
    "word", ["molestos", "molesto", "molesta", "molestas", "pesados", "latosos", "fastidiosos"]
)
def test_a_spanish_complaint_before_a_request_is_no_name(word: str) -> None:
    assert opts_out(f"qué {word}, ya no escriban")
    assert not opts_out("qué zorblax, ya no escriban")
