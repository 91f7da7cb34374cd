"""The exact words a Spanish-speaking player reads, one case per branch of every Spanish reply.

As test_reply_texts.py is for the English: a changed word, a wrong article ("a la tijera", "al
papel") or a lost plural is a failing test, and this table is the Spanish catalogue's review.
test_replies.py proves each fits one segment for any argument.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from serverless_rps import replies, replies_es
from serverless_rps.rules import Move, Outcome

PROGRAM = replies.Program("Acme RPS", "help@acme.example")
HOUR = 60 * 60
DAY = 24 * HOUR

CASES: list[tuple[str, Callable[[], str | None], str | None]] = [
    (
        "opt-in confirmation",
        lambda: replies_es.opt_in_confirmation(PROGRAM),
        "¡Bienvenido a Acme RPS! Frecuencia: depende de tu juego. "
        "Pueden aplicar tarifas de mensajes y datos. AYUDA para ayuda, ALTO para cancelar.",
    ),
    (
        "program help",
        lambda: replies_es.program_help(PROGRAM),
        "Acme RPS: juego por SMS. Ayuda: help@acme.example. Pueden aplicar tarifas de mensajes y datos. "
        "ALTO para cancelar.",
    ),
    (
        "opt-out confirmation",
        lambda: replies_es.opt_out_confirmation(PROGRAM),
        "Acme RPS: te diste de baja y ya no te enviaremos mensajes. Escribe ALTA para volver.",
    ),
    (
        "help",
        replies_es.help_overview,
        "APODO <nombre> para unirte, TIRAR <jugada> <apodo> para jugar (sin apodo: alguien al azar), "
        "OTRA <jugada>, PARTIDAS, PUNTOS, TOP. AYUDA <comando>: detalles.",
    ),
    (
        "unknown help topic",
        replies_es.unknown_help_topic,
        "No hay ayuda sobre eso. Comandos: APODO, TIRAR, OTRA, PARTIDAS, PUNTOS, TOP, IDIOMA, ALTO. "
        "Escribe AYUDA para ver todo.",
    ),
    ("help on nothing", lambda: replies_es.help_topic("dance"), None),
    ("empty", replies_es.empty_message, "Tu mensaje no tiene texto. Escribe AYUDA para ver los comandos."),
    (
        "unknown",
        replies_es.unknown_command,
        "Disculpa, no entiendo ese mensaje. Escribe AYUDA para ver los comandos, ALTO para no recibir mas.",
    ),
    ("nick usage", replies_es.nick_usage, "Para unirte, escribe APODO y un nombre, por ejemplo: APODO ana"),
    (
        "nick invalid",
        replies_es.nick_invalid,
        "Los apodos llevan de 3 a 15 letras, cifras o _ y no pueden ser un comando ni una jugada. "
        "Prueba otro.",
    ),
    (
        "nick taken",
        lambda: replies_es.nick_taken("beto"),
        "Lo siento, beto ya tiene dueño. Escribe APODO con otro nombre.",
    ),
    (
        "nick taken by a look-alike",
        lambda: replies_es.nick_taken_look_alike("Iuis", "luis"),
        "Lo siento, Iuis se parece demasiado a luis, que ya tiene dueño. Escribe APODO con otro nombre.",
    ),
    (
        "nick registered",
        lambda: replies_es.nick_registered("ana"),
        "¡Listo, ana! Reta a alguien: TIRAR <jugada> <su apodo>, como TIRAR piedra bob. "
        "AYUDA para ver los comandos.",
    ),
    (
        "nick changed",
        lambda: replies_es.nick_changed("ana", "reina"),
        "Ahora eres reina (antes ana). Tus partidas en curso siguen igual.",
    ),
    ("nick unchanged", lambda: replies_es.nick_unchanged("ana"), "Ya eres ana."),
    (
        "not registered",
        replies_es.not_registered,
        "Primero elige un apodo: escribe APODO y un nombre, como APODO ana",
    ),
    (
        "again usage",
        replies_es.again_usage,
        "Para retar otra vez a tu rival anterior, escribe OTRA y una jugada, como: OTRA papel",
    ),
    (
        "no last opponent",
        replies_es.no_last_opponent,
        "No has terminado ninguna partida, no hay a quién volver a retar. TIRAR <jugada> <apodo>",
    ),
    (
        "last opponent gone",
        lambda: replies_es.last_opponent_gone("beto"),
        "beto ya no juega con ese apodo. Reta a alguien: TIRAR <jugada> <apodo>",
    ),
    (
        "throw usage",
        replies_es.throw_usage,
        "Para jugar, escribe TIRAR, una jugada y un apodo, como: TIRAR piedra bob",
    ),
    (
        "unknown move",
        replies_es.unknown_move,
        "Las jugadas son piedra, papel o tijera. Por ejemplo: TIRAR piedra bob",
    ),
    (
        "impossible nickname",
        lambda: replies_es.unknown_player(None),
        "Nadie puede tener ese apodo. Escribe PARTIDAS para ver tus partidas.",
    ),
    (
        "nobody by that name",
        lambda: replies_es.unknown_player("zed"),
        "Nadie juega con el apodo zed. Revisa el nombre o dile que escriba APODO.",
    ),
    ("throw at self", replies_es.cannot_throw_at_self, "No puedes jugar contra ti. Reta a otro apodo."),
    (
        "already thrown",
        lambda: replies_es.already_thrown("beto"),
        "Ya le tiraste a beto. Espera su jugada; te aviso el resultado.",
    ),
    (
        "too many games",
        lambda: replies_es.too_many_open_games(20),
        "Tienes 20 partidas abiertas, el tope permitido. Espera algunas respuestas primero (PARTIDAS).",
    ),
    (
        "opponent left",
        lambda: replies_es.opponent_left("ana"),
        "ana se fue del juego y tu jugada contra esa persona queda anulada. "
        "Escribe PARTIDAS para ver tus partidas.",
    ),
    (
        "opponent busy",
        lambda: replies_es.opponent_too_busy("beto"),
        "beto tiene demasiados retos pendientes ahora mismo. Vuelve a intentarlo luego.",
    ),
    (
        "throw waiting",
        lambda: replies_es.throw_waiting("beto", Move.SCISSORS),
        "Tiraste tijera contra beto. Te aviso cuando responda.",
    ),
    (
        "challenged",
        lambda: replies_es.challenged("ana"),
        "¡ana te reta a piedra, papel o tijera! Responde TIRAR y tu jugada, como: TIRAR piedra ana",
    ),
    (
        "won against scissors",
        lambda: replies_es.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "beto"),
        "¡Ganaste! Tu piedra le gana a la tijera de beto. PUNTOS para ver tus totales.",
    ),
    (
        "won against rock",
        lambda: replies_es.result(Outcome.WIN, Move.PAPER, Move.ROCK, "beto"),
        "¡Ganaste! Tu papel le gana a la piedra de beto. PUNTOS para ver tus totales.",
    ),
    (
        "won against paper",
        lambda: replies_es.result(Outcome.WIN, Move.SCISSORS, Move.PAPER, "beto"),
        "¡Ganaste! Tu tijera le gana al papel de beto. PUNTOS para ver tus totales.",
    ),
    (
        "lost to paper",
        lambda: replies_es.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "beto"),
        "Perdiste. El papel de beto le gana a tu piedra. PUNTOS para ver tus totales.",
    ),
    (
        "lost to scissors",
        lambda: replies_es.result(Outcome.LOSS, Move.PAPER, Move.SCISSORS, "beto"),
        "Perdiste. La tijera de beto le gana a tu papel. PUNTOS para ver tus totales.",
    ),
    (
        "a tie",
        lambda: replies_es.result(Outcome.TIE, Move.PAPER, Move.PAPER, "beto"),
        "¡Empate! Papel contra papel con beto. PUNTOS para ver tus totales.",
    ),
    (
        "a stranger's result",
        lambda: replies_es.lobby_result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "beto"),
        "Tu rival al azar: beto. ¡Ganaste! Tu piedra le gana a la tijera de beto. "
        "PUNTOS para ver tus totales.",
    ),
    (
        "no games",
        lambda: replies_es.games_summary([], []),
        "No tienes partidas abiertas. Reta a alguien: TIRAR <jugada> <apodo>",
    ),
    (
        "games both ways",
        lambda: replies_es.games_summary(["beto"], ["carla", "dani"]),
        "Esperas a: beto. Te esperan: carla, dani.",
    ),
    (
        "games shortened",
        lambda: replies_es.games_summary([f"jugador{n:03d}" for n in range(30)], []),
        "Esperas a: " + ", ".join(f"jugador{n:03d}" for n in range(11)) + " y otros 19.",
    ),
    (
        "a lobby throw with days left",
        lambda: replies_es.games_summary([], [], Move.PAPER, 3 * DAY),
        "Esperas a alguien al azar con papel (vence en 3 dias). No tienes otras partidas abiertas.",
    ),
    (
        "a lobby throw with hours left",
        lambda: replies_es.games_summary(["beto"], [], Move.ROCK, 5 * HOUR),
        "Esperas a: beto. Esperas a alguien al azar con piedra (vence en 5 horas).",
    ),
    (
        "a lobby throw about to expire",
        lambda: replies_es.games_summary([], [], Move.ROCK, HOUR),
        "Esperas a alguien al azar con piedra (vence en menos de 2 horas). "
        "No tienes otras partidas abiertas.",
    ),
    (
        "score, no streak",
        lambda: replies_es.score(3, 1, 0, 0),
        "Victorias 3, derrotas 1, empates 0. Racha: sin racha.",
    ),
    (
        "score, one win",
        lambda: replies_es.score(1, 0, 0, 1),
        "Victorias 1, derrotas 0, empates 0. Racha: 1 victoria seguida.",
    ),
    (
        "score, wins",
        lambda: replies_es.score(5, 0, 0, 5),
        "Victorias 5, derrotas 0, empates 0. Racha: 5 victorias seguidas.",
    ),
    (
        "score, one loss",
        lambda: replies_es.score(0, 1, 0, -1),
        "Victorias 0, derrotas 1, empates 0. Racha: 1 derrota seguida.",
    ),
    (
        "score, losses",
        lambda: replies_es.score(0, 2, 0, -2),
        "Victorias 0, derrotas 2, empates 0. Racha: 2 derrotas seguidas.",
    ),
    (
        "nobody on top",
        lambda: replies_es.top([]),
        "Nadie ha ganado ninguna partida. ¡Gana la primera! TIRAR <jugada> <apodo>",
    ),
    (
        "top three",
        lambda: replies_es.top([("ana", 12), ("beto", 10), ("carla", 10)]),
        "Mejores por victorias: 1. ana 12, 2. beto 10, 3. carla 10",
    ),
    (
        "top: your place",
        lambda: replies_es.top_with_rank([("ana", 12)], 14, 1),
        "Mejores por victorias: 1. ana 12. Tu puesto: #14, 1 victoria",
    ),
    (
        "top: not on the board",
        lambda: replies_es.top_unranked([("ana", 12)]),
        "Mejores por victorias: 1. ana 12. Tu puesto: ninguno por ahora",
    ),
    (
        "lobby waiting",
        lambda: replies_es.lobby_waiting(Move.PAPER),
        "Tiraste papel para alguien al azar. Te aviso cuando alguien juegue contigo.",
    ),
    (
        "lobby already waiting",
        lambda: replies_es.lobby_already_waiting(Move.ROCK),
        "Ya esperas a alguien al azar con piedra. Te aviso cuando alguien juegue.",
    ),
    (
        "reply limit",
        lambda: replies_es.reply_limit_reached(20),
        "¡Son muchos mensajes! Para que el juego siga gratis, guardo silencio unos 20 min. "
        "Tus jugadas siguen contando.",
    ),
    (
        "language set",
        replies_es.language_set,
        "Listo, desde ahora te escribo en español. LANG en to play in English.",
    ),
    (
        "language usage, in both",
        replies_es.language_usage,
        "Idioma: IDIOMA es (español) o IDIOMA en (inglés). Language: LANG en (English) or LANG es (Spanish).",
    ),
]


@pytest.mark.parametrize(("call", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_spanish_reply_says(call: Callable[[], str | None], expected: str | None) -> None:
    assert call() == expected


@pytest.mark.parametrize(
    ("topic", "opening"),
    [
        ("nick", "APODO <nombre> elige tu apodo"),
        ("throw", "TIRAR <jugada> <apodo> juega contra ese apodo"),
        ("again", "OTRA <jugada> reta otra vez a tu rival anterior"),
        ("games", "PARTIDAS muestra a quién esperas"),
        ("top", "TOP muestra el ranking por victorias"),
        ("score", "PUNTOS muestra tus victorias"),
        ("stop", "ALTO borra tus datos y cancela tus partidas pendientes. ALTA para volver."),
        ("language", "IDIOMA es o IDIOMA en elige el idioma"),
    ],
)
def test_spanish_help_on_each_command(topic: str, opening: str) -> None:
    text = replies_es.help_topic(topic)
    assert text is not None
    assert text.startswith(opening)


def test_the_spanish_consent_replies_carry_what_the_english_ones_do() -> None:
    """CTIA's opt-in confirmation and HELP, as the English carry them: the program, how often, the
    rates, how to get help and support, how to stop (compliance.md's Spanish rows)."""
    welcome, help_ = replies_es.opt_in_confirmation(PROGRAM), replies_es.program_help(PROGRAM)
    for text in (welcome, help_):
        assert PROGRAM.name in text
        assert "Pueden aplicar tarifas de mensajes y datos." in text
        assert "ALTO para cancelar" in text
    assert "Frecuencia: depende de tu juego." in welcome
    assert "AYUDA para ayuda" in welcome
    assert PROGRAM.support in help_
    assert "ALTA para volver" in replies_es.opt_out_confirmation(PROGRAM)


@pytest.mark.parametrize("character", "áíóúÁÍÓÚ")
def test_no_spanish_reply_holds_a_vowel_gsm7_lacks(character: str) -> None:
    for _, call, _expected in CASES:
        text = call()
        assert text is None or character not in text
