"""`invoke` runs the real handlers on every file in events/, in order, against the local stack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from serverless_rps import replies
from serverless_rps_local.event_files import ALICE, BOB, event_files
from serverless_rps_local.invoke import InvocationReport, event_mismatch, invoke_event_files
from serverless_rps_local.saved_state import StateDirectory
from serverless_rps_local.stack import GAME_FUNCTION, WEBHOOK_FUNCTION, repository_root

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

EVENTS = repository_root() / "events"
SQS_EVENTS = sorted(EVENTS.glob("sqs-*.json"))
HELP_SID = "SM00000000000000000000000000000001"
DUPLICATED_SID = "SM00000000000000000000000000000014"
RERUN = "again: sqs-01-help.json"
PROGRAM = replies.Program()  # the local stack's program: nothing configured


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, InvocationReport]:
    state = tmp_path_factory.mktemp("state")
    # The first file again at the end: its SMS was answered already.
    *game, rerun = invoke_event_files("game", [*SQS_EVENTS, SQS_EVENTS[0]], state)
    webhook = invoke_event_files("WebhookFunction", [EVENTS / "webhook-signed-post.json"], state)
    return {report.event_path.name: report for report in [*game, *webhook]} | {RERUN: rerun}


def _recipients(report: InvocationReport) -> list[str]:
    """Every SMS's phone, one entry per SMS."""
    return sorted(message["to"] for message in report.sms_sent)


# A phone's first reply ever is the opt-in confirmation, before its answer; HELP answers with two
# replies (the program's help, then the commands).
ALICE_FIRST_HELP = [
    replies.opt_in_confirmation(PROGRAM),
    replies.program_help(PROGRAM),
    replies.help_overview(),
]


def test_the_event_files_are_what_the_generator_writes() -> None:
    on_disk = {path.name: json.loads(path.read_text()) for path in EVENTS.glob("*.json")}

    assert on_disk == event_files()


@pytest.mark.parametrize(
    ("event", "recipients"),
    [
        ("sqs-01-help.json", [ALICE] * 3),  # the opt-in confirmation and HELP's two replies
        ("sqs-02-nick.json", [ALICE, BOB, BOB]),  # bob's first text: the opt-in confirmation too
        ("sqs-03-throw-waiting.json", [ALICE, BOB]),
        ("sqs-04-throw-resolving.json", [ALICE, BOB]),
        ("sqs-05-games.json", [ALICE]),
        ("sqs-06-score.json", [ALICE, BOB]),
        ("sqs-07-stop.json", []),
        ("sqs-08-start.json", [BOB]),
    ],
)
def test_each_command_event_succeeds_and_replies_to_the_right_phones(
    reports: dict[str, InvocationReport], event: str, recipients: list[str]
) -> None:
    report = reports[event]

    assert report.invocation.error is None
    assert report.invocation.response["batchItemFailures"] == []
    assert _recipients(report) == sorted(recipients)


def test_a_new_phones_help_is_answered_after_the_opt_in_confirmation(
    reports: dict[str, InvocationReport],
) -> None:
    assert [message["body"] for message in reports["sqs-01-help.json"].sms_sent] == ALICE_FIRST_HELP
    bob = [message["body"] for message in reports["sqs-02-nick.json"].sms_sent if message["to"] == BOB]
    assert bob == [replies.opt_in_confirmation(PROGRAM), replies.nick_registered("bob")]


def test_the_resolving_throw_tells_both_players_both_moves(reports: dict[str, InvocationReport]) -> None:
    for message in reports["sqs-04-throw-resolving.json"].sms_sent:
        assert "rock" in message["body"].lower()
        assert "paper" in message["body"].lower()


def test_a_duplicate_is_answered_once_and_poison_is_parked_not_retried(
    reports: dict[str, InvocationReport],
) -> None:
    report = reports["sqs-09-duplicate-and-poison.json"]

    assert report.invocation.response["batchItemFailures"] == []
    assert _recipients(report) == [ALICE]
    assert report.queue_depths["Dead-letter queue"] == 1


def test_each_record_of_a_batch_says_what_became_of_it(reports: dict[str, InvocationReport]) -> None:
    report = reports["sqs-09-duplicate-and-poison.json"]

    assert [outcome.kind for outcome in report.records] == ["answered", "duplicate", "dead-letter"]
    lines = report.lines()
    assert "Records:" in lines
    assert "  1. 00000000-0000-4000-8000-000000000020: answered with 1 reply" in lines
    assert (
        f"  2. 00000000-0000-4000-8000-000000000021: a duplicate of {DUPLICATED_SID} (as record 1 above), "
        "answered once; no reply sent again"
    ) in lines
    # The reason is the one the game attached to the dead-letter message.
    assert (
        "  3. 00000000-0000-4000-8000-000000000022: parked on the dead-letter queue: body is not JSON"
        in lines
    )


def test_a_single_record_event_explains_an_empty_sms_count(reports: dict[str, InvocationReport]) -> None:
    assert "SMS sent: 0 — processed; the game sends no reply to it" in reports["sqs-07-stop.json"].lines()
    # An answered record needs no explanation: its SMS are listed.
    assert "SMS sent: 3" in reports["sqs-01-help.json"].lines()


def test_a_rerun_event_is_reported_as_a_duplicate_not_just_no_sms(
    reports: dict[str, InvocationReport],
) -> None:
    report = reports[RERUN]

    assert report.sms_sent == []
    assert [outcome.kind for outcome in report.records] == ["duplicate"]
    assert f"SMS sent: 0 — a duplicate of {HELP_SID}, already answered; no reply sent again" in report.lines()


def test_the_signed_webhook_post_is_accepted_and_enqueued(reports: dict[str, InvocationReport]) -> None:
    report = reports["webhook-signed-post.json"]

    assert report.invocation.response["statusCode"] == 200
    assert report.invocation.response["headers"]["Content-Type"] == "text/xml"
    assert report.queue_depths["Incoming queue"] == 1


def test_the_command_line_invokes_an_event_file_and_keeps_the_state(tmp_path: Path) -> None:
    # The stack's options go before the command as well as after it.
    command = [sys.executable, "-m", "serverless_rps", "--state-dir", str(tmp_path), "invoke", "game"]

    help_event = str(EVENTS / "sqs-01-help.json")

    run = subprocess.run([*command, help_event, help_event], capture_output=True, text=True, timeout=300)

    assert run.returncode == 0, run.stderr
    assert "SMS sent: 3\n" in run.stdout
    assert f"SMS sent: 0 — a duplicate of {HELP_SID}, already answered; no reply sent again\n" in run.stdout
    sent = json.loads((tmp_path / "twilio.json").read_text())["sent"]
    assert [(message["to"], message["body"]) for message in sent] == [
        (ALICE, body) for body in ALICE_FIRST_HELP
    ]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no such file"),
        ('{"Records": [', "not valid JSON: Expecting value (line 1, column 14)"),
        ("[]", "not an event: the JSON is a list, not an object"),
        (
            "{}",
            "no SQS records (no `Records` list): the game function takes SQS events, e.g. "
            "events/sqs-01-help.json",
        ),
        (
            '{"Records": []}',
            "no SQS records (`Records` is empty): the game function takes SQS events, e.g. "
            "events/sqs-01-help.json",
        ),
    ],
)
def test_an_unusable_event_file_is_one_line_and_exit_status_2(
    tmp_path: Path, content: str | None, reason: str
) -> None:
    event = tmp_path / "event.json"
    if content is not None:
        event.write_text(content, encoding="utf-8")
    state = tmp_path / "state"

    run = subprocess.run(
        [sys.executable, "-m", "serverless_rps", "invoke", "game", "--state-dir", str(state), str(event)],
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert run.returncode == 2
    assert run.stderr == f"invoke: {event}: {reason}\n"
    assert run.stdout == ""
    assert not state.exists()  # nothing started


def _invoke(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "serverless_rps", "invoke", *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_webhook_event_given_to_the_game_says_which_function_it_is_for(tmp_path: Path) -> None:
    event = EVENTS / "webhook-signed-post.json"
    state = tmp_path / "state"

    run = _invoke("game", "--state-dir", str(state), str(EVENTS / "sqs-01-help.json"), str(event))

    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == (
        f"invoke: {event}: no SQS records (no `Records` list): this is an HTTP request, for the webhook "
        f"(invoke webhook {event}); the game function takes SQS events, e.g. events/sqs-01-help.json\n"
    )
    assert not state.exists()  # nothing started, not even the good file before it


@pytest.mark.parametrize("path", sorted(EVENTS.glob("*.json")), ids=lambda path: path.name)
def test_every_event_file_fits_its_own_function_and_not_the_other(path: Path) -> None:
    event = json.loads(path.read_text())
    own, other = (
        (WEBHOOK_FUNCTION, GAME_FUNCTION)
        if path.name.startswith("webhook")
        else (GAME_FUNCTION, WEBHOOK_FUNCTION)
    )

    assert event_mismatch(own, event, path) is None
    mismatch = event_mismatch(other, event, path)
    assert mismatch is not None
    assert f"(invoke {'game' if other == WEBHOOK_FUNCTION else 'webhook'} {path})" in mismatch


def test_invoke_beside_a_running_play_suggests_a_state_of_its_own(tmp_path: Path) -> None:
    busy = StateDirectory(tmp_path)
    busy.lock()  # as `make play` holds .local-state/ while it runs
    try:
        run = _invoke("game", "--state-dir", str(tmp_path), str(EVENTS / "sqs-01-help.json"))
    finally:
        busy.unlock()

    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == (
        f"invoke: another local stack (`make play`?) is using {tmp_path}: stop it, or give invoke a state "
        "of its own, e.g. --state-dir /tmp/rps-invoke (add --fresh for empty tables)\n"
    )
