"""Every SMS the game can send, in Spanish: replies.py's catalogue, function for function, for the
players who play in Spanish (catalogue.py says who does, and checks that both catalogues have the
same functions with the same arguments).

Written as a Spanish speaker texts, tú, the game's words as players type them (APODO, TIRAR,
OTRA, PARTIDAS, PUNTOS, TOP, AYUDA, IDIOMA, ALTO; piedra, papel, tijera). Only GSM-7's basic table,
like the English: é, ñ, ü, ¿ and ¡ are in it, but á, í, ó and ú are not, and one of them would
make a reply UCS-2 (70 characters a segment: segments.py says why Smart Encoding would not help).
So the wording goes around them: present tenses ("le gana" for "ganó"), "rival anterior" for
"último rival", "ya tiene dueño" for "ya está ocupado". The one word kept without its accent is
"dias" (in how long a lobby throw has left), as GSM-7 texts write it.

Pure: standard library only. Never echo raw player input: only validated nicknames and moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from serverless_rps import reply_layout
from serverless_rps.replies import Program
from serverless_rps.rules import Move, Outcome
from serverless_rps.segments import SEGMENT_LIMIT

__all__ = [
    "again_usage",
    "already_thrown",
    "cannot_throw_at_self",
    "challenged",
    "empty_message",
    "games_summary",
    "help_overview",
    "help_topic",
    "language_set",
    "language_usage",
    "last_opponent_gone",
    "lobby_already_waiting",
    "lobby_result",
    "lobby_waiting",
    "nick_changed",
    "nick_invalid",
    "nick_registered",
    "nick_taken",
    "nick_taken_look_alike",
    "nick_unchanged",
    "nick_usage",
    "no_last_opponent",
    "not_registered",
    "opponent_left",
    "opponent_too_busy",
    "opt_in_confirmation",
    "opt_out_confirmation",
    "program_help",
    "reply_limit_reached",
    "result",
    "score",
    "throw_usage",
    "throw_waiting",
    "too_many_open_games",
    "top",
    "top_unranked",
    "top_with_rank",
    "unknown_command",
    "unknown_help_topic",
    "unknown_move",
    "unknown_player",
]

# A move's name, and with its article (the game's moves: "piedra, papel o tijera").
MOVES = {Move.ROCK: "piedra", Move.PAPER: "papel", Move.SCISSORS: "tijera"}
_THE = {Move.ROCK: "la piedra", Move.PAPER: "el papel", Move.SCISSORS: "la tijera"}
_TO_THE = {Move.ROCK: "a la piedra", Move.PAPER: "al papel", Move.SCISSORS: "a la tijera"}


def opt_in_confirmation(program: Program) -> str:
    """CTIA's opt-in confirmation, as the English: program, frequency, rates, AYUDA, ALTO."""
    return (
        f"¡Bienvenido a {program.name}! Frecuencia: depende de tu juego. "
        "Pueden aplicar tarifas de mensajes y datos. AYUDA para ayuda, ALTO para cancelar."
    )


def program_help(program: Program) -> str:
    """CTIA's HELP content, as the English: program, support contact, rates, ALTO."""
    return (
        f"{program.name}: juego por SMS. Ayuda: {program.support}. "
        "Pueden aplicar tarifas de mensajes y datos. ALTO para cancelar."
    )


def opt_out_confirmation(program: Program) -> str:
    """The one text after a Spanish opt-out: it confirms the opt-out and nothing else."""
    return f"{program.name}: te diste de baja y ya no te enviaremos mensajes. Escribe ALTA para volver."


_HELP_TOPICS = {
    "nick": (
        "APODO <nombre> elige tu apodo: de 3 a 15 letras, cifras o _. "
        "Los otros jugadores lo usan para retarte."
    ),
    "throw": (
        "TIRAR <jugada> <apodo> juega contra ese apodo; TIRAR <jugada> sola, contra alguien al azar. "
        "Jugadas: piedra, papel, tijera. O simplemente: piedra bob"
    ),
    "again": "OTRA <jugada> reta otra vez a tu rival anterior, por ejemplo: OTRA papel",
    "games": "PARTIDAS muestra a quién esperas y quién te espera a ti.",
    "top": (
        "TOP muestra el ranking por victorias (si hay empate: menos derrotas, luego el primero en llegar)."
    ),
    "score": "PUNTOS muestra tus victorias, derrotas, empates y tu racha actual.",
    "stop": "ALTO borra tus datos y cancela tus partidas pendientes. ALTA para volver.",
    "language": "IDIOMA es o IDIOMA en elige el idioma de mis mensajes: español o inglés (LANG en).",
}


def help_overview() -> str:
    return (
        "APODO <nombre> para unirte, TIRAR <jugada> <apodo> para jugar (sin apodo: alguien al azar), "
        "OTRA <jugada>, PARTIDAS, PUNTOS, TOP. AYUDA <comando>: detalles."
    )


def help_topic(topic: str) -> str | None:
    """Help for one command, by its English name as parsing gives it (`throw` for TIRAR), or None."""
    return _HELP_TOPICS.get(topic.lower())


def unknown_help_topic() -> str:
    return (
        "No hay ayuda sobre eso. Comandos: APODO, TIRAR, OTRA, PARTIDAS, PUNTOS, TOP, IDIOMA, ALTO. "
        "Escribe AYUDA para ver todo."
    )


def empty_message() -> str:
    return "Tu mensaje no tiene texto. Escribe AYUDA para ver los comandos."


def unknown_command() -> str:
    return "Disculpa, no entiendo ese mensaje. Escribe AYUDA para ver los comandos, ALTO para no recibir mas."


def nick_usage() -> str:
    return "Para unirte, escribe APODO y un nombre, por ejemplo: APODO ana"


def nick_invalid() -> str:
    return (
        "Los apodos llevan de 3 a 15 letras, cifras o _ y no pueden ser un comando ni una jugada. "
        "Prueba otro."
    )


def nick_taken(name: str) -> str:
    return f"Lo siento, {name} ya tiene dueño. Escribe APODO con otro nombre."


def nick_taken_look_alike(name: str, holder: str) -> str:
    return (
        f"Lo siento, {name} se parece demasiado a {holder}, que ya tiene dueño. "
        "Escribe APODO con otro nombre."
    )


def nick_registered(name: str) -> str:
    return (
        f"¡Listo, {name}! Reta a alguien: TIRAR <jugada> <su apodo>, como TIRAR piedra bob. "
        "AYUDA para ver los comandos."
    )


def nick_changed(old: str, new: str) -> str:
    return f"Ahora eres {new} (antes {old}). Tus partidas en curso siguen igual."


def nick_unchanged(name: str) -> str:
    return f"Ya eres {name}."


def not_registered() -> str:
    return "Primero elige un apodo: escribe APODO y un nombre, como APODO ana"


def again_usage() -> str:
    return "Para retar otra vez a tu rival anterior, escribe OTRA y una jugada, como: OTRA papel"


def no_last_opponent() -> str:
    return "No has terminado ninguna partida, no hay a quién volver a retar. TIRAR <jugada> <apodo>"


def last_opponent_gone(opponent: str) -> str:
    return f"{opponent} ya no juega con ese apodo. Reta a alguien: TIRAR <jugada> <apodo>"


def throw_usage() -> str:
    return "Para jugar, escribe TIRAR, una jugada y un apodo, como: TIRAR piedra bob"


def unknown_move() -> str:
    return "Las jugadas son piedra, papel o tijera. Por ejemplo: TIRAR piedra bob"


def unknown_player(name: str | None) -> str:
    if name is None:
        return "Nadie puede tener ese apodo. Escribe PARTIDAS para ver tus partidas."
    return f"Nadie juega con el apodo {name}. Revisa el nombre o dile que escriba APODO."


def cannot_throw_at_self() -> str:
    return "No puedes jugar contra ti. Reta a otro apodo."


def already_thrown(opponent: str) -> str:
    return f"Ya le tiraste a {opponent}. Espera su jugada; te aviso el resultado."


def too_many_open_games(limit: int) -> str:
    return (
        f"Tienes {limit} partidas abiertas, el tope permitido. Espera algunas respuestas primero (PARTIDAS)."
    )


def opponent_left(opponent: str) -> str:
    # Only the nickname: nothing else about someone who asked to be forgotten.
    return (
        f"{opponent} se fue del juego y tu jugada contra esa persona queda anulada. "
        "Escribe PARTIDAS para ver tus partidas."
    )


def opponent_too_busy(opponent: str) -> str:
    return f"{opponent} tiene demasiados retos pendientes ahora mismo. Vuelve a intentarlo luego."


def throw_waiting(opponent: str, move: Move) -> str:
    return f"Tiraste {MOVES[move]} contra {opponent}. Te aviso cuando responda."


def challenged(challenger: str) -> str:
    return (
        f"¡{challenger} te reta a piedra, papel o tijera! "
        f"Responde TIRAR y tu jugada, como: TIRAR piedra {challenger}"
    )


def result(outcome: Outcome, mine: Move, theirs: Move, opponent: str) -> str:
    if outcome is Outcome.WIN:
        detail = f"¡Ganaste! Tu {MOVES[mine]} le gana {_TO_THE[theirs]} de {opponent}."
    elif outcome is Outcome.LOSS:
        detail = f"Perdiste. {_THE[theirs].capitalize()} de {opponent} le gana a tu {MOVES[mine]}."
    else:
        detail = f"¡Empate! {MOVES[mine].capitalize()} contra {MOVES[theirs]} con {opponent}."
    return f"{detail} PUNTOS para ver tus totales."


def games_summary(
    waiting_on: Sequence[str],
    waiting_for_you: Sequence[str],
    stranger_move: Move | None = None,
    stranger_seconds_left: int = 0,
) -> str:
    lobby = (
        f"Esperas a alguien al azar con {MOVES[stranger_move]} (vence {_time_left(stranger_seconds_left)})."
        if stranger_move is not None
        else ""
    )
    if not waiting_on and not waiting_for_you:
        if lobby:
            return f"{lobby} No tienes otras partidas abiertas."
        return "No tienes partidas abiertas. Reta a alguien: TIRAR <jugada> <apodo>"
    budget = SEGMENT_LIMIT - len(f" {lobby}") if lobby else SEGMENT_LIMIT
    lists = reply_layout.name_lists(
        (("Esperas a", waiting_on), ("Te esperan", waiting_for_you)), budget, lambda n: f" y otros {n}"
    )
    return f"{lists} {lobby}" if lobby else lists


_HOUR = 60 * 60
_DAY = 24 * _HOUR


def _time_left(seconds: int) -> str:
    """As the English: to the nearest day or hour ("dias" without its accent: GSM-7 has no í)."""
    if seconds >= 36 * _HOUR:
        return f"en {(seconds + _DAY // 2) // _DAY} dias"
    if seconds >= 90 * 60:
        return f"en {(seconds + _HOUR // 2) // _HOUR} horas"
    return "en menos de 2 horas"


def score(wins: int, losses: int, ties: int, streak: int) -> str:
    if streak > 0:
        run = f"{streak} victoria{'s' if streak != 1 else ''} seguida{'s' if streak != 1 else ''}"
    elif streak < 0:
        run = f"{-streak} derrota{'s' if streak != -1 else ''} seguida{'s' if streak != -1 else ''}"
    else:
        run = "sin racha"
    return f"Victorias {wins}, derrotas {losses}, empates {ties}. Racha: {run}."


_NO_LEADERS = "Nadie ha ganado ninguna partida. ¡Gana la primera! TIRAR <jugada> <apodo>"
_LEADERS_HEADING = "Mejores por victorias: "


def top(leaders: Sequence[tuple[str, int]]) -> str:
    if not leaders:
        return _NO_LEADERS
    return _LEADERS_HEADING + ", ".join(reply_layout.leader_lines(_LEADERS_HEADING, leaders))


def top_with_rank(leaders: Sequence[tuple[str, int]], rank: int, wins: int) -> str:
    shown = reply_layout.leader_lines(_LEADERS_HEADING, leaders)
    if rank <= len(shown):
        return _LEADERS_HEADING + ", ".join(shown)
    you = f". Tu puesto: #{rank}, {wins} victoria{'' if wins == 1 else 's'}"
    return (
        _LEADERS_HEADING
        + ", ".join(reply_layout.leader_lines(_LEADERS_HEADING, leaders, SEGMENT_LIMIT - len(you)))
        + you
    )


def top_unranked(leaders: Sequence[tuple[str, int]]) -> str:
    if not leaders:
        return _NO_LEADERS
    you = ". Tu puesto: ninguno por ahora"
    return (
        _LEADERS_HEADING
        + ", ".join(reply_layout.leader_lines(_LEADERS_HEADING, leaders, SEGMENT_LIMIT - len(you)))
        + you
    )


def lobby_waiting(move: Move) -> str:
    return f"Tiraste {MOVES[move]} para alguien al azar. Te aviso cuando alguien juegue contigo."


def lobby_already_waiting(move: Move) -> str:
    return f"Ya esperas a alguien al azar con {MOVES[move]}. Te aviso cuando alguien juegue."


def lobby_result(outcome: Outcome, mine: Move, theirs: Move, opponent: str) -> str:
    return f"Tu rival al azar: {opponent}. {result(outcome, mine, theirs, opponent)}"


def reply_limit_reached(minutes: int) -> str:
    return (
        f"¡Son muchos mensajes! Para que el juego siga gratis, guardo silencio unos {minutes} min. "
        "Tus jugadas siguen contando."
    )


def language_set() -> str:
    """`IDIOMA es`: from now on, every reply to the player is in Spanish."""
    return "Listo, desde ahora te escribo en español. LANG en to play in English."


def language_usage() -> str:
    """Bilingual, as the English: the player may read either language."""
    return (
        "Idioma: IDIOMA es (español) o IDIOMA en (inglés). Language: LANG en (English) or LANG es (Spanish)."
    )
