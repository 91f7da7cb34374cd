"""The operator's tool's one line per failure, word for word: each SDK cause with its fix, found
under the tool's own exception; the question before a change naming the player as typed; and a
stack's function without variables refused rather than read from the operator's own environment."""

from __future__ import annotations

import io
import json
from typing import Any

import boto3
import pytest
from botocore.exceptions import (
    ClientError,
    NoCredentialsError,
    NoRegionError,
    ProfileNotFound,
    SSOTokenLoadError,
)
from moto import mock_aws

from serverless_rps.admin import cli, locate
from serverless_rps.config import ConfigurationError, tracing_enabled
from serverless_rps.exceptions import StoreUnavailable
from tests.unit.test_admin_cli import _STACK


def _fails_with(problem: BaseException, capsys: pytest.CaptureFixture[str]) -> str:
    def connect(_: Any) -> Any:
        raise problem

    assert cli.main(["status"], connect=connect, out=io.StringIO()) == 1
    return capsys.readouterr().err


def _under_the_tools_own(cause: BaseException) -> StoreUnavailable:
    problem = StoreUnavailable("could not scan a table")
    problem.__cause__ = cause  # raised `from` it, outside any handler: no __context__
    return problem


@pytest.mark.parametrize(
    ("cause", "line"),
    [
        (
            NoRegionError(),
            "no AWS region: give --region NAME, or set AWS_DEFAULT_REGION, or a region in your AWS profile",
        ),
        (
            NoCredentialsError(),
            "Unable to locate credentials: configure a profile (`aws configure`, or `aws sso login`) and set"
            " AWS_PROFILE, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
        ),
        (
            ProfileNotFound(profile="work"),
            "The config profile (work) could not be found: check AWS_PROFILE (`aws configure list-profiles`"
            " lists them)",
        ),
        (
            SSOTokenLoadError(error_msg="the SSO session has expired"),
            "Error loading SSO Token: the SSO session has expired: sign in again (`aws sso login`)",
        ),
    ],
    ids=["no region", "no credentials", "no profile", "sso expired"],
)
def test_each_sdk_cause_under_the_tools_own_failure_is_one_line_with_its_fix(
    cause: BaseException, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _fails_with(_under_the_tools_own(cause), capsys) == f"error: {line}\n"


def test_a_permission_aws_refuses_is_named_with_what_the_tool_needs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    refused = ClientError({"Error": {"Code": "AccessDenied", "Message": "not allowed"}}, "Scan")
    assert _fails_with(refused, capsys) == (
        "error: An error occurred (AccessDenied) when calling the Scan operation: not allowed: your"
        " credentials lack this permission (the tool reads, scans and changes the stack's tables and"
        " queues)\n"
    )


_EXPIRED = "your AWS credentials have expired; renew them (`aws sso login`, or new keys)"
_NOT_ACCEPTED = "AWS does not accept your credentials; check them (`aws sts get-caller-identity`)"
_NOT_PERMITTED = (
    "your credentials lack this permission (the tool reads, scans and changes the stack's tables and queues)"
)
_NOT_THERE = "the settings name a resource that is not there; check --stack and --region"


@pytest.mark.parametrize(
    ("code", "fix"),
    [
        ("ExpiredToken", _EXPIRED),
        ("ExpiredTokenException", _EXPIRED),
        ("RequestExpired", _EXPIRED),
        ("UnrecognizedClientException", _NOT_ACCEPTED),
        ("InvalidClientTokenId", _NOT_ACCEPTED),
        ("InvalidSignatureException", _NOT_ACCEPTED),
        ("SignatureDoesNotMatch", _NOT_ACCEPTED),
        ("AuthFailure", _NOT_ACCEPTED),
        ("AccessDenied", _NOT_PERMITTED),
        ("AccessDeniedException", _NOT_PERMITTED),
        ("ResourceNotFoundException", _NOT_THERE),
        ("AWS.SimpleQueueService.NonExistentQueue", _NOT_THERE),
        ("QueueDoesNotExist", _NOT_THERE),
    ],
)
def test_each_error_code_aws_gives_for_credentials_permissions_or_resources_is_told_with_its_fix(
    code: str, fix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The codes differ by service (STS, DynamoDB, SQS, EC2's AuthFailure) for one cause each."""
    refused = ClientError({"Error": {"Code": code, "Message": "no"}}, "Scan")
    said = f"An error occurred ({code}) when calling the Scan operation: no"
    assert _fails_with(refused, capsys) == f"error: {said}: {fix}\n"


def test_an_error_code_with_no_known_fix_is_told_as_aws_said_it(capsys: pytest.CaptureFixture[str]) -> None:
    refused = ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "Scan")
    assert _fails_with(refused, capsys) == (
        "error: An error occurred (ThrottlingException) when calling the Scan operation: slow down\n"
    )


class _Named:
    """Stands for Operator where only the question asked is under test."""

    def phone_of(self, player: str) -> str:
        return "+15550000001"


@pytest.mark.parametrize(
    ("player", "named"), [("alice", "alice (+15550000001)"), ("+15550000001", "+15550000001")]
)
def test_the_question_before_an_erasure_names_the_player_as_typed_and_the_phone(
    player: str, named: str
) -> None:
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return "n"

    assert cli.main(["erase", player], connect=lambda _: _Named(), out=io.StringIO(), ask=ask) == 1  # type: ignore[arg-type,return-value]
    assert asked == [
        f"Erase {named} from every table, as its STOP would. This cannot be undone. Go on? [y/N] "
    ]


def test_a_stacks_function_without_variables_is_refused_not_read_from_the_operators_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stack = json.loads(json.dumps(_STACK))
    variables = stack["Resources"]["GameFunction"]["Properties"].pop("Environment")["Variables"]
    for name, value in {
        **variables,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        iam = boto3.client("iam", region_name="us-east-1")
        iam.create_role(RoleName="rps-game", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17"}))
        cloudformation = boto3.client("cloudformation", region_name="us-east-1")
        cloudformation.create_stack(StackName="rps", TemplateBody=json.dumps(stack))

        with pytest.raises(ConfigurationError, match="GAME_STATE_TABLE is required"):
            locate.from_stack(cloudformation, boto3.client("lambda", region_name="us-east-1"), "rps")


def test_tracing_is_decided_by_the_process_environment_when_given_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("POWERTOOLS_TRACE_DISABLED", "AWS_SAM_LOCAL", "AWS_CHALICE_CLI_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    assert tracing_enabled() is True
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", " TRUE ")
    assert tracing_enabled() is False


@pytest.mark.parametrize(
    ("force", "warning"),
    [([], ""), (["--force"], " It is taken even if live (--force).")],
    ids=["expired", "forced"],
)
def test_the_question_before_an_unlock_warns_when_a_live_lease_will_be_taken(
    force: list[str], warning: str
) -> None:
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return "n"

    assert cli.main(["unlock", "alice", *force], connect=lambda _: _Named(), out=io.StringIO(), ask=ask) == 1  # type: ignore[arg-type,return-value]
    assert asked == [f"Release the lease on alice (+15550000001).{warning} Go on? [y/N] "]
