"""The operator tool's command line: every command says what it does and whether it changes
anything; durations read as people write them; `--stack` finds the deployed game's settings; and
it behaves in scripts: options anywhere, no prompt without a terminal, one line per failure, exit
statuses 0 done / 1 failed / 2 usage."""

from __future__ import annotations

import argparse
import io
import json
import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import (
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    ProfileNotFound,
)
from moto import mock_aws

from serverless_rps.admin import cli, locate
from serverless_rps.admin.cli import parse_duration
from serverless_rps.admin.verify import (
    FICTIONAL_PHONE,
    Verification,
    VerificationFailed,
    post_form,
    webhook_url,
)
from serverless_rps.config import ConfigurationError
from serverless_rps.exceptions import StoreUnavailable
from serverless_rps.observability import logger
from serverless_rps.ports import CompletedRecord, OutboundSms

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


def test_a_stack_that_is_not_there_is_named_with_the_region_looked_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        cloudformation = boto3.client("cloudformation", region_name="eu-west-1")
        with pytest.raises(locate.ConfigurationError, match=r"^no stack nope in eu-west-1: .* --region$"):
            locate.from_stack(cloudformation, boto3.client("lambda", region_name="eu-west-1"), "nope")


def test_a_stack_without_the_game_function_is_named_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        cloudformation = boto3.client("cloudformation", region_name="us-east-1")
        template = {"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}
        cloudformation.create_stack(StackName="other", TemplateBody=json.dumps(template))
        with pytest.raises(locate.ConfigurationError, match="stack other in us-east-1: no GameFunction"):
            locate.from_stack(cloudformation, boto3.client("lambda", region_name="us-east-1"), "other")


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


def test_verify_waits_for_every_reply_of_the_test_text_and_reports_each() -> None:
    verification = Verification(
        url="https://api.example.com/sms/secret",
        account_sid="AC" + "0" * 32,
        auth_token="token",
        service_number="+15550100000",
    )
    outbox = tuple(
        OutboundSms(FICTIONAL_PHONE, "+15550100000", body) for body in ("welcome", "help", "commands")
    )
    # As polled: not yet processed, committed with one reply sent, then every reply settled.
    readings = iter(
        [
            None,
            CompletedRecord("sms#x", outbox, {0: "refused:21211"}),
            CompletedRecord("sms#x", outbox, {0: "refused:21211", 1: "refused:21211", 2: "SM2"}),
        ]
    )
    polls: list[str] = []

    def read_completed(message_sid: str) -> CompletedRecord | None:
        polls.append(message_sid)
        return next(readings)

    result = verification.run(
        read_completed, post=lambda url, fields, headers: (200, "<Response/>"), sleep=lambda _: None
    )

    assert len(polls) == 3, "a committed record with replies still unsent is polled again"
    assert result["replies"] == [
        {"reply": 1, "outcome": "refused for good by Twilio (error 21211), as expected for a made-up number"},
        {"reply": 2, "outcome": "refused for good by Twilio (error 21211), as expected for a made-up number"},
        {"reply": 3, "outcome": "accepted by Twilio (SM2)"},
    ]


# -- the tool in scripts: options anywhere, no prompt without a terminal, one line per failure -------


class _RecordingOperator:
    """Stands for Operator where only the command line is under test: records the changes asked."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, Any]] = []

    def status(self) -> dict[str, Any]:
        return {"dead_letters": 0}

    def phone_of(self, player: str) -> str:
        return player

    def redrive(self, ids: list[str] | None) -> list[dict[str, Any]]:
        self.changes.append(("redrive", ids))
        return []

    def erase(self, phone: str) -> dict[str, Any]:
        self.changes.append(("erase", phone))
        return {"phone": phone, "result": "processed"}


def _main(argv: list[str], operator: Any = None, **keywords: Any) -> tuple[int, str, _RecordingOperator]:
    operator = operator or _RecordingOperator()
    out = io.StringIO()
    keywords.setdefault("connect", lambda _: operator)
    status = cli.main(argv, out=out, **keywords)
    return status, out.getvalue(), operator


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", "status"],
        ["status", "--json"],
        ["--yes", "dlq", "redrive", "--all", "--json"],
        ["dlq", "redrive", "--all", "--yes", "--json"],
        ["dlq", "--yes", "redrive", "--json", "--all"],
        ["--region", "eu-west-1", "erase", "+15551230001", "--yes", "--json"],
        ["erase", "--stack", "rps", "+15551230001", "--verbose", "--json", "--yes"],
    ],
)
def test_the_common_options_are_taken_before_or_after_the_command(argv: list[str]) -> None:
    status, output, operator = _main(argv, ask=lambda _: pytest.fail("asked despite --yes"))

    assert status == 0
    json.loads(output)
    assert len(operator.changes) == (0 if "status" in argv else 1)


def test_an_option_given_before_the_command_is_kept_after_it() -> None:
    seen: list[argparse.Namespace] = []

    def connect(arguments: argparse.Namespace) -> Any:
        seen.append(arguments)
        return _RecordingOperator()

    cli.main(
        ["--stack", "rps", "--region", "eu-west-1", "--json", "status"], connect=connect, out=io.StringIO()
    )
    cli.main(["status", "--stack", "rps", "--region", "eu-west-1"], connect=connect, out=io.StringIO())

    assert [(a.stack, a.region) for a in seen] == [("rps", "eu-west-1")] * 2
    assert [a.json for a in seen] == [True, False]


@pytest.mark.parametrize("argv", [["dlq", "redrive", "--all"], ["erase", "+15551230001"]])
def test_without_a_terminal_a_change_is_refused_in_one_line_and_nothing_changes(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # cron, CI, a pipe: not a terminal

    status, output, operator = _main(argv)

    assert (status, output, operator.changes) == (2, "", [])
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ")
    assert "no terminal" in line
    assert "--yes" in line

    status, _, operator = _main([*argv, "--yes"])
    assert (status, len(operator.changes)) == (0, 1)


def test_a_declined_change_changes_nothing_and_exits_1() -> None:
    status, output, operator = _main(["erase", "+15551230001"], ask=lambda _: "n")

    assert (status, output, operator.changes) == (1, "", [])


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["nope"],
        ["dlq"],
        ["dlq", "redrive"],
        ["player"],
        ["status", "--nope"],
        ["outbox", "pending", "--older-than", "soon"],
    ],
)
def test_a_wrong_command_line_exits_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        _main(argv)
    assert exit_.value.code == 2


def _failing(problem: Exception) -> Any:
    def connect(arguments: argparse.Namespace) -> Any:
        raise problem

    return connect


_LOCAL = "http://127.0.0.1:5123/"


@pytest.mark.parametrize(
    ("problem", "says"),
    [
        (NoRegionError(), "no AWS region: give --region NAME"),
        (NoCredentialsError(), "Unable to locate credentials: configure a profile"),
        (ProfileNotFound(profile="work"), "check AWS_PROFILE"),
        (
            EndpointConnectionError(endpoint_url=_LOCAL),
            "no local stack is running at http://127.0.0.1:5123: start `make play`",
        ),
        (
            EndpointConnectionError(endpoint_url="https://sqs.xx-nowhere-1.amazonaws.com/"),
            "cannot reach https://sqs.xx-nowhere-1.amazonaws.com/: check the network, and the region",
        ),
        (
            ClientError({"Error": {"Code": "ExpiredToken", "Message": "expired"}}, "Scan"),
            "your AWS credentials have expired",
        ),
        (
            ClientError(
                {"Error": {"Code": "AWS.SimpleQueueService.NonExistentQueue", "Message": "no"}},
                "GetQueueAttributes",
            ),
            "check --stack and --region",
        ),
        (
            ConfigurationError("environment variable GAME_STATE_TABLE is required"),
            "GAME_STATE_TABLE is required",
        ),
    ],
)
def test_each_aws_or_configuration_failure_is_one_line_naming_its_cause_and_fix(
    problem: Exception, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, output, _ = _main(["status"], connect=_failing(problem))

    assert (status, output) == (1, "")
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ")
    assert says in line

    status, _, _ = _main(["status", "--verbose"], connect=_failing(problem))
    error = capsys.readouterr().err
    assert status == 1
    assert error.startswith("Traceback")
    assert error.splitlines()[-1] == line


def test_a_store_failure_is_explained_by_the_sdk_error_beneath_it(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        try:
            raise EndpointConnectionError(endpoint_url=_LOCAL)
        except EndpointConnectionError as exc:
            raise StoreUnavailable("could not scan a table: EndpointConnectionError") from exc
    except StoreUnavailable as unavailable:
        problem = unavailable

    assert _main(["status"], connect=_failing(problem))[0] == 1
    assert "no local stack is running at http://127.0.0.1:5123" in capsys.readouterr().err


def _run_admin(env: Mapping[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "serverless_rps.admin", *argv],
        cwd=REPO,
        env={"PATH": os.environ.get("PATH", ""), "AWS_EC2_METADATA_DISABLED": "true", **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_missing_credentials_are_one_line_not_a_traceback(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("")
    no_profile = {"AWS_CONFIG_FILE": str(empty), "AWS_SHARED_CREDENTIALS_FILE": str(empty)}

    run = _run_admin(no_profile, "--stack", "serverless-rps", "status")

    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith("error: Unable to locate credentials: configure a profile")
    assert len(run.stderr.splitlines()) == 1


def test_a_stack_whose_endpoint_is_gone_is_one_line_saying_no_local_stack_runs(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on: the local stack of a closed terminal
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    variables = {
        "GAME_STATE_TABLE": "game",
        "NICKNAME_TABLE": "nick",
        "IDEMPOTENCY_TABLE": "idem",
        "INCOMING_QUEUE_URL": f"http://127.0.0.1:{port}/123456789012/incoming",
        "DEAD_LETTER_QUEUE_URL": f"http://127.0.0.1:{port}/123456789012/dlq",
        "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
        "TWILIO_AUTH_TOKEN": "local",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_MAX_ATTEMPTS": "1",
    }

    run = _run_admin(variables, "status", "--json")

    assert (run.returncode, run.stdout) == (1, ""), run.stderr
    assert run.stderr == (
        f"error: no local stack is running at http://127.0.0.1:{port}: start `make play` in another "
        "terminal, then load its variables again (set -a; . .local-state/game-function.env; set +a)\n"
    )


def test_verify_against_a_stopped_local_stack_says_no_local_stack_runs() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    with pytest.raises(ConfigurationError) as failure:
        post_form(f"http://127.0.0.1:{port}/sms/secret", {"Body": "help"}, {})

    assert str(failure.value).startswith(
        f"no local stack is running at http://127.0.0.1:{port}: start `make play`"
    )
    assert "secret" not in str(failure.value)


def test_the_region_is_the_profiles_else_the_one_samconfig_gives_make_deploy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
    for name in ("AWS_DEFAULT_REGION", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    samconfig = tmp_path / "samconfig.toml"
    samconfig.write_text('version = 0.1\n[default.deploy.parameters]\nregion = "ap-south-1"\n')

    assert locate.samconfig_region() == "us-east-1", "the repository's own samconfig.toml"
    assert locate.session(None, samconfig).region_name == "ap-south-1"
    assert locate.session("eu-west-1", samconfig).region_name == "eu-west-1"
    assert locate.session(None, tmp_path / "none.toml").region_name is None
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-north-1")
    assert locate.session(None, samconfig).region_name == "eu-north-1"


def test_a_profile_without_a_region_finds_the_stack_in_the_region_make_deploy_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)

    with mock_aws():
        status = cli.main(["--stack", "nope", "status"], out=io.StringIO())
        assert status == 1
        assert capsys.readouterr().err.startswith("error: no stack nope in us-east-1: ")

        status = cli.main(["status", "--stack", "nope", "--region", "eu-west-1"], out=io.StringIO())
        assert status == 1
        assert capsys.readouterr().err.startswith("error: no stack nope in eu-west-1: ")


@pytest.mark.parametrize(
    ("text", "player"),
    [
        ("+15551230001", "+15551230001"),
        ("+1 555 123-0001", "+15551230001"),
        ("alice", "alice"),
        ("Bob_2", "Bob_2"),
    ],
)
def test_a_player_is_a_phone_in_e164_or_a_nickname(text: str, player: str) -> None:
    assert cli.parse_player(text) == player


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("15551230001", "write it with + and its country code, as the game stores it (+15551230001 if"),
        ("555-123-0001", "(+5551230001 if it starts with its country code)"),
        ("a+b", "neither a phone number (E.164, e.g. +15551230001) nor a nickname"),
        ("+1", "neither a phone number"),
    ],
)
def test_a_number_without_its_plus_is_refused_with_the_form_it_needs(text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refusal:
        cli.parse_player(text)
    assert says in str(refusal.value)


# -- what each command takes when nothing is said -------------------------------------------------


def test_outbox_pending_lists_every_unsent_reply_unless_told_how_old() -> None:
    assert cli._parser().parse_args(["outbox", "pending"]).older_than == 0.0
    assert cli._parser().parse_args(["outbox", "pending", "--older-than", "15m"]).older_than == 900.0


def test_verify_waits_two_minutes_and_texts_the_number_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TWILIO_PHONE_NUMBER", "+15550100000")
    arguments = cli._parser().parse_args(["verify"])
    assert (arguments.service_number, arguments.timeout) == ("+15550100000", 120.0)


@pytest.mark.parametrize("command", ["unlock", "erase"])
def test_the_player_to_unlock_or_erase_is_read_as_a_phone_or_a_nickname(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli._parser().parse_args([command, "+1 555 123-0001"]).player == "+15551230001"
    assert cli._parser().parse_args([command, "alice"]).player == "alice"
    with pytest.raises(SystemExit) as usage:
        cli._parser().parse_args([command, "5551230001"])
    assert usage.value.code == 2
    assert "'5551230001' is not a phone number in E.164" in capsys.readouterr().err


def test_json_output_is_indented_by_two_spaces_for_a_reader() -> None:
    _, output, _ = _main(["--json", "status"])
    assert output == '{\n  "dead_letters": 0\n}\n'


def test_ctrl_c_stops_the_tool_with_the_shells_status_for_an_interrupt() -> None:
    def interrupted(_: argparse.Namespace) -> Any:
        raise KeyboardInterrupt

    assert _main(["status"], connect=interrupted)[0] == 130


def test_verbose_shows_the_games_own_log_lines_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    class Logging(_RecordingOperator):
        def status(self) -> dict[str, Any]:
            logger.info("the game says this")
            return super().status()

    _main(["status"], operator=Logging())
    assert "the game says this" not in capsys.readouterr().err
    _main(["status", "--verbose"], operator=Logging())
    assert "the game says this" in capsys.readouterr().err
