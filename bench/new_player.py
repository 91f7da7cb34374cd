"""How many SMS segments a new player costs: scripted first sessions through the real handler, in
English and in Spanish.

Run: `python -m bench.new_player`. In-process moto, the real game function, a sender that accepts
everything. Every reply is one GSM-7 segment in either language (a test walks every reply of both
catalogues), and the segments of what was sent are counted as Twilio bills them
(`segments.count_segments`). Bob is a registered (English) player the newcomer plays; what he is
sent is counted apart.
"""

from __future__ import annotations

import sys
from collections import Counter

from bench.environment import NullSms, in_process_aws, sqs_event, sqs_record
from serverless_rps.observability import logger
from serverless_rps.segments import count_segments

__all__ = ["SESSIONS", "SPANISH_SESSIONS", "measure"]

NEWCOMER, BOB = "+15551000001", "+15552000002"

# What a newcomer texts, in order; bob answers the challenge in the middle.
SESSIONS = {
    "joins, plays one game, checks the score, opts out": [
        (NEWCOMER, "nick alice"),
        (NEWCOMER, "rock bob"),
        (BOB, "paper alice"),
        (NEWCOMER, "score"),
        (NEWCOMER, "STOP"),
    ],
    "asks for HELP first, then the same": [
        (NEWCOMER, "help"),
        (NEWCOMER, "nick alice"),
        (NEWCOMER, "rock bob"),
        (BOB, "paper alice"),
        (NEWCOMER, "score"),
        (NEWCOMER, "STOP"),
    ],
    "opts out with a keyword Twilio may not match (Stop.)": [
        (NEWCOMER, "nick alice"),
        (NEWCOMER, "Stop."),
    ],
}

# The same sessions played in Spanish. Twilio answers none of the Spanish opt-out words (they are
# not its keywords): the bot's own confirmation is one segment an English STOP does not cost.
SPANISH_SESSIONS = {
    "se une, juega una partida, mira sus puntos, se da de baja (ALTO)": [
        (NEWCOMER, "apodo ana"),
        (NEWCOMER, "piedra bob"),
        (BOB, "paper ana"),
        (NEWCOMER, "puntos"),
        (NEWCOMER, "ALTO"),
    ],
    "pide AYUDA primero, y lo mismo": [
        (NEWCOMER, "ayuda"),
        (NEWCOMER, "apodo ana"),
        (NEWCOMER, "piedra bob"),
        (BOB, "paper ana"),
        (NEWCOMER, "puntos"),
        (NEWCOMER, "ALTO"),
    ],
    "saluda primero (hola), y lo mismo": [
        (NEWCOMER, "hola"),
        (NEWCOMER, "apodo ana"),
        (NEWCOMER, "piedra bob"),
        (BOB, "paper ana"),
        (NEWCOMER, "puntos"),
        (NEWCOMER, "ALTO"),
    ],
    "se da de baja con Alto.": [
        (NEWCOMER, "apodo ana"),
        (NEWCOMER, "Alto."),
    ],
}


def measure(texts: list[tuple[str, str]]) -> Counter[str]:
    """SMS sent to the newcomer and to bob during the session (bob registered beforehand)."""
    with in_process_aws() as aws:
        sms = NullSms()
        function = aws.game_function(sms)
        function.handle_batch(sqs_event([sqs_record(BOB, "nick bob")]), None)
        before = len(sms.sent)
        for sender, body in texts:
            function.handle_batch(sqs_event([sqs_record(sender, body)]), None)
        segments: Counter[str] = Counter()
        for message in sms.sent[before:]:
            segments["newcomer" if message.to == NEWCOMER else "bob"] += count_segments(message.body).segments
        return segments


def main() -> None:
    logger.setLevel("WARNING")
    for title, sessions in (("English", SESSIONS), ("Spanish", SPANISH_SESSIONS)):
        print(f"{title}:")
        print("| session | texts | segments to the newcomer | segments to bob |")
        print("|---|---|---|---|")
        for name, texts in sessions.items():
            sent = measure(texts)
            newcomer_texts = sum(1 for sender, _ in texts if sender == NEWCOMER)
            print(f"| {name} | {newcomer_texts} | {sent['newcomer']} | {sent['bob']} |")
        print()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
