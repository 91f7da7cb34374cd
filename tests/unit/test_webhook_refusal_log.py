"""What the webhook logs when it refuses a forged request: enough to see the attempt (status,
reason, which route), never the route's secret path segment, which would let anyone who reads the
logs reach the webhook past its first guard."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import urlencode

import pytest

from serverless_rps import webhook
from serverless_rps.observability import logger
from tests.unit.test_webhook import http_event, ingress, queue_url, sqs, twilio_parameters

__all__ = ["ingress", "queue_url", "sqs"]

SECRET_SEGMENT = "k3pT-s3cr3t-segment-9f2c1e"


@pytest.fixture
def log_lines(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    output = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", output)
    return output


def refusals(output: io.StringIO) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in output.getvalue().splitlines() if line.startswith("{")]
    return [entry for entry in entries if entry.get("message") == "request refused"]


@pytest.mark.parametrize("raw_path", [f"/sms/{SECRET_SEGMENT}", f"/prod/sms/{SECRET_SEGMENT}"])
@pytest.mark.parametrize(
    "signature", [None, "forged0signature0AAAAAAAAAAA="], ids=["unsigned", "forged signature"]
)
def test_a_forged_request_is_logged_as_refused_without_the_secret_path_segment(
    ingress: webhook.Ingress, log_lines: io.StringIO, raw_path: str, signature: str | None
) -> None:
    event = http_event(urlencode(twilio_parameters()), signature=signature, raw_path=raw_path)

    response = webhook.handle(event, ingress)

    assert response["statusCode"] == 403
    [refusal] = refusals(log_lines)
    assert refusal["status"] == 403
    assert refusal["path"] == raw_path.replace(SECRET_SEGMENT, "<secret>")
    assert SECRET_SEGMENT not in log_lines.getvalue()
