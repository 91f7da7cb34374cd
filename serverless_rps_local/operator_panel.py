"""What an operator would look at: queue depth, dead-letter messages, locks held, recent errors."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["OperatorPanel"]

_DEAD_LETTERS_SHOWN = 10


@dataclass
class OperatorPanel:
    sqs: Any
    dynamodb: Any
    incoming_queue_url: str
    dead_letter_queue_url: str
    game_state_table: str
    player_key: str
    recent_errors: Callable[[], list[dict[str, Any]]]

    def snapshot(self) -> dict[str, Any]:
        return {
            "queue": self._depth(self.incoming_queue_url),
            "dead_letters": {
                **self._depth(self.dead_letter_queue_url),
                "messages": self._peek_dead_letters(),
            },
            "locks": self._locks(),
            "errors": self.recent_errors(),
        }

    def _depth(self, queue_url: str) -> dict[str, int]:
        attributes = self.sqs.get_queue_attributes(
            QueueUrl=queue_url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return {
            "visible": int(attributes.get("ApproximateNumberOfMessages", 0)),
            "in_flight": int(attributes.get("ApproximateNumberOfMessagesNotVisible", 0)),
        }

    def _peek_dead_letters(self) -> list[dict[str, Any]]:
        # VisibilityTimeout=0 leaves them where they are: nothing consumes the dead-letter queue.
        messages = self.sqs.receive_message(
            QueueUrl=self.dead_letter_queue_url,
            MaxNumberOfMessages=_DEAD_LETTERS_SHOWN,
            VisibilityTimeout=0,
            MessageAttributeNames=["All"],
            MessageSystemAttributeNames=["SentTimestamp"],
        ).get("Messages", [])
        return [
            {
                "message_id": message["MessageId"],
                "body": message["Body"][:300],
                "reason": message.get("MessageAttributes", {}).get("reason", {}).get("StringValue")
                or "moved here by the redrive policy (maxReceiveCount)",
                "sent_at": int(message.get("Attributes", {}).get("SentTimestamp", 0)) / 1000,
            }
            for message in messages
        ]

    def _locks(self) -> list[dict[str, Any]]:
        now = time.time()
        locks = []
        pages = self.dynamodb.get_paginator("scan").paginate(
            TableName=self.game_state_table,
            FilterExpression="attribute_exists(user_locked)",
            ProjectionExpression="#key, user_locked",
            ExpressionAttributeNames={"#key": self.player_key},
        )
        for page in pages:
            for item in page["Items"]:
                lock = item["user_locked"].get("M", {})
                expires = float(lock.get("expiration_epoch_timestamp", {}).get("N", 0))
                locks.append(
                    {
                        "player": item[self.player_key].get("S", "?"),
                        "lock_id": lock.get("lock_uuid", {}).get("S", "?"),
                        "expires_at": expires,
                        "expired": expires <= now,
                    }
                )
        return locks
