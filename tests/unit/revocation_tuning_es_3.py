"""A third Spanish tuning set: the round-3 batch, texts of the kinds the third held-out set showed
the phrase grammar missing, each text new and written before the rules changed.

Written by the engineer who then changed the classifier, and scored once on first contact
(docs/opt-out.md gives that figure): the same hand wrote the texts and the rules, so the figures
after are no measure of generalisation, only of the kinds being read. The kinds: words run
together and spellings (`nomasmensajes`, `aki`, `kanselar`, `desuscrivanme`); regional ways to
say enough (ya chole, ya estuvo, ya basta, acho, mano, diache); a stop intent aimed at the texts
with a verb or target no list named (spamear, bloquear, salir de la lista, no buscar por aquí);
questions asking how to stop or get out; a wish not to receive in other words; the company or the
bot addressed. The game talk leans on the same words, as players would use them.
"""

REVOCATIONS = (
    # run together and spellings
    "yanomemandenmensajes",
    "dejendeescribir",
    "nomasmsjs",
    "altooo ya",
    "kancelar",
    "sakenme de la lista",
    "desuscribanme ya",
    "no m escriban mas x aki",
    # regional ways to say enough, aimed at the texts
    "ya chole, no más mensajes",
    "ya estuvo con los mensajitos",
    "ya basta de mensajes",
    "acho, dejen de escribirme",
    "mano, ya no me manden nada",
    "güey ya deja de mandarme mensajes",
    "chale, ya no me escriban",
    # stop intent at the texts with a verb or target no list named
    "dejen de spamearme",
    "ya no me spameen",
    "bloqueen mi número de su sistema",
    "bloquéenme",
    "quiero salirme de esto",
    "quiero salir de su lista",
    "no me busquen más por aquí",
    "no me contacten por este medio",
    "ya no quiero que me lleguen mensajes",
    "no deseo recibir más mensajes",
    "no deseo que me escriban",
    # questions asking how to stop or get out
    "¿cómo hago para que paren los mensajes?",
    "como me salgo de esta lista",
    "cómo dejo de recibir esto",
    "¿qué pongo para que ya no me escriban?",
    "¿cómo cancelo estos mensajes?",
    "¿me pueden quitar de la lista?",
    "¿pueden dejar de escribirme?",
    # the company addressed
    "señores de la empresa, dejen de escribirme",
    "oigan los del bot, ya no me manden mensajes",
    "equipo de rps: sáquenme de su lista",
)

GAME_TALK = (
    "¿cómo hago para ganarle a luis?",
    "¿cómo dejo de perder?",
    "ya chole con perder, otra",
    "ya estuvo, te gané",
    "ya basta luis, tira ya",
    "mano, tira piedra",
    "luis no deja de spamear piedra",
    "quiero salir del top? jamás",
    "¿cómo cancelo mi reto con luis?",
    "no me busquen en el top, voy perdiendo",
    "dejen de hacer trampa",
    "acho, qué buena jugada",
)

OTHER_TEXT = (
    "ya chole con este calor",
    "¿cómo hago para llegar al centro?",
    "mano, ya llegué",
)
