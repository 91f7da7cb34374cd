"""The reply budget's arithmetic, pure: which replies a phone still gets, and the one notice."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverless_rps import replies
from serverless_rps.game import Decision, Reply
from serverless_rps.reply_budget import BudgetPolicy, ReplyBudget, apply_budget

ALICE, BOB = "+15551110001", "+15552220002"
POLICY = BudgetPolicy(burst=3, per_hour=360)  # drains one reply every 10 seconds


def _decision(*recipients: str) -> Decision:
    return Decision(replies=tuple(Reply(phone, f"reply to {phone}") for phone in recipients))


def test_a_phone_with_nothing_spent_gets_its_reply_and_is_charged_one() -> None:
    decision, spent = apply_budget(_decision(ALICE), {ALICE: None}, 100.0, POLICY)
    assert [reply.to for reply in decision.replies] == [ALICE]
    assert spent[ALICE] == ReplyBudget(level=1.0, updated_at=100.0, notified=False)


def test_the_reply_past_the_burst_becomes_one_notice_then_silence() -> None:
    full = ReplyBudget(level=3.0, updated_at=100.0)
    decision, spent = apply_budget(_decision(ALICE, ALICE), {ALICE: full}, 100.0, POLICY)
    assert [reply.body for reply in decision.replies] == [replies.reply_limit_reached(1)]
    assert spent[ALICE].notified


def test_an_opt_out_confirmation_past_the_burst_is_withheld_never_swapped_for_the_notice() -> None:
    full = ReplyBudget(level=3.0, updated_at=100.0)
    confirmation = Decision(replies=(Reply(ALICE, "unsubscribed", opt_out_confirmation=True),))
    decision, spent = apply_budget(confirmation, {ALICE: full}, 100.0, POLICY)
    assert decision.replies == ()
    assert spent[ALICE] == full  # nothing sent, nothing charged, and no notice owed


def test_a_notified_phone_stays_silent_until_its_bucket_is_empty() -> None:
    notified = ReplyBudget(level=4.0, updated_at=100.0, notified=True)
    decision, _ = apply_budget(_decision(ALICE), {ALICE: notified}, 125.0, POLICY)  # 1.5 left
    assert decision.replies == ()
    decision, spent = apply_budget(_decision(ALICE), {ALICE: notified}, 140.0, POLICY)  # empty
    assert [reply.to for reply in decision.replies] == [ALICE]
    assert spent[ALICE].notified is False  # stored as a DynamoDB BOOL


def test_a_notified_phone_with_less_than_one_reply_left_to_drain_is_still_silent() -> None:
    notified = ReplyBudget(level=4.0, updated_at=100.0, notified=True)
    decision, spent = apply_budget(_decision(ALICE), {ALICE: notified}, 135.0, POLICY)  # 0.5 left
    assert decision.replies == ()
    assert spent[ALICE] == ReplyBudget(level=0.5, updated_at=135.0, notified=True)


def test_the_last_reply_of_the_burst_is_sent() -> None:
    almost_full = ReplyBudget(level=2.0, updated_at=100.0)
    decision, spent = apply_budget(_decision(ALICE), {ALICE: almost_full}, 100.0, POLICY)
    assert [reply.body for reply in decision.replies] == [f"reply to {ALICE}"]
    assert spent[ALICE] == ReplyBudget(level=3.0, updated_at=100.0, notified=False)


def test_the_notice_goes_to_the_full_phone_and_counts_as_one_more_reply() -> None:
    full = ReplyBudget(level=3.0, updated_at=100.0)
    decision, spent = apply_budget(_decision(ALICE), {ALICE: full}, 100.0, POLICY)
    assert decision.replies == (Reply(ALICE, replies.reply_limit_reached(1)),)
    assert spent[ALICE] == ReplyBudget(level=4.0, updated_at=100.0, notified=True)


@pytest.mark.parametrize(
    ("per_hour", "burst", "minutes"),
    [
        (60, 3, 4),  # 4 replies to drain at one a minute
        (3600, 60, 2),  # 61 replies at one a second: 61 s, said as 2 minutes, never rounded down
        (7200, 59, 1),  # 60 replies at two a second: 30 s, said as 1 minute
    ],
)
def test_the_notice_says_how_long_until_the_phone_is_heard_again(
    per_hour: int, burst: int, minutes: int
) -> None:
    policy = BudgetPolicy(burst=burst, per_hour=per_hour)
    full = ReplyBudget(level=float(burst), updated_at=0.0)
    decision, _ = apply_budget(_decision(ALICE), {ALICE: full}, 0.0, policy)
    assert [reply.body for reply in decision.replies] == [replies.reply_limit_reached(minutes)]


def test_each_recipient_pays_for_its_own_replies() -> None:
    bob_full = ReplyBudget(level=3.0, updated_at=0.0, notified=True)
    decision, spent = apply_budget(_decision(ALICE, BOB), {ALICE: None, BOB: bob_full}, 0.0, POLICY)
    assert [reply.to for reply in decision.replies] == [ALICE]
    assert spent[ALICE].level == 1.0
    assert spent[BOB] == bob_full


def test_a_reply_to_a_phone_whose_budget_was_not_read_is_a_bug() -> None:
    with pytest.raises(ValueError, match=r"^a reply to a phone whose budget was not read$"):
        apply_budget(_decision(BOB), {ALICE: None}, 0.0, POLICY)


def test_the_notice_fits_one_segment_for_any_wait() -> None:
    for minutes in (1, 20, 60 * 24 * 365):
        assert replies.is_single_segment(replies.reply_limit_reached(minutes))


@given(st.lists(st.floats(min_value=0, max_value=5), min_size=1, max_size=300))
def test_no_stream_of_texts_gets_more_than_the_bucket_allows(gaps: list[float]) -> None:
    # Whatever the timing, replies sent over a span never exceed burst + drained + the notices.
    policy = BudgetPolicy(burst=5, per_hour=720)  # one reply every 5 seconds
    budget: ReplyBudget | None = None
    now, sent, notices = 0.0, 0, 0
    for gap in gaps:
        now += gap
        decision, spent = apply_budget(_decision(ALICE), {ALICE: budget}, now, policy)
        budget = spent[ALICE]
        sent += sum(1 for reply in decision.replies if not reply.body.startswith("That's a lot"))
        notices += len(decision.replies) - sum(
            1 for reply in decision.replies if not reply.body.startswith("That's a lot")
        )
    assert sent <= policy.burst + now * policy.drain_per_second + 1e-9
    assert notices <= 1 + now * policy.drain_per_second / policy.burst
