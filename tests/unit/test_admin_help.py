"""The operator's tool's --help, word for word: every command's help as an operator reads it is
tests/unit/admin-help.txt. A change to the help is a change to that file, made on purpose:

    .venv/bin/python -m tests.unit.test_admin_help > tests/unit/admin-help.txt

Rendered in this process (not by running the tool), at 250 columns, so that it is the code under
test that prints it."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from serverless_rps.admin import cli

GOLDEN = Path(__file__).with_name("admin-help.txt")
COMMANDS = [
    [],
    ["status"],
    ["player"],
    ["dlq"],
    ["dlq", "list"],
    ["dlq", "redrive"],
    ["outbox"],
    ["outbox", "pending"],
    ["outbox", "resend"],
    ["unlock"],
    ["erase"],
    ["verify"],
    ["ceiling"],
    ["proof"],
    ["proof-key"],
    ["campaign"],
]


def every_help() -> str:
    pages = []
    for command in COMMANDS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            cli.main([*command, "--help"])
        pages.append(f"$ python -m serverless_rps.admin {' '.join([*command, '--help'])}\n{out.getvalue()}")
    return "\n".join(pages)


def test_every_commands_help_reads_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.delenv("TWILIO_PHONE_NUMBER", raising=False)
    assert every_help() == GOLDEN.read_text(), f"the help changed: if on purpose, see {__name__}'s docstring"


if __name__ == "__main__":
    os.environ["COLUMNS"] = "250"
    os.environ.pop("TWILIO_PHONE_NUMBER", None)
    print(every_help(), end="")
