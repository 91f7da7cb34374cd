"""The least-privilege proof: every recorded call is allowed by the policy of the principal that makes
it in production, and every action of every statement of those policies is used by a recorded call
on every resource the statement names, or carries a comment in template.yaml saying who performs it.

`check` returns the findings, each a sentence naming the action, the resource, the call or the
statement behind it; no finding is the proof. `report` lists, per policy, the requests recorded and
the statements kept, for docs/deployment.md and the test's output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.iam.deployment import REPOSITORY, DeployedStack, NotCalled, not_called_comments
from tests.iam.policy import Decision, Policy, Statement, action_matches, resource_matches
from tests.iam.principals import (
    EVENT_SOURCE_MAPPING,
    GAME_FUNCTION,
    OPERATOR,
    OPERATOR_FUNCTIONS,
    WEBHOOK_FUNCTION,
    AttributedCall,
    attribute,
    call_site,
)
from tests.iam.requests import NeededRequest, NotThere, Unmapped, requests_of

__all__ = ["OPERATIONS_DOC", "Subject", "check", "operator_policies", "report", "subjects"]

OPERATIONS_DOC = REPOSITORY / "docs" / "operations.md"
# The headings in docs/operations.md under which the operator's two policies are given, as JSON.
OPERATOR_POLICY_HEADINGS = {"read-only": "The read-only policy", "read-write": "The read-write policy"}


@dataclass(frozen=True)
class Subject:
    """A policy, and which recorded calls it must allow."""

    name: str  # "GameFunctionRole", "the operator's read-only policy"
    policy: Policy
    makers: str  # who makes its calls, for messages: "the game function or the event source mapping"
    must_allow: Callable[[AttributedCall], bool]
    fix: str  # what to do about an action no call uses
    not_called: Mapping[tuple[str | None, str], NotCalled] = field(default_factory=dict)


def operator_policies(text: str, stack: DeployedStack) -> dict[str, Policy]:
    """The operator's policies given in docs/operations.md, their placeholders filled in for `stack`."""
    policies = {}
    for variant, heading in OPERATOR_POLICY_HEADINGS.items():
        found = re.search(
            rf"^#+ {re.escape(heading)}\b.*?^```json\n(.*?)^```", text, re.MULTILINE | re.DOTALL
        )
        if found is None:
            raise ValueError(f"docs/operations.md has no heading '{heading}' followed by a ```json block")
        document = json.loads(stack.fill_in(found.group(1)))
        policies[variant] = Policy.from_documents(f"the operator's {variant} policy", [document])
    return policies


def subjects(stack: DeployedStack, operator: Mapping[str, Policy], template_text: str) -> list[Subject]:
    comments = not_called_comments(template_text)

    def role(function: str, makers: str, principals: set[Any]) -> Subject:
        name = stack.role_of(function)
        return Subject(
            name,
            stack.role_policy(name),
            makers,
            lambda call: bool(principals & set(call.principals)),
            "remove it, or say on its line in template.yaml who performs it (# not called by the code: ...)",
            {(comment.sid, comment.action): comment for comment in comments if comment.resource == name},
        )

    return [
        role(
            "GameFunction",
            "the game function or the event source mapping",
            {GAME_FUNCTION, EVENT_SOURCE_MAPPING},
        ),
        role("WebhookFunction", "the webhook function", {WEBHOOK_FUNCTION}),
        Subject(
            operator["read-only"].name,
            operator["read-only"],
            "a read-only command of the operator's tool",
            lambda call: OPERATOR in call.principals and call.read_only,
            "remove it from docs/operations.md",
        ),
        Subject(
            operator["read-write"].name,
            operator["read-write"],
            "the operator's tool",
            lambda call: OPERATOR in call.principals,
            "remove it from docs/operations.md",
        ),
    ]


@dataclass(frozen=True)
class _Use:
    """One request a subject's call needs, and IAM's decision on it."""

    call: AttributedCall
    needed: NeededRequest
    decision: Decision


def _where(call: AttributedCall) -> str:
    learned = "" if call.how == "entry point" else f" (reached from {call.how})"
    return f"from {call_site(call.call)}{learned}"


def _describe(call: AttributedCall) -> str:
    return f"{call.call['operation']} {_where(call)}"


def _resource_name(stack: DeployedStack, resource: str) -> str:
    """`table GameStateTable` for the table's ARN in a statement; any other resource as it is."""
    if resource == "*":
        return "every resource"
    for logical_id, declared in stack.template["Resources"].items():
        try:
            if stack.attribute(logical_id, "Arn") == resource:
                return f"{declared['Type'].rsplit('::', 1)[-1].lower()} {logical_id}"
        except KeyError:
            continue
    return resource


def _uses(
    subject: Subject, attributed: Sequence[AttributedCall], stack: DeployedStack
) -> tuple[list[_Use], list[str]]:
    """The requests of the calls a subject must allow, each with IAM's decision; and the calls
    whose requests cannot be told (a finding each)."""
    uses, findings = [], []
    for call in attributed:
        if not subject.must_allow(call):
            continue
        try:
            needed = requests_of(call.call, stack)
        except Unmapped as unmapped:
            findings.append(f"{_describe(call)}: {unmapped}")
            continue
        except NotThere:
            continue  # _only_on_missing_resources
        uses += [_Use(call, request, subject.policy.decide(request.request)) for request in needed]
    return uses, findings


def check(
    calls: Iterable[Mapping[str, Any]],
    stack: DeployedStack,
    operator: Mapping[str, Policy],
    template_text: str,
) -> list[str]:
    """Every finding of both directions, for one deployment of the template; none is the proof."""
    attributed = attribute(calls)
    findings = _unattributed(attributed) + _only_on_missing_resources(attributed, stack)
    for subject in subjects(stack, operator, template_text):
        uses, unreadable = _uses(subject, attributed, stack)
        findings += unreadable
        findings += [_not_allowed(subject, use) for use in uses if not use.decision.allowed]
        findings += _unused(subject, uses, stack)
    return sorted(set(findings))


def _only_on_missing_resources(attributed: Sequence[AttributedCall], stack: DeployedStack) -> list[str]:
    """A call a test made on a resource that is not there stands for the same call on the configured
    one: that call must be recorded too, from the same place, or its requests are unknown."""
    missing, present = [], set()
    for call in attributed:
        place = (call.call["service"], call.call["operation"], call.call["stack"][-1])
        try:
            requests_of(call.call, stack)
        except NotThere as name:
            missing.append((place, call, name))
        except Unmapped:
            continue
        else:
            present.add(place)
    return [
        f"{_describe(call)} is recorded only on a resource its test made missing ({name}): no test shows "
        "it on the stack's own"
        for place, call, name in missing
        if place not in present
    ]


def _unattributed(attributed: Sequence[AttributedCall]) -> list[str]:
    findings = []
    for call in attributed:
        if not call.principals:
            findings.append(
                f"{_describe(call)}: no test runs {call.how} below an entry point (serverless_rps/app.py, "
                "webhook.py, status_callbacks.py, admin/), so no principal is known to make this call"
            )
        elif OPERATOR in call.principals and not any(
            name in OPERATOR_FUNCTIONS for name in call.operator_functions
        ):
            reached = ", ".join(call.operator_functions) or "admin/"
            findings.append(
                f"the operator's tool: {_describe(call)}, reached from {reached}: "
                "say in tests/iam/principals.py OPERATOR_FUNCTIONS which commands run it"
            )
    return findings


def _not_allowed(subject: Subject, use: _Use) -> str:
    needed, decision = use.needed, use.decision
    makers = ", ".join(principal.name for principal in use.call.principals)
    why = (
        f"is denied by {', '.join(statement.name for statement in decision.denied_by)} of {subject.name}"
        if decision.explicitly_denied
        else f"is not allowed by {subject.name}"
    )
    return (
        f"{makers}: {needed.request.action} on {needed.resource_name}, needed by {needed.part} "
        f"{_where(use.call)}, {why}"
    )


def _users(statement: Statement, action: str, uses: Sequence[_Use]) -> list[_Use]:
    """The requests a statement's action allows."""
    return [
        use
        for use in uses
        if statement in use.decision.allowed_by and action_matches(action, use.needed.request.action)
    ]


def _unused(subject: Subject, uses: Sequence[_Use], stack: DeployedStack) -> list[str]:
    findings = []
    for statement in subject.policy.statements:
        if statement.effect != "Allow":
            continue  # a deny grants nothing: it cannot be standing privilege
        for action in statement.actions:
            comment = subject.not_called.get((statement.sid, action))
            users = _users(statement, action, uses)
            where = f"{subject.name} statement {statement.name}: {action}"
            if comment is not None:
                if not comment.reason:
                    findings.append(
                        f"{where}: its comment (template.yaml line {comment.line}) gives no reason"
                    )
                if users:
                    findings.append(
                        f"{where} is marked as not called by the code (template.yaml line {comment.line}), "
                        f"but {_describe(users[0].call)} calls it"
                    )
                continue
            if statement.not_actions or statement.not_resources:
                findings.append(
                    f"{where}: NotAction or NotResource in a policy of ours cannot be proven least"
                )
                continue
            for resource in statement.resources:
                if not any(resource_matches(resource, use.needed.request.resource) for use in users):
                    findings.append(
                        f"{where} on {_resource_name(stack, resource)} is used by no recorded call of "
                        f"{subject.makers}: {subject.fix}"
                    )
    return findings


def report(
    calls: Iterable[Mapping[str, Any]],
    stack: DeployedStack,
    operator: Mapping[str, Policy],
    template_text: str,
) -> str:
    """Per policy: the requests its principals' recorded calls make, with how many places in the
    code make them; and each statement's actions, with how many places use each, or who performs it."""
    attributed = attribute(calls)
    lines = [f"{len(attributed)} distinct calls recorded"]
    for subject in subjects(stack, operator, template_text):
        uses, _ = _uses(subject, attributed, stack)
        lines += ["", f"{subject.name} ({subject.makers})", "  requests recorded:"]
        places: dict[tuple[str, str], set[str]] = {}
        for use in uses:
            key = (use.needed.request.action, use.needed.resource_name)
            places.setdefault(key, set()).add(call_site(use.call.call))
        for (action, resource), sites in sorted(places.items()):
            lines.append(f"    {action} on {resource}: {_places(sites)}")
        lines.append("  statements:")
        for statement in subject.policy.statements:
            for action in statement.actions:
                comment = subject.not_called.get((statement.sid, action))
                sites = {call_site(use.call.call) for use in _users(statement, action, uses)}
                used = f"not called by the code: {comment.reason}" if comment else f"used by {_places(sites)}"
                lines.append(f"    {statement.name}: {action}, {used}")
    return "\n".join(lines) + "\n"


def _places(sites: set[str]) -> str:
    if not sites:
        return "no call"
    first = sorted(sites)[0]
    return first if len(sites) == 1 else f"{len(sites)} places, e.g. {first}"
