"""A Spanish tuning set: round 4's second probe, every kind of request as people text it, from
Mexico, the Caribbean, Spain, Central and South America and the US, written after the round's
first change was read and before any rule was changed for it, with game talk and other text that
look like requests.

Written by the engineer who changed the classifier, in one sitting, and scored once on first
contact (docs/opt-out.md's table). The rules were then changed for the kinds it missed, so from
then on it is tuning data.
"""

REVOCATIONS = (
    "ya no me manden mensajes por favor",
    "por favor dejen de escribirme",
    "¿cómo me doy de baja?",
    "no quiero recibir más mensajes de este juego",
    "bórrenme de su lista",
    "quítenme de la lista por favor",
    "no me escriban más",
    "número equivocado",
    "no sé quién es, no me escriba",
    "basta ya",
    "ALTO",
    "alto por favor ya",
    "ya no quiero jugar, no me manden nada",
    "dejen de molestar",
    "no me interesa, gracias",
    "no estoy interesado en este juego, bórrenme",
    "eliminen mi número de su base de datos",
    "no autoricé estos mensajes",
    "ya parenle con los mensajes",
    "qué fastidio, ya no me escriban",
    "oigan ya dejen de mandar mensajes",
    "no más mensajes gracias",
    "no me manden más cosas",
    "dejen de mandarme esas cosas",
    "ya no me llegue nada de esto",
    "desuscríbanme por favor",
    "quiero darme de baja",
    "denme de baja",
    "cancelen mi suscripción",
    "no quiero estar en su lista",
    "déjenme en paz ya",
    "ya porfa dejen de escribir 😩",
    "este no es el número de esa persona",
    "dejad de enviarme cosas",
    "no me mandéis nada más",
    "por favor, no me contacten más",
    "les pido que no me vuelvan a escribir",
    "no quiero que me sigan mandando mensajes",
    "me tienen harto con tantos mensajes",
    "stop por favor",
    "ya stop",
    "ya no gracias, bórrenme",
    "jajaja no, ya no me escriban",
    "ya bloqueé este número, no escriban",
)

GAME_TALK = (
    "ya no tires piedra siempre jaja",
    "prefiero jugar papel",
    "no pares, voy ganando",
    "ana ya no quiere jugar",
    "deja de ganar beto",
    "no más papel para mí",
    "otra",
    "puntos",
    "ayuda",
    "jugar piedra",
    "para mí que hace trampa",
    "ya gané jaja",
    "no me ganas",
    "basta de trampas luis",
)

OTHER_TEXT = (
    "para ya la música",
    "no me llames hoy, estoy en el trabajo",
    "jajaja",
    "gracias por el juego",
    "me quitaron el celular en la escuela",
    "mañana te escribo",
)

# Judged ambiguous once scored (round 3 judged "por fa ya no" so): "ya no" may end any sentence.
AMBIGUOUS = ("por favor ya no",)
