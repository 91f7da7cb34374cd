"""A Spanish tuning set: round 3's second probe, texts of every kind of request written after
the round's rules had read the first probe, to see again how far they reached on text they had
not been written for.

Written by the engineer who changed the classifier, in one sitting, before the rules were changed
for them, and scored once on first contact: 52 of the 64 texts then labelled revocations (81.3%; one
miss was then judged ambiguous and moved to `AMBIGUOUS`: 52/63, 82.5%, of those scored now), no game
talk taken (docs/opt-out.md). The rules were then changed for the kinds it missed, so from then on
it is tuning data. `AMBIGUOUS` holds texts a reasonable reader could take either way; they are not
scored.
"""

REVOCATIONS = (
    "por favor dejen de enviarme mensajes",
    "ya dejen de escribir",
    "no me manden nada",
    "no manden más",
    "no quiero que me escriban",
    "ya no quiero sus mensajes",
    "ya no quiero estos mensajes",
    "quiero que dejen de escribirme",
    "les pido que no me escriban",
    "les pido que dejen de mandarme mensajes",
    "favor de no escribir",
    "favor de ya no mandar mensajes",
    "no me interesa su juego, dejen de escribir",
    "no juego, bórrenme",
    "no sé quién es, dejen de escribir",
    "¿quién les dio mi número? bórrenlo",
    "eliminen mis datos",
    "borren mis datos por favor",
    "quiero darme de baja de esto",
    "denme de baja",
    "me doy de baja",
    "me quiero dar de baja",
    "baja por favor",
    "bajaaa",
    "ALTO!!!",
    "alto ya",
    "ya alto",
    "paren por favor",
    "paren",
    "para ya por favor",
    "basta por favor",
    "ya basta, gracias",
    "no más por favor",
    "no más mensajes por favor",
    "ni un mensaje más",
    "no me molesten más",
    "dejen de molestarme",
    "ya no me molesten",
    "me tienen harto con sus mensajes",
    "qué fastidio, ya no me escriban",
    "es mi número de trabajo, dejen de escribir",
    "número incorrecto",
    "tienen el número equivocado",
    "no soy yo, se equivocaron",
    "este no es mi número",
    "no es mi número",
    "cancelen esto",
    "cancelen mi suscripción",
    "cancela los mensajes",
    "desactiven los mensajes",
    "apaguen los mensajes",
    "¿cómo desactivo estos mensajes?",
    "¿cómo me salgo?",
    "como me doy de baja",
    "¿cómo hago para darme de baja?",
    "¿dónde me doy de baja?",
    "no deseo participar",
    "no quiero participar, dejen de escribir",
    "no autorizo que me escriban",
    "retiro mi consentimiento",
    "ya no doy permiso para que me escriban",
    "bloquéame",
    "los bloqueé",
)

GAME_TALK = (
    "para bob, tijera",
    "deja de tirar piedra luis",
    "luis, deja de escribirme jaja",
    "ya no juegues con luis",
    "no me escribas luis, tira",
    "dile a luis que ya no me escriba",
    "quiero salir del juego con luis",
    "¿cómo salgo de una partida?",
    "cancela la partida con luis",
    "borra mi jugada",
    "basta de trampas luis",
    "alto luis, me toca",
)

OTHER_TEXT = ()

AMBIGUOUS = ("no conozco este juego",)
