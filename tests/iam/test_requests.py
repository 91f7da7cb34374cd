"""What IAM authorizes for a recorded call: each item of a transaction, each table of a batch, an
SQS batch as its single action, a metric read on every resource; and what it cannot say."""

from __future__ import annotations

from typing import Any

import pytest

from tests.iam.deployment import STACK_ID, DeployedStack
from tests.iam.policy import Request
from tests.iam.requests import NotThere, Unmapped, requests_of

STACK = DeployedStack.of_template()
GAME_STATE = STACK.attribute("GameStateTable", "Arn")
IDEMPOTENCY = STACK.attribute("IdempotencyTable", "Arn")
QUEUE = "http://127.0.0.1:5000/123456789012/IncomingQueue"


def requests(service: str, operation: str, **named: Any) -> list[Request]:
    call = {"service": service, "operation": operation, "named": named, "stack": []}
    return [needed.request for needed in requests_of(call, STACK)]


def test_each_item_of_a_transaction_is_authorized_as_its_own_item_action() -> None:
    assert requests(
        "dynamodb",
        "TransactWriteItems",
        TransactItems=[
            ["Put", "rps-game-state", []],
            ["ConditionCheck", "rps-idempotency", ["messageId"]],
            ["Update", "IdempotencyTable", ["messageId"]],
            ["Delete", "serverless-rps-GameStateTable-X1", ["phone_number"]],
        ],
    ) == [
        Request("dynamodb:PutItem", GAME_STATE),
        Request("dynamodb:ConditionCheckItem", IDEMPOTENCY),
        Request("dynamodb:UpdateItem", IDEMPOTENCY),
        Request("dynamodb:DeleteItem", GAME_STATE),
    ]


def test_a_batch_is_authorized_on_each_of_its_tables() -> None:
    assert requests(
        "dynamodb", "BatchGetItem", RequestItems={"rps-game-state": ["phone_number"], "rps-idempotency": []}
    ) == [Request("dynamodb:BatchGetItem", GAME_STATE), Request("dynamodb:BatchGetItem", IDEMPOTENCY)]


def test_an_sqs_batch_is_authorized_as_its_single_action() -> None:
    assert requests("sqs", "DeleteMessageBatch", QueueUrl=QUEUE) == [
        Request("sqs:DeleteMessage", STACK.attribute("IncomingQueue", "Arn"))
    ]


def test_a_metric_read_has_no_resource_level_permission_and_a_stack_is_the_one_named() -> None:
    assert requests("cloudwatch", "GetMetricStatistics") == [Request("cloudwatch:GetMetricStatistics", "*")]
    assert requests("cloudformation", "DescribeStacks", StackName="rps") == [
        Request("cloudformation:DescribeStacks", STACK_ID)
    ]


def test_an_index_query_is_authorized_on_the_index() -> None:
    assert requests("dynamodb", "Query", TableName="rps-game-state", IndexName="by-nickname") == [
        Request("dynamodb:Query", f"{GAME_STATE}/index/by-nickname")
    ]


@pytest.mark.parametrize(
    ("service", "operation", "named", "says"),
    [
        ("dynamodb", "ExecuteStatement", {}, "dynamodb ExecuteStatement: add its IAM action"),
        ("s3", "GetObject", {}, "s3 GetObject: add its IAM action"),
        (
            "dynamodb",
            "GetItem",
            {"TableName": "elsewhere"},
            "no table of the template is named like 'elsewhere'",
        ),
        (
            "dynamodb",
            "GetItem",
            {"TableName": "rps-game-state", "Key": ["nickname"]},
            "keyed on ['phone_number']",
        ),
        (
            "dynamodb",
            "TransactWriteItems",
            {"TransactItems": [["Patch", "rps-game-state", []]]},
            "kind Patch",
        ),
    ],
)
def test_what_cannot_be_told_is_said(service: str, operation: str, named: dict[str, Any], says: str) -> None:
    with pytest.raises(Unmapped, match=says.replace("[", r"\[").replace("]", r"\]")):
        requests(service, operation, **named)


def test_a_resource_a_test_made_missing_is_set_aside() -> None:
    with pytest.raises(NotThere):
        requests("dynamodb", "Scan", TableName="no-such-table")
    with pytest.raises(NotThere):
        requests("sqs", "SendMessage", QueueUrl="http://127.0.0.1:5000/123456789012/rps-dlq-missing")
