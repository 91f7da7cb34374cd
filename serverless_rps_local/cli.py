"""`python -m serverless_rps`: play locally, run the scripted demo, or invoke a function on an event.

    python -m serverless_rps play                 # phones in the browser; Ctrl-C saves and stops
    python -m serverless_rps demo                 # a scripted two-phone game, printed
    python -m serverless_rps invoke game events/sqs-01-help.json

DYNAMODB=local in the environment puts the tables in DynamoDB Local instead of moto.
docs/local.md explains the local stack behind all three.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from serverless_rps_local import dev_account
from serverless_rps_local.dynamodb_local import DynamoDbLocalMissing
from serverless_rps_local.invoke import EventFileProblem, invoke_event_files
from serverless_rps_local.saved_state import StateInUse
from serverless_rps_local.stack import OPERATOR_ENVIRONMENT, LocalStack, StackOptions, repository_root

DEFAULT_PAGE_PORT = 8765
_DEMO_WORKERS = 2
# What stops `play` cleanly; the stack's processes ignore them and wait to be stopped (they share
# the terminal's process group, which gets Ctrl-C's SIGINT and a hang-up's SIGHUP too).
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
DEMO_SCRIPT = (
    ("alice", "nick alice"),
    ("bob", "nick bob"),
    ("alice", "throw rock bob"),
    ("bob", "paper alice"),
    ("alice", "score"),
    ("bob", "score"),
    ("alice", "again scissors"),  # a rematch: at the last opponent
    ("bob", "again rock"),
    ("alice", "throw rock"),  # no nickname: waits for a stranger
    ("bob", "paper"),  # ... and the next throw with none plays her
    ("bob", "top"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m serverless_rps", description=__doc__.split("\n")[0])
    _add_stack_arguments(parser, on_a_command=False)
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="start the local stack and the phone simulator page")
    play.add_argument(
        "--port", type=int, default=DEFAULT_PAGE_PORT, help="the page's port (default %(default)s)"
    )
    _add_stack_arguments(play)

    demo = commands.add_parser("demo", help="play a scripted game between two phones and print it")
    demo.add_argument(
        "--workers", type=int, default=argparse.SUPPRESS, help="game function workers (default 2)"
    )
    demo.add_argument("--template", type=Path, default=argparse.SUPPRESS)

    invoke = commands.add_parser("invoke", help="run a function's real handler on event files, in order")
    invoke.add_argument("function", help="GameFunction or WebhookFunction (or: game, webhook)")
    invoke.add_argument("events", type=Path, nargs="+", help="event JSON files, e.g. events/sqs-01-help.json")
    _add_stack_arguments(invoke)

    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "play":
            return _play(arguments)
        if arguments.command == "demo":
            return _demo(arguments)
        return _invoke(arguments)
    except (StateInUse, DynamoDbLocalMissing) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _add_stack_arguments(parser: argparse.ArgumentParser, *, on_a_command: bool = True) -> None:
    """The stack's options, taken before or after the command. After it they have no default of
    their own (SUPPRESS), so they never undo one given before it."""

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if on_a_command else value

    parser.add_argument(
        "--state-dir",
        type=Path,
        default=default(repository_root() / ".local-state"),
        help="where game state is kept between runs (default: .local-state/ in the repository)",
    )
    parser.add_argument(
        "--fresh", action="store_true", default=default(False), help="start from empty tables and queues"
    )
    parser.add_argument(
        "--workers", type=int, default=default(None), help="game function workers (default: 4; demo: 2)"
    )
    parser.add_argument("--template", type=Path, default=default(repository_root() / "template.yaml"))


def _state_directory(arguments: argparse.Namespace) -> Path:
    directory: Path = arguments.state_dir
    if arguments.fresh:
        for name in ("dynamodb", "sqs", "twilio", "simulator"):
            (directory / f"{name}.json").unlink(missing_ok=True)
    return directory


def _play(arguments: argparse.Namespace) -> int:
    stack = LocalStack(
        StackOptions(
            template_path=arguments.template,
            state_directory=_state_directory(arguments),
            workers=arguments.workers,
            page_port=arguments.port,
        )
    )
    print("Starting the local stack (moto, Twilio API, webhook and game functions)...", flush=True)
    stack.start()
    stopping = threading.Event()

    def stop(signal_number: int, frame: FrameType | None) -> None:
        stopping.set()

    # Ctrl-C, `kill` and a closed terminal (SIGHUP: the window closed, an SSH connection dropped)
    # all stop the same way: invocations in progress finish and the state is saved.
    for signal_number in _STOP_SIGNALS:
        signal.signal(signal_number, stop)
    info = stack.describe()
    restored = stack.restored
    print(
        f"""
Ready in {stack.started_in_seconds:.1f} s. Open the phones:  {info["page_url"]}/

  Game number (Twilio):    {info["service_number"]}
  Webhook (signed POSTs):  {info["webhook_url"]}
  Twilio Messages API:     {info["twilio_api_url"]}
{_aws_lines(info)}
  Game function workers:   {info["workers"]}
  State:                   {info["state_directory"]} ({restored.get("items", 0)} items, \
{restored.get("messages", 0)} queued messages restored; saved on Ctrl-C)
  Logs:                    {Path(info["state_directory"]) / "logs"}
  Operator's tool:         set -a; . {Path(info["state_directory"]) / OPERATOR_ENVIRONMENT}; set +a
                           .venv/bin/python -m serverless_rps.admin status

Ctrl-C stops everything and saves the state.""",
        flush=True,
    )
    while not stopping.wait(0.5):
        pass
    _say("\nStopping: finishing invocations in progress, saving state...")
    stack.stop()
    _say(f"Stopped. State saved in {info['state_directory']}.")
    return 0


def _say(line: str) -> None:
    """Print, unless the terminal is gone (after a SIGHUP, writes to it fail): then the stop goes
    on in silence, up to the exit's own flush."""
    try:
        print(line, flush=True)
    except OSError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the rest of the process's life


def _aws_lines(info: dict[str, Any]) -> str:
    if info["dynamodb_engine"] == "moto":
        return f"  moto (DynamoDB/SQS/SSM): {info['moto_endpoint']}"
    return (
        f"  moto (SQS/SSM):          {info['moto_endpoint']}\n"
        f"  DynamoDB Local:          {info['dynamodb_endpoint']}"
    )


def _demo(arguments: argparse.Namespace) -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="serverless-rps-demo-") as logs:
        options = StackOptions(
            template_path=arguments.template,
            workers=_DEMO_WORKERS if arguments.workers is None else arguments.workers,
            log_directory=Path(logs),
        )
        with LocalStack(options) as stack:
            assert stack.simulator is not None
            phones = dict(zip(("alice", "bob"), dev_account.FIRST_PHONE_NUMBERS, strict=True))
            names = {number: name for name, number in phones.items()}
            print(
                f"Local stack ready in {stack.started_in_seconds:.1f} s. The game's number is "
                f"{dev_account.SERVICE_NUMBER}.\n"
            )
            missing = []
            for player, text in DEMO_SCRIPT:
                seen = len(stack.simulator.conversation())
                status = stack.simulator.text(phones[player], text)
                stack.wait_until_idle(timeout=60)
                entries = stack.simulator.conversation(seen)
                for entry in entries:
                    print(_demo_line(entry, names))
                replies = [
                    e for e in entries if e["direction"] == "outbound" and e["phone"] == phones[player]
                ]
                if status != 200 or not replies:
                    missing.append(f"{player}: {text!r} (webhook {status}, {len(replies)} replies)")
                print()
    print(f"Demo finished in {time.monotonic() - started:.1f} s.")
    if missing:
        print("Texts without a reply: " + "; ".join(missing), file=sys.stderr)
        return 1
    return 0


def _demo_line(entry: dict[str, Any], names: dict[str, str]) -> str:
    name = names.get(entry["phone"], entry["phone"])
    if entry["direction"] == "inbound":
        return f"{name:>5} > {entry['body']}"
    if entry["direction"] == "outbound":
        return f"{'':>5} < to {name}: {entry['body']}"
    return f"{'':>5} ! {entry['body']}"


def _invoke(arguments: argparse.Namespace) -> int:
    try:
        reports = invoke_event_files(
            arguments.function, arguments.events, _state_directory(arguments), arguments.template
        )
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    except EventFileProblem as problem:
        # One line, no traceback: a mistyped path is the commonest mistake, and nothing ran yet.
        print(f"invoke: {problem.path}: {problem.reason}", file=sys.stderr)
        return 2
    except StateInUse:
        # Most often `make play` in another terminal: invoke can run beside it on a state of its own.
        print(
            f"invoke: another local stack (`make play`?) is using {arguments.state_dir}: stop it, or give "
            "invoke a state of its own, e.g. --state-dir /tmp/rps-invoke (add --fresh for empty tables)",
            file=sys.stderr,
        )
        return 2
    for report in reports:
        print("\n".join(report.lines()), end="\n\n")
    print(f"State kept in {arguments.state_dir} for the next run.")
    return 1 if any(report.invocation.failed for report in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
