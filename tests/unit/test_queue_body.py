"""What the game function accepts from the queue (`app.inbound_sms`), and the reason it parks
anything else.

The reason is what an operator reads on the dead letter (`reason` attribute), so it is pinned.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from serverless_rps.app import inbound_sms
from serverless_rps.exceptions import PoisonMessage
from serverless_rps.processing import InboundSms

ALICE, BOT = "+15551110001", "+15550000000"
SID = "SM" + "a" * 32


def _body(**fields: Any) -> str:
    return json.dumps({"MessageSid": SID, "From": ALICE, "To": BOT, "Body": "help", **fields})


def _record(body: str, **attributes: str) -> dict[str, Any]:
    """An SQS record as Lambda delivers it, with the fields the game function reads."""
    return {"messageId": "sqs-1", "receiptHandle": "", "body": body, "attributes": attributes}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("this is not json", "body is not JSON"),
        ('["From", "To"]', "body is not a JSON object"),
        (json.dumps({"To": BOT, "Body": "help"}), "From is missing or not a string"),
        (_body(To=15550000000), "To is missing or not a string"),
        (_body(Body=None), "Body is missing or not a string"),
        (_body(From="  "), "From or To is empty"),
        (_body(To=""), "From or To is empty"),
        (_body(MessageSid=12), "MessageSid is not a non-empty string"),
        (_body(MessageSid=" "), "MessageSid is not a non-empty string"),
    ],
    ids=[
        "not-json",
        "a-list",
        "no-from",
        "number-to",
        "null-body",
        "blank-from",
        "empty-to",
        "number-sid",
        "blank-sid",
    ],
)
def test_a_body_no_retry_could_process_is_poison_with_its_reason(body: str, reason: str) -> None:
    with pytest.raises(PoisonMessage) as poison:
        inbound_sms(_record(body))
    assert str(poison.value) == reason


def test_a_good_body_is_read_with_its_addresses_trimmed_and_its_text_untouched() -> None:
    sms = inbound_sms(_record(_body(From=f" {ALICE} ", To=f"{BOT}\n", Body="  Rock Bob ")))
    assert sms == InboundSms(SID, ALICE, BOT, "  Rock Bob ", "sqs-1", None)
    assert sms.idempotency_key == SID


@pytest.mark.parametrize(("given", "read"), [(" stop ", "STOP"), ("Start", "START"), ("  ", None), (7, None)])
def test_twilios_opt_out_verdict_is_read_in_capitals_or_not_at_all(given: Any, read: str | None) -> None:
    assert inbound_sms(_record(_body(OptOutType=given))).opt_out_type == read


def test_a_message_without_a_sid_is_deduplicated_by_its_queue_message() -> None:
    fields = json.loads(_body())
    del fields["MessageSid"]
    sms = inbound_sms(_record(json.dumps(fields)))
    assert sms.message_sid is None
    assert sms.idempotency_key == "sqs:sqs-1"


def test_a_record_says_when_it_was_queued_in_milliseconds_or_not_at_all() -> None:
    assert inbound_sms(_record(_body(), SentTimestamp="1700000000250")).enqueued_at == 1_700_000_000.25
    assert inbound_sms(_record(_body(), SentTimestamp="soon")).enqueued_at is None
    assert inbound_sms(_record(_body())).enqueued_at is None


def test_a_record_without_a_body_is_poison() -> None:
    with pytest.raises(PoisonMessage, match="body is not JSON"):
        inbound_sms({"messageId": "sqs-1", "attributes": {}})
