"""IAM's decision on one request under one identity policy, for the least-privilege proof.

Written here, small, rather than taken from a library: none that is maintained and that we found
decides a request offline (policyuniverse parses and expands, parliament and cloudsplaining lint
and assess, policy_sentry writes policies, AWS's policy simulator is an API call to an account),
and moto's IAM mode matches resources for S3, SQS, IAM and STS only. docs/deployment.md says more.

What it follows, from AWS's documentation of policy evaluation and of the policy elements:

* A request is an action (`dynamodb:PutItem`) on a resource (an ARN, or `*` for an action that
  has no resource-level permissions, such as xray:PutTraceSegments).
* A statement applies when its `Action` names the action (or its `NotAction` does not) and its
  `Resource` names the resource (or its `NotResource` does not).
* An explicit deny in any statement wins; else an allow allows; else the request is denied by
  default (implicit deny).
* Action names are matched without regard to case, `*` standing for any characters and `?` for one.
* ARNs are matched with regard to case; `*` and `?` stand for characters within one segment (the
  parts between colons), and a `*` that ends a segment may run on past its colons ("arn:aws:s3:::*").

What it does not do: `Condition` blocks are not evaluated. An Allow with a condition allows
nothing here and a Deny with one denies as if its condition held, so a condition can only make the
proof stricter than IAM. Principals, policy variables (`${aws:username}`), permissions boundaries,
session policies, SCPs and resource-based policies are out of its scope: the project's roles and
the operator's policy use none of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["Decision", "Policy", "Request", "Statement", "action_matches", "resource_matches"]


@dataclass(frozen=True)
class Request:
    """One action on one resource: what IAM authorizes, one per item of a transaction."""

    action: str
    resource: str


@cache
def _action_pattern(pattern: str) -> re.Pattern[str]:
    body = "".join(".*" if char == "*" else "." if char == "?" else re.escape(char) for char in pattern)
    return re.compile(body, re.IGNORECASE | re.DOTALL)


def action_matches(pattern: str, action: str) -> bool:
    """`dynamodb:*Item` names `DynamoDB:putitem`: case does not matter in actions."""
    return _action_pattern(pattern).fullmatch(action) is not None


@cache
def _resource_pattern(pattern: str) -> re.Pattern[str]:
    parts = []
    for index, char in enumerate(pattern):
        ends_a_segment = index + 1 == len(pattern) or pattern[index + 1] == ":"
        if char == "*":
            parts.append(".*" if ends_a_segment else "[^:]*")
        elif char == "?":
            parts.append("[^:]")
        else:
            parts.append(re.escape(char))
    return re.compile("".join(parts), re.DOTALL)


def resource_matches(pattern: str, resource: str) -> bool:
    """An ARN pattern against an ARN (or the `*` of an action without resource-level permissions)."""
    return _resource_pattern(pattern).fullmatch(resource) is not None


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ValueError(f"an action or resource must be a string or a list of strings, not {value!r}")


@dataclass(frozen=True)
class Statement:
    effect: str  # "Allow" or "Deny"
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    sid: str | None = None
    not_actions: bool = False  # `actions` came from NotAction
    not_resources: bool = False  # `resources` came from NotResource
    conditional: bool = False

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Statement:
        effect = document.get("Effect")
        if effect not in ("Allow", "Deny"):
            raise ValueError(f"Effect must be Allow or Deny, not {effect!r}")
        if ("Action" in document) == ("NotAction" in document):
            raise ValueError("a statement has exactly one of Action and NotAction")
        if ("Resource" in document) == ("NotResource" in document):
            raise ValueError("a statement has exactly one of Resource and NotResource")
        return cls(
            effect=effect,
            actions=_strings(document.get("Action", document.get("NotAction"))),
            resources=_strings(document.get("Resource", document.get("NotResource"))),
            sid=document.get("Sid"),
            not_actions="NotAction" in document,
            not_resources="NotResource" in document,
            conditional=bool(document.get("Condition")),
        )

    def names_action(self, action: str) -> bool:
        named = any(action_matches(pattern, action) for pattern in self.actions)
        return named != self.not_actions

    def names_resource(self, resource: str) -> bool:
        named = any(resource_matches(pattern, resource) for pattern in self.resources)
        return named != self.not_resources

    def applies_to(self, request: Request) -> bool:
        if self.conditional and self.effect == "Allow":
            return False  # a condition this evaluator cannot check allows nothing
        return self.names_action(request.action) and self.names_resource(request.resource)

    @property
    def name(self) -> str:
        return self.sid or "(a statement without a Sid)"


@dataclass(frozen=True)
class Decision:
    """IAM's answer: allowed, or denied explicitly (by `denied_by`) or by default."""

    allowed: bool
    allowed_by: tuple[Statement, ...] = ()
    denied_by: tuple[Statement, ...] = ()

    @property
    def explicitly_denied(self) -> bool:
        return bool(self.denied_by)


@dataclass(frozen=True)
class Policy:
    """An identity policy: a role's inline policies together, or a policy document."""

    name: str
    statements: tuple[Statement, ...]

    @classmethod
    def from_documents(cls, name: str, documents: Iterable[Mapping[str, Any]]) -> Policy:
        statements = []
        for document in documents:
            listed = document.get("Statement", [])
            for statement in [listed] if isinstance(listed, Mapping) else listed:
                statements.append(Statement.from_json(statement))
        return cls(name, tuple(statements))

    def decide(self, request: Request) -> Decision:
        applying = [statement for statement in self.statements if statement.applies_to(request)]
        denying = tuple(statement for statement in applying if statement.effect == "Deny")
        if denying:
            return Decision(allowed=False, denied_by=denying)
        allowing = tuple(statement for statement in applying if statement.effect == "Allow")
        return Decision(allowed=bool(allowing), allowed_by=allowing)
