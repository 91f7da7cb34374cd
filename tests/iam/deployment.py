"""The stack `sam deploy` makes of template.yaml, imagined offline for the least-privilege proof:
what each resource is called and its ARN, each role's policy with its intrinsic functions and
conditions resolved, the stack's outputs, and the template's comments on actions no code calls.

Resources the template does not name get the names CloudFormation would give them
(`<stack>-<logical id>-<suffix>`); the proof maps the names the tests used to these
(tests/iam/requests.py), so that a policy is matched against the ARNs it would meet in production.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from serverless_rps_local.template import load_cloudformation_yaml, resolve
from tests.iam.policy import Policy

__all__ = [
    "ACCOUNT_ID",
    "DEPLOYMENTS",
    "NOT_CALLED",
    "PARTITION",
    "REGION",
    "STACK_NAME",
    "TEMPLATE",
    "DeployedStack",
    "Deployment",
    "NotCalled",
    "TemplateProblem",
    "not_called_comments",
]

REPOSITORY = Path(__file__).resolve().parents[2]
TEMPLATE = REPOSITORY / "template.yaml"

STACK_NAME = "serverless-rps"
REGION = "us-east-1"
ACCOUNT_ID = "123456789012"
PARTITION = "aws"
STACK_ID = (
    "arn:aws:cloudformation:us-east-1:123456789012:stack/serverless-rps/0a1b2c3d-4e5f-6789-abcd-ef0123456789"
)
# What CloudFormation appends to the name it makes for a resource the template does not name.
_SUFFIX = "1A2B3C4D5E6F"
# AWS's example key ID, for a deployment whose token is encrypted with a customer managed key.
CUSTOMER_MANAGED_KEY = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
# The parameters without a default, as an operator gives them.
_REQUIRED_PARAMETERS = {"TwilioAccountSid": "AC" + "0" * 32, "WebhookPathSecret": "x" * 24}

# The mark of a comment on an action's line in template.yaml: what follows says who performs the
# action with the role, since no code of ours calls it (and so no test can record it).
NOT_CALLED = "not called by the code:"


@dataclass(frozen=True)
class Deployment:
    """One way to deploy the template: the parameters an operator gives beyond the required ones."""

    name: str
    parameters: Mapping[str, str]


DEPLOYMENTS = (
    Deployment("token under the default aws/ssm key", {}),
    Deployment("token under a customer managed key", {"TwilioAuthTokenKmsKeyArn": CUSTOMER_MANAGED_KEY}),
)


class TemplateProblem(Exception):
    """The template says something this imagined deployment cannot resolve."""


class DeployedStack:
    def __init__(self, template: Mapping[str, Any], deployment: Deployment = DEPLOYMENTS[0]) -> None:
        self.template = template
        self.deployment = deployment
        parameters = {
            name: spec["Default"]
            for name, spec in (template.get("Parameters") or {}).items()
            if "Default" in spec
        }
        parameters |= _REQUIRED_PARAMETERS | dict(deployment.parameters)
        pseudo = {
            "AWS::StackName": STACK_NAME,
            "AWS::StackId": STACK_ID,
            "AWS::Region": REGION,
            "AWS::AccountId": ACCOUNT_ID,
            "AWS::Partition": PARTITION,
            "AWS::URLSuffix": "amazonaws.com",
        }
        self.parameters = {name: str(value) for name, value in parameters.items()}
        self._references: dict[str, Any] = {**pseudo, **self.parameters}
        self._attributes: dict[tuple[str, str], Any] = {}
        for logical_id, resource in (template.get("Resources") or {}).items():
            self._name_resource(logical_id, resource)

    @classmethod
    def of_template(cls, deployment: Deployment = DEPLOYMENTS[0], path: Path = TEMPLATE) -> DeployedStack:
        return cls(load_cloudformation_yaml(path.read_text(encoding="utf-8")), deployment)

    # -- names and ARNs ------------------------------------------------------------------------

    def _name_resource(self, logical_id: str, resource: Mapping[str, Any]) -> None:
        kind = resource.get("Type", "")
        properties = resource.get("Properties") or {}
        made_up = f"{STACK_NAME}-{logical_id}-{_SUFFIX}"

        def named(property_name: str) -> str:
            given = properties.get(property_name)
            return made_up if given is None else str(resolve(given, self._references, {}))

        arn = f"arn:{PARTITION}:{{}}:{REGION}:{ACCOUNT_ID}:{{}}"
        if kind == "AWS::DynamoDB::Table":
            name = named("TableName")
            self._set(logical_id, name, Arn=arn.format("dynamodb", f"table/{name}"))
        elif kind == "AWS::SQS::Queue":
            name = named("QueueName")
            url = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT_ID}/{name}"
            self._set(logical_id, url, Arn=arn.format("sqs", name), QueueName=name, QueueUrl=url)
        elif kind == "AWS::Logs::LogGroup":
            name = named("LogGroupName")
            # CloudFormation's Arn of a log group ends in ":*", which also names its streams.
            self._set(logical_id, name, Arn=arn.format("logs", f"log-group:{name}:*"))
        elif kind in ("AWS::Serverless::Function", "AWS::Lambda::Function"):
            name = named("FunctionName")
            self._set(logical_id, name, Arn=arn.format("lambda", f"function:{name}"))
        elif kind == "AWS::IAM::Role":
            name = named("RoleName")
            self._set(logical_id, name, Arn=f"arn:{PARTITION}:iam::{ACCOUNT_ID}:role/{name}")
        elif kind == "AWS::SNS::Topic":
            topic = arn.format("sns", named("TopicName"))
            self._set(logical_id, topic, TopicName=topic.rsplit(":", 1)[-1])
        else:
            self._set(logical_id, made_up)

    def _set(self, logical_id: str, reference: str, **attributes: str) -> None:
        self._references[logical_id] = reference
        for attribute, value in attributes.items():
            self._attributes[(logical_id, attribute)] = value

    def reference(self, logical_id: str) -> str:
        """What `!Ref` of a resource or parameter gives."""
        return str(self._references[logical_id])

    def attribute(self, logical_id: str, attribute: str) -> str:
        """What `!GetAtt logical_id.attribute` gives."""
        return str(self._attributes[(logical_id, attribute)])

    def resources_of_type(self, kind: str) -> list[str]:
        return [
            logical_id
            for logical_id, resource in self.template["Resources"].items()
            if resource["Type"] == kind
        ]

    # -- conditions and intrinsic functions ------------------------------------------------------

    @cached_property
    def conditions(self) -> dict[str, bool]:
        decided: dict[str, bool] = {}
        for name in self.template.get("Conditions") or {}:
            decided[name] = self._condition(name, decided)
        return decided

    def _condition(self, name: str, decided: dict[str, bool]) -> bool:
        if name not in decided:
            decided[name] = self._truth(self.template["Conditions"][name], decided)
        return decided[name]

    def _truth(self, value: Any, decided: dict[str, bool]) -> bool:
        [(function, argument)] = value.items()
        if function == "Condition":
            return self._condition(argument, decided)
        if function == "Fn::Not":
            return not self._truth(argument[0], decided)
        if function == "Fn::And":
            return all(self._truth(item, decided) for item in argument)
        if function == "Fn::Or":
            return any(self._truth(item, decided) for item in argument)
        if function == "Fn::Equals":
            left, right = (resolve(item, self._references, self._attributes) for item in argument)
            return str(left) == str(right)
        raise TemplateProblem(f"a condition uses {function}, which this proof does not evaluate")

    def resolve(self, value: Any) -> Any:
        """`value` as it is once deployed: each `Fn::If` decided, `AWS::NoValue` dropped, then
        `Ref`, `Fn::GetAtt`, `Fn::Sub`, `Fn::Join` and `Fn::Select` evaluated."""
        return resolve(self._decided(value), self._references, self._attributes)

    def _decided(self, value: Any) -> Any:
        if isinstance(value, list):
            return [decided for item in value if not _no_value(decided := self._decided(item))]
        if not isinstance(value, dict):
            return value
        if set(value) == {"Fn::If"}:
            condition, if_true, if_false = value["Fn::If"]
            return self._decided(if_true if self.conditions[condition] else if_false)
        return {key: decided for key, item in value.items() if not _no_value(decided := self._decided(item))}

    # -- roles, functions, outputs -------------------------------------------------------------------

    def role_of(self, function: str) -> str:
        """The logical id of the role a function runs with (`Role: !GetAtt <role>.Arn`)."""
        role = self.template["Resources"][function]["Properties"].get("Role")
        if not (isinstance(role, dict) and "Fn::GetAtt" in role and role["Fn::GetAtt"][1] == "Arn"):
            raise TemplateProblem(f"{function}'s Role is not !GetAtt <role>.Arn of a role of this template")
        return str(role["Fn::GetAtt"][0])

    def role_policy(self, role: str) -> Policy:
        """The role's inline policies, as deployed, together."""
        properties = self.template["Resources"][role]["Properties"]
        if properties.get("ManagedPolicyArns") or properties.get("PermissionsBoundary"):
            raise TemplateProblem(
                f"{role} attaches a managed policy or a boundary, which this proof cannot read"
            )
        documents = [self.resolve(policy["PolicyDocument"]) for policy in properties.get("Policies", [])]
        return Policy.from_documents(role, documents)

    @cached_property
    def outputs(self) -> dict[str, str]:
        """Each output's value, as `aws cloudformation describe-stacks` shows it."""
        return {
            name: str(self.resolve(output["Value"]))
            for name, output in (self.template.get("Outputs") or {}).items()
            if "Condition" not in output or self.conditions[output["Condition"]]
        }

    def fill_in(self, text: str) -> str:
        """`${Name}` placeholders of the operator's policy (docs/operations.md): the stack's outputs
        and the pseudo parameters AWS::Partition, AWS::Region, AWS::AccountId and AWS::StackName."""

        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in self.outputs:
                return self.outputs[name]
            if name in ("AWS::Partition", "AWS::Region", "AWS::AccountId", "AWS::StackName"):
                return str(self._references[name])
            raise TemplateProblem(
                f"${{{name}}} is neither an output of the stack nor AWS::Region and the like"
            )

        return re.sub(r"\$\{([^}]+)\}", value, text)


def _no_value(value: Any) -> bool:
    return value == {"Ref": "AWS::NoValue"}


@dataclass(frozen=True)
class NotCalled:
    """A comment in template.yaml saying who performs an action of a role, since no code calls it."""

    resource: str  # the role's logical id
    sid: str | None
    action: str
    reason: str
    line: int


_TOP_LEVEL_KEY = re.compile(r"^  ([A-Za-z0-9]+):")
_SID = re.compile(r"^\s*(?:-\s+)?Sid:\s*([A-Za-z0-9]+)")
_ACTION = re.compile(r"^\s*(?:-\s+)?(?:Action:\s+)?([a-z0-9-]+:[A-Za-z0-9*?]+)\s*(?:#\s*(.*?))?\s*$")


def not_called_comments(text: str) -> list[NotCalled]:
    """Every action line of the template whose comment starts with NOT_CALLED, with the resource
    and statement (Sid) it is in: `- sqs:GetQueueAttributes  # not called by the code: ...`."""
    found = []
    resource: str | None = None
    sid: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if top := _TOP_LEVEL_KEY.match(line):
            resource, sid = top.group(1), None
        elif statement := _SID.match(line):
            sid = statement.group(1)
        elif (action := _ACTION.match(line)) and action.group(2) and action.group(2).startswith(NOT_CALLED):
            reason = action.group(2).removeprefix(NOT_CALLED).strip()
            found.append(NotCalled(resource or "", sid, action.group(1), reason, number))
    return found
