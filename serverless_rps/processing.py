"""How one inbound SMS is processed, exactly once in effect: claim, lock, decide, commit, deliver.

1. **Claim** the idempotency record for the inbound SMS id (conditional put, short expiry).
   Already completed -> the outbox resumes it (sends only what was not sent yet), then stop.
2. **Lock** the sender and anyone else the message touches, in ascending phone order, reading
   each record in the request that takes its lease; then the shared records the locked records
   call for, after every phone. What to read and whom to lock is the command's description in
   `commands` (`CommandSpec` lists its phases in order): this module has no branch per command.
   Every message locks its sender: its reply budget is state the commit changes.
3. **Decide** (pure, `game`): new player states, nickname rows, replies; then the reply budget
   (pure, `reply_budget`) keeps the replies each recipient may still receive.
4. **Commit** it all in one transaction: players (fenced on our leases, which the write also
   releases), nicknames, contact records, and the idempotency record turning completed with the
   replies (the outbox), whose sending is leased to this attempt.
5. **Deliver**: the outbox (outbox.py) sends the replies and records each one's fate.

If anything fails before the commit, the `finally` blocks give back the leases and the claim
(best effort: if they cannot run, both simply expire). After the commit, nothing is undone: a
failure leaves the outbox for the redelivery to finish. docs/protocol.md tells the whole story.
"""

from __future__ import annotations

import enum
import functools
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from serverless_rps import game, replies
from serverless_rps.commands import CommandSpec, Facts, spec_for
from serverless_rps.exceptions import LockContended, ReadsKeptChanging, StaleRead
from serverless_rps.game import Reply
from serverless_rps.observability import about, best_effort, count, logger
from serverless_rps.outbox import Outbox, outbox_of
from serverless_rps.parsing import Command, parse
from serverless_rps.ports import Claim, CompletedRecord, GameStore, LockedPlayer
from serverless_rps.reply_budget import BudgetPolicy, ReplyBudget, apply_budget

__all__ = ["InboundSms", "MessageProcessor", "Result"]

# A nickname read without a lock can change hands before the commit; a few fresh attempts settle it.
_STALE_READ_ATTEMPTS = 3
_LOCK_BACKOFF_FIRST_SECONDS = 0.05
_LOCK_BACKOFF_CAP_SECONDS = 0.4
# Jitter from the operating system's generator, which holds no state of ours: under SnapStart every
# execution environment resumes from one snapshot, and a `random` seeded before it would give them
# all the same backoff, the lockstep jitter exists to break.
_ENTROPY = random.SystemRandom()


@dataclass(frozen=True)
class InboundSms:
    """One SMS as Twilio posted it to the webhook, carried on the queue (app.inbound_sms reads it
    from an SQS record)."""

    message_sid: str | None
    sender: str
    recipient: str
    body: str
    transport_id: str
    # What Twilio's Advanced Opt-Out matched, when it is on: STOP, START or HELP (docs/opt-out.md).
    opt_out_type: str | None = None
    # When the webhook put it on the queue (SQS's SentTimestamp), for the reply delay metric.
    enqueued_at: float | None = None

    @property
    def idempotency_key(self) -> str:
        # Twilio may post the same SMS twice (two SQS messages): dedupe on the SMS, not the transport.
        return self.message_sid or f"sqs:{self.transport_id}"

    @functools.cached_property
    def command(self) -> Command:
        """What the text asks for, parsed once however often it is asked (the handler names its
        metric by it; the processor acts on it)."""
        return parse(self.body, self.opt_out_type)


class Result(enum.Enum):
    PROCESSED = "processed"
    DUPLICATE = "duplicate"
    RESENT = "resent"


class MessageProcessor:
    def __init__(
        self,
        store: GameStore,
        outbox: Outbox,
        *,
        limits: game.Limits,
        lock_wait_seconds: float,
        budget: BudgetPolicy = BudgetPolicy(),  # noqa: B008 - frozen, safe to share
        program: replies.Program = replies.Program(),  # noqa: B008 - frozen, safe to share
        clock: Callable[[], float] = lambda: time.time(),
        sleep: Callable[[float], None] = lambda seconds: time.sleep(seconds),
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        jitter: Callable[[], float] = _ENTROPY.random,
    ) -> None:
        self._store = store
        self._outbox = outbox
        self._limits = limits
        self._budget = budget
        self._program = program
        self._lock_wait = lock_wait_seconds
        self._clock = clock
        self._sleep = sleep
        self._new_id = new_id
        self._jitter = jitter

    def process(self, sms: InboundSms) -> Result:
        """Claim, lock, decide, commit, deliver; or, for a message already committed, finish
        sending its replies."""
        spec = spec_for(sms.command)
        with about(type(sms.command).__name__, sms.sender):
            attempt_id = self._new_id()
            claimed = self._store.claim(sms.idempotency_key, attempt_id, self._clock())
            if isinstance(claimed, Claim):
                logger.info("processing")
                record = self._apply(claimed, sms, spec)
                self._outbox.deliver(record, attempt_id, sms.enqueued_at)
                return Result.PROCESSED
            resent = self._outbox.resume(claimed, attempt_id, sms.enqueued_at)
            return Result.RESENT if resent else Result.DUPLICATE

    def _apply(self, claim: Claim, sms: InboundSms, spec: CommandSpec[Any]) -> CompletedRecord:
        """Lock, decide and commit, again from the start when a lock-free read was overtaken;
        the claim is given back if nothing was committed."""
        committed = False
        try:
            for attempt in range(1, _STALE_READ_ATTEMPTS + 1):
                try:
                    record = self._apply_command(claim, sms, spec)
                except StaleRead as stale:
                    if attempt == _STALE_READ_ATTEMPTS:
                        # Contention, not a fault: redeliver soon, as for a contended lock.
                        raise ReadsKeptChanging(str(stale), retry_after=1) from stale
                    logger.info("a lock-free read was overtaken mid-attempt; reading again")
                    continue
                committed = True
                return record
            raise AssertionError("unreachable")
        finally:
            if not committed:
                best_effort("abandon the claim", lambda: self._store.abandon(claim))

    def _apply_command(self, claim: Claim, sms: InboundSms, spec: CommandSpec[Any]) -> CompletedRecord:
        """One walk of the command's phases (`commands.CommandSpec`), in their order."""
        phone, command = sms.sender, sms.command
        looked_up = spec.look_up(command, phone, self._store, self._clock())
        with self._locked(claim, phone, looked_up.lock) as locked:
            players = {held.phone: held.player for held in locked}
            facts = Facts(phone, players, looked_up, self._clock(), self._limits, self._new_id, self._program)
            needs = spec.needs(command, facts)
            self._lock_shared(claim, locked, needs.lock)
            me = facts.me
            facts = replace(
                facts,
                shared={held.phone: held.shared for held in locked if held.shared is not None},
                read_shared=self._store.get_shared(needs.read) if needs.read else {},
                counterparts=self._store.get_players(me.counterpart_phones())
                if needs.counterparts and me
                else {},
            )
            spec.check(command, facts)
            decision = spec.decide(command, facts)
            if spec.erases_sender:
                self._outbox.erase(phone)
            record = self._commit(claim, sms, locked, decision)
            if spec.audit is not None:
                # Once per committed message (a redelivery finds it completed and never gets here).
                logger.info("audit", extra=dict(spec.audit(command)))
            return record

    def _commit(
        self, claim: Claim, sms: InboundSms, locked: Sequence[LockedPlayer], decision: game.Decision
    ) -> CompletedRecord:
        now = self._clock()
        decision, budgets = self._within_budgets(decision, sms.sender, locked, now)
        # The opt-out confirmation's five minutes run from when the text reached us (the webhook
        # queued it), or from now if that is unknown. Replies leave from the number the player texted.
        received = min(sms.enqueued_at, now) if sms.enqueued_at is not None else now
        outbox = outbox_of(decision.replies, sms.recipient, received)
        return self._store.commit(claim, locked, decision, outbox, budgets, now)

    def _within_budgets(
        self, decision: game.Decision, sender: str, locked: Sequence[LockedPlayer], now: float
    ) -> tuple[game.Decision, dict[str, ReplyBudget]]:
        """The decision with the opt-in confirmation a new phone's first reply needs, and only the
        replies each recipient's budget allows (charged in this commit, so only once)."""
        if not next(held.opted_in for held in locked if held.phone == sender):
            decision = game.with_opt_in_confirmation(decision, sender, self._program)
        wanted = decision.replies
        decision, budgets = apply_budget(
            decision, {held.phone: held.budget for held in locked}, now, self._budget
        )
        # Replies the budget held back (dropped, or replaced by the one notice).
        count("BudgetHits", len(wanted) - sum(1 for reply in decision.replies if reply in wanted))
        if any(reply.opt_out_confirmation for reply in wanted) and not any(
            reply.opt_out_confirmation for reply in decision.replies
        ):
            logger.warning("opt-out confirmation withheld by the reply budget")
        # An opt-in confirmation the budget held back was not sent: the marker waits for one that is.
        confirmation = replies.opt_in_confirmation(self._program)
        opt_in = {
            phone: opted_in
            for phone, opted_in in decision.opt_in.items()
            if not opted_in or Reply(phone, confirmation) in decision.replies
        }
        return replace(decision, opt_in=opt_in), budgets

    @staticmethod
    def _lock_order(phones: Sequence[str]) -> list[str]:
        """Ascending phone order, whoever sent the message.

        One canonical order means two players throwing at each other contend on the same first
        lock, so one proceeds and the other waits, instead of each holding one and failing both.
        """
        return sorted(set(phones))

    @contextmanager
    def _locked(self, claim: Claim, sender: str, others: Sequence[str] = ()) -> Iterator[list[LockedPlayer]]:
        """Lease the sender and the players `others` in `_lock_order`; give back what the commit
        did not release. Only the sender's phone may be locked without a player record."""
        held: list[LockedPlayer] = []
        committed = False
        try:
            for phone in self._lock_order([sender, *others]):
                held.append(self._lock_with_backoff(phone, claim.attempt_id, player_only=phone != sender))
            yield held
            committed = True
        finally:
            if not committed:
                for locked in reversed(held):
                    best_effort("release a lock", functools.partial(self._store.release, locked))

    def _lock_shared(self, claim: Claim, held: list[LockedPlayer], keys: Sequence[str]) -> None:
        """Lock shared records after the players `held` (the list `_locked` gives back on failure).
        Their keys sort after every phone, so this is still the one ascending order."""
        for key in sorted(set(keys)):
            if any(key <= locked.phone for locked in held):
                raise AssertionError(f"{key!r} would be locked out of the canonical order")
            held.append(self._lock_with_backoff(key, claim.attempt_id, player_only=False))

    def _lock_with_backoff(self, phone: str, lock_id: str, *, player_only: bool) -> LockedPlayer:
        deadline = self._clock() + self._lock_wait
        delay = _LOCK_BACKOFF_FIRST_SECONDS
        while True:
            try:
                return self._store.lock(phone, lock_id, self._clock(), player_only=player_only)
            except LockContended:
                count("LockContention")
                # Full jitter: concurrent waiters spread out instead of retrying in step.
                pause = delay * self._jitter()
                if self._clock() + pause >= deadline:
                    raise
                self._sleep(pause)
                delay = min(delay * 2, _LOCK_BACKOFF_CAP_SECONDS)
