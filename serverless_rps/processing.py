"""How one inbound SMS is processed, exactly once in effect: claim, lock, decide, commit, deliver.

1. **Claim** the idempotency record for the inbound SMS id (conditional put, short expiry).
   Already completed -> the outbox resumes it (sends only what was not sent yet), then stop.
   A text from a number outside the served countries (countries.py) is not played: its claim is
   completed with nothing to send, then stop (an opt-out is played: it erases). Past the daily
   SMS ceiling (sms_ceiling.py), a message is not played either: it raises `CeilingReached`, the
   claim is given back, and it waits on the queue (app.py); an opt-out is played, and sends only
   its confirmation.
2. **Lock** the sender and anyone else the message touches, in ascending phone order, reading
   each record in the request that takes its lease: after the lobby room it plays in, if any
   (locked first, so that the room as locked names whom to lock), and before the leaderboard
   shards the locked records call for (`game.lock_position`: the one order). What to read and
   whom to lock is the command's description in `commands` (`CommandSpec` lists its phases in
   order): this module has no branch per command.
   Every message locks its sender: its reply budget is state the commit changes.
3. **Decide** (pure, `game`): new player states, nickname rows, replies, each written in its
   reader's language (pure, `language`: the one place that decides it, and writes the sender's
   on their record); then only the replies that go out (pure, `outgoing`): none to a number not
   served, only an opt-out's confirmation past the ceiling, and what each recipient's reply
   budget (`reply_budget`) still allows.
4. **Commit** it all in one transaction: players (fenced on our leases, which the write also
   releases), nicknames, contact records, the day's SMS counter, and the idempotency record
   turning completed with the replies (the outbox), whose sending is leased to this attempt.
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

from serverless_rps import game, language, opt_out_proof, replies
from serverless_rps.commands import CommandSpec, Facts, RememberedReads, spec_for
from serverless_rps.countries import ServedCountries
from serverless_rps.exceptions import LockContended, ReadsKeptChanging, StaleRead
from serverless_rps.observability import about, best_effort, count, logger
from serverless_rps.outbox import Outbox, outbox_of
from serverless_rps.outgoing import Outgoing, outgoing
from serverless_rps.parsing import Command, parse
from serverless_rps.ports import Claim, CompletedRecord, GameStore, LockedPlayer
from serverless_rps.reply_budget import BudgetPolicy
from serverless_rps.sms_ceiling import SmsCeiling

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
    # The operator's request (admin `erase`), not a text from the number: its proof record says
    # so, and it is no text after an earlier opt-out.
    by_operator: bool = False

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
    NOT_SERVED = "not_served"  # from a number outside the served countries: not played


def lock_order(phones: Sequence[str]) -> list[str]:
    """Ascending phone order, whoever sent the message.

    One canonical order means two players throwing at each other contend on the same first
    lock, so one proceeds and the other waits, instead of each holding one and failing both.
    """
    return sorted(set(phones))


class PlayerLocks:
    """The pessimistic locks of one message: leases on the records it changes, taken in the one
    canonical order (`game.lock_position`: the lobby's rooms, the phones ascending, the leaderboard's
    shards) with jittered back-off, and given back unless the commit released them.
    MessageProcessor's locking, in one place; it needs the processor's store, clock, sleep, jitter
    and lock wait."""

    _store: GameStore
    _clock: Callable[[], float]
    _sleep: Callable[[float], None]
    _jitter: Callable[[], float]
    _lock_wait: float

    _lock_order = staticmethod(lock_order)  # a seam: tests/simulation plants another order

    @contextmanager
    def _locked(self, claim: Claim) -> Iterator[list[LockedPlayer]]:
        """The list the steps below lock into, in order; what the commit did not release is given
        back, last first."""
        held: list[LockedPlayer] = []
        committed = False
        try:
            yield held
            committed = True
        finally:
            if not committed:
                for locked in reversed(held):
                    best_effort("release a lock", functools.partial(self._store.release, locked))

    def _lock_players(
        self, claim: Claim, held: list[LockedPlayer], sender: str, others: Sequence[str]
    ) -> None:
        """Lease the sender and the players `others` in `lock_order`, after any room `held`. Only the
        sender's phone may be locked without a player record."""
        for phone in self._lock_order([sender, *others]):
            held.append(self._lock_with_backoff(phone, claim.attempt_id, player_only=phone != sender))

    def _lock_shared(self, claim: Claim, held: list[LockedPlayer], keys: Sequence[str]) -> None:
        """Lock shared records, each after everything `held` in the canonical order: the rooms before
        any phone, the leaderboard's shards after every phone."""
        for key in sorted(set(keys), key=game.lock_position):
            if any(game.lock_position(key) <= game.lock_position(locked.phone) for locked in held):
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


class MessageProcessor(PlayerLocks):
    def __init__(
        self,
        store: GameStore,
        outbox: Outbox,
        *,
        limits: game.Limits,
        lock_wait_seconds: float,
        budget: BudgetPolicy = BudgetPolicy(),  # noqa: B008 - frozen, safe to share
        program: replies.Program = replies.Program(),  # noqa: B008 - frozen, safe to share
        countries: ServedCountries = ServedCountries(),  # noqa: B008 - frozen, safe to share
        ceiling: SmsCeiling | None = None,
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
        self._countries = countries
        # None: no daily SMS ceiling (tests that are not about it); bootstrap.py always gives one.
        self._ceiling = ceiling
        self._lock_wait = lock_wait_seconds
        self._clock = clock
        self._sleep = sleep
        self._new_id = new_id
        self._jitter = jitter

    def process(self, sms: InboundSms) -> Result:
        """Claim, lock, decide, commit, deliver; for a message already committed, finish its replies."""
        spec = spec_for(sms.command)
        served = spec.erases_sender or self._countries.serves(sms.sender)  # an opt-out always is
        with about(type(sms.command).__name__, sms.sender):
            attempt_id = self._new_id()
            claimed = self._store.claim(sms.idempotency_key, attempt_id, self._clock())
            if isinstance(claimed, Claim):
                return self._play(claimed, sms, spec, served, attempt_id)
            resent = self._outbox.resume(claimed, attempt_id, sms.enqueued_at)
            return Result.RESENT if resent else Result.DUPLICATE

    def _play(
        self, claim: Claim, sms: InboundSms, spec: CommandSpec[Any], served: bool, attempt_id: str
    ) -> Result:
        if not served:
            self._leave_unplayed(claim)
            return Result.NOT_SERVED
        logger.info("processing")
        record = self._apply(claim, sms, spec)
        self._outbox.deliver(record, attempt_id, sms.enqueued_at)
        return Result.PROCESSED

    def _leave_unplayed(self, claim: Claim) -> None:
        """Not served (countries.py): only its record is written, completed with nothing to send."""
        with self._given_back_unless_committed(claim):
            self._store.commit(claim, (), game.Decision(), (), {}, self._clock())
        logger.warning("a text from a number outside the served countries: not played, not answered")
        count("NotServed")

    def _apply(self, claim: Claim, sms: InboundSms, spec: CommandSpec[Any]) -> CompletedRecord:
        """The daily ceiling, then lock, decide and commit, again from the start when a lock-free
        read was overtaken; the claim is given back if nothing was committed."""
        with self._given_back_unless_committed(claim):
            # Past the day's SMS ceiling an opt-out is played; any other message raises CeilingReached.
            past_ceiling = self._ceiling is not None and self._ceiling.past(
                self._clock(), opt_out=spec.erases_sender
            )
            for attempt in range(1, _STALE_READ_ATTEMPTS + 1):
                try:
                    return self._apply_command(claim, sms, spec, past_ceiling)
                except StaleRead as stale:
                    if attempt == _STALE_READ_ATTEMPTS:
                        # Contention, not a fault: redeliver soon, as for a contended lock.
                        raise ReadsKeptChanging(str(stale), retry_after=1) from stale
                    logger.info("a lock-free read was overtaken mid-attempt; reading again")
            raise AssertionError("unreachable")

    @contextmanager
    def _given_back_unless_committed(self, claim: Claim) -> Iterator[None]:
        """Give the claim back if the block, which ends in the commit, fails: a retry need not wait."""
        try:
            yield
        except BaseException:
            best_effort("abandon the claim", lambda: self._store.abandon(claim))
            raise

    def _apply_command(
        self, claim: Claim, sms: InboundSms, spec: CommandSpec[Any], past_ceiling: bool
    ) -> CompletedRecord:
        """One walk of the command's phases (`commands.CommandSpec`), in their order."""
        phone, command = sms.sender, sms.command
        reads, looked_at = RememberedReads(self._store), self._clock()
        looked_up = spec.look_up(command, phone, reads, looked_at)
        with self._locked(claim) as locked:
            if looked_up.first:
                # A lobby room, before any phone: the look-up made again over it as locked names
                # exactly whom to lock (the phone waiting there), with no second request.
                self._lock_shared(claim, locked, looked_up.first)
                reads.lay_over({held.phone: held.shared for held in locked if held.shared is not None})
                again = spec.look_up(command, phone, reads, looked_at)
                if again.first != looked_up.first:
                    raise StaleRead("what was locked first changed the choice made from it")
                looked_up = again
            self._lock_players(claim, locked, phone, looked_up.lock)
            players = {held.phone: held.player for held in locked if held.shared is None}
            spoken = language.for_message(command, phone, players)  # the sender's, and each reply's
            facts = Facts(
                phone,
                players,
                looked_up,
                self._clock(),
                self._limits,
                self._new_id,
                self._program,
                say=spoken.say,
            )
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
            now = self._clock()
            # Only the replies that go out (outgoing.py), charged to budgets in this commit: only once.
            out = outgoing(
                decision,
                sms.sender,
                sender_opted_in=next(held.opted_in for held in locked if held.phone == sms.sender),
                budgets={held.phone: held.budget for held in locked},
                now=now,
                countries=self._countries,
                past_ceiling=past_ceiling,
                policy=self._budget,
                program=self._program,
                spoken=spoken,
            )
            _report_held_back(out)
            # The opt-out confirmation's five minutes run from when the text reached us (the webhook
            # queued it), or from now if that is unknown. Replies leave from the number the player texted.
            received = min(sms.enqueued_at, now) if sms.enqueued_at is not None else now
            proof = opt_out_proof.of_message(
                sms.sender,
                received,
                texted_as=spec.texted_as,
                opt_out_type=sms.opt_out_type,
                by_operator=sms.by_operator,
                reading=spec.proves(sms.command) if spec.proves is not None else None,
                confirmation_queued=any(reply.opt_out_confirmation for reply in out.decision.replies),
            )
            outbox = outbox_of(out.decision.replies, sms.recipient, received)
            record = self._store.commit(claim, locked, out.decision, outbox, out.budgets, now, proof)
            if self._ceiling is not None:
                self._ceiling.counted(len(outbox), now)  # the commit counted them: so does the cache
            if spec.audit is not None:
                # Once per committed message (a redelivery finds it completed and never gets here).
                logger.info("audit", extra=dict(spec.audit(command)))
            return record


def _report_held_back(out: Outgoing) -> None:
    """What a commit does not send, as logs and metrics."""
    if out.not_served:
        logger.info(
            "replies to numbers outside the served countries are not sent", extra={"replies": out.not_served}
        )
    if out.past_ceiling:
        logger.warning(
            "past the daily SMS ceiling: the opt-out sends only its confirmation",
            extra={"replies": out.past_ceiling},
        )
    count("BudgetHits", out.budget_hits)
    if out.confirmation_withheld:
        logger.warning("opt-out confirmation withheld by the reply budget")
