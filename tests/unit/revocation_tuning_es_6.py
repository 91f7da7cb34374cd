"""A Spanish tuning set: round 3's third probe, texts of every kind of request written after the second
probe was read, to see once more how far the rules reached on text they had not been written for.

Written by the engineer who changed the classifier, in one sitting, before the rules were changed
for them, and scored once on first contact: 53 of 60 (88.3%), no game talk taken (docs/opt-out.md).
The rules were then changed for the kinds it missed, so from then on it is tuning data. `AMBIGUOUS`
holds texts a reasonable reader could take either way; they are not scored.
"""

REVOCATIONS = (
    "PARA",
    "para por favor",
    "Paren ya por favor",
    "alto!!",
    "ALTO YA",
    "no me manden mensajes",
    "no me envíen mensajes",
    "no envíen mensajes a este número",
    "no quiero mensajes",
    "ya no más",
    "ya basta de mensajes por favor",
    "ya no me escriban, gracias",
    "no me interesa, gracias",
    "no me interesa, bórrenme",
    "no gracias, no me interesa",
    "no estoy interesada, no escriban más",
    "ya no quiero recibir sus mensajes",
    "quiero cancelar",
    "cancelar mensajes",
    "quiero que me borren de su lista",
    "bórrenme de la lista por favor",
    "eliminen este número",
    "saquen este número de su lista",
    "quítenme de aquí",
    "no me vuelvan a mandar nada",
    "ya no me manden nada por favor",
    "dejen de enviar mensajes",
    "dejen de mandar mensajes a este número",
    "por favor dejen de escribirme",
    "Por favor ya no me escriban",
    "no conozco a nadie ahí, dejen de escribir",
    "¿quién es? no me escriban",
    "¿de dónde sacaron mi número? bórrenlo",
    "yo nunca me inscribí, bórrenme",
    "nunca me registré, ya no me escriban",
    "no pedí estos mensajes",
    "no solicité esto",
    "me llegan mensajes a cada rato, ya paren",
    "son las 3 de la mañana, ya no escriban",
    "ya estoy harto, dejen de escribir",
    "qué fastidio, paren",
    "es spam, alto",
    "esto es acoso",
    "los voy a denunciar si no paren",
    "voy a reportar este número",
    "no juego eso, no me escriban",
    "no sé jugar ni quiero, bórrenme",
    "ya no me interesa el juego, dejen de escribir",
    "ya no quiero jugar, sáquenme",
    "no quiero jugar más, no me manden mensajes",
    "me quiero salir de este juego",
    "salirme",
    "baja",
    "BAJA por favor",
    "darme de baja",
    "quiero la baja",
    "dénme de baja ya",
    "me pueden dar de baja?",
    "stop please, no me escriban",
    "no más texts",
)

GAME_TALK = (
    # A precision probe written after the third probe was read, game talk only: none of these 12
    # was taken on first contact.
    "no quiero jugar con luis",
    "no me mandes más retos luis",
    "ya no me mandes piedra",
    "cómo salgo de la partida con luis",
    "cómo cancelo el reto",
    "deja de mandarme retos luis",
    "ya no quiero revancha",
    "apaga el temporizador",
    "dile a luis que pare de escribir",
    "luis ya párale",
    "no quiero jugar con luis, es tramposo",
    "ya no quiero jugar contra luis",
    "alto, era piedra",
    "para, quise decir papel",
    "ya basta luis, tira",
    "no me interesa la revancha",
)

OTHER_TEXT = ()

AMBIGUOUS = ("no gracias",)
