"""Every word and pattern round 4 added to the revocation classifier's lists (serverless_rps/
revocation_words.py, revocation_sentence.py, revocation_game.py, normalisation.py), each with a
text of its own that reads otherwise without it, as test_revocation_words.py does for the rest.
The tables are written out, not read from the modules: a word a module loses fails its text. A
table is one test, which reads all its texts and names each one read wrong (revocation_checks).
docs/opt-out.md ("Round 4") says why each kind was added.
"""

from __future__ import annotations

import pytest

from serverless_rps import normalisation, revocation
from serverless_rps.parsing import OptOut, parse
from serverless_rps.revocation import words_of
from tests.unit.revocation_checks import (
    assert_each_read_right,
    holds,
    missed,
    not_in_words,
    opts_out,
    phrase_missed,
)
from tests.unit.test_revocation_words import cases, spelling_misread

# --- Clear phrases -------------------------------------------------------------------------------

CLEAR_PHRASES = {
    # The game's nouns as what is sent.
    "stop the challenge texts": "stop the challenge texts",
    "dont want any more invites": "i dont want any more invites",
    "dont want challenges": "i dont want challenges",
    "do not want the challenges": "i do not want the challenges",
    "no more challenges": "no more challenges",
    "enough of the game invites": "enough of the game invites",
    "no more challenge": "no more challenge",
    # A polite supposition, a formal request.
    "if you stopped": "it would be great if you stopped",
    "if you quit": "it would be great if you quit",
    "refrain from texting": "kindly refrain from texting me",
    "desist from contacting": "desist from contacting this number",
    "abstain from messaging": "abstain from messaging me",
    "refrain from calling": "refrain from calling me",
    "refrain from spamming": "refrain from spamming me",
    "refrain from send": "refrain from send me stuff",
    "refrain from sending": "please refrain from sending me messages",
    # A do-not-contact list.
    "put me on your do not call list": "put me on your do not call list",
    "add this number to the do not text list": "add this number to the do not text list",
    "place my number onto a dont contact list": "place my number onto a dont contact list",
    "keep us in ur no message list": "keep us in ur no message list",
    "include my phone on the dnc list": "include my phone on the dnc list",
    "be on your do not contact list": "i want to be on your do not contact list",
    "get it on the no call list": "get it on the no call list",
    "add me to the dnc list": "add me to the dnc list",
    # Not at the end of the text, where the list alone is a stop request.
    "keep this number on your do not call list": "keep this number on your do not call list from now on",
    "want to be on your do not contact list": "i want to be on your do not contact list from now on",
    "get me on the no call list": "get me on the no call list from now on",
    "add me to your do not text list": "add me to your do not text list from now on",
    "put my number onto the dnc list": "put my number onto the dnc list from now on",
    "include me in your no contact list": "include me in your no contact list from now on",
    # A preference.
    "prefer not to get": "I would prefer not to get these",
    "rather not receive": "i'd rather not receive these",
    "prefer to not be texted": "would prefer to not be texted",
    "rather not be messaged": "id rather not be messaged",
    "prefer not to be contacted": "i prefer not to be contacted",
    "rather not be called": "id rather not be called",
    "prefer not to be bothered": "i prefer not to be bothered by these",
    # Consent, in legal words.
    "revoke any and all consent": "I revoke any and all consent",
    "withdraw all prior consent": "I withdraw all prior consent",
    "revoke any prior consent": "I revoke any prior consent",
    "revoke all my consent": "I revoke all my consent",
    "revoking every consent": "revoking every consent I gave",
    "revoke each consent": "I revoke each consent",
    "revoke such consent": "I revoke such consent",
    "take back any and all consent": "I take back any and all consent",
    "revocation of consent": "consider this my revocation of consent",
    "withdrawal of my consent": "this is a withdrawal of my consent",
    "does not consent": "this number does not consent",
    "doesnt consent": "this number doesnt consent",
    # Spanish.
    "parar los mensajes": "parar los mensajes",
    "para ya con los mensajes": "para ya con los mensajes",
    "deje usted de escribirme": "deje usted de escribirme",
    "dejen ustedes de escribirme": "dejen ustedes de escribirme",
    "pónganme en su lista de no contactar": "pónganme en su lista de no contactar",
    "pongan mi número a la lista de no llamar": "pongan mi número a la lista de no llamar",
    "ya no quiero invitaciones": "ya no quiero invitaciones",
    "no quiero retos": "no quiero retos",
    "prefiero no recibir": "prefiero no recibir mensajes",
    "preferiría no recibir": "preferiría no recibir esto",
    "preferimos no recibir": "preferimos no recibir esto",
    "preferiríamos no recibir": "preferiríamos no recibir esto",
    "agradecería no recibir": "agradecería no recibir más mensajes",
    "agradeceríamos ya no recibir": "agradeceríamos ya no recibir esto",
    "no más retos": "no más retos por favor",
    "no más invitaciones": "no más invitaciones",
    "me quitan de la lista": "me quitan de la lista porfa?",
    **{
        f"me sacan de {where}": f"me quitan de {where}?"
        for where in (
            *("su lista", "tu lista", "esta lista", "sus listas", "tus listas", "este grupo"),
            *("todo", "todos sus grupos", "ahí", "aquí", "esto"),
        )
    },
    "revoco todo consentimiento": "revoco todo consentimiento",
    "revoco todo mi consentimiento": "revoco todo mi consentimiento",
    "revoco cualquier consentimiento": "revoco cualquier consentimiento",
    "revoco todos los consentimientos": "revoco todos los consentimiento",
    "revoco toda autorización": "revoco toda autorización",
    "no es el número de esa persona": "este no es el número de esa persona",
    "no es el número de una persona": "no es el número de una persona que conozca",
    "no es el número de otra persona": "no es el número de otra persona",
    "no es el número de la persona": "no es el número de la persona que buscan",
    "no es el número de esta persona": "no es el número de esta persona",
    "no me sigáis escribiendo": "no me sigáis escribiendo",
    "no me estéis mandando": "no me estéis mandando mensajes",
    "no me andéis mandando": "no me andéis mandando mensajes",
    "sacadme de vuestra lista": "sacadme de vuestra lista",
    "quitadme de vuestras listas": "quitadme de vuestras listas",
}


def test_each_clear_phrase_round_4_added_is_an_opt_out() -> None:
    assert_each_read_right(cases(CLEAR_PHRASES), phrase_missed)


# --- Stop requests and courtesy -------------------------------------------------------------------

STOP_REQUESTS = {
    "dnc": "DNC please",
    "do not call list": "do not call list please",
    "dont text list": "dont text list pls",
    "no contact list": "no contact list thanks",
    "dnc list": "DNC list please",
    "no escribir": "NO CONTACTAR",
    "no llamar": "no llamar por favor",
}


@pytest.mark.parametrize(("request_to_stop", "text"), cases(STOP_REQUESTS))
def test_each_stop_request_round_4_added_is_an_opt_out(request_to_stop: str, text: str) -> None:
    assert holds(text, request_to_stop), words_of(text)
    assert opts_out(text)


COURTESY = {
    "con eso": "para ya con eso",
    "con esto": "para ya con esto",
    "por fa": "baja x fa",
    "hoy mismo": "bórrenme hoy mismo",
    "right away": "stop right away",
}


@pytest.mark.parametrize(("courtesy", "text"), cases(COURTESY))
def test_a_stop_request_with_each_courtesy_word_round_4_added_is_an_opt_out(courtesy: str, text: str) -> None:
    assert holds(text, courtesy), words_of(text)
    assert opts_out(text)


# --- Laughter and swearing are read out of a text ------------------------------------------------


ENGLISH_INTENSIFIERS = sorted(
    {"fucking", "fuckin", "freaking", "freakin", "frigging", "friggin", "fricking", "frickin", "effing"}
    | {"flipping", "flippin", "damn", "damned", "goddamn", "bloody", "bleeping"}
)


def test_an_english_intensifier_is_read_out_of_a_request() -> None:
    def misread(word: str) -> str | None:
        text = f"stop {word} texting me"
        if words_of(text) != ["stop", "text", "me"]:
            return f"{text!r} reads {words_of(text)}, not ['stop', 'text', 'me']"
        return missed(text)

    assert_each_read_right(ENGLISH_INTENSIFIERS, misread)


@pytest.mark.parametrize(
    "word", ["pinche", "pinches", "puto", "putos", "maldito", "malditos", "maldita", "malditas", "jodidos"]
)
def test_a_spanish_intensifier_is_read_out_of_a_request(word: str) -> None:
    assert word not in words_of(f"ya no me manden sus {word} mensajes")
    assert opts_out(f"dejen de {word} mandarme mensajes")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("STOP F***ING TEXTING ME", ["stop", "text", "me"]),
        ("stop the f**king texts", ["stop", "the", "text"]),
        ("stop sending this sh*t", ["stop", "sending", "this"]),
        ("$#!t, stop texting me", ["stop", "text", "me"]),
        ("f*** off", ["f", "off"]),
        ("f*ck off", ["f", "off"]),
        ("wrong #", ["wrong", "number"]),
        ("#5 at 20%", ["number", "5", "at", "20"]),
    ],
)
def test_a_masked_swear_is_read_out_of_a_text_and_a_symbol_alone_is_not(text: str, words: list[str]) -> None:
    assert words_of(text) == words


def test_a_masked_swear_leaves_a_request_one_and_game_talk_game_talk() -> None:
    assert opts_out("STOP F***ING TEXTING ME")
    assert opts_out("f*** off")
    assert not opts_out("stop f***ing cheating")
    assert not opts_out("f*** this, rock again")


# --- The game's nouns as what is sent -------------------------------------------------------------

SENT_GAME_NOUNS = {
    "challenge": "stop sending me a challenge",
    "challenges": "stop sending me challenges",
    "reto": "dejen de mandarme un reto",
    "retos": "dejen de mandarme retos",
}


@pytest.mark.parametrize(("word", "text"), cases(SENT_GAME_NOUNS))
def test_the_games_noun_as_what_is_sent_is_no_game_signal(word: str, text: str) -> None:
    assert word in words_of(text)
    assert opts_out(text)


NAMED_GAME_NOUNS = {
    "challenges": "stop sending me bob's challenges",
    "invite": "stop sending me bob's invites",
    "partidas": "no me mandes más partidas luis",
    "retos": "no me mandes más retos luis",
    "challenge": "dont send me a challenge bob",
    "reto": "no me mandes otro reto ana",
}


@pytest.mark.parametrize(("word", "text"), cases(NAMED_GAME_NOUNS))
def test_a_player_named_beside_the_games_noun_is_game_talk(word: str, text: str) -> None:
    assert word in words_of(text)
    assert not opts_out(text)


SENDING = {
    "send": "unsubscribe me, you send challenges all day",
    "sending": "unsubscribe me, you keep sending challenges",
    "more": "unsubscribe me, more challenges every day",
    "any": "unsubscribe me, any challenges are spam",
    "anymore": "unsubscribe, anymore challenges and i report you",
    "want": "unsubscribe me, who would want challenges",
    "get": "unsubscribe me, i get challenges all day",
    "getting": "unsubscribe me, i keep getting challenges",
    "receive": "unsubscribe me, i receive challenges all day",
    "receiving": "unsubscribe me, tired of receiving challenges",
    "escribir": "bórrenme, dejen de mandar retos",
    "escribas": "bórrenme, no me manden retos",
    "mas": "denme de baja, mas retos cada dia",
    "quiero": "denme de baja, quiero menos retos",
    "recibir": "denme de baja, cansado de recibir retos",
}


def test_a_sending_word_before_the_games_noun_makes_it_what_is_sent() -> None:
    assert_each_read_right(cases(SENDING), lambda word, text: not_in_words(word, text) or missed(text))


@pytest.mark.parametrize(
    "text",
    [
        "no more challenges from bob",
        "no más retos de beto",
        "stop challenging me bob",
        "i challenge you",
        "retos",
    ],
)
def test_the_games_nouns_from_a_player_or_as_a_move_stay_game_talk(text: str) -> None:
    assert not opts_out(text)


# --- The sentence around a stop ---------------------------------------------------------------------

FOR_A_DAY = {
    "today": "dont text me today",
    "tonight": "dont call me tonight",
    "tomorrow": "dont call me tomorrow, im busy",
    "hoy": "no me llames hoy, estoy en el trabajo",
    "manana": "no me llames mañana",
}


@pytest.mark.parametrize(("word", "text"), cases(FOR_A_DAY))
def test_a_request_not_to_text_for_a_day_is_a_pause(word: str, text: str) -> None:
    assert word in words_of(text)
    assert not opts_out(text)


@pytest.mark.parametrize(
    ("rule", "text"),
    [("do-not-text", "dont text me today"), ("no-more-texts", "no more challenges for today")],
)
def test_each_rule_a_day_makes_a_pause_of(rule: str, text: str) -> None:
    without_the_day = text.removesuffix(" today").removesuffix(" for")
    assert parse(without_the_day) == OptOut(confirm=True, rule=rule)
    assert not opts_out(text)


def test_a_day_after_another_request_leaves_it_a_request() -> None:
    assert opts_out("stop texting me today")
    assert opts_out("bórrenme hoy mismo")


def test_a_note_to_self_is_no_request() -> None:
    assert "remind" in words_of("remind me to unsubscribe from that gym email")
    assert not opts_out("remind me to unsubscribe from that gym email")
    assert opts_out("unsubscribe me from this")


REGIONAL_ADDRESS_WORDS = (
    *("che", "tio", "tia", "parce", "pana", "mae", "chamo"),
    *("weon", "loco", "vale", "oiga", "mira", "mire"),
)


def test_a_regional_address_word_before_a_request_names_no_player() -> None:
    assert_each_read_right(REGIONAL_ADDRESS_WORDS, lambda word: missed(f"{word}, deja de escribirme"))


@pytest.mark.parametrize("word", ["further", "future"])
def test_an_everyday_english_word_round_4_added_is_not_taken_for_a_name(word: str) -> None:
    assert opts_out(f"{word} stop texting me")


ORDINARY_SPANISH_WORDS = sorted(
    {"jartera", "hartera", "pereza", "hueva", "flojera", "ladilla", "mamera", "pesadez", "rollo"}
    | {"decir", "dije", "dijo", "digo", "dicho", "repetir", "repito", "pedir", "avisar", "avise"}
    | {"llegan", "vuestro", "vuestros"}
)


def test_an_everyday_spanish_word_round_4_added_is_not_taken_for_a_name() -> None:
    assert_each_read_right(ORDINARY_SPANISH_WORDS, lambda word: missed(f"que {word} deja de escribirme"))


def test_an_order_with_its_pronoun_after_the_verb_is_never_an_adjective() -> None:
    assert opts_out("me llegan como 20 al dia, es demasiado, bájenme")
    assert not opts_out("el volumen está muy alto")


# --- Typos, words run together --------------------------------------------------------------------


@pytest.mark.parametrize(("text", "word"), [("atlo", "alto"), ("bsata", "basta")])
def test_alto_and_basta_with_two_letters_swapped_are_read_as_them(text: str, word: str) -> None:
    assert words_of(text) == [word]
    assert opts_out(text)


def test_alot_is_a_lot_not_alto_mistyped() -> None:
    assert words_of("i like this game alot") == ["i", "like", "this", "game", "alot"]
    assert not opts_out("i like this game alot")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("dontextme", ["dont", "text", "me"]),  # two words that share the letter where they meet
        ("donttextme", ["dont", "text", "me"]),
        ("takemeoff", ["take", "me", "off"]),  # "off" holds the stop
        ("getmeoff", ["get", "me", "off"]),
        ("unsubscribeme", ["unsubscribe", "me"]),  # "un" only as an affix of its own
    ],
)
def test_words_run_together_round_4_reads(text: str, words: list[str]) -> None:
    assert words_of(text) == words
    assert opts_out(text)


def test_a_split_without_a_shared_letter_is_preferred() -> None:
    lexicon = frozenset({"dont", "text", "tex", "me"})
    assert normalisation.split_run_together("donttextme", lexicon, 4) == ["dont", "text", "me"]
    assert normalisation.split_run_together("dontextme", lexicon, 4) == ["dont", "text", "me"]
    assert normalisation.split_run_together("dontexme", lexicon, 4) == ["dont", "tex", "me"]
    assert normalisation.split_run_together("tme", lexicon, 4) is None  # a shared letter starts no word


# --- Spellings ------------------------------------------------------------------------------------

SPELLINGS = {
    "call": ("i dont want to be {}", "called"),
    "porfavor": ("alto {}", "porfis porfi"),
    "escribir": ("dejen de {}", "enviarlos enviarlas mandarlos mandarlas"),
    "escribas": (
        "ya no me {}",
        "envieis mandeis texteeis contacteis llameis molesteis escribiera escribieran escribieras "
        "escribierais enviara enviaran enviaras mandara mandaran mandaras contactara contactaran llamara "
        "llamaran molestara molestaran",
    ),
    "escribas ": ("ya no {} con sus mensajes", "chinguen frieguen jodan"),
    "deja": ("{} de escribirme", "dejad dejeis dejara dejaran dejaras dejarais dejasen"),
    "dejame": ("{} en paz", "dejadme"),
    "sacame": (
        "{} por favor",
        "sacadme quitadme borradme eliminadme bajenme bajame bajeme bajarme bajadme",
    ),
    "borra": ("{} mi número", "borrad quitad eliminad deleteen deletea deletear"),
    "pare": ("te dije que {} de escribirme", "pares parara"),
    "paren": ("{} ya", "parad pareis pararan"),
    "cancelar": ("{} mi suscripción", "cancelad"),
    "detener": ("{} por favor", "detened"),
    "sacan": ("me {} de la lista", "quitan borran eliminan bajan"),
    "invite": ("no más {}", "invitacion invitaciones"),
    "ponganme": (
        "{} en la lista de no llamar",
        "ponme pongan ponga pongame poner ponerme agregame agreguen agreguenme agregenme agregar "
        "anadan anadanme anademe anadir incluyan incluyanme incluir metan metanme",
    ),
}
SPELLING_CASES = [
    (word.strip(), template.format(spelling), spelling)
    for word, (template, spellings) in SPELLINGS.items()
    for spelling in spellings.split()
]


def test_each_spelling_round_4_added_reads_as_its_word(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(revocation, "key_word_typed", lambda word: None)
    assert_each_read_right(SPELLING_CASES, spelling_misread)
