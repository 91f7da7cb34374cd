"""Which of a decision's replies go out (outgoing.py), pure: the opt-in confirmation first, none to
a number not served, only an opt-out's confirmation past the daily ceiling, then the budget."""

from __future__ import annotations

from typing import Any

from serverless_rps import language, replies
from serverless_rps.catalogue import english
from serverless_rps.countries import ServedCountries
from serverless_rps.game import Decision, Reply
from serverless_rps.outgoing import Outgoing, outgoing
from serverless_rps.reply_budget import BudgetPolicy, ReplyBudget

ALICE, BOB, BRIT = "+15551110001", "+15552220002", "+447700900123"
PROGRAM = replies.Program()
CONFIRMATION = Reply(ALICE, replies.opt_out_confirmation(PROGRAM), opt_out_confirmation=True)


def _out(decision: Decision, **given: Any) -> Outgoing:
    options: dict[str, Any] = {
        "sender_opted_in": True,
        "budgets": {ALICE: None, BOB: None, BRIT: None},
        "now": 100.0,
        "countries": ServedCountries(),
        "past_ceiling": False,
        "policy": BudgetPolicy(),
        "program": PROGRAM,
        "spoken": language.Spoken(None, None, english),
    }
    return outgoing(decision, ALICE, **{**options, **given})


def test_a_new_phone_gets_the_opt_in_confirmation_first_and_its_marker_with_it() -> None:
    out = _out(Decision(replies=(Reply(ALICE, "score"),)), sender_opted_in=False)

    assert [reply.body for reply in out.decision.replies] == [replies.opt_in_confirmation(PROGRAM), "score"]
    assert out.decision.opt_in == {ALICE: True}


def test_no_reply_goes_to_a_number_not_served_and_none_is_charged_to_it() -> None:
    out = _out(Decision(replies=(Reply(ALICE, "waiting"), Reply(BRIT, "challenged"))))

    assert out.decision.replies == (Reply(ALICE, "waiting"),)
    assert (out.not_served, out.past_ceiling, out.budget_hits) == (1, 0, 0)
    assert BRIT not in out.budgets


def test_past_the_ceiling_only_the_opt_out_confirmation_goes() -> None:
    goodbye = Reply(BOB, replies.opponent_left("alice"))
    out = _out(Decision(replies=(CONFIRMATION, goodbye), opt_in={ALICE: False}), past_ceiling=True)

    assert out.decision.replies == (CONFIRMATION,)
    assert out.past_ceiling == 1
    assert out.decision.opt_in == {ALICE: False}, "an opt-out's marker goes whatever is sent"


def test_an_opt_in_confirmation_that_does_not_go_leaves_the_marker_unset() -> None:
    full = ReplyBudget(level=60.0, updated_at=100.0, notified=True)
    out = _out(Decision(replies=(Reply(ALICE, "score"),)), sender_opted_in=False, budgets={ALICE: full})

    assert out.decision.replies == ()
    assert out.decision.opt_in == {}, "the next reply that goes carries the confirmation"
    assert out.budget_hits == 2


def test_a_confirmation_the_budget_holds_back_is_reported() -> None:
    full = ReplyBudget(level=60.0, updated_at=100.0)
    out = _out(Decision(replies=(CONFIRMATION,), opt_in={ALICE: False}), budgets={ALICE: full})

    assert out.decision.replies == ()
    assert out.confirmation_withheld
