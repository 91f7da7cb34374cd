"""What the proof reads besides the recording, read right: template.yaml's roles as deployed, its
comments on actions no code calls, the operator's policies in docs/operations.md, and the table of
the operator's commands."""

from __future__ import annotations

import argparse
import importlib

import pytest

from serverless_rps.admin import cli
from tests.iam.deployment import (
    CUSTOMER_MANAGED_KEY,
    DEPLOYMENTS,
    NOT_CALLED,
    TEMPLATE,
    DeployedStack,
    Deployment,
    not_called_comments,
)
from tests.iam.policy import Request
from tests.iam.principals import OPERATOR_FUNCTIONS, READ_ONLY_COMMANDS
from tests.iam.proof import OPERATIONS_DOC, operator_policies

TOKEN = "arn:aws:ssm:us-east-1:123456789012:parameter/serverless-rps/twilio-auth-token"


@pytest.mark.parametrize("deployment", DEPLOYMENTS, ids=lambda deployment: deployment.name)
def test_each_functions_role_is_read_with_its_resources_as_deployed(deployment: Deployment) -> None:
    stack = DeployedStack.of_template(deployment)

    for function in ("GameFunction", "WebhookFunction"):
        role = stack.role_policy(stack.role_of(function))
        assert role.decide(Request("ssm:GetParameter", TOKEN)).allowed
        assert not role.decide(Request("ssm:GetParameter", TOKEN + "-other")).allowed
    game = stack.role_policy("GameFunctionRole")
    incoming = stack.attribute("IncomingQueue", "Arn")
    assert incoming == "arn:aws:sqs:us-east-1:123456789012:serverless-rps-IncomingQueue-1A2B3C4D5E6F"
    assert game.decide(Request("sqs:ChangeMessageVisibility", incoming)).allowed


def test_kms_decrypt_is_in_a_role_only_when_the_token_has_a_customer_managed_key() -> None:
    default_key, own_key = (DeployedStack.of_template(deployment) for deployment in DEPLOYMENTS)

    for function in ("GameFunction", "WebhookFunction"):
        assert "kms:Decrypt" not in _actions(default_key, function)
        assert "kms:Decrypt" in _actions(own_key, function)
        [decrypt] = [
            statement
            for statement in own_key.role_policy(own_key.role_of(function)).statements
            if "kms:Decrypt" in statement.actions
        ]
        assert (decrypt.resources, decrypt.conditional) == ((CUSTOMER_MANAGED_KEY,), True)


def _actions(stack: DeployedStack, function: str) -> set[str]:
    policy = stack.role_policy(stack.role_of(function))
    return {action for statement in policy.statements for action in statement.actions}


def test_a_comment_on_an_action_line_says_that_no_code_calls_it_and_who_does() -> None:
    text = """\
Resources:
  GameFunctionRole:
    Properties:
      Policies:
        - PolicyDocument:
            Statement:
              - Sid: ConsumeIncomingQueue
                Action:
                  - sqs:ReceiveMessage
                  - sqs:GetQueueAttributes  # not called by the code: Lambda's poller reads the queue
              - Sid: WriteTraces
                Action: xray:PutTraceSegments # not called by the code: the X-Ray daemon sends them
  Other:
    Properties:
      Action: sqs:DeleteMessage  # a comment, but not the mark
"""

    comments = not_called_comments(text)

    assert [(comment.resource, comment.sid, comment.action, comment.reason) for comment in comments] == [
        (
            "GameFunctionRole",
            "ConsumeIncomingQueue",
            "sqs:GetQueueAttributes",
            "Lambda's poller reads the queue",
        ),
        ("GameFunctionRole", "WriteTraces", "xray:PutTraceSegments", "the X-Ray daemon sends them"),
    ]
    assert comments[0].line == 10


def test_every_not_called_comment_of_the_template_is_on_an_action_its_statement_grants() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    stack = DeployedStack.of_template(DEPLOYMENTS[1])  # every conditional statement in place
    granted = {
        (role, statement.sid, action)
        for role in stack.resources_of_type("AWS::IAM::Role")
        for statement in stack.role_policy(role).statements
        for action in statement.actions
    }

    comments = not_called_comments(text)

    assert comments, f"template.yaml has no '# {NOT_CALLED} ...' comment"
    for comment in comments:
        assert (comment.resource, comment.sid, comment.action) in granted, comment
        assert comment.reason, comment


def test_the_operators_policies_are_read_from_the_docs_with_the_stacks_values() -> None:
    stack = DeployedStack.of_template()

    policies = operator_policies(OPERATIONS_DOC.read_text(encoding="utf-8"), stack)

    game_state = stack.attribute("GameStateTable", "Arn")
    assert policies["read-only"].decide(Request("dynamodb:Scan", game_state)).allowed
    assert not policies["read-only"].decide(Request("dynamodb:UpdateItem", game_state)).allowed
    assert policies["read-write"].decide(Request("dynamodb:UpdateItem", game_state)).allowed


def test_a_placeholder_that_is_no_output_of_the_stack_is_refused() -> None:
    stack = DeployedStack.of_template()

    assert stack.fill_in("${AWS::Region}/${GameStateTableName}") == (
        f"us-east-1/{stack.reference('GameStateTable')}"
    )
    with pytest.raises(Exception, match=r"\$\{GameStateTableArn\} is neither an output"):
        stack.fill_in("${GameStateTableArn}")


def _command_helps(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, str]:
    """Each command of the tool (`dlq list` for a command's action) and its one-line help; a
    command with an option whose help says "CHANGES:" is also that command with the option
    (`ceiling --lift`), with the option's help."""
    helps: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                name = f"{prefix}{choice.dest}"
                command = action.choices[choice.dest]
                below = _command_helps(command, f"{name} ")
                helps.update(below or {name: choice.help or ""})
                helps.update(
                    {
                        f"{name} {option.option_strings[0]}": option.help
                        for option in command._actions
                        if option.help and option.help.startswith("CHANGES:")
                    }
                )
    return helps


def test_the_read_only_commands_are_those_whose_help_says_they_only_read() -> None:
    helps = _command_helps(cli._parser())

    assert "erase" in helps
    assert "dlq redrive" in helps
    assert {command for command, text in helps.items() if "(reads only)" in text} == set(READ_ONLY_COMMANDS)
    # And the table of the functions each command runs names the tool's commands, every one.
    assert {command for commands in OPERATOR_FUNCTIONS.values() for command in commands} == set(helps)


@pytest.mark.parametrize("function", sorted(OPERATOR_FUNCTIONS))
def test_each_function_of_the_operators_table_is_one_the_tool_has(function: str) -> None:
    module, _, qualified_name = function.partition(":")
    found: object = importlib.import_module(module)
    for name in qualified_name.split("."):
        found = getattr(found, name)
    assert callable(found)
