"""How many SMS segments a new player costs: scripted first sessions through the real handler.

Run: `python -m bench.new_player`. In-process moto, the real game function, a sender that accepts
everything. Every reply is one GSM-7 segment (a test walks every reply), so SMS sent = segments.
Bob is a registered player the newcomer plays; what he is sent is counted apart.
"""

from __future__ import annotations

import sys
from collections import Counter

from bench.environment import NullSms, in_process_aws, sqs_event, sqs_record
from serverless_rps.observability import logger

__all__ = ["SESSIONS", "measure"]

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


def measure(texts: list[tuple[str, str]]) -> Counter[str]:
    """SMS sent to the newcomer and to bob during the session (bob registered beforehand)."""
    with in_process_aws() as aws:
        sms = NullSms()
        function = aws.game_function(sms)
        function.handle_batch(sqs_event([sqs_record(BOB, "nick bob")]), None)
        before = len(sms.sent)
        for sender, body in texts:
            function.handle_batch(sqs_event([sqs_record(sender, body)]), None)
        return Counter("newcomer" if message.to == NEWCOMER else "bob" for message in sms.sent[before:])


def main() -> None:
    logger.setLevel("WARNING")
    print("| session | texts | segments to the newcomer | segments to bob |")
    print("|---|---|---|---|")
    for name, texts in SESSIONS.items():
        sent = measure(texts)
        newcomer_texts = sum(1 for sender, _ in texts if sender == NEWCOMER)
        print(f"| {name} | {newcomer_texts} | {sent['newcomer']} | {sent['bob']} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
