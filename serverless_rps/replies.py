"""Every SMS the game can send in English, in one place, so wording can be read, reviewed and
length-checked. replies_es.py is the same catalogue in Spanish, function for function
(catalogue.py says which one a reply is written from).

Pure: standard library only. Each reply fits one SMS segment: at most 160 characters from the
GSM-7 basic character set (a test calls every reply function of both catalogues with worst-case
arguments and counts segments as Twilio bills them, segments.py). Never echo raw player input:
only validated nicknames and moves are interpolated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from serverless_rps import reply_layout
from serverless_rps.rules import Move, Outcome
from serverless_rps.segments import GSM7_BASIC, SEGMENT_LIMIT

__all__ = [
    "GSM7_BASIC",
    "PROGRAM_NAME_LIMIT",
    "SEGMENT_LIMIT",
    "SUPPORT_CONTACT_LIMIT",
    "Program",
    "again_usage",
    "already_thrown",
    "cannot_throw_at_self",
    "challenged",
    "empty_message",
    "games_summary",
    "help_overview",
    "help_topic",
    "is_single_segment",
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


def is_single_segment(text: str) -> bool:
    """At most 160 characters of GSM-7's basic table (none of its extension table, which cost two
    septets each): one segment as Twilio bills it (segments.count_segments), never rewritten."""
    return len(text) <= SEGMENT_LIMIT and all(character in GSM7_BASIC for character in text)


# The operator's program name and support contact (template.yaml's ProgramName and SupportContact)
# go into the consent replies; these bounds keep each of those replies one segment.
PROGRAM_NAME_LIMIT = 30
SUPPORT_CONTACT_LIMIT = 40


@dataclasses.dataclass(frozen=True)
class Program:
    """The messaging program as a carrier's campaign vetting reads it: the name the player signed up
    to and where to get support (an e-mail address, a phone number or a short web address)."""

    name: str = "SMS Rock-Paper-Scissors"
    support: str = "help@example.com"

    def __post_init__(self) -> None:
        for label, value, limit in (
            ("program name", self.name, PROGRAM_NAME_LIMIT),
            ("support contact", self.support, SUPPORT_CONTACT_LIMIT),
        ):
            if not value or len(value) > limit or not all(character in GSM7_BASIC for character in value):
                raise ValueError(f"the {label} must be 1-{limit} GSM-7 characters, got {value!r}")


def opt_in_confirmation(program: Program) -> str:
    """The first reply a number ever gets, and the answer to START: what the player signed up to
    (CTIA's opt-in confirmation: program, frequency, rates, HELP, STOP)."""
    return (
        f"Welcome to {program.name}! Msg frequency depends on your play. Msg & data rates may apply. "
        "Reply HELP for help, STOP to opt out."
    )


def program_help(program: Program) -> str:
    """HELP's first reply: the program, its support contact and how to opt out (CTIA's HELP
    content); the commands follow in a second reply (`help_overview`), as both do not fit one SMS."""
    return (
        f"{program.name}: rock-paper-scissors. Support: {program.support}. "
        "Msg & data rates may apply. Reply STOP to opt out."
    )


def opt_out_confirmation(program: Program) -> str:
    """The one text after an opt-out Twilio did not answer itself: it confirms the opt-out and
    nothing else (the FCC's revocation rule)."""
    return f"{program.name}: you are unsubscribed and will get no more messages. Reply START to rejoin."


_HELP_TOPICS = {
    "nick": "NICK <name> sets your nickname: 3-15 letters, digits or _. Others use it to play you.",
    "throw": (
        "THROW <move> <nick> plays a nickname; THROW <move> alone plays a stranger. "
        "Moves: rock, paper, scissors (r, p, s). Or just: rock bob"
    ),
    "again": "AGAIN <move> plays the last player you played again, like: AGAIN paper",
    "games": "GAMES lists whom you are waiting on and who is waiting on you.",
    "top": "TOP shows the players with the most wins (fewer losses, then who got there first, break ties).",
    "score": "SCORE shows your wins, losses, ties and current streak.",
    "stop": "STOP deletes your data and cancels your open games. START to come back.",
    "language": "LANG en or LANG es sets the language I text you in: English or Spanish (IDIOMA es).",
}
_TOPIC_ALIASES = {
    "name": "nick",
    "t": "throw",
    "play": "throw",
    "p": "throw",
    "rematch": "again",
    "leaders": "top",
    "quit": "stop",
    "start": "stop",
    "lang": "language",
}


def help_overview() -> str:
    return (
        "Rock-paper-scissors by SMS! NICK <name> to join, THROW <move> <nick> to play "
        "(no nick: a stranger), AGAIN <move>, GAMES, SCORE, TOP. HELP <command> for more."
    )


def help_topic(topic: str) -> str | None:
    """Help for one command, or None if there is no such command."""
    topic = topic.lower()
    return _HELP_TOPICS.get(_TOPIC_ALIASES.get(topic, topic))


def unknown_help_topic() -> str:
    return (
        "There's no help on that. Commands: NICK, THROW, AGAIN, GAMES, SCORE, TOP, STOP. Text HELP for more."
    )


def empty_message() -> str:
    return "Your message was empty. Text HELP to see the commands."


def unknown_command() -> str:
    # STOP here too: a request to stop worded as no rule reads (docs/opt-out.md) is answered this,
    # and the answer then says how to stop in one word.
    return "Sorry, I didn't get that. Text HELP for commands, STOP to end texts."


def nick_usage() -> str:
    return "Text NICK and a name to join, like: NICK alice"


def nick_invalid() -> str:
    return "Nicknames are 3-15 letters, digits or _ and can't be a command or a move. Try another."


def nick_taken(name: str) -> str:
    return f"Sorry, {name} is taken. Text NICK with another name."


def nick_taken_look_alike(name: str, holder: str) -> str:
    """`name` is not taken as spelled, but the name it looks like is (`holder`, as its owner wrote it)."""
    return f"Sorry, {name} looks like {holder}, which is taken. Text NICK with another name."


def nick_registered(name: str) -> str:
    return (
        f"Welcome, {name}! Challenge someone: THROW <move> <their nick>, like THROW rock bob. HELP for more."
    )


def nick_changed(old: str, new: str) -> str:
    return f"You're now {new} (was {old}). Games in progress carry on."


def nick_unchanged(name: str) -> str:
    return f"You're already {name}."


def not_registered() -> str:
    return "Pick a nickname first: text NICK and a name, like NICK alice"


def again_usage() -> str:
    return "To play your last opponent again, text AGAIN and a move, like: AGAIN paper"


def no_last_opponent() -> str:
    return "You haven't finished a game yet, so there's no one to play again. THROW <move> <nick>"


def last_opponent_gone(opponent: str) -> str:
    return f"{opponent} isn't playing under that name any more. Challenge someone: THROW <move> <nick>"


def throw_usage() -> str:
    return "To play, text THROW, a move and a nickname, like: THROW rock bob"


def unknown_move() -> str:
    return "Moves are rock, paper or scissors (r, p, s). Like: THROW rock bob"


def unknown_player(name: str | None) -> str:
    if name is None:
        return "That's not a nickname anyone can have. Text GAMES to see your games."
    return f"No player is called {name}. Check the spelling, or ask them to text NICK."


def cannot_throw_at_self() -> str:
    return "You can't play yourself. Challenge another nickname."


def already_thrown(opponent: str) -> str:
    return f"You already threw at {opponent}. Wait for their move; I'll text you the result."


def too_many_open_games(limit: int) -> str:
    return f"You have {limit} open games, the most allowed. Wait for some answers first (GAMES)."


def opponent_left(opponent: str) -> str:
    # Only the nickname: nothing else about someone who asked to be forgotten.
    return f"{opponent} has left the game, so your throw at them is off. Text GAMES to see your games."


def opponent_too_busy(opponent: str) -> str:
    return f"{opponent} has too many open challenges right now. Try again later."


def throw_waiting(opponent: str, move: Move) -> str:
    return f"You threw {move.value} at {opponent}. I'll text you when they answer."


def challenged(challenger: str) -> str:
    return (
        f"{challenger} challenged you to rock-paper-scissors! "
        f"Reply THROW and your move, like: THROW rock {challenger}"
    )


_HEADLINE = {Outcome.WIN: "You won!", Outcome.LOSS: "You lost.", Outcome.TIE: "A tie!"}


def result(outcome: Outcome, mine: Move, theirs: Move, opponent: str) -> str:
    if outcome is Outcome.WIN:
        detail = f"Your {mine.value} beat {opponent}'s {theirs.value}."
    elif outcome is Outcome.LOSS:
        detail = f"{opponent}'s {theirs.value} beat your {mine.value}."
    else:
        detail = f"You both threw {mine.value} against {opponent}."
    return f"{_HEADLINE[outcome]} {detail} SCORE for totals."


def games_summary(
    waiting_on: Sequence[str],
    waiting_for_you: Sequence[str],
    stranger_move: Move | None = None,
    stranger_seconds_left: int = 0,
) -> str:
    """Who I'm waiting on and who's waiting on me, shortened to one segment with "+N more"; then my
    throw waiting for a stranger (`stranger_move`), if there is one, and how long it has left."""
    lobby = (
        f"Waiting for a stranger with {stranger_move.value} (expires {_time_left(stranger_seconds_left)})."
        if stranger_move is not None
        else ""
    )
    if not waiting_on and not waiting_for_you:
        if lobby:
            return f"{lobby} No other open games."
        return "No open games. Challenge someone: THROW <move> <nick>"
    # The lobby line is short and whole; the lists share what it leaves.
    budget = SEGMENT_LIMIT - len(f" {lobby}") if lobby else SEGMENT_LIMIT
    lists = reply_layout.name_lists(
        (("Waiting on", waiting_on), ("Waiting on you", waiting_for_you)), budget, lambda n: f" +{n} more"
    )
    return f"{lists} {lobby}" if lobby else lists


_HOUR = 60 * 60
_DAY = 24 * _HOUR


def _time_left(seconds: int) -> str:
    """How long until an expiry, to the nearest day or hour (the phone's time zone is unknown)."""
    if seconds >= 36 * _HOUR:
        return f"in {(seconds + _DAY // 2) // _DAY} days"
    if seconds >= 90 * 60:
        return f"in {(seconds + _HOUR // 2) // _HOUR} hours"
    return "in under 2 hours"


def score(wins: int, losses: int, ties: int, streak: int) -> str:
    if streak > 0:
        run = f"{streak} win{'s' if streak != 1 else ''} in a row"
    elif streak < 0:
        run = f"{-streak} loss{'es' if streak != -1 else ''} in a row"
    else:
        run = "no streak"
    return f"Wins {wins}, losses {losses}, ties {ties}. Streak: {run}."


_NO_LEADERS = "No one has won a game yet. Be the first: THROW <move> <nick>"
_LEADERS_HEADING = "Top players by wins: "


def top(leaders: Sequence[tuple[str, int]]) -> str:
    """The leaderboard, best first, as many lines as fit one segment."""
    if not leaders:
        return _NO_LEADERS
    return _LEADERS_HEADING + ", ".join(reply_layout.leader_lines(_LEADERS_HEADING, leaders))


def top_with_rank(leaders: Sequence[tuple[str, int]], rank: int, wins: int) -> str:
    """The leaderboard for a player on it at `rank` (1 is first) with `wins`: when their own line
    is not among those that fit, fewer lines show and their place follows."""
    shown = reply_layout.leader_lines(_LEADERS_HEADING, leaders)
    if rank <= len(shown):
        return _LEADERS_HEADING + ", ".join(shown)
    you = f". You: #{rank}, {wins} win{'' if wins == 1 else 's'}"
    return (
        _LEADERS_HEADING
        + ", ".join(reply_layout.leader_lines(_LEADERS_HEADING, leaders, SEGMENT_LIMIT - len(you)))
        + you
    )


def top_unranked(leaders: Sequence[tuple[str, int]]) -> str:
    """The leaderboard for a player who is not on it."""
    if not leaders:
        return _NO_LEADERS
    you = ". You: not ranked yet"
    return (
        _LEADERS_HEADING
        + ", ".join(reply_layout.leader_lines(_LEADERS_HEADING, leaders, SEGMENT_LIMIT - len(you)))
        + you
    )


def lobby_waiting(move: Move) -> str:
    return f"You threw {move.value} for a stranger. I'll text you when someone plays you."


def lobby_already_waiting(move: Move) -> str:
    return f"You're already waiting for a stranger with {move.value}. I'll text you when someone plays."


def lobby_result(outcome: Outcome, mine: Move, theirs: Move, opponent: str) -> str:
    return f"A stranger played you: {opponent}. {result(outcome, mine, theirs, opponent)}"


def reply_limit_reached(minutes: int) -> str:
    return (
        f"That's a lot of texts! To keep this game free, I'll stay quiet for about {minutes} min. "
        "Your moves still count."
    )


def language_set() -> str:
    """`LANG en`: from now on, every reply to the player is in English."""
    return "OK, I'll text you in English from now on. IDIOMA es para jugar en español."


def language_usage() -> str:
    """A language command without a language it knows: both languages, as the player may read either."""
    return (
        "Language: LANG en (English) or LANG es (Spanish). Idioma: IDIOMA es (español) o IDIOMA en (inglés)."
    )
