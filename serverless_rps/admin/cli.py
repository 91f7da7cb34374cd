"""`python -m serverless_rps.admin`: the operator's command line.

Every command prints a readable table, or JSON with --json. Commands that change anything say so in
their help and ask first, unless given --yes; with no terminal to ask on, they change nothing. The
options every command takes (--stack, --region, --json, --yes, --verbose) go before or after it.

Exit status: 0 done; 1 failed (an AWS or configuration failure, an unknown ID or player, a change
declined or refused), with one line on stderr naming the cause and the fix (--verbose adds the
traceback); 2 the command line is wrong or incomplete (argparse's usage errors, and a change asked
for with no terminal to confirm it and no --yes).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
)

from serverless_rps.admin import campaign, locate, proofs
from serverless_rps.admin.failures import one_line
from serverless_rps.admin.operations import Operator, Refused
from serverless_rps.admin.verify import FICTIONAL_PHONE, Verification, VerificationFailed, webhook_url
from serverless_rps.bootstrap import read_auth_token
from serverless_rps.config import ConfigurationError, OperatorSettings, program_from_environment
from serverless_rps.exceptions import RetryLater
from serverless_rps.observability import logger
from serverless_rps.parsing import is_valid_nickname

__all__ = ["NoTerminal", "main", "parse_duration", "parse_player"]

DONE, FAILED, USAGE = 0, 1, 2

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """`90`, `90s`, `15m`, `2h`, `1d` -> seconds."""
    match = _DURATION.match(text.strip().lower())
    if not match:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 90s, 15m, 2h, 1d)")
    return float(match[1]) * _UNITS[match[2]]


_E164 = re.compile(r"^\+[1-9]\d{6,14}$")


def parse_player(text: str) -> str:
    """A phone in E.164 (`+15551230001`, spaces and dashes dropped) or a nickname (`alice`). A
    number without its `+` is refused with the form it needs: its country code cannot be guessed."""
    text = text.strip()
    digits = re.sub(r"[\s().-]", "", text)
    if _E164.match(digits):
        return digits
    if not digits.removeprefix("+").isdigit() and is_valid_nickname(text):
        return text
    if digits.isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a phone number in E.164: write it with + and its country code, as the "
            f"game stores it (+{digits} if it starts with its country code)"
        )
    raise argparse.ArgumentTypeError(
        f"neither a phone number (E.164, e.g. +15551230001) nor a nickname: {text!r}"
    )


def _options(*, on_a_command: bool) -> argparse.ArgumentParser:
    """The options every command takes, before or after its name. Given after the command they
    have no default of their own (SUPPRESS), so they never undo one given before it."""
    options = argparse.ArgumentParser(add_help=False)
    unset: dict[str, Any] = {"default": argparse.SUPPRESS} if on_a_command else {}
    group = options.add_argument_group("options every command takes (before or after it)")
    group.add_argument(
        "--stack",
        metavar="NAME",
        help="a deployed stack's name: its game function's settings are used",
        **unset,
    )
    group.add_argument(
        "--region",
        metavar="NAME",
        help="the stack's AWS region (default: AWS_DEFAULT_REGION or the profile's, else samconfig.toml's)",
        **unset,
    )
    group.add_argument("--json", action="store_true", help="print JSON instead of a table", **unset)
    group.add_argument(
        "--yes",
        action="store_true",
        help="do not ask before changing anything (needed without a terminal)",
        **unset,
    )
    group.add_argument(
        "--verbose",
        action="store_true",
        help="show the game's own log lines (on stderr), and a failure's traceback",
        **unset,
    )
    return options


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m serverless_rps.admin",
        description="See and repair what the serverless-rps pipeline could not (docs/operations.md).",
        epilog="Exit status: 0 done, 1 failed (one line on stderr says why), 2 usage.",
        parents=[_options(on_a_command=False)],
    )
    each = _options(on_a_command=True)
    commands = _Commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"), each)

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
    player.add_argument("player", type=parse_player, help=_PLAYER)

    dlq = commands.group("dlq", "the dead-letter queue: list, redrive")
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

    outbox = commands.group("outbox", "committed replies: pending, resend")
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
    unlock.add_argument("player", type=parse_player, help=_PLAYER)
    unlock.add_argument("--force", action="store_true", help="release a live lease too")

    erase = commands.add_parser(
        "erase",
        help="CHANGES: erase a phone's data, as its STOP would (data-deletion requests)",
        description="Processes a STOP for the phone through the game's own protocol (the same locks, "
        "the same commit): the player, the nickname, every game and challenge naming the number, and "
        "the number in outboxes not yet sent. No SMS is sent to the phone.",
    )
    erase.add_argument("player", type=parse_player, help=_PLAYER)

    verify = commands.add_parser(
        "verify",
        help="SENDS: one signed test SMS through the webhook, followed until each reply is sent or refused",
        description="Posts a `help` from a test phone to the webhook, signed with the stack's own Twilio "
        "token, and follows it through the queue and the game until every reply it produced (a new "
        "phone's opt-in confirmation, HELP's program help and its commands) is accepted or refused "
        "for good by Twilio; either passes. The default phone is made up (555-01xx): Twilio refuses the "
        "replies, and the phone's records are erased afterwards. With --from YOUR_PHONE the replies "
        "arrive as SMS, and nothing is erased. The webhook URL: the stack's WebhookUrl output with "
        "WEBHOOK_PATH_SECRET from the environment (--stack), or WEBHOOK_URL (the local stack's file).",
    )
    verify.add_argument(
        "--to",
        dest="service_number",
        default=OperatorSettings.from_environment().service_number,
        help="the game's Twilio number, E.164 (default: TWILIO_PHONE_NUMBER)",
    )
    verify.add_argument(
        "--from", dest="phone", default=FICTIONAL_PHONE, help=f"the test phone (default: {FICTIONAL_PHONE})"
    )
    verify.add_argument("--url", help="the webhook URL, secret path included (default: found as above)")
    verify.add_argument(
        "--timeout", type=parse_duration, default=120.0, metavar="DURATION", help="default 120s"
    )
    ceiling = commands.add_parser(
        "ceiling",
        help="today's SMS count against the daily SMS ceiling (reads only); with --lift, CHANGES: lifts it",
        description="Reads the day's SMS counters (UTC) and the ceiling (the stack's DailySmsCeiling). "
        "Past the ceiling the bot answers only opt-outs, and every other text waits on the queue, "
        "unplayed, until midnight UTC. --lift lifts it for the rest of the UTC day: the texts held "
        "back are played, and answered, as they come back (within 15 minutes).",
    )
    ceiling.add_argument(
        "--lift",
        action="store_true",
        help="CHANGES: lift today's ceiling until midnight UTC (held texts are answered: sends SMS)",
    )
    proof = commands.add_parser(
        "proof",
        help="a number's opt-outs: when, how read, erased, confirmed, whether it texted since (reads only)",
        description="Computes the number's keyed hash under every version of the proof key (SSM) and reads "
        "its proof records: each opt-out's arrival, rule, wording and language (never its text), erasure, "
        "the confirmation's fate, and whether the number has texted since. Exit status 1 when there is none, "
        "2 when the number is not in E.164.",
    )
    proof.add_argument("number", help="the phone in E.164 (+15551234567)")
    proof.add_argument(
        "--key-parameter",
        action="append",
        default=[],
        metavar="NAME",
        help="an older proof key's SSM parameter to try too, every version of it (repeatable)",
    )
    key = commands.add_parser(
        "proof-key",
        help="CHANGES: create the proof key (32 random bytes as an SSM SecureString), or --rotate it",
        description="Puts 32 random bytes, hex, as the SecureString the functions key proofs of opt-outs "
        "with; it is never printed. --rotate puts a new version: SSM keeps the old ones, which `proof` "
        "still uses. Needs no deployed stack.",
    )
    key.add_argument("--rotate", action="store_true", help="put a new version over the existing key")
    key.add_argument(
        "--name",
        help=f"the parameter (default: the stack's PROOF_KEY_PARAMETER, else {proofs.DEFAULT_KEY_PARAMETER})",
    )
    key.add_argument("--kms-key-id", metavar="KEY", help="encrypt under this KMS key (default: aws/ssm)")
    commands.add_parser(
        "campaign",
        help="what the A2P 10DLC campaign registration asks for, from the bot's own replies (reads only)",
        description="Prints the use case, how a player opts in, sample messages and the keywords with "
        "their exact replies, worded with the program name and support contact the game function uses: "
        "the deployed function's (--stack) or PROGRAM_NAME and SUPPORT_CONTACT (defaults as template.yaml).",
    )
    return parser


_PLAYER = "a phone in E.164 (+15551230001) or a player's nickname"


class _Commands:
    """add_parser that gives every command, and every action of a command, the common options."""

    def __init__(self, subparsers: Any, options: argparse.ArgumentParser) -> None:
        self._subparsers = subparsers
        self._options = options

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self._subparsers.add_parser(name, parents=[self._options], **kwargs)
        return parser

    def group(self, name: str, help: str) -> _Commands:
        actions = self.add_parser(name, help=help).add_subparsers(
            dest=f"{name}_command", required=True, metavar="ACTION"
        )
        return _Commands(actions, self._options)


def _choose(parser: argparse.ArgumentParser, what: str) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--all", action="store_true", help="every one")
    group.add_argument("ids", nargs="*", default=[], metavar="ID", help=what)


def main(
    argv: Sequence[str] | None = None,
    *,
    connect: Callable[[argparse.Namespace], Operator] | None = None,
    out: TextIO = sys.stdout,
    ask: Callable[[str], str] | None = None,
) -> int:
    """`ask` asks the operator a question; by default on the terminal, and with none, nothing is
    asked and nothing changes (NoTerminal)."""
    arguments = _parser().parse_args(argv)
    if arguments.command == "campaign":
        return _campaign(arguments, out)
    if arguments.command == "proof-key":
        return _proof_key(arguments, out, ask or _ask_on_the_terminal)
    if arguments.command == "proof":
        try:
            arguments.number = proofs.parse_number(arguments.number)
        except ValueError as malformed:
            print(f"error: {malformed}", file=sys.stderr)
            return USAGE
    try:
        with _game_logs_to_stderr(verbose=arguments.verbose):
            operator = (connect or _connect)(arguments)
            result = _run(arguments, operator, ask or _ask_on_the_terminal)
    except NoTerminal as refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return USAGE
    except _FAILURES as problem:
        if arguments.verbose:
            traceback.print_exception(problem, file=sys.stderr)
        print(f"error: {one_line(problem)}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        return 130
    if result is None:
        print("nothing changed", file=sys.stderr)
        return FAILED
    out.write(json.dumps(result, indent=2) + "\n" if arguments.json else _render(result))
    return DONE


# What the tool reports in one line (and exit status 1); anything else is a bug, with its traceback.
_FAILURES = (Refused, ConfigurationError, RetryLater, VerificationFailed, BotoCoreError, ClientError)


class NoTerminal(Exception):
    """A change needs the operator's yes, and there is no terminal to ask on (cron, CI, a pipe)."""


def _ask_on_the_terminal(question: str) -> str:
    if not sys.stdin.isatty():
        raise NoTerminal
    try:
        return input(question)
    except EOFError:  # Ctrl-D: no answer is no
        print(file=sys.stderr)
        return ""


@contextlib.contextmanager
def _game_logs_to_stderr(*, verbose: bool) -> Iterator[None]:
    """The game's JSON log lines go to stdout in Lambda; here stdout is the tool's own output, and
    a failure the tool reports in its own line, so only --verbose shows them."""
    handler, level = logger.registered_handler, logger.log_level
    stream = handler.setStream(sys.stderr) if isinstance(handler, logging.StreamHandler) else None
    logger.setLevel("INFO" if verbose else "CRITICAL")
    try:
        yield
    finally:
        logger.setLevel(level)
        if stream is not None and isinstance(handler, logging.StreamHandler):
            handler.setStream(stream)


def _connect(arguments: argparse.Namespace) -> Operator:
    session = locate.session(arguments.region)
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
    try:
        answer = ask(f"{what} Go on? [y/N] ")
    except NoTerminal:
        raise NoTerminal(
            f"{arguments.command} changes things and asks first, and there is no terminal to ask on: "
            "nothing changed; give --yes to go ahead without asking"
        ) from None
    return answer.strip().lower() in {"y", "yes"}


def _run(arguments: argparse.Namespace, operator: Operator, ask: Callable[[str], str]) -> Any:
    command = arguments.command
    if command == "status":
        return operator.status()
    if command == "player":
        return operator.player(operator.phone_of(arguments.player))
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
        phone = operator.phone_of(arguments.player)
        warning = " It is taken even if live (--force)." if arguments.force else ""
        return (
            operator.unlock(phone, force=arguments.force)
            if _confirm(arguments, ask, f"Release the lease on {_named(arguments.player, phone)}.{warning}")
            else None
        )
    if command == "ceiling" and arguments.lift:
        today = operator.ceiling()
        prompt = (
            f"Lift today's SMS ceiling ({today['sms_sent']} of {today['ceiling']} sent) until midnight UTC: "
            "the texts held back will be played and answered."
        )
        return operator.lift_ceiling() if _confirm(arguments, ask, prompt) else None
    if command == "ceiling":
        return operator.ceiling()
    if command == "verify":
        return _verify(arguments, operator)
    if command == "proof":
        return operator.proof(arguments.number, arguments.key_parameter)
    if command == "erase":
        phone = operator.phone_of(arguments.player)
        prompt = (
            f"Erase {_named(arguments.player, phone)} from every table, as its STOP would. "
            "This cannot be undone."
        )
        return operator.erase(phone) if _confirm(arguments, ask, prompt) else None
    raise AssertionError(f"unhandled command {command}")


def _named(player: str, phone: str) -> str:
    return phone if player == phone else f"{player} ({phone})"


def _campaign(arguments: argparse.Namespace, out: TextIO) -> int:
    """Needs no table or queue: only the program, from the deployed function or the environment."""
    try:
        if arguments.stack:
            session = locate.session(arguments.region)
            settings = locate.from_stack(
                session.client("cloudformation"), session.client("lambda"), arguments.stack
            )
            program = settings.program
        else:
            program = program_from_environment()
    except _FAILURES as problem:
        if arguments.verbose:
            traceback.print_exception(problem, file=sys.stderr)
        print(f"error: {one_line(problem)}", file=sys.stderr)
        return FAILED
    result = campaign.registration(program)
    out.write(json.dumps(result, indent=2) + "\n" if arguments.json else _render(result))
    return DONE


def _proof_key(arguments: argparse.Namespace, out: TextIO, ask: Callable[[str], str]) -> int:
    """Needs no table or engine: the parameter's name (given, the stack's, or the template's
    default) and SSM."""
    try:
        session = locate.session(arguments.region)
        name = arguments.name or _proof_key_parameter(arguments, session)
        what = "Put a new version of" if arguments.rotate else "Create"
        if not _confirm(arguments, ask, f"{what} the proof key {name} (an SSM SecureString)."):
            print("nothing changed", file=sys.stderr)
            return FAILED
        result = proofs.put_key(
            session.client("ssm"), name, rotate=arguments.rotate, kms_key_id=arguments.kms_key_id
        )
    except NoTerminal as refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return USAGE
    except _FAILURES as problem:
        if arguments.verbose:
            traceback.print_exception(problem, file=sys.stderr)
        print(f"error: {one_line(problem)}", file=sys.stderr)
        return FAILED
    out.write(json.dumps(result, indent=2) + "\n" if arguments.json else _render(result))
    return DONE


def _proof_key_parameter(arguments: argparse.Namespace, session: Any) -> str:
    if arguments.stack:
        settings = locate.from_stack(
            session.client("cloudformation"), session.client("lambda"), arguments.stack
        )
    elif OperatorSettings.from_environment().names_a_stack:
        settings = locate.from_environment()
    else:
        return proofs.DEFAULT_KEY_PARAMETER
    if settings.proof_key_parameter is None:
        raise ConfigurationError(
            "the game function names no PROOF_KEY_PARAMETER: give the parameter with --name"
        )
    return settings.proof_key_parameter


def _verify(arguments: argparse.Namespace, operator: Operator) -> dict[str, Any]:
    if not arguments.service_number:
        raise ConfigurationError("verify needs the game's Twilio number: --to +1... (or TWILIO_PHONE_NUMBER)")
    environment = OperatorSettings.from_environment()
    url = arguments.url or environment.webhook_url
    if url is None and arguments.stack:
        cloudformation = locate.session(arguments.region).client("cloudformation")
        url = webhook_url(
            locate.stack_output(cloudformation, arguments.stack, "WebhookUrl"),
            environment.webhook_path_secret,
        )
    if url is None:
        raise ConfigurationError("verify needs the webhook URL: --stack NAME, --url or WEBHOOK_URL")
    credentials = operator.settings.twilio
    verification = Verification(
        url=url,
        account_sid=credentials.account_sid,
        auth_token=read_auth_token(
            credentials,
            locate.session(arguments.region).client("ssm") if credentials.auth_token_parameter else None,
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
