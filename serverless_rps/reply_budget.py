"""The reply budget: how many SMS one phone may receive from the bot. Pure: standard library only.

Every SMS costs money, and a phone can make the bot send in two ways: by texting it (each text
earns a reply) and by naming someone else (each challenge texts the challenged player). So the
budget belongs to the phone that *receives*, and every reply to it spends from it, whoever caused
it. It is a leaky bucket: each reply adds one to `level`, which drains at `per_hour`; a reply that
would take the level past `burst` is not sent. The first reply refused that way is replaced by one
short notice; then silence until the bucket has drained empty (a bucket that reopened after one
drained reply would alternate a reply and a notice, doubling what a flood costs).

The numbers (template.yaml's ReplyBudgetBurst / ReplyBudgetPerHour) come from two targets:

* a flood of texts earns ``burst`` replies and one notice, then nothing until the bucket is empty,
  ``(burst + 1) / per_hour`` later: 61 SMS in the first 20 minutes with the defaults, under the 100
  in 10 minutes we allow one phone to cost, or to make us send to another phone;
* an honest fast game, a round a minute, sends each player 2 SMS a minute (their throw's
  acknowledgement or the challenge, then the result): 120 an hour, under the 180 the bucket drains,
  so honest play never meets the budget, however long it lasts.

The budget is state like any other: it is read with the lock, changed in the decision and written
in the same commit as the rest of the message's effect, so a message is charged exactly once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from serverless_rps.catalogue import Say, english
from serverless_rps.game import Decision, Reply

__all__ = ["BudgetPolicy", "ReplyBudget", "apply_budget"]


@dataclass(frozen=True)
class BudgetPolicy:
    burst: int = 60
    per_hour: int = 180

    @property
    def drain_per_second(self) -> float:
        return self.per_hour / 3600.0


@dataclass(frozen=True)
class ReplyBudget:
    """One phone's bucket as stored: its level at `updated_at`, and whether it was told it is full."""

    level: float = 0.0
    updated_at: float = 0.0
    notified: bool = False

    def drained(self, now: float, policy: BudgetPolicy) -> ReplyBudget:
        elapsed = max(0.0, now - self.updated_at)
        return replace(self, level=max(0.0, self.level - elapsed * policy.drain_per_second), updated_at=now)

    def seconds_until_empty(self, policy: BudgetPolicy) -> float:
        return self.level / policy.drain_per_second


def apply_budget(
    decision: Decision,
    budgets: Mapping[str, ReplyBudget | None],
    now: float,
    policy: BudgetPolicy,
    say: Say = english,
) -> tuple[Decision, dict[str, ReplyBudget]]:
    """The decision with the replies the budget allows, and each recipient's budget after them.

    `budgets` has an entry for every phone the decision may reply to (None: nothing spent yet);
    `say` writes the notice in its reader's language, as every other reply.
    """
    spent: dict[str, ReplyBudget] = {}
    allowed: list[Reply] = []
    for reply in decision.replies:
        if reply.to not in budgets:
            raise ValueError("a reply to a phone whose budget was not read")
        bucket = spent.get(reply.to) or (budgets[reply.to] or ReplyBudget(updated_at=now))
        bucket = bucket.drained(now, policy)
        if bucket.notified and bucket.level <= 0.0:
            bucket = replace(bucket, notified=False)  # drained empty: the phone is heard again
        if not bucket.notified and bucket.level + 1 <= policy.burst:
            allowed.append(reply)
            spent[reply.to] = replace(bucket, level=bucket.level + 1)
        elif reply.opt_out_confirmation:
            # After an opt-out only the confirmation may be sent, never the notice: withheld.
            spent[reply.to] = bucket
        elif not bucket.notified:
            full = replace(bucket, level=bucket.level + 1, notified=True)
            minutes = max(1, math.ceil(full.seconds_until_empty(policy) / 60))
            allowed.append(Reply(reply.to, say(reply.to).reply_limit_reached(minutes)))
            spent[reply.to] = full
        else:
            spent[reply.to] = bucket
    return replace(decision, replies=tuple(allowed)), spent
