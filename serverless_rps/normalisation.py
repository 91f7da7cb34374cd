"""How a typed text is read before any word in it is matched. Pure: standard library only.

`normalised` and `without_accents` are the one normalisation that command keywords (`parsing.py`)
and free-text revocations (`revocation.py`) share, so that `ＳＴＯＰ`, `S\u200bTOP` and `STOP` are
one word to both. The rest is how the free-text rules read a word as people type it: their
spellings (`txt`, `porfa`, `escríbanme` -> text, porfavor, escribir), its shapes (`STOPPPP`,
`st0p`) and a typo of a key word (`remvoe`, `unsubcribe`, `escirbirme`)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

__all__ = [
    "ENGLISH_SPELLINGS",
    "SPANISH_SPELLINGS",
    "SPELLINGS",
    "collapsed_doubles",
    "key_word_typed",
    "normalised",
    "spelled",
    "split_run_together",
    "typed_shapes",
    "without_accents",
]

# Characters a phone or a paste can put in a word without showing them. Unicode's format
# category (Cf) covers the zero-width space and joiners, U+2060, U+FEFF and the soft hyphen;
# these are the invisible ones outside it.
_INVISIBLE_NON_FORMAT = frozenset(
    {
        "\u034f",  # combining grapheme joiner
        "\u115f",  # Hangul choseong filler
        "\u1160",  # Hangul jungseong filler
        "\u3164",  # Hangul filler
        "\uffa0",  # half-width Hangul filler
    }
)


def _is_invisible(character: str) -> bool:
    code = ord(character)
    return (
        unicodedata.category(character) == "Cf"
        or character in _INVISIBLE_NON_FORMAT
        or 0xFE00 <= code <= 0xFE0F  # variation selectors
        or 0xE0100 <= code <= 0xE01EF  # variation selectors supplement
    )


def normalised(body: str) -> str:
    """NFKC (full-width and compatibility forms to plain ones), without invisible characters."""
    return "".join(
        character for character in unicodedata.normalize("NFKC", body) if not _is_invisible(character)
    )


def without_accents(text: str) -> str:
    """The text without its combining marks: `Álto`, `NO MÁS`, `número` -> `Alto`, `NO MAS`, `numero`.
    Spanish keywords and words are matched as people type them, with accents or without."""
    return "".join(
        character
        for character in unicodedata.normalize("NFD", text)
        if unicodedata.category(character) != "Mn"
    )


# --- Spellings -------------------------------------------------------------------------------------

# People's spellings, each to one word the rules below are written in (accents already gone).
ENGLISH_SPELLINGS: Mapping[str, str] = {
    "text": "texts texting texted textin txt txts txting txtin txtng txtn sms smss smses",
    "message": "messages messaging messaged msg msgs msging msgng msgin",
    "contact": "contacting contacted",
    "call": "calls calling called",
    "spam": "spamming spaming spammed",
    "notification": "notifications alert alerts update updates",
    "communication": "communications",
    "stop": "stopp stahp stp",
    "unsubscribe": "unsub",
    "opt": "opting opted",
    "invite": "invites inviting invitation invitations",
    "please": "pls plz plez plse pleez pleeze plss plzz",
    "thanks": "thx thnx thnks thanx tnx ty tyvm tysm",
    "ok": "okay k kk okk",
    "with": "w",
    "you": "u",
    "your": "ur yr",
    "number": "nmbr num",
    # Txt-speak for the words around a request: "dont evr txt me agn", "no mor txts".
    "dont": "dnt",
    "ever": "evr eva",
    "again": "agn agen",
    "anymore": "nemore",
    "more": "mor moar",
}
SPANISH_SPELLINGS: Mapping[str, str] = {
    # `text` and `number` are the English words' concepts: "textos", "número" read as they do.
    "text": "texto textos",
    "number": "numero numeros",
    "message": "mensaje mensajes mensajito mensajitos msj msjs",
    "porfavor": "porfa porfas porfis porfi xfa xfavor xf plis",
    "gracias": "grax graciaas",
    "que": "q ke",
    # Txt-speak: "ya no kiero", "dejen d mandar", "ya no m escriban", "x favor".
    "quiero": "kiero deseo",
    "de": "d",
    "me": "m",
    "por": "x",
    # Any verb of contacting, as an infinitive (with or without "me"), after "deja de", "para de".
    "escribir": "escribirme escribirnos escribirle escribirles enviar enviarme enviarnos "
    "mandar mandarme spamear spamearme spameando spamearnos mandarnos textear textearme contactar "
    # The texts themselves as the object: "dejen de enviarlos", "para de mandarlos".
    "enviarlos enviarlas mandarlos mandarlas "
    "contactarme llamar llamarme molestar molestarme llegar fastidiar "
    "fastidiarme fregar joder escribiendo enviando mandando texteando contactando llamando molestando "
    "escribiendome enviandome mandandome texteandome contactandome llamandome molestandome",
    # The same verbs as a request not to: "no me escribas", "ya no manden", "no me molesten".
    "escribas": "escriba escriban escribais envies envie envien mandes mande manden "
    "textees textee texteen spamees spamee spameen busques busque busquen contactes contacte contacten "
    "llames llame llamen molestes moleste molesten lleguen llegue "
    # vosotros (Spain): "no me enviéis", "no me escribáis"
    "envieis mandeis texteeis contacteis llameis molesteis "
    # a wish or a polite request in the past subjunctive: "le agradecería que no me enviara"
    "escribiera escribieran escribieras escribierais enviara enviaran enviaras mandara mandaran mandaras "
    "contactara contactaran llamara llamaran molestara molestaran "
    # regional verbs of bothering, to ustedes only (to tú they are as often "no way!": "no friegues")
    "chinguen frieguen jodan",
    "vuelvas": "vuelva vuelvan vuelve",
    # Stop doing it: "deja de", "dejen de", "dejá de" (vos), "deje de" (usted).
    "deja": "dejen deje dejes dejas dejar dejo dejad dejeis dejara dejaran dejaras dejarais dejasen",
    "dejame": "dejenme dejeme dejarme dejadme",
    # Take me off / delete me, as an order to tú, usted or ustedes.
    "sacame": "saquen saque sacar sakenme sakame saquenme saqueme sacarme quitame quitenme quiteme quitarme "
    "borrame borrenme borreme borrarme eliminame eliminenme elimineme eliminarme "
    # vosotros: "sacadme", "quitadme"; "bájenme" (dar de baja) as people say it
    "sacadme quitadme borradme eliminadme bajenme bajame bajeme bajarme bajadme",
    "borralo": "borrenlo borrelo borrala borrenla eliminalo eliminenlo eliminelo",
    "borra": "borren borre borrar elimina eliminen elimine eliminar quita quiten quite quitar olvida "
    "olviden olvide olvidar borrad quitad eliminad deleteen deletea deletear",
    "bloquea": "bloqueen bloquee bloquear bloqueo",
    "desactiva": "desactiven desactive desactivar desactivo desactivame desactivenme",
    "apaga": "apaguen apague apagar apago",
    "desuscribir": "desuscribirme desuscribanme desuscribame desuscribeme desuscriban desuscribo "
    "desuscribirse desinscribir desinscribirme desinscribanme "
    "desuscrivanme desuscrivirme desuscrivir desuscrivame",
    "dar": "darse darme denme dame den dan da deme darnos doy",
    "cancelar": "cancelo kancelar kanselar cancela cancelen cancele anular anula anulen anule cancelad",
    "suscripcion": "suscripciones",
    "revoco": "retiro revocar retirar",
    "consentimiento": "autorizacion autorizaciones permiso permisos",
    "equivocado": "equivocada equivocados equivocadas incorrecto incorrecta",
    "equivocaron": "equivocaste equivocan",
    "interesa": "interesan",
    "parale": "parenle pararle",
    "pare": "paro pares parara",
    # vosotros and the past subjunctive: "parad", "que paréis", "que pararan"
    "paren": "parad pareis pararan",
    "aqui": "aki aca",
    "lista": "listas",
    "salir": "salirme salgo salga salgan salimos salirnos",
    "detener": "detente detenganse detengase detengan detenga deten detened",
    # Asked as a question to ustedes: "¿me quitan de la lista?", "me sacan de aquí"
    "sacan": "quitan borran eliminan bajan",
    "invite": "invitacion invitaciones",
    # Put on a list: "pónganme en la lista de no llamar", "agréguenme a la lista"
    "ponganme": "ponme pongan ponga pongame poner ponerme agregame agreguen agreguenme agregenme agregar "
    "anadan anadanme anademe anadir incluyan incluyanme incluir metan metanme",
}


def spelled(spellings: Mapping[str, str]) -> dict[str, str]:
    """Each spelling to its word: `{"text": "txt sms"}` -> `{"txt": "text", "sms": "text"}`."""
    return {spelling: word for word, variants in spellings.items() for spelling in variants.split()}


SPELLINGS = spelled(ENGLISH_SPELLINGS) | spelled(SPANISH_SPELLINGS)


# --- Shapes ---------------------------------------------------------------------------------------

# Digits that stand for the letters they look like, inside a word: `st0p`, `0pt 0ut`, `n0 m4s`.
# A 1 is an i or an l (`unsubscr1be`, `p1s`), so there are two readings.
_DIGITS_AS_LETTERS = (str.maketrans("013457", "oieast"), str.maketrans("013457", "oleast"))
_LETTER_RUN = re.compile(r"([a-z])\1{2,}")  # a letter typed three times or more: `stoppp`


def typed_shapes(word: str) -> list[str]:
    """The words a casefolded typed word may stand for, the likeliest first: digits among its
    letters as the letters they look like (`st0p` -> `stop`, `n0` -> `no`), then its letters typed
    three times or more once, then twice (`stoppp` -> `stop`, `pleeease` -> `please`). Empty when
    it has neither (`555` has no letters); the caller keeps the one it knows, so `bob2` stays a
    name and `3am` a time."""
    shapes: list[str] = []
    if any(character.isdigit() for character in word) and any(character.isalpha() for character in word):
        shapes.extend(word.translate(digits) for digits in _DIGITS_AS_LETTERS)
    for shape in [word, *shapes]:
        if _LETTER_RUN.search(shape):
            shapes.extend(_LETTER_RUN.sub(r"\1" * times, shape) for times in (1, 2))
    return list(dict.fromkeys(shape for shape in shapes if shape != word))


# --- Typos of key words -----------------------------------------------------------------------------

# Key words whose typo is read as them: one letter wrong, missing or extra, or two letters swapped
# (`remvoe`, `unsubcribe`, `delte`, `textign`, `escirbirme`, `kiero`). They are long enough that
# such a typo leaves no other word they could be, but for the real words in `_NOT_TYPOS`.
_KEY_WORDS = frozenset(
    {"unsubscribe", "remove", "delete", "texting", "messaging", "message", "messages", "contacting"}
    | {"please", "anymore", "number", "escribir", "escribirme", "escriban", "escribas", "mensajes"}
    | {"mensaje", "molestar", "eliminar", "eliminen", "cancelar", "desuscribir", "desuscribirme"}
    | {"suscripcion", "consentimiento", "quiero", "porfavor", "numero"}
)
# Short key words, read only with two letters swapped (`sotp`, `levae`, `cancle`): one letter
# changed, missing or extra makes other words of them (`step`, `quite`, `cancer`, `leaves`).
_SHORT_KEY_WORDS = frozenset(
    {"stop", "quit", "text", "leave", "alone", "erase", "again", "cancel", "block", "deja", "dejen", "borra"}
    | {"dejame", "alto", "basta"}
)
# Real words one edit from a key word: never read as its typo.
_NOT_TYPOS = frozenset(
    {"remote", "removes", "remover", "deletes", "testing", "massage", "massaging", "pleased"}
    | {"lease", "escribes", "escriben", "describir", "describirme"}
    # "alot" is "a lot" run together, not "alto" mistyped
    | {"alot"}
)


def _swapped(word: str) -> set[str]:
    return {
        word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        for i in range(len(word) - 1)
        if word[i] != word[i + 1]
    }


def _without_one_letter(word: str) -> list[tuple[int, str]]:
    return [(i, word[:i] + word[i + 1 :]) for i in range(len(word))]


def _typo_index() -> dict[str, frozenset[str]]:
    """Keys under which a key word and its typos meet: `=w` (the word itself, met by a typo with
    two letters swapped), `+w` (met by one with a letter extra), `-w` (the word without a letter,
    met by a typo missing it) and `~i:w` (without its letter at i, met by a typo with that letter
    wrong). Letters extra, missing or wrong only for the long key words."""
    index: dict[str, set[str]] = {}
    for word in (*_KEY_WORDS, *_SHORT_KEY_WORDS):
        index.setdefault(f"={word}", set()).add(word)
    for word in _KEY_WORDS:
        index.setdefault(f"+{word}", set()).add(word)
        for position, shorter in _without_one_letter(word):
            index.setdefault(f"-{shorter}", set()).add(word)
            index.setdefault(f"~{position}:{shorter}", set()).add(word)
    return {key: frozenset(words) for key, words in index.items()}


_TYPOS = _typo_index()


def key_word_typed(word: str) -> str | None:
    """The word `word` is a typo of, as the rules read it (`remvoe` -> `remove`, `escribirm` ->
    `escribir`, whether it is `escribirme` or `escribir` mistyped), or None: for a word that is no
    typo, a real word, or a typo of two key words read differently. About four look-ups per letter."""
    if not word.isalpha() or word in _NOT_TYPOS:
        return None
    shorter = _without_one_letter(word)
    keys = [
        *(f"={swapped}" for swapped in _swapped(word)),
        f"-{word}",
        *(f"~{position}:{rest}" for position, rest in shorter),
        *(f"+{rest}" for _, rest in shorter),
    ]
    found = {SPELLINGS.get(key_word, key_word) for key in keys for key_word in _TYPOS.get(key, ())}
    return found.pop() if len(found) == 1 else None


# --- Words run together, words split apart ---------------------------------------------------------

_LONGEST_RUN_TOGETHER = 40  # letters: a longer word is no words run together people type
_SHORTEST_PART = 2


def split_run_together(word: str, lexicon: frozenset[str], longest_part: int) -> list[str] | None:
    """`stoptexting` -> ['stop', 'texting'], `dejenmeenpaz` -> ['dejenme', 'en', 'paz']: the
    fewest words of `lexicon` (two letters or more each) that the word is, run together; None
    when it is none, or too long to be. Two words may share the letter where they meet, as people
    type them (`dontextme` -> ['dont', 'text', 'me']); a split without a shared letter is preferred.
    One pass, left to right, a look-up per position, part length and overlap: bounded by the
    word's length times `longest_part`."""
    if not word.isalpha() or not _SHORTEST_PART * 2 <= len(word) <= _LONGEST_RUN_TOGETHER:
        return None
    # best[i]: (parts, shared letters) of the best split of word[:i], and where its last part starts.
    best: list[tuple[tuple[int, int], int] | None] = [None] * (len(word) + 1)
    best[0] = ((0, 0), 0)
    for end in range(_SHORTEST_PART, len(word) + 1):
        for start in range(max(0, end - longest_part), end - _SHORTEST_PART + 1):
            before = best[start]
            if before is None:
                continue
            for shared in (0, 1):  # the part starts at `start`, or a letter before it (shared)
                part_start = start - shared
                if (shared and start == 0) or word[part_start:end] not in lexicon:
                    continue
                cost = (before[0][0] + 1, before[0][1] + shared)
                known = best[end]
                if known is None or cost < known[0]:
                    # Where the last part starts, or, negated, where the part before a shared letter ends.
                    best[end] = (cost, -start if shared else start)
    if best[-1] is None or best[-1][0][0] < 2:
        return None
    parts: list[str] = []
    end = len(word)
    while end:
        start = best[end][1]  # type: ignore[index]
        if start < 0:
            parts.append(word[-start - 1 : end])
            end = -start
        else:
            parts.append(word[start:end])
            end = start
    return parts[::-1]


def collapsed_doubles(word: str) -> tuple[str, str]:
    """The word with its last letter typed twice or more typed once (`borraa` -> `borra`), and with
    each letter typed twice or more typed once (`stoop` -> `stop`)."""
    return re.sub(r"([a-z])\1+$", r"\1", word), re.sub(r"([a-z])\1+", r"\1", word)
