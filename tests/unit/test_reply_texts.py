"""The exact words a player reads, one case per branch of every reply.

test_replies.py proves every reply fits one SMS for any argument; this file pins what the replies
say, so a changed word, a swapped name or a wrong plural is a failing test, not a surprise on a
phone. When wording changes on purpose, change it here too: this table is the catalogue's review.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from serverless_rps import replies
from serverless_rps.rules import Move, Outcome

PROGRAM = replies.Program("Acme RPS", "help@acme.example")
FIFTEEN = [letter * 15 for letter in "abcdefgh"]  # eight longest nicknames
HOUR = 60 * 60
DAY = 24 * HOUR


def _paper_lobby(time_left: str) -> str:
    return f"Waiting for a stranger with paper (expires in {time_left}). No other open games."


CASES: list[tuple[str, Callable[[], str | None], str | None]] = [
    (
        "not registered",
        replies.not_registered,
        "Pick a nickname first: text NICK and a name, like NICK alice",
    ),
    ("throw at self", replies.cannot_throw_at_self, "You can't play yourself. Challenge another nickname."),
    ("empty", replies.empty_message, "Your message was empty. Text HELP to see the commands."),
    (
        "unknown",
        replies.unknown_command,
        "Sorry, I didn't get that. Text HELP for commands, STOP to end texts.",
    ),
    ("nick usage", replies.nick_usage, "Text NICK and a name to join, like: NICK alice"),
    (
        "nick invalid",
        replies.nick_invalid,
        "Nicknames are 3-15 letters, digits or _ and can't be a command or a move. Try another.",
    ),
    ("nick taken", lambda: replies.nick_taken("bob"), "Sorry, bob is taken. Text NICK with another name."),
    (
        "nick taken by a look-alike",
        lambda: replies.nick_taken_look_alike("aIice", "alice"),
        "Sorry, aIice looks like alice, which is taken. Text NICK with another name.",
    ),
    (
        "nick registered",
        lambda: replies.nick_registered("alice"),
        "Welcome, alice! Challenge someone: THROW <move> <their nick>, like THROW rock bob. HELP for more.",
    ),
    (
        "nick changed",
        lambda: replies.nick_changed("alice", "ally"),
        "You're now ally (was alice). Games in progress carry on.",
    ),
    ("nick unchanged", lambda: replies.nick_unchanged("alice"), "You're already alice."),
    ("throw usage", replies.throw_usage, "To play, text THROW, a move and a nickname, like: THROW rock bob"),
    (
        "unknown move",
        replies.unknown_move,
        "Moves are rock, paper or scissors (r, p, s). Like: THROW rock bob",
    ),
    (
        "impossible nickname",
        lambda: replies.unknown_player(None),
        "That's not a nickname anyone can have. Text GAMES to see your games.",
    ),
    (
        "nobody by that name",
        lambda: replies.unknown_player("zed"),
        "No player is called zed. Check the spelling, or ask them to text NICK.",
    ),
    (
        "already thrown",
        lambda: replies.already_thrown("bob"),
        "You already threw at bob. Wait for their move; I'll text you the result.",
    ),
    (
        "too many games",
        lambda: replies.too_many_open_games(20),
        "You have 20 open games, the most allowed. Wait for some answers first (GAMES).",
    ),
    (
        "opponent busy",
        lambda: replies.opponent_too_busy("bob"),
        "bob has too many open challenges right now. Try again later.",
    ),
    (
        "again usage",
        replies.again_usage,
        "To play your last opponent again, text AGAIN and a move, like: AGAIN paper",
    ),
    (
        "no last opponent",
        replies.no_last_opponent,
        "You haven't finished a game yet, so there's no one to play again. THROW <move> <nick>",
    ),
    (
        "last opponent gone",
        lambda: replies.last_opponent_gone("bob"),
        "bob isn't playing under that name any more. Challenge someone: THROW <move> <nick>",
    ),
    (
        "nobody on top",
        lambda: replies.top([]),
        "No one has won a game yet. Be the first: THROW <move> <nick>",
    ),
    (
        "top three",
        lambda: replies.top([("alice", 12), ("bob", 10), ("carol", 10)]),
        "Top players by wins: 1. alice 12, 2. bob 10, 3. carol 10",
    ),
    (
        # 149 characters with five 15-letter names and 5-digit wins: a sixth would pass 160.
        "as many leaders as fit",
        lambda: replies.top([(name, 99999) for name in FIFTEEN]),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 99999" for rank, name in enumerate(FIFTEEN[:5], start=1)),
    ),
    (
        # The same five and a sixth whose line ends the text at exactly 160 characters: it shows.
        "a sixth leader who just fits",
        lambda: replies.top([*((name, 99999) for name in FIFTEEN[:5]), ("zed", 10)]),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 99999" for rank, name in enumerate(FIFTEEN[:5], start=1))
        + ", 6. zed 10",
    ),
    (
        "a sixth leader one character too long",
        lambda: replies.top([*((name, 99999) for name in FIFTEEN[:5]), ("zed", 100)]),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 99999" for rank, name in enumerate(FIFTEEN[:5], start=1)),
    ),
    (
        "top: your place after the lines shown",
        lambda: replies.top_with_rank([("alice", 12), ("bob", 10), ("carol", 10)], 14, 3),
        "Top players by wins: 1. alice 12, 2. bob 10, 3. carol 10. You: #14, 3 wins",
    ),
    (
        "top: one win",
        lambda: replies.top_with_rank([("alice", 12)], 2, 1),
        "Top players by wins: 1. alice 12. You: #2, 1 win",
    ),
    (
        "top: your line is shown, so no more",
        lambda: replies.top_with_rank([("alice", 12), ("bob", 10), ("carol", 10)], 3, 10),
        "Top players by wins: 1. alice 12, 2. bob 10, 3. carol 10",
    ),
    (
        # Six lines fit alone (see "a sixth leader who just fits"); the sixth makes room for its place.
        "top: the last line that fit gives way to your place",
        lambda: replies.top_with_rank(
            [*((name, 99999) for name in FIFTEEN[:5]), ("zed", 10), ("you", 1)], 7, 1
        ),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 99999" for rank, name in enumerate(FIFTEEN[:4], start=1))
        + ". You: #7, 1 win",
    ),
    (
        "top: you are the sixth, who just fits",
        lambda: replies.top_with_rank([*((name, 99999) for name in FIFTEEN[:5]), ("zed", 10)], 6, 10),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 99999" for rank, name in enumerate(FIFTEEN[:5], start=1))
        + ", 6. zed 10",
    ),
    (
        # Lines and place end at exactly 160 characters.
        "top: your place beside lines that just fit",
        lambda: replies.top_with_rank(
            [*((name, 9999) for name in FIFTEEN[:4]), ("abcdefghijklmn", 123)], 20, 3
        ),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 9999" for rank, name in enumerate(FIFTEEN[:4], start=1))
        + ", 5. abcdefghijklmn 123. You: #20, 3 wins",
    ),
    (
        "top: your place beside lines one character too long",
        lambda: replies.top_with_rank(
            [*((name, 9999) for name in FIFTEEN[:4]), ("abcdefghijklmno", 123)], 20, 3
        ),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 9999" for rank, name in enumerate(FIFTEEN[:4], start=1))
        + ". You: #20, 3 wins",
    ),
    (
        "top: not on the board",
        lambda: replies.top_unranked([("alice", 12), ("bob", 10)]),
        "Top players by wins: 1. alice 12, 2. bob 10. You: not ranked yet",
    ),
    (
        "top: not on an empty board",
        lambda: replies.top_unranked([]),
        "No one has won a game yet. Be the first: THROW <move> <nick>",
    ),
    (
        # Lines and "not ranked" end at exactly 160 characters.
        "top: not on the board, beside lines that just fit",
        lambda: replies.top_unranked([*((name, 9999) for name in FIFTEEN[:4]), ("abcdefghijklm", 1)]),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 9999" for rank, name in enumerate(FIFTEEN[:4], start=1))
        + ", 5. abcdefghijklm 1. You: not ranked yet",
    ),
    (
        "top: not on the board, one character too many",
        lambda: replies.top_unranked([*((name, 9999) for name in FIFTEEN[:4]), ("abcdefghijklmn", 1)]),
        "Top players by wins: "
        + ", ".join(f"{rank}. {name} 9999" for rank, name in enumerate(FIFTEEN[:4], start=1))
        + ". You: not ranked yet",
    ),
    (
        "lobby waiting",
        lambda: replies.lobby_waiting(Move.ROCK),
        "You threw rock for a stranger. I'll text you when someone plays you.",
    ),
    (
        "lobby already waiting",
        lambda: replies.lobby_already_waiting(Move.PAPER),
        "You're already waiting for a stranger with paper. I'll text you when someone plays.",
    ),
    (
        "lobby result",
        lambda: replies.lobby_result(Outcome.WIN, Move.PAPER, Move.ROCK, "bob"),
        "A stranger played you: bob. You won! Your paper beat bob's rock. SCORE for totals.",
    ),
    (
        "opponent left",
        lambda: replies.opponent_left("alice"),
        "alice has left the game, so your throw at them is off. Text GAMES to see your games.",
    ),
    (
        "throw waiting",
        lambda: replies.throw_waiting("bob", Move.PAPER),
        "You threw paper at bob. I'll text you when they answer.",
    ),
    (
        "challenged",
        lambda: replies.challenged("alice"),
        "alice challenged you to rock-paper-scissors! Reply THROW and your move, like: THROW rock alice",
    ),
    (
        "win",
        lambda: replies.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "bob"),
        "You won! Your rock beat bob's scissors. SCORE for totals.",
    ),
    (
        "loss",
        lambda: replies.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob"),
        "You lost. bob's paper beat your rock. SCORE for totals.",
    ),
    (
        "tie",
        lambda: replies.result(Outcome.TIE, Move.PAPER, Move.PAPER, "bob"),
        "A tie! You both threw paper against bob. SCORE for totals.",
    ),
    ("no streak", lambda: replies.score(0, 0, 0, 0), "Wins 0, losses 0, ties 0. Streak: no streak."),
    ("one win", lambda: replies.score(1, 0, 0, 1), "Wins 1, losses 0, ties 0. Streak: 1 win in a row."),
    ("wins", lambda: replies.score(3, 1, 2, 2), "Wins 3, losses 1, ties 2. Streak: 2 wins in a row."),
    ("one loss", lambda: replies.score(0, 1, 0, -1), "Wins 0, losses 1, ties 0. Streak: 1 loss in a row."),
    ("losses", lambda: replies.score(4, 5, 6, -3), "Wins 4, losses 5, ties 6. Streak: 3 losses in a row."),
    (
        "no games",
        lambda: replies.games_summary([], []),
        "No open games. Challenge someone: THROW <move> <nick>",
    ),
    ("waiting on", lambda: replies.games_summary(["bob", "carol"], []), "Waiting on: bob, carol."),
    ("waiting on you", lambda: replies.games_summary([], ["dave"]), "Waiting on you: dave."),
    (
        "both lists",
        lambda: replies.games_summary(["bob", "carol"], ["dave"]),
        "Waiting on: bob, carol. Waiting on you: dave.",
    ),
    (
        # 158 characters before the full stop: exactly the list's budget, so every name shows.
        "a list that just fits",
        lambda: replies.games_summary([*FIFTEEN, "i" * 10], []),
        "Waiting on: " + ", ".join([*FIFTEEN, "i" * 10]) + ".",
    ),
    (
        "one character too many",
        lambda: replies.games_summary([*FIFTEEN, "i" * 11], []),
        "Waiting on: " + ", ".join(FIFTEEN) + " +1 more.",
    ),
    (
        "two long lists share the segment",
        lambda: replies.games_summary(
            [f"player{i:02}" for i in range(12)], [f"friend{i:02}" for i in range(12)]
        ),
        "Waiting on: player00, player01, player02, player03, player04, player05 +6 more. "
        "Waiting on you: friend00, friend01, friend02, friend03, friend04 +7 more.",
    ),
    (
        "only a lobby wait",
        lambda: replies.games_summary([], [], Move.SCISSORS, 7 * DAY),
        "Waiting for a stranger with scissors (expires in 7 days). No other open games.",
    ),
    (
        "a lobby wait after the lists",
        lambda: replies.games_summary(["bob"], ["carol", "dave"], Move.ROCK, 7 * DAY),
        "Waiting on: bob. Waiting on you: carol, dave. Waiting for a stranger with rock (expires in 7 days).",
    ),
    (
        "half a day rounds up",
        lambda: replies.games_summary([], [], Move.PAPER, 6 * DAY + 12 * HOUR),
        _paper_lobby("7 days"),
    ),
    (
        "under half a day rounds down",
        lambda: replies.games_summary([], [], Move.PAPER, 7 * DAY - 12 * HOUR - 1),
        _paper_lobby("6 days"),
    ),
    (
        "a day and a half is two days",
        lambda: replies.games_summary([], [], Move.PAPER, 36 * HOUR),
        _paper_lobby("2 days"),
    ),
    (
        "less is hours",
        lambda: replies.games_summary([], [], Move.PAPER, 36 * HOUR - 1),
        _paper_lobby("36 hours"),
    ),
    (
        "half an hour rounds up",
        lambda: replies.games_summary([], [], Move.PAPER, 2 * HOUR + 30 * 60),
        _paper_lobby("3 hours"),
    ),
    (
        "under half an hour rounds down",
        lambda: replies.games_summary([], [], Move.PAPER, 3 * HOUR - 30 * 60 - 1),
        _paper_lobby("2 hours"),
    ),
    (
        "an hour and a half is two hours",
        lambda: replies.games_summary([], [], Move.PAPER, 90 * 60),
        _paper_lobby("2 hours"),
    ),
    (
        "less is under two hours",
        lambda: replies.games_summary([], [], Move.PAPER, 90 * 60 - 1),
        _paper_lobby("under 2 hours"),
    ),
    (
        # The lobby line takes 53 characters and a space: the list keeps 104 (alone, 158).
        "a list that just fits beside a lobby wait",
        lambda: replies.games_summary([*FIFTEEN[:5], "i" * 7], [], Move.ROCK, 7 * DAY),
        "Waiting on: "
        + ", ".join([*FIFTEEN[:5], "i" * 7])
        + ". Waiting for a stranger with rock (expires in 7 days).",
    ),
    (
        "one character too many beside a lobby wait",
        lambda: replies.games_summary([*FIFTEEN[:5], "i" * 8], [], Move.ROCK, 7 * DAY),
        "Waiting on: "
        + ", ".join(FIFTEEN[:5])
        + " +1 more. Waiting for a stranger with rock (expires in 7 days).",
    ),
    (
        "two lists and a lobby wait share the segment",
        lambda: replies.games_summary(
            [f"player{i:02}" for i in range(12)], [f"friend{i:02}" for i in range(12)], Move.ROCK, 7 * DAY
        ),
        "Waiting on: player00, player01, player02 +9 more. Waiting on you: friend00, friend01 +10 more. "
        "Waiting for a stranger with rock (expires in 7 days).",
    ),
    (
        "limit reached",
        lambda: replies.reply_limit_reached(20),
        "That's a lot of texts! To keep this game free, I'll stay quiet for about 20 min. "
        "Your moves still count.",
    ),
    (
        "opt-in confirmation",
        lambda: replies.opt_in_confirmation(PROGRAM),
        "Welcome to Acme RPS! Msg frequency depends on your play. Msg & data rates may apply. "
        "Reply HELP for help, STOP to opt out.",
    ),
    (
        "program help",
        lambda: replies.program_help(PROGRAM),
        "Acme RPS: rock-paper-scissors. Support: help@acme.example. "
        "Msg & data rates may apply. Reply STOP to opt out.",
    ),
    (
        "opt-out confirmation",
        lambda: replies.opt_out_confirmation(PROGRAM),
        "Acme RPS: you are unsubscribed and will get no more messages. Reply START to rejoin.",
    ),
    (
        "help",
        replies.help_overview,
        "Rock-paper-scissors by SMS! NICK <name> to join, THROW <move> <nick> to play "
        "(no nick: a stranger), AGAIN <move>, GAMES, SCORE, TOP. HELP <command> for more.",
    ),
    (
        "unknown help topic",
        replies.unknown_help_topic,
        "There's no help on that. Commands: NICK, THROW, AGAIN, GAMES, SCORE, TOP, STOP. Text HELP for more.",
    ),
    ("help on nothing", lambda: replies.help_topic("dance"), None),
    (
        "help on the language",
        lambda: replies.help_topic("lang"),
        "LANG en or LANG es sets the language I text you in: English or Spanish (IDIOMA es).",
    ),
    (
        "language set",
        replies.language_set,
        "OK, I'll text you in English from now on. IDIOMA es para jugar en español.",
    ),
    (
        "language usage, in both",
        replies.language_usage,
        "Language: LANG en (English) or LANG es (Spanish). Idioma: IDIOMA es (español) o IDIOMA en (inglés).",
    ),
]


@pytest.mark.parametrize(("call", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_reply_says(call: Callable[[], str | None], expected: str | None) -> None:
    assert call() == expected


@pytest.mark.parametrize(
    ("topic", "opening"),
    [
        ("nick", "NICK <name> sets your nickname"),
        ("NAME", "NICK <name> sets your nickname"),
        ("throw", "THROW <move> <nick> plays a nickname; THROW <move> alone plays a stranger."),
        ("t", "THROW <move> <nick>"),
        ("Play", "THROW <move> <nick>"),
        ("p", "THROW <move> <nick>"),
        ("games", "GAMES lists whom you are waiting on"),
        ("top", "TOP shows the players with the most wins"),
        ("leaders", "TOP shows the players with the most wins"),
        ("again", "AGAIN <move> plays the last player you played again"),
        ("rematch", "AGAIN <move> plays the last player you played again"),
        ("score", "SCORE shows your wins, losses, ties"),
        ("stop", "STOP deletes your data"),
        ("quit", "STOP deletes your data"),
        ("start", "STOP deletes your data and cancels your open games. START to come back."),
    ],
)
def test_help_on_each_command_and_its_aliases(topic: str, opening: str) -> None:
    text = replies.help_topic(topic)
    assert text is not None
    assert text.startswith(opening)
