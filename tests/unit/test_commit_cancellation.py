"""How a cancelled commit is read: DynamoDB says, per item of the transaction, why it cancelled.

The store names each item's part in the commit (a lock, a nickname, the claim) and turns the first
failed condition into the error the processor acts on: a lost lock or claim means retry the
message later; a nickname that moved means read again now; throttling and conflicts mean retry
soon. The messages are what the retry's log line says.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from serverless_rps.exceptions import ClaimLost, LockLost, StaleRead, StoreUnavailable
from serverless_rps.game_store.errors import raise_for_cancellation

KINDS = ["lock", "lock", "nickname", "claim"]


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
    with pytest.raises(error) as raised:
        raise_for_cancellation(cancellation, KINDS)
    assert type(raised.value) is error
    assert str(raised.value) == message
    assert getattr(raised.value, "retry_after", None) == retry_after
    assert raised.value.__cause__ is cancellation


def test_more_reasons_than_named_items_are_not_misread() -> None:
    # Only items the store named can fail their condition in a way it understands.
    extra: Any = _cancelled("None", "None", "None", "None", CCF)
    with pytest.raises(
        StoreUnavailable, match=r"cancelled: \['None', 'None', 'None', 'None', 'ConditionalCheckFailed'\]"
    ):
        raise_for_cancellation(extra, KINDS)
