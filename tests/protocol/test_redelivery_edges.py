"""A message that must wait really comes back when its hint says, on the very message SQS gave the
function; and when SQS refuses to shorten the wait, the operator reads why in one warning."""

from __future__ import annotations

import io
import json
import time

import pytest

from serverless_rps.app import GameFunction
from serverless_rps.exceptions import RetryLater
from serverless_rps.message_queue import IncomingQueue
from serverless_rps.observability import logger
from tests.conftest import ALICE
from tests.protocol.test_batch_handler import Queues
from tests.protocol.test_redelivery_delay import MustWait


@pytest.fixture
def queues(aws: None) -> Queues:
    return Queues()


def _function(queues: Queues, incoming: IncomingQueue | None = None) -> GameFunction:
    return queues.function(MustWait(1), incoming)


def test_a_message_told_to_wait_a_second_is_received_again_a_second_later(queues: Queues) -> None:
    body = queues.sms_body(ALICE, "rock")
    event = queues.event(body)

    assert _function(queues).handle_batch(event, None)["batchItemFailures"]

    time.sleep(1.5)
    [again] = queues.sqs.receive_message(QueueUrl=queues.incoming_url)["Messages"]
    assert again["Body"] == body


class _RefusingQueue(IncomingQueue):
    def redeliver_in(self, receipt_handle: str, seconds: float) -> None:
        raise RetryLater("could not shorten the visibility timeout: ReceiptHandleIsInvalid")


def test_when_sqs_refuses_to_shorten_the_wait_the_operator_reads_why(
    queues: Queues, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", output)
    function = _function(queues, _RefusingQueue(queues.sqs, queues.incoming_url))

    assert function.handle_batch(queues.event(queues.sms_body(ALICE, "rock")), None)["batchItemFailures"]

    lines = [json.loads(line) for line in output.getvalue().splitlines()]
    [warning] = [line for line in lines if line["message"] == "could not shorten the visibility timeout"]
    assert (warning["level"], warning["error"]) == (
        "WARNING",
        "could not shorten the visibility timeout: ReceiptHandleIsInvalid",
    )
