"""`dlq redrive` puts a dead letter's copy on the incoming queue before it deletes the dead letter
(docs/operations.md): an interruption between the two leaves a copy in both queues, which the game
recognises by its MessageSid, and never in neither."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from serverless_rps.admin.operations import Operator
from tests.conftest import BOT_NUMBER
from tests.protocol.test_admin import CAROL, _connected, deployed

__all__ = ["deployed"]


class Interrupted(Exception):
    """The operator's tool stopped here (Ctrl-C, a lost connection, a killed process)."""


class InterruptedAt:
    """An SQS client that stops the tool at its first call of one operation, before it is made."""

    def __init__(self, sqs: Any, operation: str) -> None:
        self._sqs = sqs
        self._operation = operation

    def __getattr__(self, name: str) -> Any:
        if name == self._operation:
            raise Interrupted(name)
        return getattr(self._sqs, name)


def messages_on(sqs: Any, queue_url: str) -> int:
    attributes = sqs.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(
        attributes["ApproximateNumberOfMessagesNotVisible"]
    )


@pytest.fixture
def dead_letter(deployed: Any) -> str:
    body = json.dumps({"MessageSid": "SM" + "7" * 32, "From": CAROL, "To": BOT_NUMBER, "Body": "help"})
    settings = _connected().settings
    return str(deployed.send_message(QueueUrl=settings.dead_letter_queue_url, MessageBody=body)["MessageId"])


@pytest.mark.parametrize("interrupted_at", ["send_message", "delete_message"])
def test_a_redrive_interrupted_between_its_two_steps_loses_no_dead_letter(
    deployed: Any, dead_letter: str, interrupted_at: str
) -> None:
    sqs = deployed
    operator = _connected()
    interrupted = replace(operator, sqs=InterruptedAt(operator.sqs, interrupted_at))
    settings = operator.settings

    with pytest.raises(Interrupted):
        interrupted.redrive([dead_letter])

    on_the_dead_letter_queue = messages_on(sqs, settings.dead_letter_queue_url)
    on_the_incoming_queue = messages_on(sqs, settings.incoming_queue_url)
    assert on_the_dead_letter_queue + on_the_incoming_queue >= 1
    assert on_the_dead_letter_queue == 1  # the copy is deleted only once the other is on its way


def test_a_completed_redrive_leaves_the_one_copy_on_the_incoming_queue(
    deployed: Any, dead_letter: str
) -> None:
    sqs = deployed
    operator: Operator = _connected()

    moved = operator.redrive([dead_letter])

    assert [row["id"] for row in moved] == [dead_letter]
    assert messages_on(sqs, operator.settings.dead_letter_queue_url) == 0
    assert messages_on(sqs, operator.settings.incoming_queue_url) == 1
