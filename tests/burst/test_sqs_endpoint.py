"""The game function's SQS client, answered by the simulated queues: what the handler sends to
either queue lands there, and a stale receipt handle is refused as SQS refuses it."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import boto3
import botocore
import pytest
from botocore.config import Config

from bench.burst.latencies import Latencies
from bench.burst.observations import InvocationContext, Observations
from bench.burst.sqs import SimulatedQueue, SqsEndpoint
from bench.burst.virtual_time import Actor, Scheduler
from serverless_rps.exceptions import RetryLater
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue

INCOMING = "https://sqs.us-east-1.amazonaws.com/123456789012/incoming"
DEAD_LETTERS = "https://sqs.us-east-1.amazonaws.com/123456789012/dead-letters"


@pytest.fixture
def queues() -> tuple[Scheduler, SimulatedQueue, IncomingQueue, DeadLetterQueue]:
    scheduler = Scheduler()
    ids = itertools.count(1)
    queue = SimulatedQueue(scheduler, 90.0, 8, new_id=lambda: f"m{next(ids)}")
    session = boto3.session.Session(region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    endpoint = SqsEndpoint(
        queue,
        {"incoming": INCOMING, "dead_letters": DEAD_LETTERS},
        Latencies(random.Random(1), 256),
        Observations(),
    )
    endpoint.attach(session._session.get_component("event_emitter"))
    client = session.client("sqs", config=Config(signature_version=botocore.UNSIGNED))
    return scheduler, queue, IncomingQueue(client, INCOMING), DeadLetterQueue(client, DEAD_LETTERS)


def _in_an_invocation(scheduler: Scheduler, work: Callable[[], Any]) -> list[Any]:
    outcome: list[Any] = []

    def body() -> None:
        try:
            outcome.append(work())
        except Exception as exc:
            outcome.append(exc)

    scheduler.start(Actor(scheduler, "invocation", body, start=5.0, context=InvocationContext(instance=1)))
    scheduler.run()
    return outcome


def test_a_message_the_handler_enqueues_lands_on_the_incoming_queue_at_its_time(queues: Any) -> None:
    scheduler, queue, incoming, _ = queues

    [message_id] = _in_an_invocation(
        scheduler, lambda: incoming.enqueue({"From": "+15551110001", "Body": "rock"})
    )

    message = queue.messages[message_id]
    assert message.sent_at > 5.0
    assert '"Body": "rock"' in message.body


def test_a_parked_poison_message_keeps_its_reason(queues: Any) -> None:
    scheduler, queue, _, dead_letters = queues

    _in_an_invocation(scheduler, lambda: dead_letters.park("not JSON", "body is not JSON", "m9"))

    [letter] = queue.dead_letters
    assert (letter.body, letter.attributes["reason"], letter.redriven) == (
        "not JSON",
        "body is not JSON",
        False,
    )


def test_a_quicker_redelivery_with_a_stale_receipt_handle_is_refused(queues: Any) -> None:
    scheduler, _, incoming, _ = queues

    [refusal] = _in_an_invocation(scheduler, lambda: incoming.redeliver_in("receipt-of-an-old-receive", 1))

    assert isinstance(refusal, RetryLater)
