"""What an A2P 10DLC campaign registration asks for, built from the bot's own replies.

`python -m serverless_rps.admin campaign` prints it: the use case's description, how a player
opts in, sample messages and the keywords with their exact replies, in English and in Spanish.
Every text here comes from the catalogues (`replies`, `replies_es`) with the configured program,
and the keywords from `parsing`, so the form says what the bot sends; tests/protocol/test_campaign.py
drives the real processor and compares.
"""

from __future__ import annotations

from typing import Any

from serverless_rps import parsing, replies, replies_es
from serverless_rps.catalogue import Catalogue
from serverless_rps.replies import Program
from serverless_rps.rules import Move, Outcome

__all__ = ["SAMPLE_NICKNAMES", "registration", "sample_messages"]

# The nicknames the sample messages use (a played-out game between them).
SAMPLE_NICKNAMES = ("alice", "bob")


def sample_messages(program: Program, say: Catalogue = replies) -> list[str]:
    """Real replies, in the order a new player meets them (in Spanish with `replies_es`)."""
    alice, bob = SAMPLE_NICKNAMES
    return [
        say.opt_in_confirmation(program),
        say.nick_registered(alice),
        say.challenged(bob),
        say.throw_waiting(bob, Move.ROCK),
        say.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, bob),
        say.program_help(program),
        say.opt_out_confirmation(program),
    ]


def _keywords(words: frozenset[str]) -> str:
    return ", ".join(sorted(word.upper() for word in words if word.replace(" ", "").isalpha()))


def registration(program: Program) -> dict[str, Any]:
    """The campaign form's fields, as plain values (the tool prints them as text or JSON)."""
    return {
        "program": program.name,
        "support contact": program.support,
        "use case description": (
            f"{program.name} is a rock-paper-scissors game played by SMS. A player texts the number "
            "to join and play; the bot answers each text (nickname, throws, scores, help) and tells "
            "a player when someone they play answers or challenges them. No marketing, no links, "
            "no third-party content."
        ),
        "message flow (how a player opts in)": (
            "The player opts in by texting the game's number first (any text, e.g. HELP or NICK "
            "alice), having found the number where the operator publishes it. The bot never texts "
            "a number that has not texted it. The first reply a number gets is the opt-in "
            "confirmation (the first sample), and START after an opt-out gets it again."
        ),
        "message frequency": "depends on play: one reply per text, plus challenges and results",
        "embedded links": "no",
        "embedded phone numbers": "no",
        "age-gated content": "no",
        "sample messages": [
            {"sample": number, "message": text} for number, text in enumerate(sample_messages(program), 1)
        ],
        "sample messages (Spanish)": [
            {"sample": number, "message": text}
            for number, text in enumerate(sample_messages(program, replies_es), 1)
        ],
        "keywords": [
            {
                "kind": "opt-in",
                "keywords": _keywords(parsing.OPT_IN_WORDS),
                "reply": replies.opt_in_confirmation(program),
            },
            {
                "kind": "opt-out",
                "keywords": _keywords(parsing.OPT_OUT_WORDS),
                "reply": replies.opt_out_confirmation(program),
            },
            {
                "kind": "help",
                "keywords": _keywords(parsing.HELP_WORDS),
                "reply": replies.program_help(program),
            },
            {
                "kind": "opt-in (Spanish)",
                "keywords": _keywords(parsing.SPANISH_OPT_IN_WORDS),
                "reply": replies_es.opt_in_confirmation(program),
            },
            {
                "kind": "opt-out (Spanish)",
                "keywords": _keywords(parsing.SPANISH_OPT_OUT_WORDS),
                "reply": replies_es.opt_out_confirmation(program),
            },
            {
                "kind": "help (Spanish)",
                "keywords": _keywords(parsing.SPANISH_HELP_WORDS),
                "reply": replies_es.program_help(program),
            },
        ],
        "opt-out note": (
            "Twilio answers the exact opt-out keywords itself (its default text, or the Advanced "
            "Opt-Out text you set); the bot sends the opt-out reply above, once, for an opt-out "
            "Twilio may not have answered (a keyword typed with punctuation or full-width letters, "
            "or a request to stop in other words). HELP gets the help reply, then a second SMS "
            "listing the game's commands. Twilio's default keywords are English only: the bot reads "
            "the Spanish ones above (as typed, accents or none, and Spanish requests to stop in other "
            "words) and sends their replies itself, in Spanish; add them to the Messaging Service's "
            "Advanced Opt-Out, with these Spanish replies, for Twilio to answer and block them too. "
            "A player who texts in Spanish is answered in Spanish from then on (IDIOMA en or LANG en "
            "switches back)."
        ),
    }
