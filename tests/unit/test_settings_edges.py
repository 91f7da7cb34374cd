"""The webhook's settings and the operator's program, read from the environment they are given:
the status route's table and the metrics namespace, trimmed, or their defaults when unset."""

from __future__ import annotations

import pytest

from serverless_rps.config import DEFAULT_METRICS_NAMESPACE, WebhookSettings, program_from_environment
from serverless_rps.replies import Program

QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/incoming"
TWILIO = {"TWILIO_ACCOUNT_SID": "AC" + "1" * 32, "TWILIO_AUTH_TOKEN": "token"}


@pytest.fixture(autouse=True)
def _a_different_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the process's own environment says must not leak into settings read from another."""
    for name, value in {
        "INCOMING_QUEUE_URL": "https://sqs.example/other",
        "IDEMPOTENCY_TABLE": "process-table",
        "POWERTOOLS_METRICS_NAMESPACE": "ProcessNamespace",
        "PROGRAM_NAME": "Process Program",
        **TWILIO,
    }.items():
        monkeypatch.setenv(name, value)


def test_the_webhook_reads_its_status_table_and_metrics_namespace_trimmed() -> None:
    settings = WebhookSettings.from_environment(
        {
            "INCOMING_QUEUE_URL": QUEUE,
            "IDEMPOTENCY_TABLE": " rps-IdempotencyTable ",
            "POWERTOOLS_METRICS_NAMESPACE": " ServerlessRps/prod ",
            **TWILIO,
        }
    )
    assert (settings.incoming_queue_url, settings.idempotency_table, settings.metrics_namespace) == (
        QUEUE,
        "rps-IdempotencyTable",
        "ServerlessRps/prod",
    )


@pytest.mark.parametrize("blank", [None, "", "   "])
def test_without_them_the_status_route_has_no_table_and_metrics_the_default_namespace(
    blank: str | None,
) -> None:
    env = {"INCOMING_QUEUE_URL": QUEUE, **TWILIO}
    if blank is not None:
        env |= {"IDEMPOTENCY_TABLE": blank, "POWERTOOLS_METRICS_NAMESPACE": blank}
    settings = WebhookSettings.from_environment(env)
    assert (settings.idempotency_table, settings.metrics_namespace) == (None, DEFAULT_METRICS_NAMESPACE)


def test_the_operators_program_is_read_from_the_environment_given() -> None:
    program = program_from_environment({"PROGRAM_NAME": "Pebble Duel", "SUPPORT_CONTACT": "duel@example.org"})
    assert program == Program("Pebble Duel", "duel@example.org")
