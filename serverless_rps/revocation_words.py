"""The words the revocation classifier (`revocation.py`) reads, in English and in Spanish: what
asks to stop, what is courtesy around it, what is about the game, and the words of a sentence
that tell who is to stop. Pure: standard library only.

Phrases are written in a small notation (`revocation_notation.py`): `stop [the|these]
(text|message)`, where `(a|b)` is a choice and `[a|b]` an optional one, expanded into tables of
word sequences once, when the module loads. They are written in the words as read: people's
spellings, the shapes of a typed word and typos of key words are read before (`normalisation.py`).
Every word of every list has a text of its own in tests/unit/test_revocation_words.py that reads
otherwise without it; docs/opt-out.md says why each list is what it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from serverless_rps.revocation_game import (
    AND_OR,
    COMMANDS_WITH_AN_ARGUMENT,
    CONTEST_WORDS,
    ENGLISH_MOVES,
    GAME_SENDS,
    INTENSIFIERS,
    LAUGHTER,
    NAME_WITH_DIGITS_OR_UNDERSCORE,
    NICKNAME_SHAPE,
    SENDING,
    SPANISH_GAME_WORDS,
    SPANISH_MOVES,
)
from serverless_rps.revocation_notation import Language, Meaning
from serverless_rps.revocation_notation import in_both_languages as _in_both_languages
from serverless_rps.revocation_notation import phrases as _phrases
from serverless_rps.revocation_sentence import (
    ADDRESSEES,
    AFFIRMATIVE_ORDERS,
    BETWEEN_NEGATION_AND_STOP,
    CLAUSE_STARTING_PAIRS,
    CLAUSE_STARTS,
    COMPLETE_PHRASE_ENDS,
    FOR_A_DAY,
    FROM_OR_WITH,
    FUNCTION_WORDS,
    GOING_TO,
    HYPOTHETICALS,
    INTERJECTIONS,
    MODAL_CHAIN,
    MODIFIERS,
    NAMING_A_THIRD_PARTY,
    NEGATIONS,
    NEGATIVE_SUBJECTS,
    NOT_BEFORE_A_CLAUSE,
    PAUSED_FOR_A_DAY,
    QUESTION_AUXILIARIES,
    SPANISH_NAMING,
    STATEMENTS,
    THINGS,
    THIRD_PERSON,
    TO_SOMEONE,
    UNTIL,
    VERBS_OF_A_PERSON,
    VERBS_OF_A_THING,
)

__all__ = [
    "ADDRESSEES",
    "ADDRESS_WORDS",
    "AFFIRMATIVE_ORDERS",
    "AND_OR",
    "BETWEEN_NEGATION_AND_STOP",
    "CLAUSE_STARTING_PAIRS",
    "CLAUSE_STARTS",
    "CLEAR_PHRASES",
    "COMMANDS_WITH_AN_ARGUMENT",
    "COMPLETE_PHRASE_ENDS",
    "CONTEST_WORDS",
    "COURTESY",
    "COURTESY_ONLY",
    "ENGLISH_MOVES",
    "FOR_A_DAY",
    "FROM_OR_WITH",
    "FUNCTION_WORDS",
    "GAME_SENDS",
    "GOING_TO",
    "HYPOTHETICALS",
    "INTENSIFIERS",
    "INTENT_WORDS",
    "INTERJECTIONS",
    "JOINED_KEY_WORDS",
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
    "NOT_BEFORE_A_CLAUSE",
    "ORDINARY_WORDS",
    "PAUSED_FOR_A_DAY",
    "QUESTION_AUXILIARIES",
    "REMOVALS",
    "RESERVED_WORDS",
    "SENDING",
    "SPANISH_GAME_WORDS",
    "SPANISH_KEYWORDS",
    "SPANISH_MOVES",
    "SPANISH_NAMING",
    "SPELLED_OUT_KEYWORDS",
    "STATEMENTS",
    "STOP_REQUESTS",
    "THINGS",
    "THIRD_PERSON",
    "TO_SOMEONE",
    "UNTIL",
    "VERBS_OF_A_PERSON",
    "VERBS_OF_A_THING",
    "Language",
    "Meaning",
]

# --- Revocation signals ---------------------------------------------------------------------------

# Intent × target: each rule below is a verb of its intent and what it acts on, so that a new
# pairing people write ("wipe my data", "erase me from this thing") is read like the ones seen.
_STOP_VERBS = "(stop|quit|end|cancel|cease|halt|discontinue|terminate)"
_CONTACT_NOUNS = "(text|message|contact|call|spam|notification|communication)"
# What is sent, with what people call it between: "stop the daily texts", "no more game texts".
_WHICH = "[with|with the|with all the|all|all the|all these|all your|the|these|those|your|them|any|any more]"
_KIND_OF_TEXT = (
    "[game|games|rps|bot|daily|automated|random|promo|marketing|annoying|stupid|dumb|constant|challenge]"
)
# What the game sends that a player may be tired of: "no more challenges", "no más retos".
_GAME_SENDS = "(challenge|challenges|invite)"
_WHAT_IS_SENT = f"{_KIND_OF_TEXT} {_CONTACT_NOUNS}"
_CONTACTING = "(text|message|contact|call|spam|send)"
_TO_ME = "(me|this number|my number|my phone)"
_DO_NOT_LIST = "(do not|dont|no|dnc) [call|text|contact|message] list"
_REMOVAL_VERBS = "(delete|remove|erase|wipe|purge|forget|lose|drop|clear|get rid of)"
_REMOVED = "(removed|deleted|erased|wiped)"
_MY_RECORDS = "[all] [of] my [personal] (info|information|data|details|contact|account|records|profile)"
_CONSENT = "(consent|permission)"
# How much consent is revoked: "any and all consent", "all prior consent", "every consent".
_ALL_CONSENT = "[my|all|your|any|any and all|all prior|any prior|all my|every|each|such]"
# The same in Spanish, Spanglish included: "borra mis datos", "delete mi número", "sus mensajes".
_BORRA = "(borra|delete|remove|erase)"
_LOS = "[los|las|tus|sus|estos|esos|todos los|todas las]"

# Clear phrases: a revocation wherever they stand (unless a game signal outweighs them).
CLEAR_PHRASES = _in_both_languages(
    _phrases(
        "en",
        {
            "stop-texting": (
                f"{_STOP_VERBS} {_WHICH} {_WHAT_IS_SENT}",
                # Whatever is sent: only texts reach a phone from the bot. "stop sending rock" is a
                # throw, and the move outweighs it.
                f"{_STOP_VERBS} (sending|send)",
                f"{_STOP_VERBS} (bothering|bugging|harassing|pestering) me",
                f"{_STOP_VERBS} (getting|receiving) (these|those|them|this)",
                f"{_STOP_VERBS} (getting|receiving) [any|the|these|those|your|all] {_WHAT_IS_SENT}",
                f"{_STOP_VERBS} [this|the|your|all this|all the] (nonsense|junk|crap|garbage|bs|madness)",
                "cease and desist",
                # A request put as a supposition: "if you could just stop", "if I get one more text".
                "if you (could|would|can|will) [just|please|kindly] (stop|quit)",
                "if you (stopped|quit)",
                # Formal: "please refrain from texting me", "desist from contacting this number".
                "(refrain|desist|abstain) from (text|message|contact|call|spam|send|sending)",
                "if (i|we) (get|receive) one more (text|message|call)",
                # A threat is a request: "I'll report you if you don't stop", "text me again and...".
                "(if|unless) you (dont|do not|wont|will not) (stop|quit)",
                "(text|message|contact|call) (me|this number) (again|one more time) (and|&)",
            ),
            "unsubscribe": ("unsubscribe", "(be|get|been|being|am|im|want|wanna|like) unsubscribed"),
            "opt-out": ("opt [me|this number|my number] out", "optout"),
            # How to stop, asked: "what's the stop word?", "what is the command to unsubscribe".
            "how-to-stop": (
                "(whats|what is|what s) the (stop|unsubscribe|optout|opt out|cancel)"
                " (word|command|keyword|code)",
            ),
            "do-not-text": (
                f"(dont|do not|never) [ever] {_CONTACTING} {_TO_ME}",
                # A request put as a negation: "please not text me", "could you not text me anymore".
                f"(please|kindly) not {_CONTACTING} {_TO_ME}",
                f"(can|could|would|will) you [guys|all] [just] not {_CONTACTING} {_TO_ME}",
                f"not {_CONTACTING} {_TO_ME} (anymore|any more|again|ever again)",
                f"(not|no longer) allowed to {_CONTACTING} {_TO_ME}",
                f"(appreciate it|prefer it|rather) [if] you (didnt|did not|wouldnt|stopped) {_CONTACTING}",
                f"mind not {_CONTACTING} {_TO_ME}",
                # A do-not-contact list asked for: "put me on your do not call list", "add this
                # number to the DNC list", "I want to be on your no contact list".
                "(put|add|place|keep|include|be|get) [me|us|this number|my number|my phone|it]"
                f" (on|to|onto|in) [the|your|a|ur] {_DO_NOT_LIST}",
                "(appreciate it|appreciate) if you (stopped|would stop|could stop)",
                "(dont|do not|never) send [me] (anything|any more|anymore|nothing|stuff)",
            ),
            "do-not-want-texts": (
                "(dont|do not|no longer) (want|wish) [to get] [any|any more|anymore|more|these|those|the|your"
                f"|all these] {_KIND_OF_TEXT} (text|message|call|notification)",
                "(dont|do not|no longer) (want|wish) [to get] [any|any more|anymore|more|these|the|your]"
                f" {_GAME_SENDS}",
                "(dont|do not|no longer) (want|wish) to receive",
                "(dont|do not|no longer) (want|wish) you [to] (text|message|contact|call)",
                "(dont|do not|no longer) (want|wish) to be on (this|the|your) [mailing|contact] list",
                "(dont|do not|no longer) (want|wish) to be (contact|text|message|call)",
                "(rather|prefer) [to] not [to] (get|receive)",
                "(rather|prefer) [to] not [to] be (text|message|contact|call|bothered)",
            ),
            "no-more-texts": (
                f"(no more|enough) [of|with] [the|these|those|your] {_KIND_OF_TEXT} (text|message|call)",
                f"(no more|enough) [of|with] [the|these|those|your] [game] {_GAME_SENDS}",
            ),
            "leave-me-alone": (
                "leave (me|us|this number|my number|my phone) [the hell|the heck|the f|the fuck] alone",
                "leave (me|us) be",
                "leave me in peace",
                "leave (me|us|my number) out of (this|it|these|your)",
                "(let|lemme) [me] alone",
                "lemme be",
                "(be|been|being|get|left) left alone",
            ),
            "delete-my-number": (
                f"{_REMOVAL_VERBS} (my|this|the) [phone|cell] number",
                f"(want|need|like) (my|this) [phone|cell] number {_REMOVED}",
            ),
            "delete-my-data": (
                f"{_REMOVAL_VERBS} {_MY_RECORDS}",
                f"(want|need|like) {_MY_RECORDS} {_REMOVED}",
                "(cancel|close|deactivate) my account",
            ),
            "cancel-subscription": ("(cancel|end|terminate) [my|the|this] (subscription|subscriptions)",),
            # Tired of the texts: "sick of these texts", "I'm so over these messages".
            "fed-up": (
                "(tired|sick|done|over|fed up) [of|with] (these|the|your|all these|all the|all your|this)"
                f" {_KIND_OF_TEXT} (text|message|call|notification|spam)",
                "(blowing|blew) up my (phone|cell)",
            ),
            "want-nothing": (
                "want (nothing to do with|no part of) (this|it|you|any of this|these|your)",
                "(never|dont|do not) want to hear from you",
            ),
            "wrong-number": (
                "wrong number",
                "wrong person",
                "(not|isnt) the right (number|person)",
                "(not|isnt|aint) (my|our) (number|phone)",
                "wrong (guy|girl|man|lady|contact|phone)",
            ),
            "revoke-consent": (
                f"(revoke|revoking|revoked|withdraw|withdrawing|withdrawn) {_ALL_CONSENT} {_CONSENT}",
                f"(take|taking) back {_ALL_CONSENT} {_CONSENT}",
                f"(revocation|withdrawal) of {_ALL_CONSENT} {_CONSENT}",
                f"{_CONSENT} (revoked|withdrawn)",
                "(dont|do not|doesnt|does not|didnt|did not|never|no longer) (consent|consented)",
                "(didnt|did not|never) (agree|agreed|subscribe|subscribed) (to|for)",
                # A regulator named: "I'll report you to the FCC", "this violates the TCPA".
                "(fcc|ftc|tcpa)",
                "(file|filing|filed) a complaint",
                # Why the texts keep coming: "why are you still texting me", "why do you keep texting me".
                f"(why|how come) (are|do|does|is) (you|this|it) (still|keep|keeps|always) {_CONTACTING}",
                f"(dont|do not|didnt|did not|never|no longer) (give|gave) [you] [my|any] {_CONSENT}",
                f"you (dont|do not|no longer) have [my|any] {_CONSENT}",
                f"without my {_CONSENT}",
                # Never asked for the texts: "i didnt sign up for these texts", "never asked for this".
                "(didnt|did not|never) (sign|signed|opt|opted) [me] (up|in)",
                "(didnt|did not|never) (ask|asked) for (this|these|those|them|any|your|the|rps)",
                "(didnt|did not|never) (give|gave) (you|u) (my|this) number",
                # Texts called unwanted: "your texts are unwanted", "unsolicited messages".
                "(unwanted|unsolicited) (text|message|call|spam)",
                "(text|message) (are|is) (unwanted|unsolicited|not wanted)",
            ),
            "block-number": ("(block|blocking|blocked) (you|this number|your number|the number|my number)",),
            # From whatever the list is called: "remove me from whatever this is", "take me off this thing".
            "remove-me": (
                "(remove|erase|drop|wipe|purge|clear) (me|us) (from|off|out of)",
                "(be|get|been) removed",
            ),
            "take-me-off": (
                "take (me|my number|this number|my info|my data|my details|my name) (off|out of)",
                "(like|want|need) (it|me|us|my number|this number) (taken|removed|deleted|erased) (off|out)",
                "(be|get|been|being) taken (off|out)",
                "(let|get) (me|us) out [of] (this|here|it|there)",
                "get [me|my number] off (this|the|your) [mailing|contact|text] list",
            ),
            "delete-me": ("delete me from",),
        },
    ),
    _phrases(
        "es",
        {
            "stop-texting": (
                # "deja de escribirme", "para ya de mandarme", Spanglish "stop mandando textos".
                "(deja|para|paren|pare|parar|parale|detener|stop) [ya|usted|ustedes] de [estar|andar|seguir]"
                " (escribir|recibir)",
                "para [ya] no recibir",
                "stop escribir",
                # The messages as the object: "detengan los mensajes", "alto a los mensajes", "basta con".
                f"(paren|pare|parale|parar|detener|cancelar) {_LOS} (message|text|notificaciones|llamadas)",
                "stop (los|tus|sus|estos|esos|todos los) (message|text)",
                f"(alto|stop|bajale|bajenle|parale) a {_LOS} (message|text)",
                "que (paren|parale)",
                # A threat is a request: "los voy a denunciar si no paren".
                "si no (paren|pare|parale|dejan|deja)",
                "(voy a|vamos a) (reportar|denunciar) (este|su|tu) number",
                "(basta|ya estuvo|ya chole|chale|suficiente|para|paren|pare|parale|stop) [ya] con [tantos]"
                f" {_LOS} (message|text)",
            ),
            "do-not-text": (
                "no [me|nos] escribas",
                "no [me|nos] vuelvas a escribir",
                "nunca [mas] [me|nos] escribas",
                "no quiero que [me|nos] [sigas|sigan] (escribas|escribir)",
                "no [me|nos] (sigas|sigan|siga|sigais|esten|estes|esteis|anden|andes|ande|andeis) escribir",
                "(favor de|por favor|porfavor|pido|pedimos) [ya] no escribir",
                # A do-not-contact list: "pónganme en su lista de no llamar", "lista de no contactar".
                "ponganme [mi|este|el] [number] (en|a) (la|su|tu|esta|sus) lista de no escribir",
            ),
            "do-not-want-texts": (
                "no quiero [recibir] [mas|los|tus|sus|estos|esos|ningun|ninguno|ningunos|nada de]"
                " (message|text|llamadas|notificaciones|retos)",
                # A preference put politely: "prefiero no recibir", "le agradecería no recibir más".
                "(prefiero|preferiria|preferimos|prefeririamos|agradeceria|agradeceriamos) [ya] no recibir",
                "no quiero recibir",
                "no quiero (estar|seguir) en (la|su|tu|esta) lista",
            ),
            "no-more-texts": (
                "(no mas|basta de|basta ya de) [los|tus|sus|estos] (message|text|retos)",
                "ni un (message|text) mas",
                "no aguanto [mas] [los|tus|sus|estos|tantos] (message|text)",
                "(harto|harta|hartos|hartas|cansado|cansada) (de|con) [los|tus|sus|estos|tantos]"
                " (message|text)",
            ),
            "leave-me-alone": ("dejame (en paz|tranquilo|tranquila|tranquilos|tranquilas)",),
            "delete-my-number": (
                f"{_BORRA} (mi|este|el) number",
                "(olvidate|olvidense|olvidese) de (mi|este) number",
                "no (usen|use|uses|usan) (mi|este) number",
            ),
            "delete-my-data": (
                f"{_BORRA} [toda|todos] (mi|mis) (datos|informacion|info|contacto|cuenta|registro)",
                "(cancelar|cierra|cierren|desactiva|desactiven) (mi|esta) cuenta",
            ),
            # Taken from wherever it is: "sácame de la lista", "quítame de tus contactos", "bórrenme de todo".
            "remove-me": (
                "sacame de (la|su|tu|esta|sus|tus|mi|este|todo|todos|ahi|aqui|esto|vuestra|vuestras)",
                # Asked as a question: "¿me quitan de la lista?", "me sacan de aquí porfa".
                "me sacan de (la|su|tu|esta|sus|tus|este|todo|todos|ahi|aqui|esto)",
                "salir de (la|su|tu|esta|sus|tus|este|esto|aqui|ahi)",
            ),
            "block-number": ("(bloquea|block) (mi|este|el|su|tu) number",),
            "unsubscribe": ("dar de baja", "desuscribir", "(solicito|pido|quiero) [la|mi] baja"),
            "cancel-subscription": ("cancelar [mi|la|su|esta] suscripcion",),
            "wrong-number": (
                "no soy (la persona|esa persona|el que|la que|quien)",
                "no es de (esa|la|esta) persona",
                "no es el number de (esa|la|esta|una|otra) persona",
                "no es mi (number|telefono|celular|cel)",
                "(number|persona) equivocado",
                "equivocaron de (number|persona)",
                "equivocado de (number|persona)",
            ),
            "revoke-consent": (
                "revoco [mi|el|mis|todo|todo mi|cualquier|todos los|toda] consentimiento",
                "(no|nunca) (pedi|solicite|autorice|acepte)"
                " (estos|esto|los|sus|este|eso|ningun|ninguna|nada)",
                "(no|nunca) me (suscribi|inscribi|registre)",
                "no [les|le|te] dar [mi|el] consentimiento",
                "no (tienen|tiene|tienes) [mi] consentimiento",
                "no autorizo",
                "sin mi consentimiento",
            ),
        },
    ),
)

# Stop requests: a revocation as the whole text with courtesy words, or as its end or start.
STOP_REQUESTS = _in_both_languages(
    _phrases(
        "en",
        {
            "stop-courtesy": (
                "(stop|stopall|revoke|quit|end|cancel|halt|cease|discontinue|enough|desist)",
                "(stop|quit) it",
                "cut it out",
                "(stop|cancel|end) [all] (this|these|those)",
                "knock it off",
                "(go away|buzz off|back off|piss off|fuck off|f off|get lost|shut up|stfu)",
                "give it a rest",
                "(dont|do not) (text|message|contact|call)",
                "dnc",
                _DO_NOT_LIST,
            ),
            # A complaint that is the whole text: "spam", "this is harassment", "reported as spam".
            "complaint": (
                "(spam|harassment)",
                "(this is|thats|its|this) [so|such|straight up|literally] (spam|harassment)",
                "(reported|reporting) [you|this|this number] [as spam|for spam]",
            ),
            "no-more": (
                "no more",
                "(no more|enough) (of|with) (this|these|those|them|it)",
                "no (text|message|call|notification)",
            ),
            "not-interested": (
                "(not|no longer) interested",
                "(no|zero) interest",
                "(no|zero) interest in (this|it|these|that)",
                "uninterested",
                "(not|no longer) interested in (this|it|that|any of this|playing|this game|your game)",
            ),
            "do-not-want-texts": (
                "(dont|do not|no longer) (want|wish) [to get] (this|these|them|it|any of this)",
            ),
            "leave-me-alone": ("let me be",),
            "remove-me": ("remove", "(remove|erase) (me|it)", "(forget|drop) me"),
            "take-me-off": ("(get me|i want) off", "off (the|this|your) list"),
            "delete-me": ("delete (me|it)",),
            "block-number": (
                "block",
                "(blocked|blocking)",
                "(youre|you are|ur) blocked",
                "(blocking|blocked) (you|this)",
            ),
            "i-quit": (
                "(i|im|i am) (quit|quitting|done|out)",
                "(i|im|i am) (quit|quitting|done|out) [with|of] (this|the|your) (game|games|thing|bot)",
                "i want out",
                "count me out",
            ),
        },
    ),
    _phrases(
        "es",
        {
            "stop-courtesy": (
                "(alto|para|parar|pare|paren|parale|detener|basta|baja|cancelar)",
                "(alto|paren|pare|parale|detener|basta|cancelar) [todo] (esto|eso)",
                "ya (estuvo|chole)",
                "ya estuvo (bueno|suave|bien)",
                "me (tienen|tiene|tienes) (harto|harta|hartos|hartas)",
            ),
            "no-more": ("no mas",),
            # A do-not-contact order as a form puts it: "NO CONTACTAR", "no llamar".
            "do-not-text": ("no escribir",),
            "not-interested": (
                "no (me|nos) interesa",
                "no (me|nos) interesa (jugar|su juego|tu juego|este juego|el juego)",
                "no (me|nos) interesa (nada|nada de esto|nada de eso|esto|eso)",
                "(para nada|nada) me interesa",
                "no (estoy|estamos) (interesado|interesada|interesados|interesadas)",
            ),
            "do-not-want-texts": (
                "no quiero (nada|esto|eso|participar)",
                "no quiero saber nada",
                "no quiero saber nada de (eso|ustedes|este juego|su juego)",
                "no quiero saber [mas] de (esto|ustedes|este juego|su juego)",
            ),
            "remove-me": ("sacame", "borralo", "borra", "[me] quiero salir", "salir"),
            "complaint": (
                "acoso",
                "(esto es|es) (acoso|spam)",
                "(los|te|lo|la) voy a (denunciar|reportar|demandar)",
            ),
            "block-number": ("bloqueado", "(los|las|te|les) [voy a] bloquea"),
            "wrong-number": ("se equivocaron",),
        },
    ),
)
# Stop requests that laughter or a nickname's shape does not outweigh: a removal is no game's
# word ("never signed up for rock paper scissors lol. pls remove").
REMOVALS = frozenset({"remove-me", "take-me-off", "delete-me"})

# Twilio's keywords, and their Spanish kin, when a text spells them out letter by letter: `S T O P`.
SPANISH_KEYWORDS = frozenset({"alto", "parar", "para", "detener", "cancelar", "baja"})
SPELLED_OUT_KEYWORDS = (
    frozenset({"stop", "stopall", "unsubscribe", "optout", "revoke", "quit"}) | SPANISH_KEYWORDS
)
# Key words people split in two: `un subscribe`, `unsub scribe`, `un-sub`.
JOINED_KEY_WORDS = frozenset({"unsubscribe", "unsub"})
# The words that ask to stop, as read: a word the lists do not know is split into words run
# together only if one of them is one (`stoptexting`, `nomasmensajes`, `dejenmeenpaz`), and a stop
# word typed with a letter doubled is read as it (`altoo`, `bastaa`).
INTENT_WORDS = frozenset(
    {"stop", "quit", "end", "cancel", "remove", "delete", "unsubscribe", "optout", "leave", "no", "block"}
    | {"dont", "off"}  # `dontextme`, `takemeoff`
    | {"alto", "basta", "para", "paren", "pare", "deja", "dejame", "sacame", "borra", "cancelar", "bloquea"}
)

# Words that address someone: "stop bro", "alto amigo". They are reserved from nicknames, so that a
# stop with one of them never names a player.
ADDRESS_WORDS: Mapping[Language, frozenset[str]] = {
    "en": frozenset({"bro", "bruh", "dude", "man", "sir", "maam", "madam", "mate", "buddy", "pal", "guys"})
    | frozenset({"yall", "fam"}),
    "es": frozenset({"amigo", "amiga", "wey", "guey", "compa", "boludo", "boluda", "vos", "senor", "senora"}),
}

# Courtesy and context: what may stand around a stop request and leave it one.
COURTESY = _in_both_languages(
    _phrases(
        "en",
        {
            "": (
                "(please|kindly|respectfully|cheers|bye|goodbye)",
                "(appreciate it|appreciated|much appreciated|thanks|thank you|and thanks|and thank you)",
                "(thanks|thank you) anyway",
                "no (thanks|thank you)",
                "(now|right now|rn|already|asap|immediately|again|anymore|any more|ever|right away)",
                "(all|ok|sorry|seriously|really|for real|fr|ffs|omg|wtf|god|me|hey|hi|hello)",
                "[from|off|of] (the|this|your|my) [mailing|contact] (list|lists|system|database|contacts)",
                "(with|of|from) (the|these|those|your|all the|all these|all your)"
                " (text|message|call|notification)",
                "with (this|that|it)",
                *ADDRESS_WORDS["en"],
            )
        },
    ),
    _phrases(
        "es",
        {
            "": (
                "(por favor|porfavor|gracias|muchas gracias|oye|hola|adios)",
                "(ya|todo|ahora|ahorita|ya mismo|inmediatamente|de inmediato|de una vez)",
                "(en serio|de verdad|neta)",
                "de (la|su|tu|esta|mi) lista",
                "de (aqui|aca|esto)",
                "con (eso|esto)",
                "hoy mismo",
                "por fa",
                "este number",
                *ADDRESS_WORDS["es"],
            )
        },
    ),
)

# What a stop request at the end of a text may not be: "end" and "quit" alone end too many
# sentences about the game ("when does it end", "alice rage quit").
NOT_AT_THE_END = frozenset({("end",), ("quit",)})

# --- Game signals: in revocation_game.py, re-exported here ---------------------------------------

# --- The sentence around a stop: in revocation_sentence.py, re-exported here ---------------------


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
    _words_in((*CLEAR_PHRASES, *STOP_REQUESTS, *COURTESY)).union(
        *FUNCTION_WORDS.values(), *NEGATIONS.values()
    )
    | COMMANDS_WITH_AN_ARGUMENT.union(
        CLAUSE_STARTS, MODAL_CHAIN, NAMING_A_THIRD_PARTY, BETWEEN_NEGATION_AND_STOP
    )
    | HYPOTHETICALS.union(NEGATIVE_SUBJECTS, MODIFIERS, THIRD_PERSON, QUESTION_AUXILIARIES, FROM_OR_WITH)
    | INTERJECTIONS.union(LAUGHTER, INTENSIFIERS)
) - _single_words(STOP_REQUESTS).union(SPELLED_OUT_KEYWORDS)

COURTESY_ONLY = Meaning("", "en")
