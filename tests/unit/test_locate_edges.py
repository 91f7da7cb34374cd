"""Where the operator's tool looks, at its edges: a samconfig.toml that names no usable region, the
local stack's addresses that a stopped stack explains, and a stack's missing outputs named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from serverless_rps.admin import locate
from serverless_rps.admin.verify import webhook_url
from serverless_rps.config import ConfigurationError
from tests.unit.test_config import BASE


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[default]\n",
        "[default.deploy]\n",
        "[default.deploy.parameters]\nstack_name = 'rps'\n",
        "[default.deploy.parameters]\nregion = '  '\n",
        "[default.deploy.parameters]\nregion = 5\n",
    ],
    ids=["empty", "no deploy", "no parameters", "no region", "blank region", "not text"],
)
def test_a_samconfig_without_a_usable_region_names_none(tmp_path: Path, text: str) -> None:
    samconfig = tmp_path / "samconfig.toml"
    samconfig.write_text(text)
    assert locate.samconfig_region(samconfig) is None


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]"])
def test_nothing_answering_on_this_machine_is_the_local_stack_stopped(host: str) -> None:
    said = locate.local_stack_gone(f"http://{host}:8000/sms")
    assert said is not None
    assert said.startswith(f"no local stack is running at http://{host}:8000: start `make play`")
    assert locate.local_stack_gone("https://abc.execute-api.us-east-1.amazonaws.com/sms") is None


@pytest.fixture
def cloudformation(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        client = boto3.client("cloudformation", region_name="eu-west-1")
        template = {
            "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}},
            "Outputs": {"Other": {"Value": "x"}, "WebhookUrl": {"Value": "https://example.com/sms"}},
        }
        client.create_stack(StackName="rps", TemplateBody=json.dumps(template))
        bare = {"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}
        client.create_stack(StackName="bare", TemplateBody=json.dumps(bare))
        yield client


def test_a_stacks_output_is_read_by_its_name_and_a_missing_one_named(cloudformation: Any) -> None:
    assert locate.stack_output(cloudformation, "rps", "WebhookUrl") == "https://example.com/sms"
    with pytest.raises(ConfigurationError) as missing:
        locate.stack_output(cloudformation, "rps", "NoSuchOutput")
    assert str(missing.value) == "stack rps has no output NoSuchOutput"
    with pytest.raises(ConfigurationError, match=r"^stack bare has no output WebhookUrl$"):
        locate.stack_output(cloudformation, "bare", "WebhookUrl")


def test_the_output_of_a_stack_that_is_not_there_names_the_region_looked_in(cloudformation: Any) -> None:
    with pytest.raises(ConfigurationError) as missing:
        locate.stack_output(cloudformation, "other", "WebhookUrl")
    assert str(missing.value) == (
        "no stack other in eu-west-1: check its name (`aws cloudformation list-stacks`) or give its region"
        " with --region"
    )


def test_a_stack_that_cannot_be_described_says_so_with_the_error() -> None:
    client = boto3.client("cloudformation", region_name="eu-west-1")
    with Stubber(client) as stub:
        stub.add_client_error("describe_stacks", "AccessDenied", "not allowed to describe stacks")
        with pytest.raises(ConfigurationError) as refused:
            locate.stack_output(client, "rps", "WebhookUrl")
    assert str(refused.value).startswith(
        "stack rps in eu-west-1: cannot be described (An error occurred (AccessDenied)"
    )


def test_a_stack_url_with_a_placeholder_and_no_secret_says_where_to_set_it() -> None:
    with pytest.raises(ConfigurationError) as missing:
        webhook_url("https://abc.execute-api.us-east-1.amazonaws.com/sms/<WebhookPathSecret>", None)
    assert str(missing.value) == (
        "the webhook's path holds the stack's WebhookPathSecret: set WEBHOOK_PATH_SECRET in the environment"
        " (it is not echoed by CloudFormation)"
    )


@pytest.mark.parametrize("env", [{}, {"GAME_STATE_TABLE": "  ", "PATH": "/usr/bin"}], ids=["none", "blank"])
def test_without_a_stacks_variables_the_tool_says_how_to_name_one(env: dict[str, str]) -> None:
    with pytest.raises(ConfigurationError) as error:
        locate.from_environment(env)
    assert str(error.value) == (
        "no stack to work on: give --stack NAME for a deployed one, or, while `make play` runs, "
        f"load the local stack's variables first ({locate.LOCAL_VARIABLES})"
    )


def test_the_settings_are_those_of_the_environment_given_not_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in BASE:
        monkeypatch.delenv(name, raising=False)
    settings = locate.from_environment(BASE)
    assert (settings.game_state_table, settings.nickname_table, settings.incoming_queue_url) == (
        "state",
        "nicks",
        "http://queue/in",
    )


def test_variables_of_a_local_stack_that_stopped_are_refused_with_what_to_do(tmp_path: Path) -> None:
    from serverless_rps_local.saved_state import STATE_DIRECTORY_VARIABLE, StateDirectory

    env = {**BASE, STATE_DIRECTORY_VARIABLE: str(tmp_path)}
    with pytest.raises(ConfigurationError) as error:
        locate.from_environment(env)
    assert str(error.value) == (
        f"no local stack is running: these variables come from one that stopped ({tmp_path}); "
        "start make play in another terminal"
    )
    running = StateDirectory(tmp_path)
    running.lock()
    try:
        assert locate.from_environment(env).game_state_table == "state"
    finally:
        running.unlock()
