"""The held-out Spanish revocation test set: texts as US Spanish speakers send them (Mexican, Caribbean,
Central American and US usage, vos as well as tú, usted and ustedes, with and without accents, with
typos, txt-speak and Spanglish), never used to tune `serverless_rps/revocation.py`.

Who and how: written on 2026-11-27 by a helper session (an AI model) briefed only with a description of
the game's Spanish and English commands, of the FCC rule 47 CFR 64.1200(a)(10) ("revoke consent by any
reasonable means") and of four kinds of revocation an earlier classifier missed in English. The writer
never saw the classifier, its rules, its tests, its tuning set or the opt-out documentation; it read
only `revocation_held_out.py`, for its format and to avoid repeating its texts. The free texts are new,
none is copied from the brief's examples; the bare keywords and commands are the words the brief named
(ALTO, PARA, DETENER, CANCELAR, BAJA, NO MÁS; piedra, partidas, ayuda...) typed as people type them, in
other cases, widths and punctuation, but never spelled exactly as the brief spelled them. The set was
written and committed before the classifier changes it is meant to measure, and it must never be used to
tune them: it measures how well the classifier generalises to text written by someone else.

Measured once, after round 1: 85.7% of revocations read (120/140), one game talk text taken ('para
eso practiqué toda la semana'). Since round 2 it is tuning data like the other sets
(docs/opt-out.md gives both figures).

Each text is judged as a whole message sent to the bot by someone receiving its texts, the way a
reasonable person would read it: a request to stop texting (`REVOCATIONS`), talk about the game or a
game command (`GAME_TALK`, which must never be taken for a revocation; "para" is "for" as often as
"stop"), or anything else (`OTHER_TEXT`, not a revocation either). `AMBIGUOUS` holds a few texts
reasonable readers would disagree on; they are not scored. Comments group the texts by kind, so recall
can be given by kind.
"""

REVOCATIONS = (
    # keywords typed as the whole message
    "Alto…",
    "¡ALTO¡",
    "alto!!!!!",
    "ALTO.",
    "alto!",
    "¡¡ALTO!!",
    "ＡＬＴＯ",
    "alto alto alto",
    "ALTO 🛑",
    "parar",
    "Para.",
    "PARA!!",
    "Detener",
    "detener.",
    "cancelar",
    "Cancelar!",
    "BAJA",
    "Baja.",
    "No más",
    "NO MAS!!",
    "¡NO MÁS!",
    "Basta",
    "¡Basta ya!",
    "desuscribir",
    # a. a keyword followed only by a courtesy or filler word or two
    "alto por favor",
    "ALTO GRACIAS",
    "cancelar porfa",
    "baja gracias",
    "para ya",
    "no más gracias",
    "detener xfa",
    "basta porfavor",
    "Baja por favor!",
    "alto ya",
    "cancelar de una vez",
    "stop porfa",
    "parar, gracias",
    "no mas plis",
    "unsubscribe porfa",
    # b. a complaint that ends in a stop request
    "qué fastidio con estos mensajes, ALTO",
    "ya me tienen cansada, paren",
    "son las 2 de la mañana y me siguen llegando, basta",
    "esto es acoso, ya no me escriban",
    "cada rato me llegan estos msj, ya para",
    "que molestia!! ya dejen de mandar",
    "por qué me siguen mandando esto? alto",
    "ya les dije mil veces, NO MÁS",
    "esto es spam, para",
    "me tienen harto con sus mensajes, ya paren",
    "estoy en el trabajo y el cel no deja de sonar. ya estuvo, alto",
    "ay no, otra vez estos mensajes... cancelar",
    # c. "deja de enviar/mandar" followed by something other than "me" or "mensajes"
    "deja de mandar esto",
    "dejen de enviar esta basura",
    "deje de mandar cosas a este numero",
    "ya dejen de mandar estas cosas",
    "dejen de enviar sus mensajitos",
    "dejá de mandar esas tonterías",
    "paren de mandar eso",
    "deja de enviar juegos a este cel",
    "dejen de mandar porquerías al 555-0187",
    "stop mandando textos",
    "deje de enviar notificaciones",
    # d. a protest about never signing up, followed by a removal request
    "yo nunca me inscribí a esto, sáquenme",
    "nunca me registré, borren mi número",
    "no me suscribí a nada, denme de baja",
    "nunca pedí estos mensajes, quítenme de la lista",
    "yo no me apunté a ningún juego, no me escriban",
    "nunca les di mi número, bórrenlo",
    "no sé quién me inscribió pero sáquenme",
    "jamás acepté recibir esto. baja",
    "No me anote en nada, saquenme porfa",
    "yo no autoricé estos mensajes, elimínenme",
    # tú
    "ya no me mandes nada",
    "no me vuelvas a escribir",
    "deja de textearme",
    "bórrame de tu lista",
    "quítame de tus contactos",
    "no me escribas nunca más",
    "olvida mi número",
    "dejame tranquila",
    # usted
    "deje de enviarme mensajes por favor",
    "No me escriba más, gracias",
    "sáqueme de su lista por favor",
    "borre mi número de su sistema",
    "no me envíe más mensajes",
    "Le pido que no me contacte más",
    "déjeme tranquilo",
    # ustedes
    "no me manden más nada",
    "quítenme de sus mensajes",
    "dejen de mandarme mensajes",
    "ya no me escriban",
    "bórrenme de su sistema",
    "no me vuelvan a mandar mensajes",
    "ya déjenme en paz!!!",
    "no me molesten más",
    "dejen de molestar",
    "no me texteen más",
    "detengan los mensajes",
    # vos
    "dejá de mandarme mensajes",
    "no me escribás más",
    "sacame de la lista, che",
    "borrá mi número por favor",
    "no me mandés más mensajes",
    # baja, suscripción, consentimiento, datos
    "quiero darme de baja",
    "dame de baja",
    "denme de baja porfa",
    "cancela mi suscripción",
    "cancelen todo",
    "desuscríbanme",
    "revoco mi consentimiento para recibir mensajes",
    "retiro mi permiso para que me envíen textos",
    "ya no doy permiso para que me escriban",
    "ya no quiero recibir mensajes",
    "ya no me interesa, quítenme",
    "elimina mis datos",
    "borren toda mi información",
    "bloqueen mi número",
    "no quiero saber nada de este juego, no me escriban",
    # wrong number, who is this
    "numero equivocado!!",
    "se equivocaron de número",
    "este número ya no es de luis, dejen de escribir",
    "no conozco a ningún bob, número equivocado, no manden más",
    "¿Quién habla? No me escriba más",
    "quién es?? ya no me manden nada",
    # txt-speak and typos
    "q ya no me manden msj",
    "xfa ya no me escriban",
    "porfa borren mi numero",
    "no mas msjs",
    "ya no kiero sus msjs",
    "dejen d mandar msjs",
    "nomas ya no me escriban",
    "para ya de mandarme msjs",
    "ALTO A LOS MENSAJES",
    # Spanglish
    "plis ya no me manden texts",
    "remove me porfa",
    "ya no quiero los texts, unsubscribe me",
    "wrong number, no conozco a nadie ahí",
    # rants
    "Miren, no sé quiénes son ni cómo consiguieron mi número, pero llevo toda la semana recibiendo estos "
    "mensajes de piedra, papel o tijera y yo nunca pedí nada de eso. Por favor borren mi número de su "
    "lista y no me vuelvan a escribir. Gracias.",
    "hola buenas, disculpe la molestia pero ya no quiero participar en el juego ni recibir mensajes, mi "
    "hijo usó mi cel sin permiso. Por favor ya no manden nada a este número, muchas gracias y bendiciones 🙏",
    "YA BASTA!!! TODO EL DÍA CON SUS MENSAJES, NO ME INTERESA SU JUEGO, BÓRRENME YA",
)

GAME_TALK = (
    # commands
    "jugar piedra luis",
    "tirar papel ana",
    "Piedra",
    "Tijeras",
    "papel!",
    "tijera luis",
    "papel carlos",
    "apodo mariposa",
    "apodo el_jefe",
    "Partidas",
    "Puntos",
    "otra tijeras",
    "otra papel",
    "AYUDA",
    "ayuda tirar",
    "lang es",
    "idioma en",
    # "para" meaning "for"
    "piedra para luis",
    "tijeras para maria",
    "papel para la campeona",
    "tirar piedra para ana",
    "para qué sirve el comando partidas?",
    "para mí es muy fácil ganarle a bob",
    "para nada, otra ronda",
    "para la próxima te gano",
    "para eso practiqué toda la semana",
    "juego para ganar, no para perder",
    "q hago para ver mis puntos?",
    "para cuando la revancha bob?",
    # alto, baja, basta, cancelar, no más, parar in other senses
    "no más tijeras para mí, ahora piedra",
    "te gané, no más pretextos bob",
    "tu puntaje anda bien bajo jaja",
    "wow que puntaje tan alto tiene ana",
    "alto ahí! yo tiré primero",
    "ana está en lo más alto del top",
    "bajé al lugar 10 del top :(",
    "basta de perder, ahora sí gano. piedra ana",
    "ya basta de tirar papel bob, eres bien predecible",
    "quiero cancelar mi tiro, era tijeras",
    "cómo cancelo el reto que le mandé a bob?",
    "ya no tiro piedra nunca más jaja",
    "nadie me para hoy 🔥",
    "no pares ahora, otra",
    "no te detengas, revancha!",
    "perdí otra vez, voy a parar un rato y al rato sigo",
    # nicknames that look like opt-out words
    "tirar piedra alto",
    "jugar tijeras baja",
    "papel nomas",
    "apodo alto_voltaje",
    "tirar papel cancelar",
    # about other players
    "bob no para de mandarme retos",
    "dile a ana que deje de hacer trampa",
    "luis no deja de presumir que va ganando",
    "deja de ganar bob!!",
    "deja de esconderte ana y juega",
    "bob es bien tramposo, siempre tira piedra",
    # chatter
    "no puedo parar de perder jaja",
    "nunca voy a dejar de jugar esto",
    "quién va ganando?",
    "cómo se juega?",
    "qué le gana a la piedra?",
    "el papel le gana a la piedra, no?",
    "ya merito te alcanzo en el top",
    "bien jugado luis, revancha",
    "¿puedo jugar con alguien random? piedra",
    "cuántas partidas llevo?",
    "mis puntos?",
    "ya no quiero perder, dame chance bob",
    # Spanish and English game words mixed
    "paper para luis",
    "throw piedra carlos",
    "t tijeras ana",
    "jugar rock luis",
    "scissors para ana",
)

OTHER_TEXT = (
    "holaa",
    "buenas tardes",
    "quién eres?",
    "¿quién habla?",
    "cuánto cuesta esto?",
    "es gratis?",
    "gracias!",
    "muchas gracias",
    "jajaja",
    "oki",
    "eres un robot?",
    "de dónde me escriben?",
    "buenos días",
    "para cuándo llega mi pedido?",
    "ya voy para allá",
    "te llamo al rato",
    "qué onda",
    "👋",
    "la parada del camión está en la esquina",
    "bájale al volumen que está muy alto",
)

AMBIGUOUS = (
    "ya estuvo",
    "me salgo",
    "ya me cansé",
    "cómo consiguieron mi número?",
)
