"""How a cancelled commit is read: DynamoDB says, per item of the transaction, why it cancelled.

Each item of the commit carries what a refused condition on it means (a lease lost, a nickname
moved, the claim lost; a contact record has no condition), and the first refused item decides the
error the processor acts on: a lost lock or claim means retry the
message later; a nickname that moved means read again now; throttling and conflicts mean retry
soon. The messages are what the retry's log line says.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from serverless_rps.exceptions import ClaimLost, LockLost, StaleRead, StoreUnavailable
from serverless_rps.game_store.errors import cancellation_error
from serverless_rps.game_store.game_state import lease_lost
from serverless_rps.game_store.messages import claim_lost
from serverless_rps.game_store.nicknames import nickname_moved
from serverless_rps.game_store.tables import TransactItem

# A commit's items in their order: two locked rows, a nickname, the completed claim.
ITEMS = [
    TransactItem({}, lease_lost),
    TransactItem({}, lease_lost),
    TransactItem({}, nickname_moved),
    TransactItem({}, claim_lost),
]


def _cancelled(*codes: str | None) -> ClientError:
    reasons = [{"Code": code} if code is not None else {} for code in codes]
    return ClientError(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
            "CancellationReasons": reasons,
        },
        "TransactWriteItems",
    )


CCF = "ConditionalCheckFailed"


@pytest.mark.parametrize(
    ("codes", "error", "message", "retry_after"),
    [
        (
            ("None", CCF, "None", "None"),
            LockLost,
            "a lock lease expired or was taken over before the commit",
            None,
        ),
        (("None", "None", CCF, "None"), StaleRead, "a nickname changed hands after it was read", None),
        (("None", "None", "None", CCF), ClaimLost, "the claim was taken over before the commit", None),
        # The first failed condition decides.
        (("None", "None", CCF, CCF), StaleRead, "a nickname changed hands after it was read", None),
        (("ThrottlingError", "None", "None", "None"), StoreUnavailable, "the commit was throttled", 1),
        (("None", "ProvisionedThroughputExceeded"), StoreUnavailable, "the commit was throttled", 1),
        (
            ("TransactionConflict", "None", "None", "None"),
            StoreUnavailable,
            "the commit was cancelled: ['TransactionConflict', 'None', 'None', 'None']",
            0.5,
        ),
        # A reason without a code reads as "None", as DynamoDB writes it for items that were fine.
        (
            ("TransactionConflict", None),
            StoreUnavailable,
            "the commit was cancelled: ['TransactionConflict', 'None']",
            0.5,
        ),
        ((), StoreUnavailable, "the commit was cancelled: []", 0.5),
    ],
    ids=[
        "lock",
        "nickname",
        "claim",
        "first-wins",
        "throttled",
        "over-capacity",
        "conflict",
        "no-code",
        "no-reasons",
    ],
)
def test_a_cancelled_commit_becomes_the_error_the_processor_acts_on(
    codes: tuple[str | None, ...], error: type[Exception], message: str, retry_after: float | None
) -> None:
    cancellation = _cancelled(*codes)
    meaning = cancellation_error(cancellation, ITEMS)
    assert type(meaning) is error
    assert str(meaning) == message
    assert getattr(meaning, "retry_after", None) == retry_after


def test_more_reasons_than_named_items_are_not_misread() -> None:
    # Only items the store named can fail their condition in a way it understands.
    extra: Any = _cancelled("None", "None", "None", "None", CCF)
    meaning = cancellation_error(extra, ITEMS)
    assert isinstance(meaning, StoreUnavailable)
    assert str(meaning) == f"the commit was cancelled: ['None', 'None', 'None', 'None', '{CCF}']"


def test_a_refusal_on_an_item_without_a_condition_is_not_read_as_a_lost_claim() -> None:
    # A contact record's item has no condition: DynamoDB cannot refuse one, and nothing is made of it.
    items = [TransactItem({}, lease_lost), TransactItem({}, None), TransactItem({}, claim_lost)]
    meaning = cancellation_error(_cancelled("None", CCF, "None"), items)
    assert isinstance(meaning, StoreUnavailable)
    assert str(meaning) == "the commit was cancelled: ['None', 'ConditionalCheckFailed', 'None']"
