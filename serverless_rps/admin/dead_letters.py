"""The dead-letter queue as the operator's tool sees it: `dlq list` and `dlq redrive`.

A listing receives every message on the queue, each once, and shows them again at once; a redrive
puts each message's body back on the incoming queue before deleting it, so that an interruption
leaves a copy in both queues (the game knows a copy by its MessageSid), never in neither.
`operations.Operator` delegates its `dead_letters` and `redrive` here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from serverless_rps.admin.errors import Refused
from serverless_rps.config import GameSettings
from serverless_rps.observability import mask_phone

__all__ = ["DeadLetterReview"]

# SQS returns at most 10 messages per receive; the dead-letter listing hides each message it has
# seen for this long, so that one listing sees each message once, and then shows them again.
_LISTING_VISIBILITY_SECONDS = 30


@dataclass
class DeadLetterReview:
    settings: GameSettings
    sqs: Any
    clock: Callable[[], float] = field(default=time.time)

    def dead_letters(self) -> list[dict[str, Any]]:
        now = self.clock()
        listed = []
        received = self._receive_all(self.settings.dead_letter_queue_url)
        self._show_again(self.settings.dead_letter_queue_url, received)
        for message in received:
            attributes = message.get("Attributes", {})
            custom = message.get("MessageAttributes", {})
            body = message.get("Body", "")
            try:
                fields = json.loads(body)
            except ValueError:
                fields = {}
            fields = fields if isinstance(fields, dict) else {}
            reason = custom.get("reason", {}).get("StringValue")
            sender = fields.get("From")
            listed.append(
                {
                    "id": message["MessageId"],
                    "reason": reason or "failed every receive allowed (the queue's redrive policy)",
                    "message_sid": fields.get("MessageSid"),
                    "from": mask_phone(sender) if isinstance(sender, str) else None,
                    "age_seconds": round(now - int(attributes.get("SentTimestamp", now * 1000)) / 1000),
                    "receive_count": int(attributes.get("ApproximateReceiveCount", 0)),
                }
            )
        return listed

    def redrive(self, ids: Iterable[str] | None) -> list[dict[str, Any]]:
        """Back to the incoming queue, body unchanged (so a message already processed is known by
        its MessageSid). Each is sent before it is deleted: an interruption leaves a copy in both
        queues, never in neither, and the game recognises the copy."""
        wanted = None if ids is None else set(ids)
        moved = []
        received = self._receive_all(self.settings.dead_letter_queue_url)
        missing = (wanted or set()) - {message["MessageId"] for message in received}
        if missing:
            # A mistyped ID moves nothing: the operator sees the whole list before anything moves.
            self._show_again(self.settings.dead_letter_queue_url, received)
            raise Refused(
                f"not on the dead-letter queue: {', '.join(sorted(missing))}; nothing moved "
                "(`dlq list` shows the IDs)"
            )
        self._show_again(
            self.settings.dead_letter_queue_url,
            [message for message in received if wanted is not None and message["MessageId"] not in wanted],
        )
        for message in received:
            if wanted is not None and message["MessageId"] not in wanted:
                continue
            sent = self.sqs.send_message(
                QueueUrl=self.settings.incoming_queue_url, MessageBody=message["Body"]
            )
            self.sqs.delete_message(
                QueueUrl=self.settings.dead_letter_queue_url, ReceiptHandle=message["ReceiptHandle"]
            )
            moved.append({"id": message["MessageId"], "new_id": sent["MessageId"]})
        return moved

    def _receive_all(self, url: str) -> list[dict[str, Any]]:
        """Every message now on a queue, each once; shown again to other readers afterwards."""
        seen: dict[str, dict[str, Any]] = {}
        while True:
            batch = self.sqs.receive_message(
                QueueUrl=url,
                MaxNumberOfMessages=10,
                VisibilityTimeout=_LISTING_VISIBILITY_SECONDS,
                WaitTimeSeconds=0,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
            if not batch:
                break
            for message in batch:
                seen.setdefault(message["MessageId"], message)
        return list(seen.values())

    def _show_again(self, url: str, messages: Iterable[dict[str, Any]]) -> None:
        for message in messages:
            self.sqs.change_message_visibility(
                QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
            )
