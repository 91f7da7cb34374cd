"""What the queues' errors tell: a queue that is not there is a configuration problem, named with
SQS's code and retried after a minute, not an outage; and the operator's tool names a failure
that carries no message by its kind."""

from __future__ import annotations

import io

import boto3
import pytest

from serverless_rps.admin import cli
from serverless_rps.exceptions import ConfigurationProblem, QueueUnavailable, RetryLater
from serverless_rps.message_queue import IncomingQueue


def test_a_queue_that_is_not_there_is_a_configuration_problem_named_with_sqss_code(aws: None) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    missing = "https://sqs.us-east-1.amazonaws.com/123456789012/no-such-queue"

    with pytest.raises(ConfigurationProblem) as problem:
        IncomingQueue(sqs, missing).enqueue({"MessageSid": "SM" + "1" * 32, "Body": "help"})

    assert not isinstance(problem.value, QueueUnavailable)
    assert "SQS says AWS.SimpleQueueService.NonExistentQueue" in str(problem.value)
    assert problem.value.retry_after == 60


def test_a_failure_without_a_message_is_named_by_its_kind(capsys: pytest.CaptureFixture[str]) -> None:
    def connect(_: object) -> object:
        raise RetryLater("")

    assert cli.main(["status"], connect=connect, out=io.StringIO()) == 1  # type: ignore[arg-type]
    assert capsys.readouterr().err == "error: RetryLater\n"
