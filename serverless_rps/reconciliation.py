"""Look before re-sending: find, in Twilio's Messages list, a reply an earlier attempt may have sent.

A reply is recorded (`delivered.<i> = <SID>`) right after Twilio accepts it. An invocation that
dies between the two leaves a reply that reached Twilio but looks unsent, and the redelivery
would send it again (the duplicate window of P3). So a redelivery that takes the outbox over
from an earlier attempt looks for each reply it is about to send in Twilio's list of messages to
its recipient first: found, it records that SID and sends nothing; not found, it sends. Twilio's
Messages API takes no idempotency key, so this is the only way to learn what an earlier attempt
sent. The list is read only on this path: never for the attempt that committed.

A message in the list is a candidate for reply `i` only if it is

* `outbound-api` (sent through the REST API, not received, not Twilio's own STOP answer);
* to the reply's number (the list's `To` filter), from the reply's number or through a Messaging
  Service (which picks the sender), with exactly its body (replies are plain GSM-7: Twilio's Smart
  Encoding has nothing to rewrite);
* created at or after the first attempt began sending (the commit, `completed_at`) less
  `CLOCK_SKEW_SECONDS` (Twilio's `date_created` has whole seconds and its own clock);
* not claimed by another reply of the record: neither recorded (`delivered`) nor taken in this look.

A candidate is taken only with proof that it is no other record's: the same text to the same
number from another message (a player who texts GAMES twice) looks exactly like ours, and taking
it when ours was never sent would lose our reply. The proof comes from the number's contact
record, read AFTER the list (`GameStore.others_sending_to`). Every record with a reply to the
number is in its `pending_replies` from its commit until its last delivery, whose update moves the
SIDs it sent there into `recent_sids`. A message in the list was sent before the list was read,
so by a record committed before that: at the later read, that record is either still pending (its
record is read: its recorded SIDs are excluded, and a reply of it to the number with our body
that is not recorded yet may be this very message, so then nothing is taken and ours is sent) or
finished, its SIDs in `recent_sids` (excluded). A pending record that cannot be read proves
nothing either: sent. When in doubt, send: a duplicate is allowed, a lost reply never is.

Among several candidates (the record's earlier attempts may have sent one reply twice), the one
created nearest the commit and not before it.
"""

from __future__ import annotations

import math

from serverless_rps.ports import CompletedRecord, GameStore, OtherSends, SentSms, SentSmsLog

__all__ = ["CLOCK_SKEW_SECONDS", "LIST_LIMIT", "Lookup"]

# How far Twilio's clock may run behind ours, on top of `date_created`'s whole seconds.
CLOCK_SKEW_SECONDS = 1.0
# One page, newest first. A phone's reply budget (a burst of 60) bounds what it can have received
# since a commit a few minutes old; a reply older than the page's last message is not found (sent).
LIST_LIMIT = 100
OUTBOUND = "outbound-api"


class Lookup:
    """What one attempt that took an outbox over learns from Twilio's list and from the other
    records: for each recipient, one list request then one read of its contact record (and of
    its pending records), made when the first of its replies is looked for, before this attempt
    sends anything to it."""

    def __init__(self, log: SentSmsLog, store: GameStore, record: CompletedRecord) -> None:
        self._log = log
        self._store = store
        self._record = record
        self._lists: dict[str, tuple[list[SentSms], OtherSends | None]] = {}
        self._claimed = set(record.delivered.values())

    def already_sent(self, index: int) -> str | None:
        """The SID of reply `index` if Twilio has it and it is provably no other record's, now
        claimed for it; None if not (send). Raises what the list or the store raise."""
        if self._record.completed_at is None:
            return None  # no start to bound the window: better a duplicate than a wrong match
        sms = self._record.outbox[index]
        if sms.to not in self._lists:
            listed = self._log.sent_to(sms.to, LIST_LIMIT)
            # Only after the list: whatever it shows was sent by a record this read accounts for.
            self._lists[sms.to] = (listed, self._store.others_sending_to(sms.to, self._record.key))
        listed, others = self._lists[sms.to]
        if others is None or sms.body in others.unrecorded_bodies:
            return None  # another record may have sent this very text: it cannot be told from ours
        start = math.floor(self._record.completed_at)  # Twilio's `date_created` has whole seconds
        matches = [
            message
            for message in listed
            if message.direction == OUTBOUND
            and (message.from_ == sms.from_ or message.messaging_service_sid is not None)
            and message.body == sms.body
            and message.created_at >= start - CLOCK_SKEW_SECONDS
            and message.sid not in self._claimed
            and message.sid not in others.sids
        ]
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
