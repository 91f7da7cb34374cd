"""Every word of every list in serverless_rps/revocation_words.py, and every Spanish keyword in
serverless_rps/parsing.py, each with a text of its own that is read otherwise without it.

The lists are module data, where a mutation run (scripts/mutants.py) plants no bug: a negation
removed ("doesn't": "bob doesn't stop texting me" became an opt-out), a clear phrase removed
("wrong person"), a courtesy word removed ("immediately") or a nickname-like word added to the
courtesy words ("man") went unnoticed. So each table here is written out, not read from the
module: a word the module loses fails the test of its own text. Each test also checks that its
text holds the word it is about, as the classifier reads it (`txt` is `text`), so that a table
cannot drift from what it tests. A table is one test, which reads every text of it and names each
one read wrong, with what it got (tests/unit/revocation_checks.py).

Some texts are read only by their clear phrase: a trailing "lol" (laughter outweighs a stop
request, never a clear phrase) keeps a stop request with courtesy words from reading them too.
"""

from __future__ import annotations

import pytest

from serverless_rps import revocation, revocation_notation, revocation_words
from serverless_rps.parsing import SPANISH_OPT_OUT_WORDS, OptOut, is_valid_nickname, parse
from serverless_rps.revocation import words_of
from serverless_rps.revocation_words import SPANISH_GAME_WORDS
from tests.unit.revocation_checks import (
    assert_each_read_right,
    missed,
    not_held,
    not_in_words,
    opts_out,
    phrase_missed,
    taken,
)


def cases(table: dict[str, str]) -> list[tuple[str, str]]:
    return list(table.items())


# --- Keywords --------------------------------------------------------------------------------

SPANISH_KEYWORDS = ("ALTO", "PARAR", "PARA", "DETENER", "CANCELAR", "BAJA", "NO MÁS")


def test_the_spanish_keywords_are_the_issues_and_twilios_english_ones_stay_apart() -> None:
    assert {"alto", "parar", "para", "detener", "cancelar", "baja", "no mas"} == SPANISH_OPT_OUT_WORDS


def full_width(text: str) -> str:
    return "".join(
        chr(ord(character) + 0xFEE0) if "!" <= character <= "~" else character for character in text
    )


def spanish_typed_forms(keyword: str) -> list[str]:
    without_accents = keyword.replace("Á", "A")
    return [
        keyword,
        keyword.lower(),
        keyword.capitalize(),
        without_accents,
        without_accents.lower(),
        f"¡{keyword.capitalize()}!",
        f"{keyword.lower()}.",
        f"  {keyword}  \n",
        f"{keyword} 🙏",
        full_width(keyword),
        keyword[:1] + "\u200b" + keyword[1:],
        keyword.replace(" ", "  "),
    ]


@pytest.mark.parametrize("keyword", SPANISH_KEYWORDS)
def test_a_spanish_keyword_as_typed_opts_out_and_the_bot_confirms_it_in_spanish(keyword: str) -> None:
    # Twilio's default keywords are English only: it neither answers nor blocks these.
    for body in spanish_typed_forms(keyword):
        assert parse(body) == OptOut(confirm=True, rule="spanish-keyword", language="es"), repr(body)


@pytest.mark.parametrize("keyword", SPANISH_KEYWORDS)
def test_a_spanish_keyword_twilio_answered_through_advanced_opt_out_gets_no_second_answer(
    keyword: str,
) -> None:
    assert parse(keyword, opt_out_type="STOP") == OptOut(
        confirm=False, rule="advanced-opt-out", language="es"
    )


@pytest.mark.parametrize("keyword", ["alto", "para", "parar", "detener", "cancelar", "baja"])
def test_a_spanish_keyword_is_no_nickname(keyword: str) -> None:
    assert not is_valid_nickname(keyword)


@pytest.mark.parametrize(
    "body", ["alto bob", "para bob", "no más papel", "baja de nivel", "cancelar partida"]
)
def test_a_spanish_keyword_counts_only_as_the_whole_message(body: str) -> None:
    assert not opts_out(body)


SPELLED_OUT = {
    "stop": "S T O P",
    "stopall": "S T O P A L L",
    "unsubscribe": "U N S U B S C R I B E",
    "optout": "O P T O U T",
    "revoke": "R E V O K E",
    "quit": "Q U I T",
    "alto": "A L T O",
    "parar": "P A R A R",
    "para": "P A R A",
    "detener": "D E T E N E R",
    "cancelar": "C A N C E L A R",
    "baja": "B A J A",
}


def test_a_keyword_spelled_out_letter_by_letter_is_an_opt_out() -> None:
    def misread(keyword: str, text: str) -> str | None:
        if text.replace(" ", "").lower() != keyword:
            return f"{text!r} does not spell {keyword!r}"
        return missed(text)

    assert_each_read_right(cases(SPELLED_OUT), misread)


# --- Clear phrases: a revocation wherever they stand -----------------------------------------

CLEAR_PHRASES = {
    # stop-texting: each verb, each thing texted, each word between them
    "stop texting": "stop texting",
    "quit texting": "quit texting me",
    "end texts": "end texts",
    "cancel the texts": "cancel the texts lol",
    "cease texting": "cease texting me",
    "halt the texts": "halt the texts lol",
    "discontinue these texts": "please discontinue these texts",
    "stop messaging": "stop messaging me",
    "stop contacting": "stop contacting me",
    "stop calling": "stop calling me",
    "stop spamming": "stop spamming me",
    "stop notifications": "stop notifications",
    "stop communication": "stop communication",
    "stop with texts": "stop with texts lol",
    "stop with the texts": "stop with the texts lol",
    "stop with all the texts": "stop with all the texts lol",
    "stop all texts": "stop all texts lol",
    "stop all the texts": "stop all the texts lol",
    "stop all these texts": "stop all these texts lol",
    "stop all your texts": "stop all your texts lol",
    "stop the texts": "stop the texts",
    "stop these texts": "stop these texts",
    "stop those texts": "stop those texts",
    "stop your texts": "stop your texts",
    "stop them texts": "stop them texts",
    "stop sending": "stop sending this junk",
    "stop send": "stop send me junk",
    "stop bothering me": "stop bothering me",
    "stop bugging me": "stop bugging me",
    "stop harassing me": "stop harassing me",
    "stop pestering me": "stop pestering me",
    "stop getting these": "how do i stop getting these",
    "stop getting those": "i want to stop getting those",
    "stop getting them": "how do i stop getting them",
    "stop getting this": "how do i stop getting this",
    "stop receiving texts": "how do i stop receiving texts",
    "stop getting any texts": "how do i stop getting any texts",
    "stop getting the texts": "how do i stop getting the texts",
    "stop getting these texts": "i want to stop getting these texts",
    "stop getting those texts": "i want to stop getting those texts",
    "stop getting your texts": "i want to stop getting your texts",
    "stop getting all texts": "i want to stop getting all texts",
    "cease and desist": "cease and desist",
    "unsubscribe": "how do i unsubscribe",
    # opt-out
    "opt out": "i want to opt out",
    "opt me out": "opt me out",
    "opt this number out": "opt this number out",
    "opt my number out": "opt my number out",
    "optout": "optout lol",
    # do-not-text
    "dont text me": "dont text me",
    "do not text me": "do not text me",
    "never text me": "never text me again",
    "dont ever text me": "dont ever text me",
    "dont message me": "dont message me",
    "dont contact me": "dont contact me",
    "dont call me": "dont call me",
    "dont spam me": "dont spam me",
    "dont send me": "dont send me anything",
    "dont text this number": "dont text this number",
    "dont text my number": "dont text my number",
    "dont text my phone": "dont text my phone",
    # do-not-want-texts
    "dont want texts": "i dont want texts",
    "do not want texts": "i do not want texts",
    "no longer want texts": "i no longer want texts",
    "dont wish to get texts": "i dont wish to get texts",
    "dont want to get texts": "i dont want to get texts",
    "dont want any texts": "i dont want any texts",
    "dont want any more texts": "i dont want any more texts",
    "dont want anymore texts": "i dont want anymore texts",
    "dont want more texts": "i dont want more texts",
    "dont want these texts": "i dont want these texts",
    "dont want those texts": "i dont want those texts",
    "dont want the texts": "i dont want the texts",
    "dont want your texts": "i dont want your texts",
    "dont want all these texts": "i dont want all these texts",
    "dont want messages": "i dont want messages",
    "dont want calls": "i dont want calls",
    "dont want notifications": "i dont want notifications",
    "dont want to receive": "i dont want to receive anything",
    "do not want to receive": "i do not want to receive anything",
    "no longer wish to receive": "i no longer wish to receive anything",
    "dont want you to text": "i dont want you to text me",
    "dont want you texting": "i dont want you texting me",
    "dont want you messaging": "i dont want you messaging me",
    "dont want you contacting": "i dont want you contacting me",
    "dont want you calling": "i dont want you calling me",
    "do not want you texting": "i do not want you texting me",
    "no longer want you texting": "i no longer want you texting me",
    "dont wish you to text": "i dont wish you to text me",
    # no-more-texts
    "no more texts": "no more texts lol",
    "enough texts": "enough texts lol",
    "no more of the texts": "no more of the texts lol",
    "enough with these texts": "enough with these texts lol",
    "no more of those texts": "no more of those texts lol",
    "no more of your texts": "no more of your texts lol",
    "no more messages": "no more messages lol",
    "no more calls": "no more calls lol",
    # the rest
    "leave me alone": "leave me alone",
    "leave me the hell alone": "leave me the hell alone",
    "delete my number": "delete my number",
    "remove my number": "remove my number lol",
    "erase my number": "erase my number",
    "lose my number": "lose my number",
    "forget my number": "forget my number",
    "delete this number": "delete this number",
    "cancel my subscription": "cancel my subscription",
    "end the subscription": "end the subscription",
    "cancel this subscription": "cancel this subscription",
    "cancel subscriptions": "cancel subscriptions lol",
    "wrong number": "you have the wrong number",
    "wrong person": "wrong person",
    "revoke consent": "i revoke consent",
    "revoking consent": "revoking consent",
    "withdraw my consent": "i withdraw my consent",
    "withdrawing all consent": "withdrawing all consent",
    "dont consent": "i dont consent to this",
    "do not consent": "i do not consent",
    "no longer consent": "i no longer consent",
    "block you": "im going to block you",
    "blocking this number": "blocking this number",
    "blocked your number": "blocked your number",
    "block the number": "i will block the number",
    "remove me from": "remove me from whatever this is",
    "remove me off": "remove me off this thing",
    "be removed": "i would like to be removed",
    "get removed": "how do i get removed",
    "been removed": "i should have been removed",
    "take me off": "take me off whatever this is",
    "take my number off": "take my number off whatever this is",
    "take this number off": "take this number off whatever this is",
    "delete me from": "delete me from whatever this is",
    # Spanish
    "deja de escribir": "deja de escribirme",
    "para de escribir": "para de escribirme",
    "paren de escribir": "paren de escribirme",
    "pare de escribir": "pare de escribirme",
    "parar de escribir": "parar de escribirme",
    "parale de escribir": "parale de escribirme",
    "detener de escribir": "detente de escribirme",
    "no escribas": "no escriban",
    "no me escribas": "no me escribas",
    "no nos escribas": "no nos escriban",
    "no vuelvas a escribir": "no vuelvan a escribir",
    "no me vuelvas a escribir": "no me vuelvas a escribir",
    "no nos vuelvas a escribir": "no nos vuelvan a escribir",
    "nunca escribas": "nunca escriban",
    "nunca mas escribas": "nunca más escriban",
    "nunca mas me escribas": "nunca más me escriban",
    "nunca nos escribas": "nunca nos escriban",
    "no quiero que escribas": "no quiero que escriban",
    "no quiero que me escribas": "no quiero que me escriban",
    "no quiero que nos escribas": "no quiero que nos escriban",
    "no quiero que me sigas escribir": "no quiero que me sigas escribiendo",
    "no quiero que me sigan escribir": "no quiero que me sigan escribiendo",
    "no quiero mensajes": "no quiero mensajes",
    "no quiero recibir mensajes": "no quiero recibir mensajes lol",
    "no quiero mas mensajes": "no quiero más mensajes",
    "no quiero los mensajes": "no quiero los mensajes",
    "no quiero tus mensajes": "no quiero tus mensajes",
    "no quiero sus mensajes": "no quiero sus mensajes",
    "no quiero estos mensajes": "no quiero estos mensajes",
    "no quiero esos mensajes": "no quiero esos mensajes",
    "no quiero ningun mensaje": "no quiero ningún mensaje",
    "no quiero ninguno mensaje": "no quiero ninguno mensaje",
    "no quiero ningunos mensajes": "no quiero ningunos mensajes",
    "no quiero nada de mensajes": "no quiero nada de mensajes",
    "no quiero textos": "no quiero textos",
    "no quiero llamadas": "no quiero llamadas",
    "no quiero notificaciones": "no quiero notificaciones",
    "no quiero recibir": "no quiero recibir nada lol",
    "no mas mensajes": "no más mensajes lol",
    "basta de mensajes": "basta de mensajes lol",
    "no mas los mensajes": "no más los mensajes lol",
    "basta de tus mensajes": "basta de tus mensajes lol",
    "no mas sus mensajes": "no más sus mensajes lol",
    "basta de estos mensajes": "basta de estos mensajes lol",
    "basta ya de mensajes": "basta ya de mensajes lol",
    "no mas textos": "no más textos lol",
    "dejame en paz": "déjame en paz",
    "borra mi numero": "borra mi número",
    "borra este numero": "borren este número",
    "borra el numero": "borren el número",
    "sacame de la lista": "sácame de la lista lol",
    "sacame de su lista": "sáquenme de su lista lol",
    "sacame de tu lista": "sácame de tu lista lol",
    "sacame de esta lista": "sácame de esta lista lol",
    "sacame de sus contactos": "sáquenme de sus contactos",
    "sacame de mi sistema": "sáquenme de mi sistema",
    "sacame de la base de datos": "sáquenme de la base de datos",
    "sacame de su sistema": "sáquenme de su sistema",
    "dar de baja": "me quiero dar de baja",
    "cancelar suscripcion": "cancelar suscripción",
    "cancelar mi suscripcion": "cancelar mi suscripción",
    "cancelar la suscripcion": "cancelar la suscripción",
    "cancelar su suscripcion": "cancelen su suscripción",
    "cancelar esta suscripcion": "cancelar esta suscripción",
    "numero equivocado": "número equivocado",
    "persona equivocado": "persona equivocada",
    "equivocaron de numero": "se equivocaron de número",
    "equivocaron de persona": "se equivocaron de persona",
    "equivocado de numero": "está equivocado de número",
    "equivocado de persona": "está equivocado de persona",
    "revoco consentimiento": "revoco consentimiento",
    "revoco mi consentimiento": "revoco mi consentimiento",
    "revoco el consentimiento": "retiro el consentimiento",
    "revoco mis consentimiento": "retiro mis permisos",
    "revoco mis autorizaciones": "revoco mis autorizaciones",
    # --- round 2: intent x target ---
    # stop-texting: what the texts are called, between; junk of any name
    "stop any texts": "stop any texts lol",
    "stop any more texts": "stop any more texts lol",
    **{
        f"stop the {kind} texts": f"stop the {kind} texts lol"
        for kind in (
            *("game", "games", "rps", "bot", "daily", "automated", "random", "promo", "marketing"),
            *("annoying", "stupid", "dumb", "constant"),
        )
    },
    "stop getting the game texts": "how do i stop getting the game texts lol",
    **{
        f"stop this {junk}": f"stop this {junk} lol" for junk in ("nonsense", "junk", "crap", "garbage", "bs")
    },
    "stop the madness": "stop the madness lol",
    "stop your nonsense": "stop your nonsense lol",
    "stop all this nonsense": "stop all this nonsense lol",
    "stop all the junk": "stop all the junk lol",
    "stop junk": "stop junk lol",
    # do-not-text: a request put as a negation
    "please not text me": "please not text me",
    "kindly not text me": "kindly not text me",
    "can you not text me": "can you not text me",
    "could you not message me": "could you not message me",
    "would you not contact me": "would you not contact me",
    "will you not call me": "will you not call me",
    "can you guys not text me": "can you guys not text me",
    "can you all not text me": "can you all not text me",
    "can you just not text me": "can you just not text me",
    "not text me anymore": "not text me anymore",
    "not text me any more": "not text me any more",
    "not text me again": "not text me again",
    "not text me ever again": "not text me ever again",
    "not allowed to text me": "you are not allowed to text me",
    "no longer allowed to text me": "you are no longer allowed to text me",
    "appreciate it if you didnt text me": "id appreciate it if you didnt text me",
    "prefer it if you did not text me": "id prefer it if you did not text me",
    "rather you wouldnt text me": "id rather you wouldnt text me",
    "appreciate it if you stopped text": "id appreciate it if you stopped texting me",
    # do-not-want-texts: on a list
    "dont want to be on this list": "i dont want to be on this list",
    "do not wish to be on the list": "i do not wish to be on the list",
    "no longer want to be on your mailing list": "i no longer want to be on your mailing list",
    "dont want to be on your contact list": "i dont want to be on your contact list",
    # leave-me-alone and its variants
    "leave us alone": "leave us alone",
    "leave this number alone": "leave this number alone",
    "leave my number alone": "leave my number alone",
    "leave my phone alone": "leave my phone alone",
    "leave me the heck alone": "leave me the heck alone",
    "leave me the f alone": "leave me the f alone",
    "leave me the fuck alone": "leave me the fuck alone",
    "leave me be": "leave me be",
    "leave us be": "leave us be",
    "leave me in peace": "leave me in peace",
    # delete-my-number: each removal verb, each number
    "wipe my number": "wipe my number lol",
    "purge my number": "purge my number lol",
    "drop my number": "drop my number lol",
    "clear my number": "clear my number lol",
    "get rid of my number": "get rid of my number lol",
    "delete the number": "delete the number lol",
    "delete my phone number": "delete my phone number lol",
    "delete my cell number": "delete my cell number lol",
    "want my number removed": "i want my number removed",
    "need this number deleted": "i need this number deleted",
    "like my number erased": "id like my number erased",
    "want my number wiped": "i want my number wiped",
    "want my phone number removed": "i want my phone number removed",
    "need my cell number deleted": "i need my cell number deleted",
    # delete-my-data: each removal verb, each record
    "delete my info": "delete my info lol",
    "remove my information": "remove my information lol",
    "erase my data": "erase my data lol",
    "wipe my details": "wipe my details lol",
    "purge my contact": "purge my contact lol",
    "forget my account": "forget my account lol",
    "lose my records": "lose my records lol",
    "drop my profile": "drop my profile lol",
    "clear my data": "clear my data lol",
    "get rid of my data": "get rid of my data lol",
    "delete all my data": "delete all my data lol",
    "delete all of my data": "delete all of my data lol",
    "delete my personal data": "delete my personal data lol",
    "want my data deleted": "i want my data deleted",
    "need my info removed": "i need my info removed",
    "like my details erased": "id like my details erased",
    "want my account wiped": "i want my account wiped",
    "cancel my account": "cancel my account lol",
    "close my account": "close my account lol",
    "deactivate my account": "deactivate my account lol",
    # revoke-consent in so many words
    "revoke my permission": "i revoke my permission",
    "revoked all consent": "i revoked all consent",
    "withdrawn your consent": "you have withdrawn your consent",
    "consent revoked": "consent revoked",
    "permission withdrawn": "permission withdrawn",
    "didnt consent": "i didnt consent to this",
    "did not consent": "i did not consent to this",
    "never consented": "i never consented",
    "dont give you permission": "i dont give you permission",
    "never gave you my consent": "i never gave you my consent",
    "did not give any permission": "i did not give any permission",
    "no longer give permission": "i no longer give permission",
    "do not give you my consent": "i do not give you my consent",
    "didnt give you permission": "i didnt give you permission",
    "you dont have my permission": "you dont have my permission",
    "you do not have any consent": "you do not have any consent",
    "you no longer have permission": "you no longer have permission",
    "without my consent": "without my consent",
    "block my number": "please block my number",
    # remove-me, take-me-off: from, off or out of anything
    "erase me from": "erase me from this thing",
    "drop me from": "drop me from your list",
    "wipe me from": "wipe me from your list",
    "purge me from": "purge me from your list",
    "clear me from": "clear me from your list",
    "remove us from": "remove us from your list",
    "remove me out of": "remove me out of this",
    "take my info off": "take my info off whatever this is",
    "take my data off": "take my data off whatever this is",
    "take my details off": "take my details off whatever this is",
    "take me out of": "take me out of this",
    "get off this list": "how do i get off this list, i never signed up",
    "get off the mailing list": "get off the mailing list",
    "get my number off your contact list": "get my number off your contact list",
    "get me off your texting list": "get me off your texting list",
    # Spanish stop-texting: de, ya de, recibir, Spanglish
    "deja ya de escribir": "deja ya de escribirme",
    "para ya de escribir": "para ya de mandarme",
    "stop de escribir": "stop de escribirme",
    "deja de recibir": "quiero dejar de recibir mensajes",
    "stop escribir": "stop mandando textos",
    # Spanish stop-texting: the messages as the object
    "paren los mensajes": "paren los mensajes",
    "pare las llamadas": "pare las llamadas",
    "parale tus mensajes": "párale tus mensajes",
    "detener sus notificaciones": "detengan sus notificaciones",
    "cancelar estos mensajes": "cancelen estos mensajes",
    "paren esos mensajes": "paren esos mensajes",
    "paren todos los mensajes": "paren todos los mensajes",
    "paren todas las llamadas": "paren todas las llamadas",
    "paren textos": "paren textos",
    "stop los mensajes": "stop los mensajes",
    "stop tus mensajes": "stop tus mensajes",
    "stop sus mensajes": "stop sus mensajes",
    "stop estos mensajes": "stop estos mensajes",
    "stop esos mensajes": "stop esos mensajes",
    "stop todos los mensajes": "stop todos los mensajes",
    "stop los textos": "stop los textos",
    "alto a los mensajes": "alto a los mensajes",
    "stop a los textos": "stop a los textos",
    "basta con los mensajes": "basta con los mensajes",
    "ya estuvo con los mensajes": "ya estuvo con los mensajes",
    "suficiente con los mensajes": "suficiente con los mensajes",
    "para con los mensajes": "para con los mensajes",
    "paren con los mensajes": "paren con los mensajes",
    "pare con los mensajes": "pare con los mensajes",
    "parale con los mensajes": "párale con los mensajes",
    "stop con los mensajes": "stop con los mensajes",
    "basta con tantos mensajes": "basta con tantos mensajes",
    # Spanish do-not-text: go on writing, a request to not
    "no me sigan escribir": "no me sigan escribiendo",
    "no sigas escribir": "no sigas escribiendo",
    "no nos siga escribir": "no nos siga escribiendo",
    "favor de no escribir": "favor de no escribirme",
    "por favor no escribir": "por favor no enviar mensajes",
    "porfavor no escribir": "porfa no mandarme mensajes",
    "pido no escribir": "les pido no contactarme",
    "pedimos ya no escribir": "les pedimos ya no mandarnos mensajes",
    # Spanish do-not-want-texts: on the list
    "no quiero estar en su lista": "no quiero estar en su lista",
    "no quiero seguir en la lista": "no quiero seguir en la lista",
    "no quiero estar en tu lista": "no quiero estar en tu lista",
    "no quiero estar en esta lista": "no quiero estar en esta lista",
    # Spanish leave-me-alone
    "dejame tranquilo": "déjenme tranquilo",
    "dejame tranquila": "déjame tranquila",
    "dejame tranquilos": "déjenme tranquilos",
    "dejame tranquilas": "déjenme tranquilas",
    # Spanish delete-my-number, delete-my-data: each verb, Spanglish, each record
    "delete mi numero": "delete mi número",
    "remove mi numero": "remove mi número",
    "erase mi numero": "erase mi número",
    "olvidate de mi numero": "olvídate de mi número",
    "olvidense de este numero": "olvídense de este número",
    "olvidese de mi numero": "olvídese de mi número",
    "borra mis datos": "borra mis datos",
    "borra toda mi informacion": "borren toda mi información",
    "borra todos mis datos": "borren todos mis datos",
    "borra mi info": "elimina mi info",
    "borra mi contacto": "borra mi contacto",
    "borra mi cuenta": "borra mi cuenta",
    "borra mi registro": "borra mi registro",
    "cancelar mi cuenta": "cancelen mi cuenta",
    "cierra mi cuenta": "cierra mi cuenta",
    "cierren esta cuenta": "cierren esta cuenta",
    "desactiva mi cuenta": "desactiva mi cuenta",
    "desactiven mi cuenta": "desactiven mi cuenta",
    # Spanish remove-me: from wherever it is
    "sacame de su": "sáquenme de su sistema",
    "sacame de tu": "sácame de tu grupo",
    "sacame de esta": "sácame de esta cosa",
    "sacame de sus": "quítenme de sus mensajes",
    "sacame de tus": "quítame de tus contactos",
    "sacame de este": "sáquenme de este juego",
    "sacame de todo": "bórrenme de todo",
    "sacame de todos": "bórrenme de todos lados",
    "sacame de ahi": "sáquenme de ahí",
    # Spanish block-number, unsubscribe, revoke-consent
    "bloquea mi numero": "bloquea mi número",
    "bloquea este numero": "bloqueen este número",
    "bloquea el numero": "bloquear el número",
    "bloquea su numero": "bloquee su número",
    "bloquea tu numero": "bloquea tu número",
    "block mi numero": "block mi número",
    "desuscribir": "desuscribir",
    "solicito la baja": "solicito la baja",
    "pido mi baja": "pido mi baja",
    "quiero baja": "quiero baja",
    "no les dar mi consentimiento": "no les doy mi permiso",
    "no le dar consentimiento": "no le doy permiso",
    "no te dar el consentimiento": "no te doy el permiso",
    "no dar consentimiento": "ya no doy permiso",
    "no tienen mi consentimiento": "no tienen mi permiso para escribirme",
    "no tiene consentimiento": "no tiene permiso",
    "no tienes mi consentimiento": "no tienes mi consentimiento",
    "no autorizo": "no autorizo que me escriban",
    "sin mi consentimiento": "me escriben sin mi consentimiento",
}


def test_each_clear_phrase_is_an_opt_out() -> None:
    assert_each_read_right(cases(CLEAR_PHRASES), phrase_missed)


# --- Stop requests: with courtesy words, the whole text, its end or its start ----------------

STOP_REQUESTS = {
    "stop": "stop please",
    "stopall": "stopall please",
    "revoke": "revoke please",
    "quit": "quit please",
    "end": "end please",
    "cancel": "cancel please",
    "halt": "halt please",
    "discontinue": "discontinue please",
    "cease": "cease please",
    "remove": "remove please",
    "enough": "enough already",
    "stop it": "stop it",
    "quit it": "quit it",
    "cut it out": "cut it out",
    "stop this": "stop this",
    "cancel this": "cancel this",
    "stop all this": "stop all this",
    "stop these": "how do i stop these",
    "cancel those": "cancel those",
    "stop all these": "stop all these",
    "knock it off": "knock it off",
    "go away": "go away",
    "buzz off": "buzz off",
    "back off": "back off",
    "piss off": "piss off",
    "fuck off": "fuck off",
    "let me be": "just let me be",
    "no more": "no more please",
    "no more of this": "no more of this",
    "enough with these": "enough with these",
    "no more of those": "no more of those",
    "enough of them": "enough of them",
    "no more of it": "no more of it",
    "not interested": "not interested thanks",
    "no longer interested": "no longer interested",
    **{
        f"not interested in {what}": f"im not interested in {what}"
        for what in ("this", "it", "that", "any of this", "playing", "this game", "your game")
    },
    "no longer interested in this game": "im no longer interested in this game",
    "dont want this": "dont want this",
    "do not want these": "do not want these",
    "no longer want them": "no longer want them",
    "dont wish it": "i dont wish it",
    "dont want to get these": "i dont want to get these",
    "dont want any of this": "i dont want any of this",
    "erase me": "erase me",
    "erase it": "erase it",
    "forget me": "forget me please",
    "drop me": "drop me please",
    "get me off": "get me off this list",
    "i want off": "i want off",
    "off the list": "off the list please",
    "off this list": "off this list please",
    "off your list": "off your list please",
    "delete me": "delete me",
    "delete it": "delete it",
    "block": "block",
    "i quit": "i quit",
    "im quitting": "im quitting",
    "i am done": "i am done",
    "im out": "im out",
    "im done with this game": "im done with this game",
    "i am done with this game": "i am done with this game",
    "im quitting the games": "im quitting the games",
    "i quit the games": "i quit the games",
    "im done of your thing": "im done of your thing",
    "im out with the bot": "im out with the bot",
    "i want out": "i want out",
    "count me out": "count me out",
    "alto": "alto por favor",
    "para": "para por favor",
    "parar": "parar por favor",
    "pare": "pare por favor",
    "paren": "paren por favor",
    "parale": "párale ya",
    "detener": "detener por favor",
    "basta": "basta por favor",
    "baja": "baja por favor",
    "cancelar": "cancelar por favor",
    "no mas": "no más gracias",
    "no me interesa": "no me interesa",
    "no nos interesa": "no nos interesa",
    **{
        f"no me interesa {what}": f"ya no me interesa {what}"
        for what in ("jugar", "su juego", "tu juego", "este juego", "el juego")
    },
    "no nos interesa su juego": "ya no nos interesa su juego",
    "no quiero nada": "no quiero nada",
    "no quiero saber nada": "no quiero saber nada",
    **{
        f"no quiero saber nada de {what}": f"no quiero saber nada de {what}"
        for what in ("eso", "ustedes", "este juego", "su juego")
    },
    # after a complaint: "qué fastidio, detengan esto"
    "alto esto": "que fastidio, alto esto",
    "paren eso": "que fastidio, paren eso",
    "pare esto": "que fastidio, pare esto",
    "parale todo eso": "que fastidio, párale todo eso",
    "detener todo esto": "que fastidio, detengan todo esto",
    "basta eso": "que fastidio, basta eso",
    "cancelar todo esto": "que fastidio, cancelen todo esto",
    "no quiero esto": "no quiero esto",
    "no quiero eso": "no quiero eso",
    "sacame": "sáquenme por favor",
    "borralo": "bórrenlo por favor",
}


def test_each_stop_request_with_courtesy_words_is_an_opt_out() -> None:
    assert_each_read_right(cases(STOP_REQUESTS), phrase_missed)


NOT_AT_THE_END = {"end": "the game will end", "quit": "my friend might quit"}


@pytest.mark.parametrize(("word", "text"), cases(NOT_AT_THE_END))
def test_end_or_quit_alone_at_the_end_of_a_sentence_is_not_an_opt_out(word: str, text: str) -> None:
    assert words_of(text)[-1] == word
    assert not opts_out(text)


# --- Courtesy and address words ----------------------------------------------------------------

COURTESY = {
    "please": "stop please",
    "thanks": "stop thanks",
    "thank you": "stop thank you",
    "now": "stop now",
    "right now": "stop right now",
    "rn": "stop rn",
    "already": "stop already",
    "asap": "stop asap",
    "immediately": "stop immediately",
    "all": "stop all",
    "ok": "stop ok",
    "sorry": "stop sorry",
    "seriously": "stop seriously",
    "really": "stop really",
    "for real": "stop for real",
    "fr": "stop fr",
    "ffs": "stop ffs",
    "omg": "stop omg",
    "wtf": "stop wtf",
    "god": "stop god",
    "again": "stop again",
    "anymore": "stop anymore",
    "any more": "stop any more",
    "ever": "stop ever",
    "me": "stop me",
    "hey": "stop hey",
    "hi": "stop hi",
    "hello": "stop hello",
    "no thanks": "stop no thanks",
    "no thank you": "stop no thank you",
    "kindly": "stop kindly",
    "respectfully": "stop respectfully",
    "cheers": "stop cheers",
    "bye": "stop bye",
    "goodbye": "stop goodbye",
    "appreciate it": "stop appreciate it",
    "appreciated": "stop appreciated",
    "much appreciated": "stop much appreciated",
    "and thanks": "stop please and thanks",
    "and thank you": "stop please and thank you",
    "from the list": "erase it from the list",
    "off the list": "erase it off the list",
    "of the list": "erase it of the list",
    "this list": "erase it from this list",
    "your list": "erase it from your list",
    "my list": "erase it from my list",
    "your lists": "erase it from your lists",
    "your system": "erase it from your system",
    "your database": "erase it from your database",
    "your contacts": "erase it from your contacts",
    "your contact list": "erase it from your contact list",
    "your mailing list": "erase it from your mailing list",
    "off this mailing list": "erase it off this mailing list",
    "of the mailing list": "erase it of the mailing list",
    "my mailing list": "erase it from my mailing list",
    "with the texts": "knock it off with the texts",
    "with these messages": "knock it off with these messages",
    "with those calls": "knock it off with those calls",
    "with your notifications": "knock it off with your notifications",
    "with all the texts": "knock it off with all the texts",
    "with all these texts": "knock it off with all these texts",
    "with all your texts": "knock it off with all your texts",
    "por favor": "alto por favor",
    "porfavor": "alto porfavor",
    "gracias": "alto gracias",
    "muchas gracias": "alto muchas gracias",
    "ya": "alto ya",
    "todo": "cancelar todo",
    "ahora": "alto ahora",
    "ahorita": "alto ahorita",
    "ya mismo": "alto ya mismo",
    "inmediatamente": "alto inmediatamente",
    "de inmediato": "alto de inmediato",
    "de una vez": "alto de una vez",
    "oye": "alto oye",
    "hola": "alto hola",
    "adios": "alto adiós",
    "en serio": "alto en serio",
    "de verdad": "alto de verdad",
    "neta": "alto neta",
    "de la lista": "baja de la lista",
    "de su lista": "baja de su lista",
    "de tu lista": "baja de tu lista",
    "de esta lista": "baja de esta lista",
    "de mi lista": "baja de mi lista",
    "de aqui": "sáquenme de aquí",
    "de aca": "sáquenme de acá",
    "de esto": "sáquenme de esto",
    "este numero": "baja este número",
}


def test_a_stop_request_with_each_courtesy_word_is_an_opt_out() -> None:
    assert_each_read_right(cases(COURTESY), phrase_missed)


ADDRESS_WORDS = {
    "en": (
        "bro",
        "bruh",
        "dude",
        "man",
        "sir",
        "maam",
        "madam",
        "mate",
        "buddy",
        "pal",
        "guys",
        "yall",
        "fam",
    ),
    "es": ("amigo", "amiga", "wey", "guey", "compa", "boludo", "boluda", "vos", "senor", "senora"),
}


def a_nickname(word: str) -> str | None:
    return f"{word!r} is taken for a valid nickname" if is_valid_nickname(word) else None


def test_stop_with_an_english_address_word_is_an_opt_out_and_the_word_is_no_nickname() -> None:
    assert_each_read_right(ADDRESS_WORDS["en"], lambda word: missed(f"stop {word}") or a_nickname(word))


def test_alto_with_a_spanish_address_word_is_an_opt_out_and_the_word_is_no_nickname() -> None:
    assert_each_read_right(ADDRESS_WORDS["es"], lambda word: missed(f"alto {word}") or a_nickname(word))


# --- Negations and suppositions ------------------------------------------------------------------

NEGATED = {
    "dont": "don't stop texting me",
    "not": "I will not stop texting",
    "never": "never stop texting me",
    "cant": "I can't stop texting",
    "cannot": "I cannot stop texting",
    "wont": "bob won't stop texting me",
    "wouldnt": "I wouldn't stop texting",
    "shouldnt": "you shouldn't stop texting me",
    "couldnt": "I couldn't stop texting",
    "didnt": "I didn't stop texting",
    "doesnt": "bob doesn't stop texting me",
    "isnt": "it isn't gonna stop texting me",
    "aint": "I ain't gonna stop texting",
    "no": "ana no deja de escribirme",
    "nunca": "ana nunca deja de escribirme",
    "jamas": "ana jamás deja de escribirme",
    "ni": "ni para de escribirme",
    "tampoco": "bob tampoco deja de escribirme",
    # Words that may stand between a negation and what it negates.
    "ever": "I can't ever stop texting",
    "even": "I can't even stop texting",
    "really": "I can't really stop texting",
    "just": "I can't just stop texting",
    "gonna": "I'm not gonna stop texting",
    "going": "I'm not going to stop texting",
    "to": "I don't want to stop texting",
    "want": "I don't want to quit texting",
    "wanna": "I don't wanna stop texting",
    "be": "I won't be able to stop texting",
    "able": "I'm not able to stop texting",
    "you": "don't you stop texting me",
    "make": "you can't make me stop texting",
    "let": "don't let me stop texting",
    "get": "you'll never get me to stop texting",
    "me": "don't make me stop texting",
    "i": "what if i stop texting",
    "we": "what if we stop texting",
    "it": "I can't make it stop",
    "can": "nothing can ever stop me",
    "could": "nothing could stop me",
    "will": "nothing will stop me",
    "would": "nothing would stop me",
    "should": "nothing should stop me",
    "puedo": "no puedo parar",
    "puede": "no puede parar",
    "puedes": "no puedes parar",
    "pueden": "no pueden parar",
    "podemos": "no podemos parar",
    "quiero": "no quiero parar",
    "quiere": "no quiere parar",
    "vas": "no vas a parar",
    "va": "no va a parar",
    "voy": "no voy a parar",
    "vamos": "no vamos a parar",
    "a": "nunca vas a parar",
    "te": "no te puedo parar",
    "se": "no se puede parar",
    "lo": "no lo quiero parar",
    "que": "no quiero que dejes de escribirme",
    # Subjects that negate what they do, across a word.
    "nothing": "honestly nothing can stop me",
    "nobody": "nobody can stop me",
    "nada": "nada me para",
    "nadie": "porque nadie me para",
    # Suppositions: what follows is no request.
    "if": "if you stop texting me",
    "when": "when you stop texting me",
    "until": "until you stop texting me",
    "till": "till you stop texting me",
    "unless": "unless you stop texting me",
    "whether": "whether you stop texting me",
    "si": "si dejas de escribirme",
    "cuando": "solo cuando dejes de escribirme",
    "hasta": "espera hasta que dejes de escribirme",
    "aunque": "pues aunque dejes de escribirme",
}


def test_a_negation_or_a_supposition_before_a_stop_leaves_it_no_request() -> None:
    assert_each_read_right(cases(NEGATED), lambda word, text: not_in_words(word, text) or taken(text))


# --- Third parties -----------------------------------------------------------------------------

THIRD_PARTIES = {
    # Someone else who is to stop.
    "he": "so i guess he should stop texting me",
    "she": "so i guess she should stop texting me",
    "they": "so i guess they should stop texting me",
    "him": "so i guess him should stop texting me",
    "her": "so i guess her should stop texting me",
    "them": "so i guess them should stop texting me",
    "hes": "so i guess hes gonna stop texting me",
    "shes": "so i guess shes gonna stop texting me",
    "theyre": "so i guess theyre gonna stop texting me",
    "ella": "pues ella deja de escribirme",
    "ellos": "pues ellos dejen de escribirme",
    "dile": "pues dile que deje de escribirme",
    "diles": "pues diles que dejen de escribirme",
    "digale": "pues dígale que deje de escribirme",
    "digales": "pues dígales que dejen de escribirme",
    "pidele": "pues pídele que deje de escribirme",
    # Words before a name that put it in a third party's place.
    "tell": "tell bob to stop texting me",
    "told": "i told bob to stop texting me",
    "make": "make bob stop texting me",
    "made": "i made bob stop texting me",
    "let": "let bob stop texting me",
    "get": "get bob to stop texting me",
    "ask": "ask bob to stop texting me",
    "asked": "i asked bob to stop texting me",
    "want": "i want bob to stop texting me",
    "need": "i need bob to stop texting me",
    "wish": "i wish bob would stop texting me",
    "hope": "i hope bob will stop texting me",
    "and": "alice and bob stop texting me",
    "que": "que bob deje de escribirme",
    "a": "dile a bob que deje de escribirme",
    # Words between a name and its stop.
    "to": "i asked alice to stop texting me",
    "needs": "bob needs to stop texting me",
    "has": "bob has to stop texting me",
    "have": "bob and alice have to stop texting me",
    "had": "bob had to stop texting me",
    "gotta": "bob gotta stop texting me",
    "got": "bob got to stop texting me",
    "should": "bob should stop texting me",
    "must": "bob must stop texting me",
    "will": "bob will stop texting me",
    "would": "bob would stop texting me",
    "better": "bob better stop texting me",
    "just": "bob should just stop texting me",
    "gonna": "bob gonna stop texting me",
    "going": "bob going to stop texting me",
    "can": "bob can stop texting me",
    "could": "bob could stop texting me",
    "please": "bob please stop texting me",
    "need to": "bob and alice need to stop texting me",
    "ever": "will bob ever stop texting me",
    "ya": "ana ya deja de escribirme",
    # Interjections before a name that starts a text.
    "hey": "hey bob stop texting me",
    "hi": "hi bob stop texting me",
    "hello": "hello bob stop texting me",
    "yo": "yo bob stop texting me",
    "omg": "omg bob stop texting me",
    "ok": "ok bob stop texting me",
    "ugh": "ugh bob stop texting me",
    "wtf": "wtf bob stop texting me",
    "ffs": "ffs bob stop texting me",
    "god": "god bob stop texting me",
    "seriously": "seriously bob stop texting me",
    "so": "so bob stop texting me",
    "please bob": "please bob stop texting me",
    "oye": "oye ana deja de escribirme",
    "hola": "hola ana deja de escribirme",
    "neta": "neta ana deja de escribirme",
    "porfavor": "porfa ana deja de escribirme",
    # A question about someone else stopping.
    "do": "when do things stop",
    "did bob": "did bob stop texting me",
    "this": "will this ever stop",
    "that": "when does that stop",
    "does": "when does it stop",
    "did": "when did it stop",
    "can it": "can it stop",
    "could it": "could it stop",
    "should it": "should it stop",
    "will it": "when will it stop",
    "would it": "why would it stop",
    # A name after a phrase whose verb takes a person, after "from" or "with", or after a
    # complete phrase.
    "text": "stop texting bob",
    "message": "stop messaging bob",
    "contact": "stop contacting bob",
    "call": "stop calling bob",
    "spam": "stop spamming bob",
    "unsubscribe": "unsubscribe bob",
    "optout": "optout bob",
    "from": "unsubscribe me from bob",
    "with": "stop texting me with bob",
    "de": "sácame de la lista de bob",
    "con": "deja de escribirme con ana",
    "alone": "leave me alone bob",
    "number": "wrong number bob",
    "person": "wrong person alice",
    "paz": "déjame en paz ana",
    "persona": "se equivocaron de persona ana",
    "equivocado": "número equivocado ana",
    "be": "leave me be bob",
    "tranquilo": "déjame tranquilo ana",
    "tranquila": "déjame tranquila ana",
    # A player the text names before "you", or the one the texts are sent to.
    "bob you": "bob you need to stop texting me",
    "to bob": "stop sending texts to bob",
    "a ana": "dejen de molestar a ana",
}


def test_a_stop_asked_of_someone_else_is_game_talk() -> None:
    assert_each_read_right(cases(THIRD_PARTIES), lambda word, text: not_held(text, word) or taken(text))


@pytest.mark.parametrize(
    "text", ["can you stop", "how do i stop", "can we stop", "can yall stop", "will you stop"]
)
def test_a_question_about_you_or_me_stopping_is_an_opt_out(text: str) -> None:
    assert opts_out(text)


STATEMENTS = {
    "wrong-number": "bob? wrong number",
    "no-more-texts": "carol, no more texts",
    "do-not-want-texts": "alice, dont want texts",
    "revoke-consent": "bob, withdrawing consent",
    "block-number": "bob, blocking this number",
    "not-interested": "tell alice not interested",
    "i-quit": "tell bob i quit",
}


@pytest.mark.parametrize(("rule", "text"), cases(STATEMENTS))
def test_a_statement_after_a_name_is_still_an_opt_out(rule: str, text: str) -> None:
    # A statement asks nothing of anyone, so a name before it makes no third party.
    assert parse(text) == OptOut(confirm=True, rule=rule)


NOT_A_THING_SENT = {
    "sending": "stop sending me junk",
    "send": "stop send me junk",
    "escribir": "dejen de enviar ya alertas",
}


@pytest.mark.parametrize(("word", "text"), cases(NOT_A_THING_SENT))
def test_what_a_phrase_sends_is_its_object_not_a_name(word: str, text: str) -> None:
    assert word in words_of(text)
    assert opts_out(text)


# --- Sentences around a stop -------------------------------------------------------------------

CLAUSE_STARTS = {
    "i": "stop i never signed up",
    "im": "stop im at work",
    "ive": "stop ive had it",
    "id": "stop id rather not",
    "ill": "stop ill call the cops",
    "you": "stop you are annoying",
    "youre": "stop youre annoying",
    "we": "stop we are done",
    "thats": "stop thats annoying",
    "its": "stop its late",
    "who": "stop who gave you my number",
    "whos": "stop whos texting me",
    "whoever": "stop whoever this is",
    "someone": "stop someone signed me up",
    "somebody": "stop somebody signed me up",
    "nobody": "stop nobody asked",
    "how": "stop how did you get this number",
    "why": "stop why are you texting me",
    "idk": "stop idk who you are",
    "yo": "alto yo nunca me registré",
    "esto": "alto esto es spam",
    "eso": "alto eso es todo",
    "quien": "alto quién les dio mi número",
    "or": "stop or ill report you",
}


def test_a_stop_request_before_a_new_clause_is_an_opt_out() -> None:
    assert_each_read_right(cases(CLAUSE_STARTS), lambda word, text: not_in_words(word, text) or missed(text))


MODIFIERS = {
    word: f"i saw the {word} stop"
    for word in ("bus", "full", "pit", "non", "next", "last", "one", "truck", "rest", "whistle")
} | {
    word: f"eso {word} alto"
    for word in sorted(
        {"muy", "mas", "tan", "bien", "esta", "es", "son", "estoy", "soy", "eres", "estas", "el", "la", "lo"}
        | {"los", "las", "un", "una", "super", "demasiado", "bastante", "de", "del", "al", "que"}
    )
}


def test_stop_as_a_noun_or_alto_as_an_adjective_is_not_an_opt_out() -> None:
    assert_each_read_right(cases(MODIFIERS), lambda word, text: not_in_words(word, text) or taken(text))


# --- Game signals ------------------------------------------------------------------------------

GAME_WORDS = sorted(
    {"win", "wins", "winning", "won", "winner", "lose", "loses", "losing", "lost", "loser", "beat"}
    | {"beats", "beating", "beaten", "cheat", "cheats", "cheating", "cheated", "cheater", "rematch"}
    | {"leaderboard", "leaders", "scoreboard", "score", "scores", "top", "rank", "ranking", "ranked"}
    | {"points", "gg", "challenge", "challenges", "challenged", "challenging", "opponent", "streak"}
    | {"throw", "throws", "threw", "move", "moves"}
    | {"gano", "gana", "ganas", "ganan", "ganar", "gane", "ganaste", "ganando", "ganador", "pierdo"}
    | {"pierde", "pierdes", "perder", "perdi", "perdiste", "perdio", "perdiendo", "perdedor", "trampa"}
    | {"trampas", "tramposo", "tramposa", "revancha", "reto", "retos", "retar", "puntos", "puntaje"}
    | {"jugada", "jugadas", "tirar", "tira", "tiro", "tire", "tiras"}
    # Moves: any start of three letters or more, a few plurals, the Spanish moves.
    | {"roc", "rock", "rocks", "pap", "paper", "papers", "sci", "sciss", "scissor", "scissors"}
    | {"piedra", "papel", "tijera", "tijeras"}
)


def test_a_text_that_names_a_move_or_the_contest_is_game_talk_even_with_a_clear_phrase() -> None:
    def misread(word: str) -> str | None:
        text = f"stop texting me about {word}"
        return not_in_words(word, text) or taken(text)

    assert_each_read_right(GAME_WORDS, misread)


@pytest.mark.parametrize(
    "word", ["lol", "lolol", "lmao", "lmfao", "rofl", "xd", "haha", "jajaja", "jeje", "hehe"]
)
def test_laughter_beside_a_stop_request_is_read_out_of_it(word: str) -> None:
    # Round 4: "stop lol" asks to stop as "stop" does; a laugh says how, not what. Laughter is no
    # name either: "stop lol" names no player.
    assert word not in words_of(f"{word} stop")
    assert opts_out(f"{word} stop")
    assert opts_out(f"stop {word}")
    assert opts_out(f"this is so annoying {word} stop")
    assert not opts_out(f"stop {word} you always throw rock")


@pytest.mark.parametrize("word", ["haha", "jajaja", "jeje", "hahahaha"])
def test_laughter_does_not_outweigh_a_clear_phrase(word: str) -> None:
    assert opts_out(f"stop texting me {word}")


@pytest.mark.parametrize("word", ["alice_99", "bob2", "el_alto"])
def test_a_word_shaped_like_a_nickname_outweighs_a_stop_request(word: str) -> None:
    assert not opts_out(f"stop {word}")
    assert not opts_out(f"this is so annoying {word} stop")


COMMAND_WORDS = ("nick", "name", "play", "lang", "jugar", "apodo", "otra", "ayuda", "idioma")


@pytest.mark.parametrize("word", COMMAND_WORDS)
def test_a_command_word_and_an_argument_are_a_command_and_a_longer_sentence_is_read_on(word: str) -> None:
    assert not opts_out(f"{word} unsubscribe")
    assert opts_out(f"{word} stop texting me")


@pytest.mark.parametrize("word", ["again", "t"])
def test_a_short_command_word_and_an_argument_are_a_command(word: str) -> None:
    assert not opts_out(f"{word} unsubscribe")


def test_help_and_a_sentence_is_read_on() -> None:
    assert opts_out("help pls stop texting me")


def test_the_spanish_game_words_are_the_ones_the_spanish_commands_will_read() -> None:
    assert dict(SPANISH_GAME_WORDS) == {
        "throw": {"jugar", "tirar"},
        "nick": {"apodo"},
        "games": {"partidas"},
        "score": {"puntos"},
        "top": {"top"},
        "again": {"otra"},
        "help": {"ayuda"},
        "language": {"idioma"},
    }


# --- Words no list names as a name -------------------------------------------------------------

ORDINARY_WORDS = {
    "en": sorted(
        {"that", "mine", "myself", "youve", "yours", "our", "was", "were", "being", "may", "might"}
        | {"yes", "yeah", "yea", "yep", "nah", "but", "too", "very", "only", "also", "still", "then", "than"}
        | {"about", "into", "over", "down", "some", "every", "each", "many", "much", "most", "other"}
        | {"another", "such", "what", "where", "which", "there", "here", "today", "tonight", "tomorrow"}
        | {"yesterday", "day", "days", "night", "week", "time", "times", "always", "forever", "sometimes"}
        | {"tho", "though", "like", "literally", "honestly", "things", "stuff", "anything", "something"}
        | {"everything", "anyone", "everyone", "way", "lot", "people", "annoying", "whatever"}
        | {"sick", "tired", "fed", "annoyed", "reported", "report", "harassment", "scam", "unreal"}
        | {"unbelievable", "ridiculous", "insane", "crazy", "listen", "look", "excuse", "dear", "good"}
        | {"morning", "evening", "wow", "jeez", "smh", "nope", "damn"}
    ),
    "es": sorted(
        {"unos", "unas", "les", "usted", "ustedes", "nosotros", "sin", "sobre", "pero", "menos"}
        | {"toda", "todos", "todas", "cada", "otro", "ese", "esa", "ahi", "alla", "hoy", "dia", "dias"}
        | {"noche", "veces", "siempre", "como", "donde", "porque", "estan", "fue", "ser", "estar", "hay"}
        | {"tengo", "tiene", "tienen", "cosa", "cosas", "algo", "alguien", "telefono", "cel"}
        | {"celular", "juego", "nomas", "contactos", "grupo", "buscan", "quisiera", "deseo", "necesito"}
        | {"queremos", "agradeceria", "fastidio", "molestia", "lata", "harto", "harta", "hartos", "cansado"}
        | {"cansada", "acoso", "reportado", "basura", "oigan", "miren", "disculpe", "perdon", "buenas"}
        | {"bueno", "pues"}
    ),
}


def test_an_everyday_english_word_before_a_stop_is_not_taken_for_a_name() -> None:
    assert_each_read_right(ORDINARY_WORDS["en"], lambda word: missed(f"{word} stop texting me"))


def test_an_everyday_spanish_word_before_a_stop_is_not_taken_for_a_name() -> None:
    assert_each_read_right(ORDINARY_WORDS["es"], lambda word: missed(f"{word} deja de escribirme"))


# --- Round 2: what the sentence around a request says -----------------------------------------


def test_para_before_a_new_clause_is_for_and_alto_is_a_stop() -> None:
    assert not opts_out("para eso practiqué toda la semana")
    assert opts_out("alto eso es todo")


AND_OR = {
    "and": "stop sending me these rock paper and scissors texts",
    "or": "stop sending me these rock paper or scissors texts",
    "n": "stop sending me these rock paper n scissors texts",
    "y": "dejen de mandarme mensajes de piedra papel y tijera",
    "o": "dejen de mandarme mensajes de piedra papel o tijera",
}


@pytest.mark.parametrize(("word", "text"), cases(AND_OR))
def test_the_three_moves_that_name_the_game_are_no_game_signal(word: str, text: str) -> None:
    assert word in words_of(text)
    assert opts_out(text)


UNTIL = {"until": "dont text me until 5", "till": "dont text me till tonight", "til": "dont text me til 5"}


@pytest.mark.parametrize(("word", "text"), cases(UNTIL))
def test_a_request_until_a_time_is_a_pause_not_an_opt_out(word: str, text: str) -> None:
    assert word in words_of(text)
    assert not opts_out(text)


REMOVALS = {
    "remove-me": "im not alice_99, remove me",
    "take-me-off": "im not alice_99, get me off",
    "delete-me": "im not alice_99, delete me",
}


@pytest.mark.parametrize(("rule", "text"), cases(REMOVALS))
def test_a_nicknames_shape_does_not_outweigh_a_removal(rule: str, text: str) -> None:
    assert not opts_out("im not alice_99, stop")  # it does outweigh any other stop request
    assert parse(text) == OptOut(confirm=True, rule=rule)


# --- Typos of key words ------------------------------------------------------------------------

KEY_WORD_TYPOS = {
    "unsubscribe": "unsubscrbe me",
    "remove": "remvoe me",
    "delete": "delte my number",
    "texting": "stop textng me",
    "messaging": "stop messagign me",
    "message": "no more mesage",
    "messages": "no more mesages",
    "contacting": "stop contacing me",
    "please": "stop plase",
    "anymore": "stop anymroe",
    "number": "wrong numbre",
    "escribir": "deja de escrbir",
    "escribirme": "deja de escribrme",
    "escriban": "no me escirban",
    "escribas": "no me escirbas",
    "mensajes": "no quiero mensjaes",
    "mensaje": "no quiero mensjae",
    "molestar": "dejen de molestra",
    "eliminar": "eliminr mi número",
    "eliminen": "elimienn mi número",
    "cancelar": "cancelr mi suscripción",
    "desuscribir": "desuscrbir",
    "desuscribirme": "desuscribrme",
    "suscripcion": "cancelar mi suscripcin",
    "consentimiento": "revoco mi consentimeinto",
    "quiero": "no quieor mensajes",
    "porfavor": "alto porfavro",
    "numero": "borra mi nuemro",
    # Short key words: two letters swapped only.
    "stop": "sotp texting me",
    "quit": "qiut texting me",
    "text": "stop tetx me",
    "leave": "levae me alone",
    "alone": "leave me aloen",
    "erase": "eraes my number",
    "again": "stop agian",
    "cancel": "cancle the texts",
    "block": "blcok this number",
    "deja": "deaj de escribirme",
    "dejen": "djeen de escribirme",
    "borra": "borar mi número",
    "dejame": "dejmae en paz",
}


def test_a_typo_of_each_key_word_is_read_as_it() -> None:
    def misread(key_word: str, text: str) -> str | None:
        if key_word in text.split():
            return f"{text!r} holds {key_word!r} as typed, no typo of it"
        return not_held(text, key_word) or missed(text)

    assert_each_read_right(cases(KEY_WORD_TYPOS), misread)


NOT_TYPOS = {
    "remote": "remote it",
    "removes": "removes it",
    "remover": "remover it",
    "deletes": "deletes it",
    "testing": "stop testing me",
    "massage": "no more massage",
    "massaging": "stop massaging me",
    "pleased": "stop pleased",
    "lease": "stop lease",
    "escribes": "no me escribes",
    "escriben": "no me escriben",
    "describir": "deja de describir",
    "describirme": "deja de describirme",
}


def test_a_real_word_one_edit_from_a_key_word_is_read_as_typed() -> None:
    assert_each_read_right(cases(NOT_TYPOS), lambda word, text: not_in_words(word, text) or taken(text))


@pytest.mark.parametrize(
    "text",
    [
        "stpo texting me",
        "unsubcribe me",
        "unsuscribe me",
        "unsubscibe me",
        "unsubsribe me",
        "unsubscirbe me",
        "stop mesage me",
        "stop messeges me",
        "wrong numbr",
        "stop pleas",
        "stop pleeease",
        "stop pleaseee",
        "no más mensages",
        "cancelar mi subscripcion",
    ],
)
def test_typos_once_listed_by_hand_are_read_by_the_typo_and_shape_reading(text: str) -> None:
    assert opts_out(text)


# --- The rules' notation -----------------------------------------------------------------------


def test_a_choice_inside_a_choice_is_refused_when_the_rules_load() -> None:
    # The notation has no nesting: `[in (this|it)]` would read `(this` as a word.
    with pytest.raises(ValueError, match="a choice inside a choice"):
        revocation_notation.expand("not interested [in (this|it)]")


def test_a_phrase_written_in_both_languages_is_refused_when_the_rules_load() -> None:
    # Read in one language only, it would be negated by that language's words alone.
    english = revocation_words._phrases("en", {"stop-texting": ("stop text",)})
    spanish = revocation_words._phrases("es", {"stop-texting": ("stop [los] text",)})
    with pytest.raises(ValueError, match="both languages"):
        revocation_words._in_both_languages(english, spanish)


# --- Spellings ---------------------------------------------------------------------------------

SPELLINGS = {
    "text": ("stop {} me", "texts texting texted textin txt txts txting txtin txtng txtn sms smss smses"),
    "message": ("stop {} me", "messages messaging messaged msg msgs msging msgng msgin"),
    "contact": ("stop {} me", "contacting contacted"),
    "call": ("no more {}", "calls calling"),
    "spam": ("stop {} me", "spamming spaming spammed"),
    "notification": ("stop {}", "notifications alert alerts update updates"),
    "communication": ("cease all {}", "communications"),
    "stop": ("{} texting me", "stopp stahp stp"),
    "unsubscribe": ("{} me", "unsub"),
    "please": ("stop {}", "pls plz plez plse pleez pleeze plss plzz"),
    "thanks": ("stop {}", "thx thnx thnks thanx tnx ty tyvm tysm"),
    "ok": ("stop {}", "okay k kk okk"),
    "with": ("stop {} the texts", "w"),
    "you": ("stop thank {}", "u"),
    "your": ("stop {} texts", "ur yr"),
    "number": ("wrong {}", "nmbr num numero numeros"),
    "dont": ("{} text me", "dnt"),
    "ever": ("dont {} text me", "evr eva"),
    "again": ("stop {}", "agn agen"),
    "anymore": ("stop {}", "nemore"),
    "more": ("no {} texts", "mor moar"),
    "text ": ("no más {}", "texto textos"),
    "message ": ("no más {}", "mensaje mensajes mensajito mensajitos msj msjs"),
    "porfavor": ("alto {}", "porfa porfas xfa xfavor xf plis"),
    "gracias": ("alto {}", "grax graciaas"),
    "que": ("no quiero {} me escriban", "q ke"),
    "quiero": ("no {} mensajes", "kiero"),
    "de": ("dejen {} escribirme", "d"),
    "me": ("ya no {} escriban", "m"),
    "por": ("alto {} favor", "x"),
    "escribir": (
        "deja de {}",
        "escribirme escribirnos escribirle escribirles enviar enviarme enviarnos mandar mandarme mandarnos "
        "textear textearme contactar contactarme llamar llamarme molestar molestarme llegar fastidiar "
        "fastidiarme fregar joder escribiendo enviando mandando texteando contactando llamando molestando "
        "escribiendome enviandome mandandome texteandome contactandome llamandome molestandome",
    ),
    "escribas": (
        "no me {}",
        "escriba escriban escribais envies envie envien mandes mande manden textees textee texteen "
        "contactes contacte contacten llames llame llamen molestes moleste molesten lleguen llegue",
    ),
    "vuelvas": ("no {} a escribirme", "vuelva vuelvan vuelve"),
    "deja": ("{} de escribirme", "dejen deje dejes dejas dejar"),
    "dejame": ("{} en paz", "dejenme dejeme dejarme"),
    "sacame": (
        "{} por favor",
        "saquenme saqueme sacarme quitame quitenme quiteme quitarme borrame borrenme borreme borrarme "
        "eliminame eliminenme elimineme eliminarme",
    ),
    "borralo": ("{} por favor", "borrenlo borrelo borrala borrenla eliminalo eliminenlo eliminelo"),
    "borra": (
        "{} mi número",
        "borren borre borrar elimina eliminen elimine eliminar quita quiten quite quitar olvida olviden "
        "olvide olvidar",
    ),
    "bloquea": ("{} mi número", "bloqueen bloquee bloquear"),
    "desuscribir": (
        "{} por favor",
        "desuscribirme desuscribanme desuscribame desuscribeme desuscriban desuscribo desuscribirse "
        "desinscribir desinscribirme desinscribanme",
    ),
    "dar": ("{} de baja", "darme denme dame den dan da deme darnos doy"),
    "cancelar": ("{} mi suscripción", "cancela cancelen cancele anular anula anulen anule"),
    "suscripcion": ("cancelar mi {}", "suscripciones"),
    "revoco": ("{} mi consentimiento", "retiro revocar retirar"),
    "consentimiento": ("revoco mi {}", "autorizacion autorizaciones permiso permisos"),
    "equivocado": ("número {}", "equivocada equivocados equivocadas incorrecto incorrecta"),
    "equivocaron": ("se {} de número", "equivocaste equivocan"),
    "interesa": ("no me {}", "interesan"),
    "parale": ("{} ya", "parenle pararle"),
    "detener": ("{} por favor", "detente detenganse detengase detengan detenga deten"),
}
SPELLING_CASES = [
    (word.strip(), template.format(spelling), spelling)
    for word, (template, spellings) in SPELLINGS.items()
    for spelling in spellings.split()
]


def spelling_misread(word: str, text: str, spelling: str) -> str | None:
    """What is wrong with a spelling's text: its word must be read in place of the spelling."""
    if spelling in words_of(text) and spelling != word:
        return f"{spelling!r} is read as typed in {text!r}, not as {word!r}: it reads {words_of(text)}"
    return not_in_words(word, text) or missed(text)


def test_each_spelling_reads_as_its_word(monkeypatch: pytest.MonkeyPatch) -> None:
    # With no typo read: a form one letter from a key word (`escriba`, `escribas`) is a word of its
    # own, read by its entry, not as a typo that happens to land on the same word.
    monkeypatch.setattr(revocation, "key_word_typed", lambda word: None)
    assert_each_read_right(SPELLING_CASES, spelling_misread)


def test_a_word_spelled_as_in_no_list_is_read_as_typed() -> None:
    assert revocation.words_of("Don’t TXT me!!") == ["dont", "text", "me"]
    assert revocation.words_of("¡Déjame en PAZ!") == ["dejame", "en", "paz"]
