"""What the queues' errors tell: a queue that is not there is a configuration problem, named with
SQS's code and retried after a minute, not an outage; and the operator's tool names a failure
that carries no message by its kind."""

from __future__ import annotations

import io

import boto3
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from serverless_rps.admin import cli
from serverless_rps.exceptions import ConfigurationProblem, QueueUnavailable, RetryLater
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue


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


class _Unreachable:
    """An SQS client whose every request fails before AWS answers (no network)."""

    def send_message(self, **_: object) -> None:
        raise EndpointConnectionError(endpoint_url="https://sqs.us-east-1.amazonaws.com/")

    def change_message_visibility(self, **_: object) -> None:
        raise EndpointConnectionError(endpoint_url="https://sqs.us-east-1.amazonaws.com/")


def test_a_queue_that_cannot_be_reached_is_an_outage_named_by_what_failed() -> None:
    with pytest.raises(QueueUnavailable) as outage:
        IncomingQueue(_Unreachable(), "https://sqs.us-east-1.amazonaws.com/1/incoming").enqueue({"Body": "x"})
    assert str(outage.value) == "could not enqueue the inbound SMS"
    with pytest.raises(QueueUnavailable) as outage:
        DeadLetterQueue(_Unreachable(), "https://sqs.us-east-1.amazonaws.com/1/dlq").park(
            "{}", "poison", "m-1"
        )
    assert str(outage.value) == "could not park the message on the dead-letter queue"
    with pytest.raises(QueueUnavailable) as outage:
        IncomingQueue(_Unreachable(), "https://sqs.us-east-1.amazonaws.com/1/incoming").redeliver_in(
            "handle", 5
        )
    assert str(outage.value) == "could not shorten the visibility timeout"


def test_a_dead_letter_queue_that_is_not_there_is_a_configuration_problem(aws: None) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    missing = "https://sqs.us-east-1.amazonaws.com/123456789012/no-such-dlq"
    with pytest.raises(ConfigurationProblem) as problem:
        DeadLetterQueue(sqs, missing).park("{}", "poison", "m-1")
    assert str(problem.value) == (
        "could not park the message on the dead-letter queue: SQS says"
        " AWS.SimpleQueueService.NonExistentQueue"
    )


def test_enqueue_returns_the_id_sqs_gave_the_message(aws: None) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="incoming")["QueueUrl"]

    queued = IncomingQueue(sqs, url).enqueue({"MessageSid": "SM" + "1" * 32, "Body": "help"})

    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert queued == message["MessageId"]


def test_a_parked_message_keeps_its_body_its_reason_within_sqss_limit_and_where_it_came_from(
    aws: None,
) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    dead_letters = DeadLetterQueue(sqs, url)

    dead_letters.park("", "r" * 1500, "m-1")
    dead_letters.park("not json", "body is not JSON", "m-2")

    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"])
    parked = {m["MessageAttributes"]["source_message_id"]["StringValue"]: m for m in received["Messages"]}
    assert parked["m-1"]["Body"] == "<empty>", "SQS refuses an empty body"
    assert parked["m-1"]["MessageAttributes"]["reason"]["StringValue"] == "r" * 1000
    assert (parked["m-2"]["Body"], parked["m-2"]["MessageAttributes"]["reason"]["StringValue"]) == (
        "not json",
        "body is not JSON",
    )


def test_shortening_the_wait_on_a_queue_that_is_not_there_is_a_configuration_problem(aws: None) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    missing = "https://sqs.us-east-1.amazonaws.com/123456789012/no-such-queue"
    with pytest.raises(ConfigurationProblem, match=r"SQS says AWS\.SimpleQueueService\.NonExistentQueue"):
        IncomingQueue(sqs, missing).redeliver_in("a-receipt-handle", 5)


class _Refusing:
    """An SQS client that answers every request with one error code; keeps what it was asked."""

    def __init__(self, code: str | None = None) -> None:
        self.code = code
        self.visibility: list[int] = []

    def send_message(self, **_: object) -> None:
        raise ClientError({"Error": {"Code": self.code, "Message": "no"}}, "SendMessage")

    def change_message_visibility(self, VisibilityTimeout: int, **_: object) -> None:  # noqa: N803
        if self.code:
            raise ClientError({"Error": {"Code": self.code, "Message": "no"}}, "ChangeMessageVisibility")
        self.visibility.append(VisibilityTimeout)


@pytest.mark.parametrize(
    "code",
    [
        "AWS.SimpleQueueService.NonExistentQueue",
        "QueueDoesNotExist",
        "AccessDenied",
        "AccessDeniedException",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "KMS.AccessDeniedException",
    ],
)
def test_each_code_for_a_queue_missing_or_refused_to_us_is_a_configuration_problem_retried_in_a_minute(
    code: str,
) -> None:
    """SQS's codes differ between its query and JSON protocols, and KMS speaks for an encrypted queue."""
    with pytest.raises(ConfigurationProblem) as problem:
        IncomingQueue(_Refusing(code), "https://sqs.us-east-1.amazonaws.com/1/incoming").enqueue(
            {"Body": "x"}
        )
    assert str(problem.value) == f"could not enqueue the inbound SMS: SQS says {code}"
    assert problem.value.retry_after == 60


def test_a_throttled_queue_is_an_outage_not_a_configuration_problem() -> None:
    with pytest.raises(QueueUnavailable):
        IncomingQueue(_Refusing("ThrottlingException"), "https://sqs/1/incoming").enqueue({"Body": "x"})


def test_a_redelivery_asked_for_later_than_sqs_allows_comes_after_twelve_hours() -> None:
    """SQS refuses a visibility timeout over 12 hours: a longer wait is asked for as 12 hours."""
    sqs = _Refusing()
    queue = IncomingQueue(sqs, "https://sqs.us-east-1.amazonaws.com/1/incoming")
    queue.redeliver_in("handle", 3 * 24 * 60 * 60)
    queue.redeliver_in("handle", 43_199.5)
    assert sqs.visibility == [43_200, 43_200]
