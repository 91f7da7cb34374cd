"""How the operator's tool words one reply's fate: Twilio's status and its error code when a
callback said, `accepted` for an SMS or MMS Twilio took, the recorded outcome otherwise."""

from __future__ import annotations

import pytest

from serverless_rps.admin.delivery_display import reply_delivery
from serverless_rps.game_store.delivery_status import DeliveryStatus


@pytest.mark.parametrize(
    ("outcome", "status", "shown"),
    [
        (None, None, "not sent"),
        ("SM" + "1" * 32, DeliveryStatus("SM" + "1" * 32, "undelivered", 30007), "undelivered 30007"),
        ("SM" + "1" * 32, DeliveryStatus("SM" + "1" * 32, "delivered"), "delivered"),
        ("SM" + "1" * 32, None, "accepted"),
        ("MM" + "1" * 32, None, "accepted"),
        ("refused:21211", None, "refused:21211"),
        ("erased", None, "erased"),
    ],
)
def test_each_reply_is_shown_by_the_latest_word_on_it(
    outcome: str | None, status: DeliveryStatus | None, shown: str
) -> None:
    assert reply_delivery(outcome, status) == shown
