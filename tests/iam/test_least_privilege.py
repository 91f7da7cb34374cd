"""Least privilege, proven over the whole suite's recording of the AWS calls the shipped code makes.

`make test` records while the suite runs on both engines (RPS_AWS_CALLS), then runs this last. With
no recording it fails, never skips: run `make test`. docs/deployment.md ("Least privilege, proven")
says what is proven and how to read a failure.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.iam.deployment import DEPLOYMENTS, REPOSITORY, TEMPLATE, DeployedStack, Deployment
from tests.iam.principals import EVENT_SOURCE_MAPPING, GAME_FUNCTION, OPERATOR, WEBHOOK_FUNCTION, attribute
from tests.iam.proof import OPERATIONS_DOC, check, operator_policies, report
from tests.iam.recording import ENVIRONMENT_VARIABLE, read_calls

RECORDING = Path(os.environ.get(ENVIRONMENT_VARIABLE) or REPOSITORY / "test-output" / "aws-calls")
REPORT = REPOSITORY / "test-output" / "least-privilege.txt"


@pytest.fixture(scope="module")
def calls() -> list[dict[str, Any]]:
    recorded = read_calls(RECORDING) if RECORDING.is_dir() else []
    assert recorded, (
        f"no AWS calls are recorded in {RECORDING}: `make test` records them while the whole suite runs "
        f"({ENVIRONMENT_VARIABLE}=<directory>, tests/iam/inject first on PYTHONPATH), then runs this"
    )
    return recorded


def test_the_recording_holds_calls_of_every_principal(calls: list[dict[str, Any]]) -> None:
    principals = {principal for call in attribute(calls) for principal in call.principals}

    assert principals == {GAME_FUNCTION, EVENT_SOURCE_MAPPING, WEBHOOK_FUNCTION, OPERATOR}


@pytest.mark.parametrize("deployment", DEPLOYMENTS, ids=lambda deployment: deployment.name)
def test_every_call_is_allowed_and_every_granted_action_is_used(
    calls: list[dict[str, Any]], deployment: Deployment
) -> None:
    stack = DeployedStack.of_template(deployment)
    operator = operator_policies(OPERATIONS_DOC.read_text(encoding="utf-8"), stack)

    findings = check(calls, stack, operator, TEMPLATE.read_text(encoding="utf-8"))

    assert findings == [], "\n".join(findings)


def test_the_report_of_the_calls_and_the_statements_is_written(
    calls: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    stack = DeployedStack.of_template()
    operator = operator_policies(OPERATIONS_DOC.read_text(encoding="utf-8"), stack)

    text = report(calls, stack, operator, TEMPLATE.read_text(encoding="utf-8"))

    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text, encoding="utf-8")
    with capsys.disabled():
        print(f"\n{text}(written to {REPORT.relative_to(REPOSITORY)})")
    for policy in ("GameFunctionRole", "WebhookFunctionRole", "the operator's read-only policy"):
        assert f"\n{policy} (" in text
    assert ", used by no call" not in text
