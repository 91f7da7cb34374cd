"""Fixtures more than one protocol module uses (the rest are in tests/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.protocol.test_batch_handler import Queues


@pytest.fixture
def queues(aws: None) -> Queues:
    return Queues()


@pytest.fixture
def copies(queues: Queues) -> list[dict[str, Any]]:
    """Every message the game function puts back on the incoming queue (the copies it sends)."""
    sent: list[dict[str, Any]] = []

    def note(params: dict[str, Any], **_: Any) -> None:
        if params["QueueUrl"] == queues.incoming_url and "DelaySeconds" in params:
            sent.append(params)

    queues.sqs.meta.events.register("provide-client-params.sqs.SendMessage", note)
    return sent
