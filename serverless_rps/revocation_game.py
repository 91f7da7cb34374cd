"""The game's words for the revocation classifier (`revocation.py`), in English and in Spanish:
the moves, the words of the contest, laughter, the commands that take an argument and a nickname's
shape, which outweigh a request to stop. Pure: standard library only. `revocation_words.py`
re-exports them; docs/opt-out.md says why each list is what it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from serverless_rps.rules import Move

__all__ = [
    "AND_OR",
    "COMMANDS_WITH_AN_ARGUMENT",
    "CONTEST_WORDS",
    "ENGLISH_MOVES",
    "GAME_SENDS",
    "INTENSIFIERS",
    "LAUGHTER",
    "NAME_WITH_DIGITS_OR_UNDERSCORE",
    "NICKNAME_SHAPE",
    "SENDING",
    "SPANISH_GAME_WORDS",
    "SPANISH_MOVES",
]

# The Spanish game's words, in one place: the classifier reads texts built from them as game talk,
# and the Spanish commands are to be read from them. Keys are the English commands.
SPANISH_GAME_WORDS: Mapping[str, frozenset[str]] = {
    "throw": frozenset({"jugar", "tirar"}),
    "nick": frozenset({"apodo"}),
    "games": frozenset({"partidas"}),
    "score": frozenset({"puntos"}),
    "top": frozenset({"top"}),
    "again": frozenset({"otra"}),
    "help": frozenset({"ayuda"}),
    "language": frozenset({"idioma"}),
}
SPANISH_MOVES: Mapping[str, Move] = {
    "piedra": Move.ROCK,
    "papel": Move.PAPER,
    "tijera": Move.SCISSORS,
    "tijeras": Move.SCISSORS,
}


# A move or the contest: a text that names them is about the game.
CONTEST_WORDS = frozenset(
    {"win", "wins", "winning", "won", "winner", "lose", "loses", "losing", "lost", "loser", "beat"}
    | {"beats", "beating", "beaten", "cheat", "cheats", "cheating", "cheated", "cheater", "rematch"}
    | {"leaderboard", "leaders", "scoreboard", "score", "scores", "top", "rank", "ranking", "ranked"}
    | {"points", "gg", "challenge", "challenges", "challenged", "challenging", "opponent", "streak"}
    | {"throw", "throws", "threw", "move", "moves"}
    | {"gano", "gana", "ganas", "ganan", "ganar", "gane", "ganaste", "ganando", "ganador", "pierdo"}
    | {"pierde", "pierdes", "perder", "perdi", "perdiste", "perdio", "perdiendo", "perdedor", "trampa"}
    | {"trampas", "tramposo", "tramposa", "revancha", "reto", "retos", "retar", "puntos", "puntaje"}
    | {"jugada", "jugadas", "tirar", "tira", "tiro", "tire", "tiras"}
)
# The game's nouns for what it sends a player, and the words before them that make them what is
# sent: "stop sending me challenges", "no more challenges", "dejen de mandarme retos" ask the bot to
# stop; "no more challenges from bob" names a player, and "i challenge bob" is a move of the game.
GAME_SENDS = frozenset({"challenge", "challenges", "invite", "reto", "retos", "partidas"})
SENDING = frozenset(
    {"send", "sending", "more", "any", "anymore", "want", "get", "getting", "receive", "receiving"}
    | {"escribir", "escribas", "mas", "quiero", "recibir"}
)
LAUGHTER = frozenset({"lol", "lolol", "lmao", "lmfao", "rofl", "xd"})
# Swearing that only intensifies what it stands in ("stop fucking texting me", "sus pinches
# mensajes"): read as if it were not there, like a masked swear (`f***ing`, `$#!t`).
INTENSIFIERS = frozenset(
    {"fucking", "fuckin", "freaking", "freakin", "frigging", "friggin", "fricking", "frickin", "effing"}
    | {"flipping", "flippin", "damn", "damned", "goddamn", "bloody", "bleeping"}
    | {"pinche", "pinches", "puto", "putos", "maldito", "malditos", "maldita", "malditas", "jodidos"}
)
# `nick unsubscribe`, `apodo baja`, `ayuda alto`: a command word and its argument, in either
# language (parsing reads the English ones first; the Spanish ones are SPANISH_GAME_WORDS).
COMMANDS_WITH_AN_ARGUMENT = frozenset(
    {"nick", "name", "t", "play", "again", "help", "lang"}
) | frozenset().union(
    *(SPANISH_GAME_WORDS[command] for command in ("throw", "nick", "again", "help", "language"))
)
NICKNAME_SHAPE = re.compile(r"[a-z0-9_]{3,15}")  # parsing's nickname alphabet, casefolded
# Between the moves in the game's name: "rock, paper and scissors", "piedra, papel o tijera".
AND_OR = frozenset({"and", "or", "n", "y", "o"})
NAME_WITH_DIGITS_OR_UNDERSCORE = re.compile(r"[a-z]+[0-9]+|\w*_\w*")
ENGLISH_MOVES = frozenset(
    move.value[:length] for move in Move for length in range(3, len(move.value) + 1)
) | frozenset({"rocks", "papers"})
