"""The SQS adapter: putting messages on the incoming queue, asking for a quick redelivery, and
parking poison messages on the dead-letter queue with the reason they could not be processed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from serverless_rps.exceptions import ConfigurationProblem, QueueUnavailable

# A queue that does not exist or that we may not use: an operator must act.
_CONFIGURATION_ERROR_CODES = frozenset(
    {
        "AWS.SimpleQueueService.NonExistentQueue",
        "QueueDoesNotExist",
        "AccessDenied",
        "AccessDeniedException",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "KMS.AccessDeniedException",
    }
)


def _unavailable(message: str, exc: BotoCoreError | ClientError) -> Exception:
    code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else ""
    if code in _CONFIGURATION_ERROR_CODES:
        return ConfigurationProblem(f"{message}: SQS says {code}", retry_after=60)
    return QueueUnavailable(message)


__all__ = ["DeadLetterQueue", "IncomingQueue"]

# SQS caps a message's visibility timeout at 12 hours, and a message's delay at 15 minutes.
_MAX_VISIBILITY_SECONDS = 12 * 60 * 60
_MAX_DELAY_SECONDS = 15 * 60


class IncomingQueue:
    """The queue between the webhook and the game function."""

    def __init__(self, sqs_client: Any, queue_url: str) -> None:
        self._sqs = sqs_client
        self._queue_url = queue_url

    def enqueue(self, inbound_sms: Mapping[str, str]) -> str:
        """Put one inbound SMS (Twilio's parameter names) on the queue; returns the SQS message id."""
        try:
            response = self._sqs.send_message(
                QueueUrl=self._queue_url, MessageBody=json.dumps(dict(inbound_sms), sort_keys=True)
            )
        except (BotoCoreError, ClientError) as exc:
            raise _unavailable("could not enqueue the inbound SMS", exc) from exc
        return str(response["MessageId"])

    def postpone(self, body: str, *, delay_seconds: float, received_at: float | None) -> str:
        """Put a copy of a message that keeps failing for now back on the queue, as a new message
        (its receive count starts again), visible after `delay_seconds` (SQS allows 15 minutes).
        `received_at`, when the SMS first reached the queue (epoch seconds), travels with it as
        the ReceivedAt attribute (milliseconds). Returns the copy's message id."""
        attributes: dict[str, Any] = {}
        if received_at is not None:
            attributes["ReceivedAt"] = {"DataType": "Number", "StringValue": str(int(received_at * 1000))}
        try:
            response = self._sqs.send_message(
                QueueUrl=self._queue_url,
                MessageBody=body,
                DelaySeconds=max(0, min(int(delay_seconds + 0.999), _MAX_DELAY_SECONDS)),
                MessageAttributes=attributes,
            )
        except (BotoCoreError, ClientError) as exc:
            raise _unavailable("could not send the message back to the queue", exc) from exc
        return str(response["MessageId"])

    def redeliver_in(self, receipt_handle: str, seconds: float) -> None:
        """Make a message that failed visible again after `seconds` instead of the full timeout."""
        delay = max(0, min(int(seconds + 0.999), _MAX_VISIBILITY_SECONDS))
        try:
            self._sqs.change_message_visibility(
                QueueUrl=self._queue_url, ReceiptHandle=receipt_handle, VisibilityTimeout=delay
            )
        except (BotoCoreError, ClientError) as exc:
            raise _unavailable("could not shorten the visibility timeout", exc) from exc


class DeadLetterQueue:
    """Where messages that can never succeed are kept, with the reason, for an operator."""

    def __init__(self, sqs_client: Any, queue_url: str) -> None:
        self._sqs = sqs_client
        self._queue_url = queue_url

    def park(self, original_body: str, reason: str, source_message_id: str) -> None:
        try:
            self._sqs.send_message(
                QueueUrl=self._queue_url,
                MessageBody=original_body if original_body else "<empty>",
                MessageAttributes={
                    "reason": {"DataType": "String", "StringValue": reason[:1000]},
                    "source_message_id": {"DataType": "String", "StringValue": source_message_id},
                },
            )
        except (BotoCoreError, ClientError) as exc:
            raise _unavailable("could not park the message on the dead-letter queue", exc) from exc
