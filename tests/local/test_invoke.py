"""`invoke` runs the real handlers on every file in events/, in order, against the local stack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from serverless_rps_local.event_files import ALICE, BOB, event_files
from serverless_rps_local.invoke import InvocationReport, invoke_event_files
from serverless_rps_local.stack import repository_root

EVENTS = repository_root() / "events"
SQS_EVENTS = sorted(EVENTS.glob("sqs-*.json"))


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, InvocationReport]:
    state = tmp_path_factory.mktemp("state")
    game = invoke_event_files("game", SQS_EVENTS, state)
    webhook = invoke_event_files("WebhookFunction", [EVENTS / "webhook-signed-post.json"], state)
    return {report.event_path.name: report for report in [*game, *webhook]}


def _recipients(report: InvocationReport) -> list[str]:
    return sorted(message["to"] for message in report.sms_sent)


def test_the_event_files_are_what_the_generator_writes() -> None:
    on_disk = {path.name: json.loads(path.read_text()) for path in EVENTS.glob("*.json")}

    assert on_disk == event_files()


@pytest.mark.parametrize(
    ("event", "recipients"),
    [
        ("sqs-01-help.json", [ALICE]),
        ("sqs-02-nick.json", [ALICE, BOB]),
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


def test_the_signed_webhook_post_is_accepted_and_enqueued(reports: dict[str, InvocationReport]) -> None:
    report = reports["webhook-signed-post.json"]

    assert report.invocation.response["statusCode"] == 200
    assert report.invocation.response["headers"]["Content-Type"] == "text/xml"
    assert report.queue_depths["Incoming queue"] == 1


def test_the_command_line_invokes_an_event_file_and_keeps_the_state(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "serverless_rps", "invoke", "game", "--state-dir", str(tmp_path)]

    first = subprocess.run(
        [*command, str(EVENTS / "sqs-01-help.json")], capture_output=True, text=True, timeout=300
    )

    assert first.returncode == 0, first.stderr
    assert "SMS sent: 1" in first.stdout
    assert json.loads((tmp_path / "twilio.json").read_text())["sent"][0]["to"] == ALICE
