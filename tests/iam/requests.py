"""What IAM authorizes for each recorded call, in the deployed stack.

A call is one or more requests (an action on a resource): a transaction is one request per item,
each authorized as its item action (a ConditionCheck needs dynamodb:ConditionCheckItem, a Put
dynamodb:PutItem, ...), a batch one per table, an SQS batch its single action (DeleteMessageBatch
needs sqs:DeleteMessage), and an action with no resource-level permissions is a request on `*`.
An operation not in `OPERATIONS` fails the proof, naming it: its IAM action is written down here,
never guessed.

The tests name their tables and queues as they please; `NAMES` says which resource of the template
each name stands for, so that the request carries the ARN the deployed stack would have. A name no
pattern matches, or a DynamoDB key that is not the mapped table's, fails the proof with the call
that used it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from tests.iam.deployment import ACCOUNT_ID, PARTITION, REGION, STACK_ID, DeployedStack
from tests.iam.policy import Request

__all__ = ["MISSING", "NAMES", "OPERATIONS", "NeededRequest", "NotThere", "Unmapped", "requests_of"]


class Unmapped(Exception):
    """A call this module cannot turn into IAM requests: the message says what to add."""


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
        "ProofTable": ("ProofTable", "*-ProofTable-*", "rps-opt-out-proof"),
    },
    "queue": {
        # burst-*: the burst model's queues (bench/burst), which the shipped code calls as it would AWS's.
        "IncomingQueue": (
            "IncomingQueue",
            "*-IncomingQueue-*",
            "rps-incoming",
            "incoming",
            "incoming-*",
            "burst-incoming",
        ),
        "DeadLetterQueue": (
            "DeadLetterQueue",
            "*-DeadLetterQueue-*",
            "rps-dlq",
            "dlq",
            "rps-dead-letters",
            "dead-letters",
            "dead-letters-*",
            "burst-dead-letters",
        ),
    },
    "function": {"GameFunction": ("GameFunction", "*-GameFunction-*", "rps-game")},
    # The two parameters the code reads: the proof key's (named `...proof-key...` in the tests and
    # by default) and the Twilio auth token's, whatever else the test named it. First match wins.
    "parameter": {"ProofKeyParameterName": ("*proof-key*",), "TwilioAuthTokenParameterName": ("/*",)},
    # The operator's tool describes the stack it is told to (--stack), whatever its name.
    "stack": {"AWS::StackName": ("*",)},
}

# The names tests give a table or queue that is not there (ResourceNotFoundException,
# NonExistentQueue). In production the same call names the configured resource, so the proof sets
# such a call aside, and requires the same operation from the same place on one that is there.
MISSING = ("*no-such-*", "*-missing")


@dataclass(frozen=True)
class NeededRequest:
    """One request a call needs, with what it names and the part of the call it comes from."""

    request: Request
    resource_name: str  # "table GameStateTable"
    part: str  # "the Update of TransactWriteItems", or the operation itself


def logical_id(kind: str, name: str) -> str:
    """The template resource a name of the tests stands for."""
    if any(fnmatchcase(name, pattern) for pattern in MISSING):
        raise NotThere(name)
    for candidate, patterns in NAMES[kind].items():
        if any(fnmatchcase(name, pattern) for pattern in patterns):
            return candidate
    raise Unmapped(f"no {kind} of the template is named like {name!r}: add the name to NAMES in {__name__}")


@dataclass(frozen=True)
class _Named:
    arn: str
    name: str  # "table GameStateTable"


class _Resources:
    """The deployed stack's ARN of what a call names."""

    def __init__(self, stack: DeployedStack) -> None:
        self.stack = stack

    def table(self, name: str, key: list[str] | None = None, index: str | None = None) -> _Named:
        table = logical_id("table", name)
        schema = self.stack.template["Resources"][table]["Properties"]["KeySchema"]
        expected = sorted(part["AttributeName"] for part in schema)
        if key and sorted(key) != expected:
            raise Unmapped(
                f"table {name!r} is mapped to {table}, keyed on {expected}, but the call's key is {key}"
            )
        arn = self.stack.attribute(table, "Arn")
        if index:
            return _Named(f"{arn}/index/{index}", f"index {index} of table {table}")
        return _Named(arn, f"table {table}")

    def queue(self, url: str) -> _Named:
        queue = logical_id("queue", url.rstrip("/").rsplit("/", 1)[-1])
        return _Named(self.stack.attribute(queue, "Arn"), f"queue {queue}")

    def parameter(self, name: str) -> _Named:
        parameter = logical_id("parameter", name)
        arn = f"arn:{PARTITION}:ssm:{REGION}:{ACCOUNT_ID}:parameter"
        deployed = self.stack.parameters[parameter]
        return _Named(arn + deployed, f"parameter {deployed} ({parameter})")

    def function(self, name: str) -> _Named:
        function = logical_id("function", name.rsplit(":", 1)[-1] if name.startswith("arn:") else name)
        return _Named(self.stack.attribute(function, "Arn"), f"function {function}")

    def stack_itself(self, name: str) -> _Named:
        logical_id("stack", name)
        return _Named(STACK_ID, "the stack")

    def every_resource(self, _: object) -> _Named:
        return _Named("*", "every resource")


# Each operation the code calls: its IAM action, the parameter naming its resource, and how that
# name becomes an ARN. Transactions and batches name several and are read apart (`_parts`).
_Operation = tuple[str, str, Callable[[_Resources, Any], _Named]]
OPERATIONS: Mapping[tuple[str, str], _Operation] = {
    **{
        ("dynamodb", operation): (f"dynamodb:{operation}", "TableName", _Resources.table)
        for operation in ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "DescribeTable")
    },
    # SQS's batch actions are authorized as their single action.
    **{
        ("sqs", operation): (f"sqs:{operation.removesuffix('Batch')}", "QueueUrl", _Resources.queue)
        for operation in (
            "SendMessage",
            "SendMessageBatch",
            "ReceiveMessage",
            "DeleteMessage",
            "DeleteMessageBatch",
            "ChangeMessageVisibility",
            "ChangeMessageVisibilityBatch",
            "GetQueueAttributes",
        )
    },
    ("ssm", "GetParameter"): ("ssm:GetParameter", "Name", _Resources.parameter),
    ("ssm", "GetParameterHistory"): ("ssm:GetParameterHistory", "Name", _Resources.parameter),
    ("ssm", "PutParameter"): ("ssm:PutParameter", "Name", _Resources.parameter),
    ("lambda", "GetFunctionConfiguration"): (
        "lambda:GetFunctionConfiguration",
        "FunctionName",
        _Resources.function,
    ),
    ("cloudformation", "DescribeStackResource"): (
        "cloudformation:DescribeStackResource",
        "StackName",
        _Resources.stack_itself,
    ),
    ("cloudformation", "DescribeStacks"): (
        "cloudformation:DescribeStacks",
        "StackName",
        _Resources.stack_itself,
    ),
    # CloudWatch has no resource-level permissions for reading metrics.
    ("cloudwatch", "GetMetricStatistics"): ("cloudwatch:GetMetricStatistics", "", _Resources.every_resource),
}

# A transaction's items, each authorized as the action on its own item.
_ITEM_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
    "Get": "dynamodb:GetItem",
}


def _parts(operation: str, named: Mapping[str, Any], resources: _Resources) -> list[NeededRequest]:
    if operation in ("TransactWriteItems", "TransactGetItems"):
        needed = []
        for part, table, key in named["TransactItems"]:
            if part not in _ITEM_ACTIONS:
                raise Unmapped(f"{operation} has an item of kind {part}: add its IAM action to {__name__}")
            where = resources.table(table, key or None)
            needed.append(
                NeededRequest(
                    Request(_ITEM_ACTIONS[part], where.arn),
                    where.name,
                    f"the {part} of {operation}",
                )
            )
        return needed
    # A batch needs its own action on each of its tables.
    return [
        NeededRequest(Request(f"dynamodb:{operation}", where.arn), where.name, operation)
        for table, key in named["RequestItems"].items()
        for where in [resources.table(table, key or None)]
    ]


def requests_of(call: Mapping[str, Any], stack: DeployedStack) -> list[NeededRequest]:
    """The IAM requests one recorded call makes in `stack`; Unmapped if this module cannot say,
    NotThere if it names a resource its test made missing."""
    service, operation, named = call["service"], call["operation"], call["named"]
    resources = _Resources(stack)
    if service == "dynamodb" and operation in (
        "TransactWriteItems",
        "TransactGetItems",
        "BatchGetItem",
        "BatchWriteItem",
    ):
        return _parts(operation, named, resources)
    if (service, operation) not in OPERATIONS:
        raise Unmapped(f"{service} {operation}: add its IAM action and resource to OPERATIONS in {__name__}")
    action, parameter, place = OPERATIONS[(service, operation)]
    if service == "dynamodb":
        where = resources.table(named["TableName"], named.get("Key"), named.get("IndexName"))
    else:
        where = place(resources, named.get(parameter))
    return [NeededRequest(Request(action, where.arn), where.name, operation)]
