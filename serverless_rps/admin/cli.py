"""`python -m serverless_rps.admin`: the operator's command line.

Every command prints a readable table, or JSON with --json. Commands that change anything say so in
their help and ask first, unless given --yes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

import boto3

from serverless_rps.admin import locate
from serverless_rps.admin.operations import Operator, Refused
from serverless_rps.admin.verify import FICTIONAL_PHONE, Verification, VerificationFailed, webhook_url
from serverless_rps.config import ConfigurationError, read_auth_token
from serverless_rps.exceptions import RetryLater
from serverless_rps.observability import logger

__all__ = ["main", "parse_duration"]

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """`90`, `90s`, `15m`, `2h`, `1d` -> seconds."""
    match = _DURATION.match(text.strip().lower())
    if not match:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 90s, 15m, 2h, 1d)")
    return float(match[1]) * _UNITS[match[2]]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m serverless_rps.admin",
        description="See and repair what the serverless-rps pipeline could not (docs/operations.md).",
    )
    parser.add_argument("--stack", help="a deployed stack's name: its game function's settings are used")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--yes", action="store_true", help="do not ask before changing anything")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="show the game's own log lines (on stderr), not only its warnings",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser(
        "status",
        help="queue depth, dead letters, stuck claims, expired leases, unsent replies (reads only)",
        description="Reads the queues' counters and scans the tables; changes nothing. The oldest "
        "message's age comes from CloudWatch (none for an idle queue or the local stack).",
    )
    player = commands.add_parser(
        "player",
        help="one phone's record, games, challenges, lease and unsent replies (reads only)",
        description="Reads the player's row and scans the message records; changes nothing.",
    )
    player.add_argument("phone", help="E.164, e.g. +15551230001")

    dlq = commands.add_parser("dlq", help="the dead-letter queue: list, redrive").add_subparsers(
        dest="dlq_command", required=True, metavar="ACTION"
    )
    dlq.add_parser(
        "list",
        help="each dead letter: reason, MessageSid, masked sender, age, receive count (reads only)",
        description="Receives every dead letter once to read it and makes it visible again at once; "
        "each receive adds one to the message's receive count on the dead-letter queue.",
    )
    redrive = dlq.add_parser(
        "redrive",
        help="CHANGES: move dead letters back to the incoming queue, body unchanged",
        description="Sends each chosen dead letter to the incoming queue with its body unchanged, then "
        "deletes it from the dead-letter queue. An interruption leaves a copy in both queues, never in "
        "neither; the game recognises an already-processed message by its MessageSid.",
    )
    _choose(redrive, "IDs as `dlq list` shows them")

    outbox = commands.add_parser("outbox", help="committed replies: pending, resend").add_subparsers(
        dest="outbox_command", required=True, metavar="ACTION"
    )
    pending = outbox.add_parser(
        "pending",
        help="committed replies never delivered (reads only)",
        description="Scans the message records for committed replies with no delivery recorded: the "
        "SQS message that should have sent them expired or was dead-lettered, or is still in flight.",
    )
    pending.add_argument(
        "--older-than",
        type=parse_duration,
        default=0.0,
        metavar="DURATION",
        help="e.g. 15m, 2h (default: all)",
    )
    resend = outbox.add_parser(
        "resend",
        help="CHANGES: send committed replies that were never sent (sends SMS)",
        description="Sends each record's missing replies through the same outbox lease and delivery "
        "records as the game function: a resend racing a redelivery waits for its lease, and a reply "
        "recorded as delivered is never sent again (the one window: Twilio accepted it and the "
        "delivery record was not written, docs/protocol.md).",
    )
    _choose(resend, "message keys (MessageSids) as `outbox pending` shows them")

    unlock = commands.add_parser(
        "unlock",
        help="CHANGES: release a player's lease if it has expired (--force: even a live one)",
        description="Releases that exact lease (by its id). An expired lease blocks nobody (the next "
        "message takes it over), so this is tidiness; a live one means an invocation is using it: "
        "--force releases it anyway, and that invocation's fenced commit then fails and its message "
        "is retried.",
    )
    unlock.add_argument("phone")
    unlock.add_argument("--force", action="store_true", help="release a live lease too")

    erase = commands.add_parser(
        "erase",
        help="CHANGES: erase a phone's data, as its STOP would (data-deletion requests)",
        description="Processes a STOP for the phone through the game's own protocol (the same locks, "
        "the same commit): the player, the nickname, every game and challenge naming the number, and "
        "the number in outboxes not yet sent. No SMS is sent to the phone.",
    )
    erase.add_argument("phone")

    verify = commands.add_parser(
        "verify",
        help="SENDS: one signed test SMS through the webhook, followed until its reply is sent or refused",
        description="Posts a `help` from a test phone to the webhook, signed with the stack's own Twilio "
        "token, and follows it through the queue and the game until its reply is accepted or refused "
        "for good by Twilio; either passes. The default phone is made up (555-01xx): Twilio refuses the "
        "reply, and the phone's records are erased afterwards. With --from YOUR_PHONE the reply arrives "
        "as an SMS, and nothing is erased. The webhook URL: the stack's WebhookUrl output with "
        "WEBHOOK_PATH_SECRET from the environment (--stack), or WEBHOOK_URL (the local stack's file).",
    )
    verify.add_argument(
        "--to",
        dest="service_number",
        default=os.environ.get("TWILIO_PHONE_NUMBER"),
        help="the game's Twilio number, E.164 (default: TWILIO_PHONE_NUMBER)",
    )
    verify.add_argument(
        "--from", dest="phone", default=FICTIONAL_PHONE, help=f"the test phone (default: {FICTIONAL_PHONE})"
    )
    verify.add_argument("--url", help="the webhook URL, secret path included (default: found as above)")
    verify.add_argument(
        "--timeout", type=parse_duration, default=120.0, metavar="DURATION", help="default 120s"
    )
    return parser


def _choose(parser: argparse.ArgumentParser, what: str) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--all", action="store_true", help="every one")
    group.add_argument("ids", nargs="*", default=[], metavar="ID", help=what)


def main(
    argv: Sequence[str] | None = None,
    *,
    connect: Callable[[argparse.Namespace], Operator] | None = None,
    out: TextIO = sys.stdout,
    ask: Callable[[str], str] = input,
) -> int:
    arguments = _parser().parse_args(argv)
    try:
        with _game_logs_to_stderr(verbose=arguments.verbose):
            operator = (connect or _connect)(arguments)
            result = _run(arguments, operator, ask)
    except (Refused, ConfigurationError, RetryLater, VerificationFailed) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if result is None:
        print("nothing changed", file=sys.stderr)
        return 1
    out.write(json.dumps(result, indent=2, default=str) + "\n" if arguments.json else _render(result))
    return 0


@contextlib.contextmanager
def _game_logs_to_stderr(*, verbose: bool) -> Iterator[None]:
    """The game's JSON log lines go to stdout in Lambda; here stdout is the tool's own output."""
    handler, level = logger.registered_handler, logger.log_level
    stream = handler.setStream(sys.stderr) if isinstance(handler, logging.StreamHandler) else None
    logger.setLevel("INFO" if verbose else "WARNING")
    try:
        yield
    finally:
        logger.setLevel(level)
        if stream is not None and isinstance(handler, logging.StreamHandler):
            handler.setStream(stream)


def _connect(arguments: argparse.Namespace) -> Operator:
    session = boto3.session.Session()
    if arguments.stack:
        settings = locate.from_stack(
            session.client("cloudformation"), session.client("lambda"), arguments.stack
        )
    else:
        settings = locate.from_environment()
    return Operator.connect(settings, session)


def _confirm(arguments: argparse.Namespace, ask: Callable[[str], str], what: str) -> bool:
    if arguments.yes:
        return True
    return ask(f"{what} Go on? [y/N] ").strip().lower() in {"y", "yes"}


def _run(arguments: argparse.Namespace, operator: Operator, ask: Callable[[str], str]) -> Any:
    command = arguments.command
    if command == "status":
        return operator.status()
    if command == "player":
        return operator.player(arguments.phone)
    if command == "dlq" and arguments.dlq_command == "list":
        return operator.dead_letters()
    if command == "dlq":
        ids = None if arguments.all else arguments.ids
        what = "every dead letter" if ids is None else f"{len(ids)} dead letter(s)"
        return (
            operator.redrive(ids) if _confirm(arguments, ask, f"Move {what} to the incoming queue.") else None
        )
    if command == "outbox" and arguments.outbox_command == "pending":
        return operator.pending_outboxes(arguments.older_than)
    if command == "outbox":
        keys = [row["key"] for row in operator.pending_outboxes()] if arguments.all else arguments.ids
        if not keys:
            return []
        return (
            operator.resend(keys)
            if _confirm(arguments, ask, f"Send the missing replies of {len(keys)} message(s).")
            else None
        )
    if command == "unlock":
        warning = " It is taken even if live (--force)." if arguments.force else ""
        return (
            operator.unlock(arguments.phone, force=arguments.force)
            if _confirm(arguments, ask, f"Release the lease on {arguments.phone}.{warning}")
            else None
        )
    if command == "verify":
        return _verify(arguments, operator)
    if command == "erase":
        prompt = f"Erase {arguments.phone} from every table, as its STOP would. This cannot be undone."
        return operator.erase(arguments.phone) if _confirm(arguments, ask, prompt) else None
    raise AssertionError(f"unhandled command {command}")


def _verify(arguments: argparse.Namespace, operator: Operator) -> dict[str, Any]:
    if not arguments.service_number:
        raise ConfigurationError("verify needs the game's Twilio number: --to +1... (or TWILIO_PHONE_NUMBER)")
    url = arguments.url or os.environ.get("WEBHOOK_URL")
    if url is None and arguments.stack:
        cloudformation = boto3.session.Session().client("cloudformation")
        url = webhook_url(
            locate.stack_output(cloudformation, arguments.stack, "WebhookUrl"),
            os.environ.get("WEBHOOK_PATH_SECRET"),
        )
    if url is None:
        raise ConfigurationError("verify needs the webhook URL: --stack NAME, --url or WEBHOOK_URL")
    credentials = operator.settings.twilio
    verification = Verification(
        url=url,
        account_sid=credentials.account_sid,
        auth_token=read_auth_token(
            credentials,
            boto3.session.Session().client("ssm") if credentials.auth_token_parameter else None,
        ),
        service_number=arguments.service_number,
        phone=arguments.phone,
        timeout_seconds=arguments.timeout,
    )
    result = verification.run(operator.reads.read_completed)
    if arguments.phone == FICTIONAL_PHONE:
        result["test_phone_erased"] = operator.erase(FICTIONAL_PHONE)["result"]
    return result


def _render(result: Any) -> str:
    if isinstance(result, list):
        return _table(result)
    if isinstance(result, dict):
        lines, nested = [], []
        for key, value in result.items():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                nested.append(f"\n{key}:\n{_table(value)}")
            elif isinstance(value, list):
                lines.append(f"{key}: {', '.join(map(str, value)) if value else 'none'}")
            elif isinstance(value, dict):
                lines.append(f"{key}: " + ", ".join(f"{k} {v}" for k, v in value.items()))
            else:
                lines.append(f"{key}: {'-' if value is None else value}")
        return "\n".join(lines) + "".join(nested) + "\n"
    return f"{result}\n"


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(none)\n"
    columns = list(dict.fromkeys(column for row in rows for column in row))
    cells = [[_cell(row.get(column)) for column in columns] for row in rows]
    widths = [max(len(column), *(len(line[i]) for line in cells)) for i, column in enumerate(columns)]
    lines = ["  ".join(column.ljust(width) for column, width in zip(columns, widths, strict=True))]
    lines += [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) for line in cells
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)
