"""What IAM authorizes for each recorded call, in the deployed stack.

A call is one or more requests (an action on a resource): a transaction is one request per item,
each authorized as its item action (a ConditionCheck needs dynamodb:ConditionCheckItem, a Put
dynamodb:PutItem, ...), a batch one per table, an SQS batch as its single action (DeleteMessageBatch
needs sqs:DeleteMessage), and an action with no resource-level permissions is a request on `*`.

The tests name their tables and queues as they please; `NAMES` says which resource of the template
each name stands for, so that the request carries the ARN the deployed stack would have. A name no
pattern matches, or a DynamoDB key that is not the mapped table's, fails the proof with the call
that used it: the mapping is written down, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from tests.iam.deployment import ACCOUNT_ID, REGION, STACK_ID, DeployedStack
from tests.iam.policy import Request

__all__ = ["MISSING", "NAMES", "NeededRequest", "NotThere", "Unmapped", "requests_of"]


class Unmapped(Exception):
    """A call this module cannot turn into IAM requests: say what to add."""


class NotThere(Exception):
    """A call on a resource a test made sure is not there, to see how the code fails."""


# Which template resource each name the tests give a resource stands for (fnmatch patterns). The
# local stack names its resources by their logical ids; CloudFormation adds the stack's name and a
# suffix; the tests in one process use the names of serverless_rps_local.in_process and their own.
NAMES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "table": {
        "GameStateTable": ("GameStateTable", "*-GameStateTable-*", "rps-game-state"),
        "NicknameTable": ("NicknameTable", "*-NicknameTable-*", "rps-nicknames"),
        "IdempotencyTable": ("IdempotencyTable", "*-IdempotencyTable-*", "rps-idempotency"),
    },
    "queue": {
        "IncomingQueue": ("IncomingQueue", "*-IncomingQueue-*", "rps-incoming", "incoming", "incoming-*"),
        "DeadLetterQueue": (
            "DeadLetterQueue",
            "*-DeadLetterQueue-*",
            "rps-dlq",
            "dlq",
            "rps-dead-letters",
            "dead-letters-*",
        ),
    },
    "function": {"GameFunction": ("GameFunction", "*-GameFunction-*", "rps-game")},
    # The one parameter the code reads: the Twilio auth token's, whatever the test named it.
    "parameter": {"TwilioAuthTokenParameterName": ("/*",)},
    # The operator's tool describes the stack it is told to (--stack), whatever its name.
    "stack": {"AWS::StackName": ("*",)},
}


# The names tests give a table or queue that is not there (ResourceNotFoundException,
# NonExistentQueue). In production the same call names the configured resource, so the proof sets
# such a call aside, and requires the same operation from the same place to be recorded on one that is.
MISSING = ("no-such-*", "*-missing")


@dataclass(frozen=True)
class NeededRequest:
    """One request a call needs, and what of the call it comes from, for a failure to name."""

    request: Request
    part: str  # "TransactWriteItems: Update on IdempotencyTable"


def logical_id(kind: str, name: str) -> str:
    """The template resource a name of the tests stands for."""
    if any(fnmatchcase(name, pattern) for pattern in MISSING):
        raise NotThere(name)
    for candidate, patterns in NAMES[kind].items():
        if any(fnmatchcase(name, pattern) for pattern in patterns):
            return candidate
    raise Unmapped(f"no {kind} of the template is named like {name!r}: add the name to NAMES in {__name__}")


class _Resources:
    """ARNs in the deployed stack of what a call names."""

    def __init__(self, stack: DeployedStack) -> None:
        self.stack = stack

    def table(self, name: str, key: list[str] | None = None, index: str | None = None) -> tuple[str, str]:
        table = logical_id("table", name)
        if key:
            schema = self.stack.template["Resources"][table]["Properties"]["KeySchema"]
            expected = sorted(part["AttributeName"] for part in schema)
            if sorted(key) != expected:
                raise Unmapped(
                    f"table {name!r} is mapped to {table}, keyed on {expected}, but the call's key is {key}"
                )
        arn = self.stack.attribute(table, "Arn")
        return (f"{arn}/index/{index}", f"{table} index {index}") if index else (arn, table)

    def queue(self, url: str) -> tuple[str, str]:
        queue = logical_id("queue", url.rstrip("/").rsplit("/", 1)[-1])
        return self.stack.attribute(queue, "Arn"), queue

    def parameter(self, name: str) -> tuple[str, str]:
        parameter = logical_id("parameter", name)
        deployed = self.stack.parameters[parameter]
        return f"arn:aws:ssm:{REGION}:{ACCOUNT_ID}:parameter{deployed}", f"the parameter named by {parameter}"

    def function(self, name: str) -> tuple[str, str]:
        function = logical_id("function", name.rsplit(":", 1)[-1] if name.startswith("arn:") else name)
        return self.stack.attribute(function, "Arn"), function

    def stack_arn(self, name: str) -> tuple[str, str]:
        logical_id("stack", name)
        return STACK_ID, "the stack"


def _dynamodb(call: Mapping[str, Any], resources: _Resources) -> list[tuple[str, tuple[str, str], str]]:
    operation, named = call["operation"], call["named"]
    if operation == "TransactWriteItems" or operation == "TransactGetItems":
        item_actions = {
            "Put": "PutItem",
            "Update": "UpdateItem",
            "Delete": "DeleteItem",
            "ConditionCheck": "ConditionCheckItem",
            "Get": "GetItem",
        }
        found = []
        for part, table, key in named["TransactItems"]:
            if part not in item_actions:
                raise Unmapped(f"{operation} has an item of kind {part}, which {__name__} does not know")
            where = resources.table(table, key or None)
            found.append((f"dynamodb:{item_actions[part]}", where, f"{operation}: {part} on {where[1]}"))
        return found
    if operation in ("BatchGetItem", "BatchWriteItem"):
        return [
            (f"dynamodb:{operation}", where, f"{operation} on {where[1]}")
            for table, key in named["RequestItems"].items()
            for where in [resources.table(table, key or None)]
        ]
    if operation in _DYNAMODB_TABLE_ACTIONS:
        where = resources.table(named["TableName"], named.get("Key"), named.get("IndexName"))
        return [(f"dynamodb:{operation}", where, f"{operation} on {where[1]}")]
    raise Unmapped(f"dynamodb {operation}: add its IAM action and resource to {__name__}")


_DYNAMODB_TABLE_ACTIONS = frozenset(
    {"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "DescribeTable", "DescribeTimeToLive"}
)

# SQS's batch actions are authorized as their single action.
_SQS_ACTIONS = {
    "SendMessage": "SendMessage",
    "SendMessageBatch": "SendMessage",
    "ReceiveMessage": "ReceiveMessage",
    "DeleteMessage": "DeleteMessage",
    "DeleteMessageBatch": "DeleteMessage",
    "ChangeMessageVisibility": "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
    "GetQueueAttributes": "GetQueueAttributes",
}


def _sqs(call: Mapping[str, Any], resources: _Resources) -> list[tuple[str, tuple[str, str], str]]:
    operation = call["operation"]
    if operation not in _SQS_ACTIONS:
        raise Unmapped(f"sqs {operation}: add its IAM action to {__name__}")
    where = resources.queue(call["named"]["QueueUrl"])
    return [(f"sqs:{_SQS_ACTIONS[operation]}", where, f"{operation} on {where[1]}")]


def _one_named(
    service: str,
    operations: frozenset[str],
    parameter: str,
    place: Callable[[_Resources, str], tuple[str, str]],
) -> Callable[[Mapping[str, Any], _Resources], list[tuple[str, tuple[str, str], str]]]:
    def requests(call: Mapping[str, Any], resources: _Resources) -> list[tuple[str, tuple[str, str], str]]:
        operation = call["operation"]
        if operation not in operations:
            raise Unmapped(f"{service} {operation}: add its IAM action and resource to {__name__}")
        where = place(resources, call["named"][parameter])
        return [(f"{service}:{operation}", where, f"{operation} on {where[1]}")]

    return requests


def _everywhere(
    service: str, operations: frozenset[str]
) -> Callable[[Mapping[str, Any], _Resources], list[tuple[str, tuple[str, str], str]]]:
    """A service whose actions have no resource-level permissions: each is a request on `*`."""

    def requests(call: Mapping[str, Any], resources: _Resources) -> list[tuple[str, tuple[str, str], str]]:
        operation = call["operation"]
        if operation not in operations:
            raise Unmapped(f"{service} {operation}: add its IAM action and resource to {__name__}")
        return [(f"{service}:{operation}", ("*", "every resource"), operation)]

    return requests


_SERVICES = {
    "dynamodb": _dynamodb,
    "sqs": _sqs,
    "ssm": _one_named("ssm", frozenset({"GetParameter"}), "Name", _Resources.parameter),
    "lambda": _one_named(
        "lambda", frozenset({"GetFunctionConfiguration"}), "FunctionName", _Resources.function
    ),
    "cloudformation": _one_named(
        "cloudformation",
        frozenset({"DescribeStackResource", "DescribeStacks"}),
        "StackName",
        _Resources.stack_arn,
    ),
    "cloudwatch": _everywhere("cloudwatch", frozenset({"GetMetricStatistics"})),
}


def requests_of(call: Mapping[str, Any], stack: DeployedStack) -> list[NeededRequest]:
    """The IAM requests one recorded call makes in `stack`; Unmapped if it cannot say."""
    service = call["service"]
    if service not in _SERVICES:
        raise Unmapped(f"{service} {call['operation']}: add the service to {__name__}")
    return [
        NeededRequest(Request(action, arn), part)
        for action, (arn, _), part in _SERVICES[service](call, _Resources(stack))
    ]
