"""How one inbound SMS is processed, exactly once in effect. The protocol, step by step:

1. **Claim** the idempotency record for the inbound SMS id (conditional put, short expiry).
   Already completed -> only send the replies that were not sent yet, then stop.
2. **Read** what needs no lock (nickname lookups), then **lock** the sender and anyone else the
   message touches, in ascending phone order (what to read and whom to lock is the command's
   description in `commands`: this module has no branch per command), reading each record in
   the request that takes its lease. Every message locks its sender: its reply budget is state
   the commit changes.
3. **Decide** (pure, `game`): new player states, nickname rows, replies; then the reply budget
   (pure, `reply_budget`) keeps the replies each recipient may still receive.
4. **Commit** it all in one transaction: players (fenced on our leases, which the write also
   releases), nicknames, contact records, and the idempotency record turning completed with the
   replies (outbox).
5. **Send** the replies, recording each one as it is accepted; the last record drops the outbox.
   An attempt that takes an outbox over first looks for each reply in Twilio's Messages list
   (`reconciliation`): an earlier attempt may have sent it and died before recording it.

An opt-out (STOP) also locks every player whose record mentions the phone and rewrites them
without it, and erases the number from outboxes still waiting to send to it.

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

from serverless_rps import game, replies
from serverless_rps.commands import Facts, spec_for
from serverless_rps.exceptions import (
    ClaimHeldElsewhere,
    ConfigurationProblem,
    LockContended,
    OutboxLeaseExpired,
    ReadsKeptChanging,
    SmsPermanentlyRefused,
    SmsTemporarilyFailed,
    StaleRead,
)
from serverless_rps.game import Reply
from serverless_rps.observability import count, logger, mask_phone, milliseconds, tracer
from serverless_rps.parsing import Command, parse
from serverless_rps.ports import (
    SENDING,
    Claim,
    CompletedRecord,
    GameStore,
    LockedPlayer,
    OutboundSms,
    ReplyId,
    SentSmsLog,
    SmsSender,
)
from serverless_rps.reconciliation import Lookup
from serverless_rps.reply_budget import BudgetPolicy, apply_budget

__all__ = ["OPT_OUT_CONFIRMATION_SECONDS", "InboundSms", "MessageProcessor", "Result"]

# A nickname read without a lock can change hands before the commit; a few fresh attempts settle it.
_STALE_READ_ATTEMPTS = 3
_LOCK_BACKOFF_FIRST_SECONDS = 0.05
_LOCK_BACKOFF_CAP_SECONDS = 0.4
# Jitter from the operating system's generator, which holds no state of ours: under SnapStart every
# execution environment resumes from one snapshot, and a `random` seeded before it would give them
# all the same backoff, the lockstep jitter exists to break.
_ENTROPY = random.SystemRandom()
# The FCC's revocation rule presumes a confirmation text sent within five minutes of the opt-out
# is fine: one that could not leave by then is dropped, never sent late.
OPT_OUT_CONFIRMATION_SECONDS = 5 * 60
DROPPED_LATE = "dropped:late"


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
        sender: SmsSender,
        *,
        limits: game.Limits,
        lock_wait_seconds: float,
        budget: BudgetPolicy = BudgetPolicy(),  # noqa: B008 - frozen, safe to share
        program: replies.Program = replies.Program(),  # noqa: B008 - frozen, safe to share
        clock: Callable[[], float] = lambda: time.time(),
        sleep: Callable[[float], None] = lambda seconds: time.sleep(seconds),
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        jitter: Callable[[], float] = _ENTROPY.random,
        sent_log: SentSmsLog | None = None,
    ) -> None:
        self._store = store
        self._sender = sender
        # Twilio's Messages list, read before re-sending what an earlier attempt may have sent.
        self._sent_log = sent_log
        self._limits = limits
        self._budget = budget
        self._program = program
        self._lock_wait = lock_wait_seconds
        self._clock = clock
        self._sleep = sleep
        self._new_id = new_id
        self._jitter = jitter

    def process(self, sms: InboundSms) -> Result:
        attempt_id = self._new_id()
        claimed = self._store.claim(sms.idempotency_key, attempt_id, self._clock())
        if isinstance(claimed, CompletedRecord):
            return self._finish_earlier_attempt(claimed, attempt_id, sms.enqueued_at)
        record = self._apply(claimed, sms)
        self._deliver(record, attempt_id, sms.enqueued_at)
        return Result.PROCESSED

    def resend(self, record: CompletedRecord) -> Result:
        """The operator's `outbox resend`: send what a completed message never sent, exactly as its
        redelivery would (the outbox lease, then one delivery record per reply). A resend racing a
        redelivery is two attempts at one record: one holds the lease, the other waits for it."""
        return self._finish_earlier_attempt(record, self._new_id())

    # -- before the commit ---------------------------------------------------------------------

    def _apply(self, claim: Claim, sms: InboundSms) -> CompletedRecord:
        command = sms.command
        command_name = type(command).__name__
        logger.info("processing", extra={"command": command_name, "sender": mask_phone(sms.sender)})
        tracer.put_annotation("command", command_name)
        committed = False
        try:
            for attempt in range(1, _STALE_READ_ATTEMPTS + 1):
                try:
                    record = self._apply_command(claim, sms, command)
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
                self._best_effort("abandon the claim", lambda: self._store.abandon(claim))

    def _apply_command(self, claim: Claim, sms: InboundSms, command: Command) -> CompletedRecord:
        """One walk of the command's description (`commands`): the same steps for every command."""
        phone, spec = sms.sender, spec_for(command)
        lookup = spec.look_up(command, phone, self._store)
        with self._locked(claim, phone, lookup.lock) as locked:
            players = {held.phone: held.player for held in locked}
            facts = Facts(phone, players, lookup, self._clock(), self._limits, self._new_id, self._program)
            spec.check(command, facts)
            shared = spec.then_lock(command, facts)
            if shared:
                self._lock_shared(claim, locked, shared)
                facts = replace(
                    facts, shared={held.phone: held.shared for held in locked if held.shared is not None}
                )
                spec.check_shared(command, facts)
            if spec.reads_counterparts and facts.me is not None:
                facts = replace(facts, counterparts=self._store.get_players(facts.me.counterpart_phones()))
            facts = replace(
                facts,
                read_shared={key: self._store.get_shared(key) for key in spec.then_read(command, facts)},
            )
            if spec.erases_sender:
                self._store.erase_pending_replies(phone)
            decision = spec.decide(command, facts)
            if not next(held.opted_in for held in locked if held.phone == phone):
                decision = game.with_opt_in_confirmation(decision, phone, self._program)
            record = self._commit(claim, sms, locked, decision)
            if spec.audit is not None:
                # Once per committed message (a redelivery finds it completed and never gets here).
                logger.info("audit", extra={**spec.audit(command), "sender": mask_phone(phone)})
            return record

    def _commit(
        self, claim: Claim, sms: InboundSms, locked: Sequence[LockedPlayer], decision: game.Decision
    ) -> CompletedRecord:
        now = self._clock()
        # Every reply spends from its recipient's budget, charged in this commit and so only once.
        wanted = decision.replies
        decision, budgets = apply_budget(
            decision, {held.phone: held.budget for held in locked}, now, self._budget
        )
        # Replies the budget held back (dropped, or replaced by the one notice).
        count("BudgetHits", len(wanted) - sum(1 for reply in decision.replies if reply in wanted))
        if any(reply.opt_out_confirmation for reply in wanted) and not any(
            reply.opt_out_confirmation for reply in decision.replies
        ):
            logger.warning(
                "opt-out confirmation withheld by the reply budget", extra={"to": mask_phone(sms.sender)}
            )
        # An opt-in confirmation the budget held back was not sent: the marker waits for one that is.
        decision = replace(
            decision,
            opt_in={
                phone: opted_in
                for phone, opted_in in decision.opt_in.items()
                if not opted_in
                or Reply(phone, replies.opt_in_confirmation(self._program)) in decision.replies
            },
        )
        # The opt-out confirmation's five minutes run from when the text reached us (the webhook
        # queued it), or from now if that is unknown.
        received = min(sms.enqueued_at, now) if sms.enqueued_at is not None else now
        # Replies leave from the number the player texted.
        outbox = [
            OutboundSms(
                reply.to,
                sms.recipient,
                reply.body,
                received + OPT_OUT_CONFIRMATION_SECONDS if reply.opt_out_confirmation else None,
            )
            for reply in decision.replies
        ]
        return self._store.commit(claim, locked, decision, outbox, budgets, now)

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
                    self._best_effort("release a lock", functools.partial(self._store.release, locked))

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

    # -- after the commit ----------------------------------------------------------------------

    def _finish_earlier_attempt(
        self, record: CompletedRecord, attempt_id: str, enqueued_at: float | None = None
    ) -> Result:
        if not record.undelivered():
            logger.info("duplicate of a completed message; nothing to do")
            count("RepliesDeduplicated", len(record.delivered))
            # An attempt that died right after its last delivery may not have finished this.
            self._best_effort("finish a sent outbox", lambda: self._store.finish(record))
            return Result.DUPLICATE
        leased = self._store.lease_outbox(record, attempt_id, self._clock())
        if leased is None:
            raise ClaimHeldElsewhere("another attempt is sending this message's replies", retry_after=5)
        # Only what is missing *now*: the holder we waited for may have sent more since our claim.
        record = leased
        count("RepliesDeduplicated", len(record.delivered))
        if not record.undelivered():
            return Result.DUPLICATE
        logger.info(
            "completed earlier; sending the replies it did not send",
            extra={"missing": len(record.undelivered())},
        )
        # An earlier attempt held this outbox: it may have sent a reply and died before recording it.
        look = Lookup(self._sent_log, self._store, record) if self._sent_log is not None else None
        self._deliver(record, attempt_id, enqueued_at, look)
        return Result.RESENT

    def _deliver(
        self,
        record: CompletedRecord,
        attempt_id: str,
        enqueued_at: float | None = None,
        look: Lookup | None = None,
    ) -> None:
        for index in record.undelivered():
            if self._clock() >= record.lease_expires_at:
                # Frozen past our lease (a live invocation never is): another attempt may be
                # sending now, so stop rather than send the same reply twice.
                raise OutboxLeaseExpired("the outbox lease ran out before every reply was sent")
            sms = record.outbox[index]
            if sms.send_by is not None and self._clock() > sms.send_by:
                # Past the five minutes: the confirmation is dropped, not sent late.
                logger.warning(
                    "opt-out confirmation dropped: too late to send", extra={"to": mask_phone(sms.to)}
                )
                count("LateConfirmationsDropped")
                if self._store.withhold_number(record.key, index, sms.to, DROPPED_LATE):
                    self._store.record_delivery(record, index, DROPPED_LATE)
                continue
            at_most_once = sms.send_by is not None
            # An opt-out confirmation's fate is recorded, and its number taken out of the outbox,
            # before it leaves: no redelivery sends it again, even after a death between Twilio
            # accepting it and our record of it (the window P3 allows for other replies). At most
            # one, never two. Nothing to send if a later opt-out of the phone erased it.
            if at_most_once and not self._store.withhold_number(record.key, index, sms.to, SENDING):
                continue
            try:
                # Look before re-sending (not for a confirmation: its fate was recorded before it left).
                found = look.already_sent(index) if look is not None and not at_most_once else None
                outcome = found or self._sender.send(sms, ReplyId(record.key, index))
            except SmsPermanentlyRefused as refusal:
                # Recorded, never retried: Twilio will refuse it again (e.g. the player texted STOP).
                logger.warning(
                    "Twilio refused a reply for good", extra={"code": refusal.code, "to": mask_phone(sms.to)}
                )
                outcome = f"refused:{refusal.code}"
                count("RepliesRefused")
            except (SmsTemporarilyFailed, ConfigurationProblem) as failure:
                if at_most_once and isinstance(failure, SmsTemporarilyFailed) and failure.maybe_sent:
                    # Twilio may have taken it: it stays withheld, so it is never sent twice.
                    logger.warning(
                        "opt-out confirmation may have been sent; it is not sent again",
                        extra={"to": mask_phone(sms.to)},
                    )
                elif at_most_once:
                    # Twilio did not take it: the redelivery may try again (within the five minutes).
                    self._store.restore_number(record.key, index, sms)
                # Let the redelivery send at once instead of waiting for our lease to expire.
                self._best_effort(
                    "release the outbox", lambda: self._store.release_outbox(record.key, attempt_id)
                )
                raise
            else:
                if found:
                    logger.info("an earlier attempt had sent this reply: recorded, not sent again")
                    count("RepliesFoundSent")
                else:
                    count("RepliesSent")
                    if enqueued_at is not None:
                        # SMS received (the webhook enqueued it) -> reply accepted by Twilio.
                        milliseconds("ReplyDelay", (self._clock() - enqueued_at) * 1000)
            # Twilio has it: a death before this write leaves it for the next attempt's look.
            self._store.record_delivery(record, index, outcome)

    @staticmethod
    def _best_effort(action: str, call: Callable[[], None]) -> None:
        """Clean-up that must never fail the message: what it cannot do, expiry does."""
        try:
            call()
        except Exception as exc:  # noqa: BLE001 - a failed clean-up is logged, the lease expires
            logger.warning("clean-up failed; relying on expiry", extra={"action": action, "error": repr(exc)})
