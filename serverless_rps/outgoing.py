"""Which of a decision's replies go out, and what they cost each recipient's reply budget. Pure:
standard library and the game's pure modules only.

In this order, for the message's one commit:

1. the sender's record takes the message's language (language.py), and a phone never answered
   before (or not since it opted out) gets the opt-in confirmation first, in that language;
2. no reply goes to a number outside the countries served (countries.py);
3. past the daily SMS ceiling (sms_ceiling.py; only an opt-out is played then), only an opt-out's
   confirmation goes: its goodbyes do not;
4. each recipient's reply budget (reply_budget.py) keeps what it still allows, and is charged;
5. an opt-in confirmation the steps above held back was not sent: its marker waits for one that is.

What was held back at each step is counted, for the processor's logs and metrics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from serverless_rps import game, language, replies
from serverless_rps.countries import ServedCountries
from serverless_rps.game import Decision, Reply
from serverless_rps.reply_budget import BudgetPolicy, ReplyBudget, apply_budget

__all__ = ["Outgoing", "outgoing"]


@dataclass(frozen=True)
class Outgoing:
    """The decision with only the replies that go out, the budgets after them, and how many replies
    each step held back."""

    decision: Decision
    budgets: dict[str, ReplyBudget]
    not_served: int = 0  # to numbers outside the countries served
    past_ceiling: int = 0  # an opt-out's goodbyes, past the daily SMS ceiling
    budget_hits: int = 0  # dropped by the reply budget, or replaced by its one notice
    confirmation_withheld: bool = False  # an opt-out's confirmation, by the reply budget


def outgoing(
    decision: Decision,
    sender: str,
    *,
    sender_opted_in: bool,
    budgets: Mapping[str, ReplyBudget | None],
    now: float,
    countries: ServedCountries,
    past_ceiling: bool,
    policy: BudgetPolicy,
    program: replies.Program,
    spoken: language.Spoken,
) -> Outgoing:
    """`budgets`: every locked phone's, as stored (None: nothing spent yet); `spoken`: the message's
    languages, in which the replies the steps add are written (the opt-in confirmation, the
    budget's notice)."""
    decision = language.recorded(decision, sender, spoken.before, spoken.stored)
    say = spoken.say
    if not sender_opted_in:
        decision = game.with_opt_in_confirmation(decision, sender, program, say)
    proposed = decision.replies
    served = tuple(reply for reply in proposed if countries.serves(reply.to))
    sendable = tuple(reply for reply in served if reply.opt_out_confirmation or not past_ceiling)
    decision, spent = apply_budget(replace(decision, replies=sendable), budgets, now, policy, say)
    kept = decision.replies
    opt_in = {
        phone: opted_in
        for phone, opted_in in decision.opt_in.items()
        if not opted_in or Reply(phone, say(phone).opt_in_confirmation(program)) in kept
    }
    return Outgoing(
        replace(decision, opt_in=opt_in),
        spent,
        not_served=len(proposed) - len(served),
        past_ceiling=len(served) - len(sendable),
        budget_hits=len(sendable) - sum(1 for reply in kept if reply in sendable),
        confirmation_withheld=any(reply.opt_out_confirmation for reply in sendable)
        and not any(reply.opt_out_confirmation for reply in kept),
    )
