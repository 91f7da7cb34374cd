"""A reply's life after the commit: from the outbox the commit wrote to a fate for every reply.

The commit completes the message record with its replies (the outbox) and leases the outbox to
the attempt that committed. From there, one module tells the rest:

    commit ──► deliver: for each reply, in order ──► record its fate ──► the last fate drops the
      │          (the attempt that committed,          (a SID, refused,     outbox and takes the
      │           holding the outbox lease)             dropped, erased)    record off its recipients'
      │                                                                     pending replies (finish)
      X died, or a send failed for now: the lease runs out (or is given back)
      │
    redelivery (or the operator's resend) ──► resume: lease the outbox again; for each reply still
                                              without a fate, look in Twilio's Messages list first

Two policies decide how a reply is sent:

* **An ordinary reply is sent at least once.** Its fate is recorded after Twilio accepts it, so a
  death in between leaves it for the next attempt, which looks for it in Twilio's Messages list
  before sending it again (`LookBeforeResending`). Only a death in that window whose send the
  look cannot prove sends it twice (promise 3).
* **An opt-out confirmation is sent at most once, within five minutes** of the opt-out reaching
  us (the FCC's rule). Its fate is recorded, and its number taken out of the outbox, *before* it
  leaves (`sending`): no redelivery sends it again. If Twilio certainly did not take it, the number
  is put back for the next attempt; one that could not leave within the five minutes is dropped.

`Outbox` does the sending and decides; `ports.OutboxStore` (game_store/outboxes.py) holds the
records, and every write it makes is conditional (docs/protocol.md has the timelines).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from serverless_rps.exceptions import (
    ClaimHeldElsewhere,
    ConfigurationProblem,
    OutboxLeaseExpired,
    SmsPermanentlyRefused,
    SmsTemporarilyFailed,
)
from serverless_rps.game import Reply
from serverless_rps.observability import best_effort, count, logger, mask_phone, milliseconds
from serverless_rps.ports import (
    DROPPED_LATE,
    SENDING,
    CompletedRecord,
    OtherSends,
    OutboundSms,
    OutboxStore,
    ReplyId,
    SentSms,
    SentSmsLog,
    SmsSender,
)

__all__ = [
    "CLOCK_SKEW_SECONDS",
    "LIST_LIMIT",
    "OPT_OUT_CONFIRMATION_SECONDS",
    "LookBeforeResending",
    "Outbox",
    "outbox_of",
]

# The FCC's revocation rule presumes a confirmation text sent within five minutes of the opt-out
# is fine: one that could not leave by then is dropped, never sent late.
OPT_OUT_CONFIRMATION_SECONDS = 5 * 60
# Twilio's 429 (our account's concurrent requests): a send is tried this many times in the
# invocation, pausing with full jitter between tries, before the message is left for SQS to bring
# back after Twilio's Retry-After. A Retry-After longer than the longest pause ends the tries.
THROTTLED_TRIES = 3
_THROTTLED_PAUSE_SECONDS = 0.25
_THROTTLED_PAUSE_CAP_SECONDS = 1.0
_ENTROPY = random.SystemRandom()


def outbox_of(replies: Sequence[Reply], from_number: str, received_at: float) -> list[OutboundSms]:
    """The outbox the commit writes: each reply from the number the player texted, and an opt-out
    confirmation with its deadline, five minutes from when the opt-out reached us."""
    return [
        OutboundSms(
            reply.to,
            from_number,
            reply.body,
            received_at + OPT_OUT_CONFIRMATION_SECONDS if reply.opt_out_confirmation else None,
        )
        for reply in replies
    ]


class Outbox:
    def __init__(
        self,
        store: OutboxStore,
        sender: SmsSender,
        sent_log: SentSmsLog,
        *,
        clock: Callable[[], float] = lambda: time.time(),
        sleep: Callable[[float], None] = lambda seconds: time.sleep(seconds),
        jitter: Callable[[], float] = _ENTROPY.random,
    ) -> None:
        self._store = store
        self._sender = sender
        # Twilio's Messages list, read before re-sending what an earlier attempt may have sent.
        self._sent_log = sent_log
        self._clock = clock
        self._sleep = sleep
        self._jitter = jitter

    def deliver(self, record: CompletedRecord, attempt_id: str, enqueued_at: float | None = None) -> None:
        """Send every reply of a record this attempt has just committed (the commit leased its
        outbox to it). Nobody sent any of them before: nothing to look for."""
        self._deliver(record, attempt_id, enqueued_at)

    def resume(self, record: CompletedRecord, attempt_id: str, enqueued_at: float | None = None) -> bool:
        """A record committed by an earlier attempt (a redelivery, the operator's `outbox resend`):
        finish it, or lease its outbox and send what is still missing. True if anything was sent.
        Raises ClaimHeldElsewhere while a live attempt holds the outbox."""
        if not record.undelivered():
            logger.info("duplicate of a completed message; nothing to do")
            count("RepliesDeduplicated", len(record.delivered))
            # An attempt that died right after its last delivery may not have finished this.
            best_effort("finish a sent outbox", lambda: self._store.finish(record))
            return False
        leased = self._store.lease(record, attempt_id, self._clock())
        if leased is None:
            raise ClaimHeldElsewhere("another attempt is sending this message's replies", retry_after=5)
        # Only what is missing *now*: the holder we waited for may have sent more since our claim.
        record = leased
        count("RepliesDeduplicated", len(record.delivered))
        if not record.undelivered():
            return False
        logger.info(
            "completed earlier; sending the replies it did not send",
            extra={"missing": len(record.undelivered())},
        )
        # An earlier attempt held this outbox: it may have sent a reply and died before recording it.
        self._deliver(
            record, attempt_id, enqueued_at, LookBeforeResending(self._sent_log, self._store, record)
        )
        return True

    def erase(self, phone: str) -> None:
        """An opt-out: take the number out of every outbox still waiting to send to it."""
        self._store.erase_number(phone)

    def _deliver(
        self,
        record: CompletedRecord,
        attempt_id: str,
        enqueued_at: float | None = None,
        look: LookBeforeResending | None = None,
    ) -> None:
        for index in record.undelivered():
            if self._clock() >= record.lease_expires_at:
                # Frozen past our lease (a live invocation never is): another attempt may be
                # sending now, so stop rather than send the same reply twice.
                raise OutboxLeaseExpired("the outbox lease ran out before every reply was sent")
            at_most_once = record.outbox[index].send_by is not None
            try:
                if at_most_once:
                    fate = self._send_at_most_once(record, index, enqueued_at)
                else:
                    fate = self._send_at_least_once(record, index, enqueued_at, look)
            except (SmsTemporarilyFailed, ConfigurationProblem):
                # Let the redelivery send at once instead of waiting for our lease to expire.
                best_effort("release the outbox", lambda: self._store.release(record.key, attempt_id))
                raise
            if fate is not None:
                # Twilio has it: a death before this write leaves it for the next attempt's look.
                self._store.record_delivery(record, index, fate)

    def _send_at_least_once(
        self, record: CompletedRecord, index: int, enqueued_at: float | None, look: LookBeforeResending | None
    ) -> str:
        """An ordinary reply: looked for first when an earlier attempt may have sent it."""
        found = look.already_sent(index) if look is not None else None
        if found:
            logger.info("an earlier attempt had sent this reply: recorded, not sent again")
            count("RepliesFoundSent")
            return found
        return self._send(record, index, enqueued_at)

    def _send_at_most_once(
        self, record: CompletedRecord, index: int, enqueued_at: float | None
    ) -> str | None:
        """An opt-out confirmation: withheld from the outbox before it leaves, never sent late.
        None when there is nothing to record: a later opt-out of the phone erased it."""
        sms = record.outbox[index]
        assert sms.send_by is not None
        if self._clock() > sms.send_by:
            logger.warning("opt-out confirmation dropped: too late to send", extra={"to": mask_phone(sms.to)})
            count("LateConfirmationsDropped")
            dropped = self._store.withhold_number(record.key, index, sms.to, DROPPED_LATE)
            return DROPPED_LATE if dropped else None
        if not self._store.withhold_number(record.key, index, sms.to, SENDING):
            return None
        try:
            return self._send(record, index, enqueued_at)
        except SmsTemporarilyFailed as failure:
            if failure.maybe_sent:
                # Twilio may have taken it: it stays withheld, so it is never sent twice.
                logger.warning(
                    "opt-out confirmation may have been sent; it is not sent again",
                    extra={"to": mask_phone(sms.to)},
                )
            else:
                # Twilio did not take it: the redelivery may try again (within the five minutes).
                self._store.restore_number(record.key, index, sms)
            raise
        except ConfigurationProblem:
            self._store.restore_number(record.key, index, sms)
            raise

    def _send(self, record: CompletedRecord, index: int, enqueued_at: float | None) -> str:
        """One send; its fate: Twilio's SID, or `refused:<code>` when Twilio refuses it for good."""
        sms = record.outbox[index]
        try:
            sid = self._send_unless_throttled(sms, ReplyId(record.key, index))
        except SmsPermanentlyRefused as refusal:
            # Recorded, never retried: Twilio will refuse it again (e.g. the player texted STOP), or
            # it came too late to be worth sending (EXPIRED: its ValidityPeriod ran out).
            logger.warning(
                "Twilio refused a reply for good", extra={"code": refusal.code, "to": mask_phone(sms.to)}
            )
            count("RepliesRefused")
            if refusal.expired:
                count("RepliesExpired")
            return f"refused:{refusal.code}"
        count("RepliesSent")
        if enqueued_at is not None:
            # SMS received (the webhook enqueued it) -> reply accepted by Twilio.
            milliseconds("ReplyDelay", (self._clock() - enqueued_at) * 1000)
        return sid

    def _send_unless_throttled(self, sms: OutboundSms, reply: ReplyId) -> str:
        """One send, tried again after a short pause while Twilio answers 429: it processed
        nothing, so another try cannot send twice."""
        pause = _THROTTLED_PAUSE_SECONDS
        for tries in range(1, THROTTLED_TRIES + 1):
            try:
                return self._sender.send(sms, reply)
            except SmsTemporarilyFailed as failure:
                waited = failure.retry_after or 0.0
                if not failure.throttled or tries == THROTTLED_TRIES or waited > _THROTTLED_PAUSE_CAP_SECONDS:
                    raise
                count("TwilioThrottled")
                # Full jitter, at least Twilio's Retry-After: throttled senders spread out.
                self._sleep(max(waited, pause * self._jitter()))
                pause = min(pause * 2, _THROTTLED_PAUSE_CAP_SECONDS)
        raise AssertionError("unreachable")


# -- look before re-sending ------------------------------------------------------------------------

# How far Twilio's clock may run behind ours, on top of `date_created`'s whole seconds.
CLOCK_SKEW_SECONDS = 1.0
# One page, newest first. A phone's reply budget (a burst of 60) bounds what it can have received
# since a commit a few minutes old; a reply older than the page's last message is not found (sent).
LIST_LIMIT = 100
OUTBOUND = "outbound-api"


class LookBeforeResending:
    """Find, in Twilio's Messages list, a reply an earlier attempt may have sent.

    A reply is recorded (`delivered.<i> = <SID>`) right after Twilio accepts it. An invocation that
    dies between the two leaves a reply that reached Twilio but looks unsent, and the redelivery
    would send it again (the duplicate window of promise 3). So a redelivery that takes the outbox
    over looks for each reply it is about to send in Twilio's list of messages to its recipient
    first: found, it records that SID and sends nothing; not found, it sends. Twilio's Messages
    API takes no idempotency key, so this is the only way to learn what an earlier attempt sent.
    The list is read only on this path: never for the attempt that committed.

    A message in the list is a candidate for reply `i` only if it is

    * `outbound-api` (sent through the REST API, not received, not Twilio's own STOP answer);
    * to the reply's number (the list's `To` filter), from the reply's number or through a
      Messaging Service (which picks the sender), with exactly its body (replies are plain GSM-7:
      Twilio's Smart Encoding has nothing to rewrite);
    * created at or after the first attempt began sending (the commit, `completed_at`) less
      `CLOCK_SKEW_SECONDS` (Twilio's `date_created` has whole seconds and its own clock);
    * not claimed by another reply of the record: neither recorded (`delivered`) nor taken in this
      look.

    A candidate is taken only with proof that it is no other record's: the same text to the same
    number from another message (a player who texts GAMES twice) looks exactly like ours, and
    taking it when ours was never sent would lose our reply. The proof comes from the number's
    contact record, read AFTER the list (`OutboxStore.others_sending_to`). Every record with a
    reply to the number is in its `pending_replies` from its commit until its last delivery,
    whose update moves the SIDs it sent there into `recent_sids`. A message in the list was sent
    before the list was read, so by a record committed before that: at the later read, that
    record is either still pending (its record is read: its recorded SIDs are excluded, and a
    reply of it to the number with our body that is not recorded yet may be this very message,
    so then nothing is taken and ours is sent) or finished, its SIDs in `recent_sids` (excluded).
    A pending record that cannot be read proves nothing either: sent. When in doubt, send: a
    duplicate is allowed, a lost reply never is.

    Among several candidates (the record's earlier attempts may have sent one reply twice), the
    one created nearest the commit and not before it.

    One instance per attempt that took an outbox over: for each recipient, one list request, made
    when the first of its replies is looked for, before this attempt sends anything to it; then,
    only if the list holds a candidate for one of its replies, one read of its contact record
    (and of its pending records), after the list.
    """

    def __init__(self, log: SentSmsLog, store: OutboxStore, record: CompletedRecord) -> None:
        self._log = log
        self._store = store
        self._record = record
        self._lists: dict[str, list[SentSms]] = {}
        self._others: dict[str, OtherSends | None] = {}
        self._claimed = set(record.delivered.values())

    def already_sent(self, index: int) -> str | None:
        """The SID of reply `index` if Twilio has it and it is provably no other record's, now
        claimed for it; None if not (send). Raises what the list or the store raise."""
        if self._record.completed_at is None:
            return None  # no start to bound the window: better a duplicate than a wrong match
        sms = self._record.outbox[index]
        if sms.to not in self._lists:
            self._lists[sms.to] = self._log.sent_to(sms.to, LIST_LIMIT)
        start = math.floor(self._record.completed_at)  # Twilio's `date_created` has whole seconds
        candidates = [
            message
            for message in self._lists[sms.to]
            if message.direction == OUTBOUND
            and (message.from_ == sms.from_ or message.messaging_service_sid is not None)
            and message.body == sms.body
            and message.created_at >= start - CLOCK_SKEW_SECONDS
            and message.sid not in self._claimed
        ]
        if not candidates:
            return None
        if sms.to not in self._others:
            # Only after the list: whatever it shows was sent by a record this read accounts for.
            self._others[sms.to] = self._store.others_sending_to(sms.to, self._record.key)
        others = self._others[sms.to]
        if others is None or sms.body in others.unrecorded_bodies:
            return None  # another record may have sent this very text: it cannot be told from ours
        matches = [message for message in candidates if message.sid not in others.sids]
        if not matches:
            return None
        # Ours left at or after the commit, most often within a second of it (the attempt that
        # commits sends at once): the nearest to the commit and not before it, ties newest first.
        nearest = min(
            range(len(matches)),
            key=lambda n: (matches[n].created_at < start, abs(matches[n].created_at - start), n),
        )
        self._claimed.add(matches[nearest].sid)
        return matches[nearest].sid
