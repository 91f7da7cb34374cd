"""A Spanish tuning set: round 4's own batch, written at the kinds the fourth blind sets missed
(Spain's vosotros forms and the whole tú/usted/ustedes paradigm of each stop verb, lists and
legal words, polite conditionals and preferences, infinitives and imperatives with `ya`, regional
verbs and exclamations, misspellings, the game's own nouns as what is sent), several texts of each
kind and game talk that looks like them, with a precision probe of game talk and other text that
uses the round's new words.

Written by the engineer who changed the classifier, in one sitting, before the rules were changed
for them, and scored once on first contact (docs/opt-out.md's table). The rules were then changed
for the kinds it missed, so from then on it is tuning data.
"""

REVOCATIONS = (
    # vosotros, usted, ustedes, tú: imperative, negative, subjunctive, infinitive, progressive
    "dejad de mandarme mensajes",
    "parad ya de escribirme",
    "no me mandéis más mensajes",
    "no me escribáis más",
    "sacadme de la lista",
    "borradme de vuestra lista",
    "quitadme de aquí por favor",
    "dejadme en paz",
    "no me sigáis escribiendo",
    "no me estéis mandando mensajes",
    "os pido que dejéis de escribirme",
    "que dejen de mandarme mensajes",
    "deje usted de escribirme",
    "no me siga mandando mensajes",
    # lists and legal words
    "no llamar",
    "no contactar por favor",
    "añádanme a la lista de no contactar",
    "pongan mi número en la lista de no llamar",
    "revoco todo consentimiento para recibir mensajes",
    "retiro cualquier autorización para contactarme",
    "por la presente revoco mi autorización",
    # polite conditionals and preferences
    "preferiría no recibir más mensajes",
    "prefiero no recibir mensajes",
    "le agradecería que dejaran de escribirme",
    "les agradecería que no me mandaran mensajes",
    "me gustaría que dejaran de enviarme mensajes",
    "quisiera que no me escribieran más",
    "agradecería no recibir más mensajes",
    # infinitives, imperatives with ya
    "PARAR YA",
    "parar los mensajes",
    "para ya con eso",
    "basta ya con los mensajes",
    "dejar de mandar mensajes por favor",
    "ya parad",
    # regional verbs and exclamations
    "qué pereza, dejen de escribirme",
    "qué hueva, ya no me manden nada",
    "no jodan más con los mensajes",
    "ya no me frieguen con sus mensajes",
    "bájenme de la lista",
    "ya bájame de esto",
    "che, dejá de escribirme",
    "güey ya no me mandes mensajes",
    "tío, dejad de escribirme",
    # misspelt, with courtesy and emoji
    "atlo",
    "altoo porfis",
    "porfis ya no me escriban 🙏",
    "dejen de escrbirme",
    "ya no me escirban",
    "baja x fa",
    # the game's own nouns as what is sent
    "no más retos por favor",
    "ya no quiero invitaciones",
    "no me manden más partidas",
    "dejen de mandarme retos",
    "no más invitaciones, sáquenme",
    # a laugh beside the stop
    "jaja ya paren",
    "ya basta jajaja",
)

GAME_TALK = (
    "no más retos de beto",
    "deja de retarme beto",
    "no me mandes más retos ana jaja",
    "ya no quiero jugar con luis, otra partida con ana",
    "jaja para beto, siempre tiras piedra",
    # precision probe: the round's new words in game talk
    "prefiero piedra",
    "preferiría tirar papel",
    "me gustaría una revancha",
    "agrégame al torneo",
    "ponme en la lista de ganadores",
    "quítale la piedra con papel",
    "tira piedra ya",
    "partidas",
    "para la próxima tiro tijera",
)

OTHER_TEXT = (
    "recuérdame darme de baja del gimnasio",
    "prefiero pizza hoy",
    "para ya voy en camino",
    "no llamar a mi jefe hoy, está de vacaciones",
    "qué pereza el lunes",
    "jajaja",
)
