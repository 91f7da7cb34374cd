"""A second Spanish tuning set: the round-2 batch, texts of the kinds two held-out sets showed
the classifier missing, each text new.

Written by the engineer who then changed the classifier, before changing it, and scored once on
first contact (docs/opt-out.md gives that figure): the same hand wrote the texts and the rules,
so the figures after are no measure of generalisation, only of the kinds being read. The texts
follow kinds, not the held-out set's sentences: removal verbs with other objects (borrar,
eliminar, quitar, olvidar, bloquear), "déjame tranquilo", spellings (repeated letters, digits for
letters, typos, txt-speak), a negated request, stop verbs with the messages as their object,
"desuscribir", consent in so many words, a stop after a complaint, Spanglish, long messages with a
request inside. The game talk leans on the same words, as players would use them.
"""

REVOCATIONS = (
    # removal verbs with other objects
    "borra mis datos por favor",
    "eliminen mi información de su sistema",
    "quiten mi número de sus listas",
    "olviden mi número",
    "bórrenme de todo",
    "sáquenme de sus contactos",
    "voy a bloquear este número",
    "bloquea mi número ya",
    # déjame tranquilo, en paz
    "déjenme tranquilo",
    "déjame tranquila ya",
    "ya déjenme en paz porfa",
    # spellings: repeated letters, digits for letters, typos
    "ALTOOOO",
    "basta yaaa",
    "paren yaaa",
    "n0 m4s",
    "dejen de escribirmeee",
    "nooo me escriban mas",
    "dejen de escirbirme",
    "no me escirban",
    "deja de mandarme mensjaes",
    # txt-speak
    "ya no m escriban",
    "x favor ya no me manden msjs",
    "no kiero mas mensajes",
    "ya no qiero recibir nada",
    "dejen d escribir",
    # unsubscribe
    "desuscríbanme porfa",
    "quiero desuscribirme",
    "cómo me desuscribo?",
    "quiero anular mi suscripción",
    # a negated request
    "por favor no me escriban más",
    "favor de no enviar más mensajes",
    "le pido que ya no me envíe mensajes",
    "les pido no contactarme",
    "no me sigan escribiendo",
    # stop verbs with the messages as their object
    "paren los mensajes",
    "detengan todo esto",
    "cancelen los mensajes",
    "alto a los textos",
    "basta con los mensajes",
    "ya para con los mensajes",
    # consent in so many words
    "no tienen mi permiso para escribirme",
    "no autorizo que me escriban",
    "retiro mi autorización",
    # a stop after a complaint
    "qué fastidio, alto",
    "harta de sus mensajes, basta",
    "esto ya es acoso. alto",
    "reportado como spam, paren",
    "ya no aguanto estos mensajes, paren ya",
    "me tienen hasta la madre, ya párenle",
    # Spanglish
    "stop mandándome mensajes",
    "please ya no me escriban",
    "stop con los mensajes",
    "delete mi número",
    # long messages with a request inside
    "Buenas tardes, creo que alguien registró mi número por error en su juego de piedra, papel o "
    "tijeras. Yo no juego y no quiero recibir nada. Les pido que borren mi número y dejen de escribirme. "
    "Gracias.",
    "ya estuvo bueno, llevo dos semanas recibiendo sus mensajitos y nunca me inscribí, dejen de mandar "
    "mensajes a este número",
)

GAME_TALK = (
    # removal verbs about the game
    "borra mi último tiro, era papel",
    "olvídalo, piedra",
    "olvida eso bob, te gané",
    "quita a luis del top",
    "bloquea a bob que hace trampa",
    "cancela mi reto con luis",
    "elimina esa partida con ana",
    # déjame, to a player
    "déjame tranquilo bob, ya voy a tirar",
    "déjame pensar ana",
    "no me dejes ganar ana",
    # spellings in trash talk
    "paraaa bob, me ganaste otra vez",
    "ALTOOO ahí, yo gané",
    "dejen d hacer trampa",
    "ya no kiero perder jaja",
    "stop haciendo trampa bob",
    # para meaning for
    "para eso estoy practicando",
    "para esto no hay revancha?",
    "para ella es fácil",
    "para qué tiras piedra siempre?",
    "para mí que bob hace trampa",
    "para la otra no me ganas",
    # alto, basta, no más, about the game
    "alto nivel el de ana",
    "basta de excusas luis",
    "no más excusas ana, piedra",
    "ya basta de ganarme ana",
    "ya no tiro tijeras, ahora papel",
    "no más trampas bob",
    # about other players
    "detengan a ana, nadie le gana",
    "bob no deja de mandarme retos",
    "ya deja de presumir bob",
    "dejen de molestar a ana, es nueva",
    "deja de esconderte bob",
    "no me escribas cosas feas bob",
    "dile a luis que ya no me mande retos",
    # questions and chatter
    "cómo cambio mi apodo?",
    "ya me aburrí de perder, otra",
    "nadie me detiene hoy",
    "no puedo dejar de jugar",
    "te voy a bloquear el paso jaja",
    # commands
    "apodo desuscribir",
    "tirar piedra borrar",
    "jugar papel altooo",
    "papel d3tener",
    "tijeras tranquilo",
    "apodo olvidame",
)

OTHER_TEXT = (
    "déjame en la esquina porfa",
    "borra esa foto jaja",
    "olvidé mis llaves",
    "el camión no paró en mi parada",
    "perdón, era para otra persona",
    "alto ahí, voy en camino",
)
