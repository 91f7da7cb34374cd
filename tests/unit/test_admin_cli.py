"""The operator tool's command line: every command says what it does and whether it changes
anything; durations read as people write them; `--stack` finds the deployed game's settings."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from serverless_rps.admin import locate
from serverless_rps.admin.cli import parse_duration
from serverless_rps.admin.verify import FICTIONAL_PHONE, Verification, VerificationFailed, webhook_url
from serverless_rps.config import ConfigurationError

REPO = Path(__file__).resolve().parents[2]
CHANGING = ["dlq redrive", "outbox resend", "unlock", "erase"]
READING = ["status", "player", "dlq list", "outbox pending"]


def _help(*command: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "serverless_rps.admin", *command, "--help"],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "250"},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def test_the_overview_marks_every_command_that_changes_something() -> None:
    overview = _help() + _help("dlq") + _help("outbox")
    lines = {line.strip().split("  ")[0]: line for line in overview.splitlines() if line.startswith("    ")}

    for command in CHANGING:
        assert "CHANGES" in lines[command.split()[-1]], command
    for command in READING:
        assert "reads only" in lines[command.split()[-1]], command


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("status", "changes nothing"),
        ("player", "changes nothing"),
        ("dlq list", "receive count"),
        ("outbox pending", "no delivery recorded"),
        ("dlq redrive", "never in neither"),
        ("outbox resend", "same outbox lease"),
        ("unlock", "fenced commit then fails"),
        ("erase", "No SMS is sent"),
    ],
)
def test_each_commands_help_says_what_it_reads_or_changes(command: str, says: str) -> None:
    assert says in " ".join(_help(*command.split()).split())


@pytest.mark.parametrize(
    ("text", "seconds"), [("90", 90), ("90s", 90), ("15m", 900), ("2h", 7200), ("1d", 86400), ("1.5h", 5400)]
)
def test_durations_read_as_people_write_them(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "5 minutes", "-5m", "5w"])
def test_a_duration_that_is_not_one_is_refused_with_an_example(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=r"e\.g\. 90s"):
        parse_duration(text)


_STACK = {
    "Resources": {
        "GameFunction": {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "FunctionName": "rps-game",
                "Runtime": "python3.13",
                "Handler": "serverless_rps.app.lambda_handler",
                "Role": "arn:aws:iam::123456789012:role/rps-game",
                "Code": {"ZipFile": "def lambda_handler(event, context): pass"},
                "Environment": {
                    "Variables": {
                        "GAME_STATE_TABLE": "rps-GameStateTable-1",
                        "NICKNAME_TABLE": "rps-NicknameTable-1",
                        "IDEMPOTENCY_TABLE": "rps-IdempotencyTable-1",
                        "INCOMING_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/rps-incoming",
                        "DEAD_LETTER_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/rps-dlq",
                        "TWILIO_ACCOUNT_SID": "AC" + "1" * 32,
                        "TWILIO_AUTH_TOKEN_PARAMETER": "/serverless-rps/twilio-auth-token",
                        "LOCK_LEASE_SECONDS": "25",
                    }
                },
            },
        }
    }
}


def test_stack_reads_the_deployed_game_functions_own_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        iam = boto3.client("iam", region_name="us-east-1")
        iam.create_role(RoleName="rps-game", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17"}))
        cloudformation = boto3.client("cloudformation", region_name="us-east-1")
        cloudformation.create_stack(StackName="rps", TemplateBody=json.dumps(_STACK))

        settings = locate.from_stack(cloudformation, boto3.client("lambda", region_name="us-east-1"), "rps")

    assert settings.game_state_table == "rps-GameStateTable-1"
    assert settings.dead_letter_queue_url.endswith("/rps-dlq")
    assert settings.twilio.auth_token_parameter == "/serverless-rps/twilio-auth-token"


def test_a_stack_without_the_game_function_is_named_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        cloudformation = boto3.client("cloudformation", region_name="us-east-1")
        with pytest.raises(locate.ConfigurationError, match="stack nope: no GameFunction"):
            locate.from_stack(cloudformation, boto3.client("lambda", region_name="us-east-1"), "nope")


def test_verify_puts_the_path_secret_where_the_stack_output_shows_its_placeholder() -> None:
    output = "https://abc.execute-api.us-east-1.amazonaws.com/sms/<WebhookPathSecret>"
    assert webhook_url(output, "s3cr/t") == "https://abc.execute-api.us-east-1.amazonaws.com/sms/s3cr%2Ft"
    assert webhook_url("https://sms.example.com/rps", None) == "https://sms.example.com/rps"
    with pytest.raises(ConfigurationError, match="WEBHOOK_PATH_SECRET"):
        webhook_url(output, None)


def test_verify_says_where_the_round_trip_stopped_when_the_game_never_answers() -> None:
    ticks = iter(range(0, 1000, 5))
    verification = Verification(
        url="https://api.example.com/sms/secret",
        account_sid="AC" + "0" * 32,
        auth_token="token",
        service_number="+15550100000",
        timeout_seconds=30,
    )
    posted: list[dict[str, str]] = []

    def post(url: str, fields: Mapping[str, str], headers: Mapping[str, str]) -> tuple[int, str]:
        posted.append({**fields, **headers})
        return 200, "<Response/>"

    with pytest.raises(VerificationFailed, match="not yet processed") as failure:
        verification.run(lambda key: None, post=post, clock=lambda: float(next(ticks)), sleep=lambda _: None)
    [request] = posted
    assert (request["From"], request["Body"]) == (FICTIONAL_PHONE, "help")
    assert request["X-Twilio-Signature"], "signed as Twilio signs"
    assert "secret" not in str(failure.value), "the path secret never appears in messages"
