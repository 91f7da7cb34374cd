"""The local SQS event source keeps Lambda's rules: partial batch responses, redelivery, dead letters.

A stand-in function (tests/local/standin/standin_function.py) does to each record what its body
says, so each rule is seen apart from the game. Queues have a visibility timeout of one second, so
redelivery can be waited for; nothing here asserts how long anything took.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from serverless_rps_local.aws import REGION, aws_client
from serverless_rps_local.event_source import SqsEventSource, build_sqs_event
from serverless_rps_local.lambda_runtime import Invocation, LocalFunction

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

STANDIN_ROOT = Path(__file__).parent / "standin"
MAX_RECEIVE_COUNT = 2


@pytest.fixture
def sqs(moto_endpoint: str) -> Any:
    return aws_client("sqs", moto_endpoint)


class Queues:
    def __init__(self, sqs: Any, visibility_timeout: int = 1) -> None:
        suffix = uuid.uuid4().hex[:8]
        self.sqs = sqs
        self.dead_letter_url = sqs.create_queue(QueueName=f"dead-letters-{suffix}")["QueueUrl"]
        dead_letter_arn = sqs.get_queue_attributes(
            QueueUrl=self.dead_letter_url, AttributeNames=["QueueArn"]
        )["Attributes"]["QueueArn"]
        self.url = sqs.create_queue(
            QueueName=f"incoming-{suffix}",
            Attributes={
                "VisibilityTimeout": str(visibility_timeout),
                "RedrivePolicy": json.dumps(
                    {"deadLetterTargetArn": dead_letter_arn, "maxReceiveCount": MAX_RECEIVE_COUNT}
                ),
            },
        )["QueueUrl"]
        self.arn = f"arn:aws:sqs:{REGION}:123456789012:incoming-{suffix}"

    def send(self, do: str, **details: Any) -> str:
        return str(
            self.sqs.send_message(QueueUrl=self.url, MessageBody=json.dumps({"do": do, **details}))[
                "MessageId"
            ]
        )

    def depth(self, url: str | None = None) -> int:
        attributes = self.sqs.get_queue_attributes(
            QueueUrl=url or self.url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return int(attributes["ApproximateNumberOfMessages"]) + int(
            attributes["ApproximateNumberOfMessagesNotVisible"]
        )

    def dead_letters(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.sqs.receive_message(
            QueueUrl=self.dead_letter_url, MaxNumberOfMessages=10, VisibilityTimeout=0
        ).get("Messages", [])
        return messages


@pytest.fixture
def queues(sqs: Any) -> Queues:
    return Queues(sqs)


@pytest.fixture
def function() -> Iterator[LocalFunction]:
    standin = LocalFunction(
        "StandIn", "standin_function.lambda_handler", STANDIN_ROOT, {}, timeout_seconds=3, concurrency=3
    )
    yield standin
    standin.stop()


def _event_source(
    function: LocalFunction, queues: Queues, report_batch_item_failures: bool = True, **options: Any
) -> SqsEventSource:
    return SqsEventSource(
        function,
        queues.sqs,
        queues.url,
        queues.arn,
        REGION,
        report_batch_item_failures=report_batch_item_failures,
        **options,
    )


def _poll_until(
    source: SqsEventSource, condition: Callable[[Invocation], bool], timeout: float = 20
) -> Invocation:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        invocation = source.poll_once()
        if invocation is None:
            time.sleep(0.05)
        elif condition(invocation):
            return invocation
    raise TimeoutError("no invocation matched before the deadline")


def _wait_for(condition: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not hold before the deadline")
        time.sleep(0.02)


def _receive_counts(invocation: Invocation) -> list[int]:
    return [int(record["attributes"]["ApproximateReceiveCount"]) for record in invocation.response["records"]]


def test_only_the_messages_reported_as_failed_stay_on_the_queue(
    function: LocalFunction, queues: Queues
) -> None:
    queues.send("succeed")
    failing = queues.send("fail")
    queues.send("succeed")
    source = _event_source(function, queues)

    invocation = _poll_until(source, lambda _: True)

    assert len(invocation.response["records"]) == 3
    assert queues.depth() == 1
    redelivered = _poll_until(source, lambda _: True)
    assert [record["messageId"] for record in redelivered.response["records"]] == [failing]


def test_a_failed_message_comes_back_after_the_visibility_timeout_with_its_receive_count_raised(
    function: LocalFunction, queues: Queues
) -> None:
    failing = queues.send("fail")
    source = _event_source(function, queues)

    first = _poll_until(source, lambda _: True)
    second = _poll_until(source, lambda _: True)

    assert [record["messageId"] for record in second.response["records"]] == [failing]
    assert (_receive_counts(first), _receive_counts(second)) == ([1], [2])


def test_a_message_that_keeps_failing_moves_to_the_dead_letter_queue_after_max_receive_count(
    function: LocalFunction, queues: Queues
) -> None:
    failing = queues.send("fail")
    source = _event_source(function, queues)
    counts_seen: list[int] = []

    deadline = time.monotonic() + 20
    while not queues.dead_letters() and time.monotonic() < deadline:
        invocation = source.poll_once()
        if invocation is None:
            time.sleep(0.05)
        else:
            counts_seen.extend(_receive_counts(invocation))

    [dead_letter] = queues.dead_letters()
    assert dead_letter["MessageId"] == failing
    assert json.loads(dead_letter["Body"]) == {"do": "fail"}
    assert counts_seen == list(range(1, MAX_RECEIVE_COUNT + 1))
    assert queues.depth() == 0


def test_a_function_error_deletes_none_of_the_batch(function: LocalFunction, queues: Queues) -> None:
    queues.send("succeed")
    queues.send("raise")
    source = _event_source(function, queues)

    invocation = _poll_until(source, lambda _: True)

    assert invocation.error is not None
    assert invocation.error["errorType"] == "RuntimeError"
    assert queues.depth() == 2
    assert [error.kind for error in source.recent_errors()] == ["function error"]


def test_a_response_naming_a_message_outside_the_batch_fails_the_whole_batch(
    function: LocalFunction, queues: Queues
) -> None:
    queues.send("succeed")
    queues.send("name-a-stranger")
    source = _event_source(function, queues)

    _poll_until(source, lambda _: True)

    assert queues.depth() == 2
    assert [error.kind for error in source.recent_errors()] == ["invalid batch response"]


def test_without_report_batch_item_failures_a_normal_return_deletes_the_whole_batch(
    function: LocalFunction, queues: Queues
) -> None:
    queues.send("succeed")
    queues.send("fail")
    source = _event_source(function, queues, report_batch_item_failures=False)

    _poll_until(source, lambda _: True)

    assert queues.depth() == 0


def test_an_invocation_over_the_timeout_is_stopped_and_the_next_one_starts_cold(
    function: LocalFunction, queues: Queues
) -> None:
    queues.send("sleep", seconds=30)
    source = _event_source(function, queues)

    timed_out = _poll_until(source, lambda _: True)
    queues.send("succeed")
    after = _poll_until(source, lambda invocation: invocation.error is None)

    assert timed_out.error is not None
    assert timed_out.error["errorType"] == "Sandbox.Timedout"
    assert after.cold_start
    assert after.worker_pid != timed_out.worker_pid


def test_a_worker_killed_mid_message_loses_nothing_and_is_replaced(
    function: LocalFunction, queues: Queues, tmp_path: Path
) -> None:
    started = tmp_path / "started"
    message_id = queues.send("sleep", seconds=2, started=str(started))
    source = _event_source(function, queues)
    outcome: list[Invocation | None] = []
    poller = threading.Thread(target=lambda: outcome.append(source.poll_once()))

    poller.start()
    _wait_for(started.exists)
    [pid] = function.worker_pids()
    os.kill(pid, signal.SIGKILL)
    poller.join()
    redelivered = _poll_until(source, lambda invocation: invocation.error is None)

    [killed] = outcome
    assert killed is not None
    assert killed.error is not None
    assert killed.error["errorType"] == "Runtime.ExitError"
    assert [record["messageId"] for record in redelivered.response["records"]] == [message_id]
    assert redelivered.cold_start
    assert pid not in function.worker_pids()


def test_several_workers_run_batches_at_the_same_time(function: LocalFunction, sqs: Any) -> None:
    # Long enough that no message comes back while cold starts are still going on.
    queues = Queues(sqs, visibility_timeout=60)
    for _ in range(3):
        queues.send("sleep", seconds=1)
    invocations: list[Invocation] = []
    source = _event_source(
        function,
        queues,
        batch_size=1,
        concurrency=3,
        on_invocation=lambda invocation, ids, failed: invocations.append(invocation),
    )

    source.start()
    try:
        deadline = time.monotonic() + 30
        while len(invocations) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        source.stop()

    assert len(invocations) == 3
    assert len({invocation.response["pid"] for invocation in invocations}) > 1


def test_the_event_has_the_shape_lambda_gives_an_sqs_record(sqs: Any, queues: Queues) -> None:
    sqs.send_message(
        QueueUrl=queues.url,
        MessageBody="hello",
        MessageAttributes={"reason": {"DataType": "String", "StringValue": "why"}},
    )
    [message] = sqs.receive_message(
        QueueUrl=queues.url, MessageSystemAttributeNames=["All"], MessageAttributeNames=["All"]
    )["Messages"]

    [record] = build_sqs_event([message], queues.arn, REGION)["Records"]

    assert record["messageId"] == message["MessageId"]
    assert record["receiptHandle"] == message["ReceiptHandle"]
    assert record["body"] == "hello"
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"] == queues.arn
    assert record["awsRegion"] == REGION
    assert record["attributes"]["ApproximateReceiveCount"] == "1"
    assert {"SentTimestamp", "ApproximateFirstReceiveTimestamp", "SenderId"} <= set(record["attributes"])
    assert record["messageAttributes"]["reason"]["stringValue"] == "why"
    assert record["messageAttributes"]["reason"]["dataType"] == "String"
