"""Tracing costs nothing when it is off: no X-Ray SDK imported, handlers left as they are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serverless_rps import observability
from serverless_rps.config import tracing_enabled
from serverless_rps.observability import Untraced, mask_phone

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("variables", "enabled"),
    [
        ({"LAMBDA_TASK_ROOT": "/var/task"}, True),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "1"}, False),
        # Powertools' other spellings of true (strtobool's).
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "y"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "yes"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "t"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "on"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "false"}, True),
        ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_CHALICE_CLI_MODE": "true"}, False),
        ({}, False),  # outside Lambda: no X-Ray daemon to send to
    ],
)
def test_tracing_is_on_exactly_where_powertools_would_trace(variables: dict[str, str], enabled: bool) -> None:
    assert tracing_enabled(variables) is enabled


def _loaded_after_importing_the_handlers(**variables: str) -> str:
    environment = {
        "PATH": os.environ.get("PATH", ""),
        "AWS_REGION": "us-east-1",
        "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
        **variables,
    }
    code = (
        "import sys, serverless_rps.app, serverless_rps.webhook\n"
        "from serverless_rps.observability import tracer\n"
        "print(type(tracer).__name__, 'aws_xray_sdk' in sys.modules, 'asyncio' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=environment, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def test_with_tracing_off_the_handlers_never_import_the_xray_sdk() -> None:
    loaded = _loaded_after_importing_the_handlers(
        LAMBDA_TASK_ROOT=str(REPO), POWERTOOLS_TRACE_DISABLED="true"
    )

    assert loaded == "Untraced False False"


def test_with_tracing_on_the_handlers_trace_through_powertools_and_the_xray_sdk() -> None:
    loaded = _loaded_after_importing_the_handlers(LAMBDA_TASK_ROOT=str(REPO))

    assert loaded.startswith("Tracer True")


def test_untraced_leaves_a_handler_as_it_is_in_both_decorator_forms() -> None:
    untraced = Untraced()

    def handler(event: dict[str, str], context: object) -> str:
        return event["answer"]

    assert untraced.capture_lambda_handler(handler) is handler
    assert untraced.capture_lambda_handler(capture_response=False)(handler) is handler
    assert untraced.put_annotation("result", "done") is None


def test_a_logged_phone_number_keeps_only_its_last_four_digits() -> None:
    assert mask_phone("+15551234567") == "+*******4567"
    assert mask_phone(None) == "<none>"


def test_a_duration_metric_is_in_milliseconds_and_never_below_zero() -> None:
    from serverless_rps.observability import metrics, milliseconds

    metrics.clear_metrics()
    try:
        milliseconds("ReplyDelay", 0.5)
        milliseconds("ReplyDelay", -20.0)
        emitted = metrics.serialize_metric_set()
    finally:
        metrics.clear_metrics()
    [definition] = emitted["_aws"]["CloudWatchMetrics"][0]["Metrics"]
    assert definition == {"Name": "ReplyDelay", "Unit": "Milliseconds"}
    assert emitted["ReplyDelay"] == [0.5, 0.0]


def test_with_tracing_off_the_tracer_is_the_one_that_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from serverless_rps import observability

    monkeypatch.delenv("LAMBDA_TASK_ROOT", raising=False)
    assert isinstance(observability._tracer(), Untraced)


def test_with_tracing_on_the_tracer_names_the_service_and_traces_aws_and_twilio_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import aws_lambda_powertools.tracing

    from serverless_rps import observability

    built: list[dict[str, object]] = []
    monkeypatch.setattr(aws_lambda_powertools.tracing, "Tracer", lambda **options: built.append(options))
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    for name in ("POWERTOOLS_TRACE_DISABLED", "AWS_SAM_LOCAL", "AWS_CHALICE_CLI_MODE"):
        monkeypatch.delenv(name, raising=False)

    observability._tracer()

    assert built == [{"service": "serverless-rps", "patch_modules": ["boto3", "requests"]}]


def test_a_message_is_counted_once_in_its_own_line_by_command_and_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    capsys.readouterr()
    observability.count_message("Throw", "processed")
    [line] = [json.loads(text) for text in capsys.readouterr().out.splitlines() if text.startswith("{")]
    [directive] = line["_aws"]["CloudWatchMetrics"]
    assert directive["Metrics"] == [{"Name": "Messages", "Unit": "Count"}]
    assert directive["Dimensions"] == [["service", "command", "outcome"]]
    assert (line["service"], line["command"], line["outcome"], line["Messages"]) == (
        "serverless-rps",
        "Throw",
        "processed",
        [1.0],
    )


def test_a_number_without_a_plus_or_shorter_than_five_digits_is_masked_as_it_is() -> None:
    assert mask_phone("15551234567") == "*******4567"
    assert mask_phone("88000") == "*8000"
    assert mask_phone("+1234") == "+1234"
    assert mask_phone("") == "<none>"
