"""The external systems the engine talks to, as small protocols, and the values they exchange.

DynamoDB is two ports, one per side of the commit: `GameStore` is what the processor needs to
claim a message, lock, read and commit (adapter: `game_store.DynamoGameStore`); `OutboxStore` is
what the outbox needs to send a committed message's replies (adapter:
`game_store.OutboxRecords`). Twilio is `SmsSender` and `SentSmsLog` (adapter:
`sms_gateway.TwilioSmsGateway`). Tests use the real store on moto or DynamoDB Local, and either
the real Twilio client against the local Twilio-compatible API or a hand-written fake sender.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from serverless_rps.game import Decision, NicknameHolder, Player, SharedRecord
from serverless_rps.reply_budget import ReplyBudget

__all__ = [
    "DROPPED_LATE",
    "ERASED",
    "SENDING",
    "Claim",
    "CompletedRecord",
    "GameStore",
    "LockedPlayer",
    "OtherSends",
    "OutboundSms",
    "OutboxStore",
    "ReplyId",
    "SentSms",
    "SentSmsLog",
    "SmsSender",
]


# A reply's fate (`delivered.<i>`) is the SID Twilio gave it, `refused:<code>`, or one of these:
# An opt-out confirmation once its send began, until Twilio answers: never sent again, and what a
# later erasure of its number must leave alone.
SENDING = "sending"
# An opt-out confirmation that could not leave within its five minutes: never sent.
DROPPED_LATE = "dropped:late"
# A reply to a number that opted out before it was sent; also what its number and body become.
ERASED = "erased"


@dataclass(frozen=True)
class OutboundSms:
    """One reply in the outbox: sent after the commit, recorded once Twilio has it."""

    to: str
    from_: str
    body: str
    # An opt-out confirmation's deadline (epoch seconds): sent before it or never (recorded as
    # `dropped:late`), at most once, its number out of the outbox before it leaves.
    send_by: float | None = None


@dataclass(frozen=True)
class ReplyId:
    """Which reply a send is: the message record's key and the reply's index in its outbox.
    Twilio's status callbacks for the send carry it back (game_store/delivery_status.py)."""

    key: str
    index: int


@dataclass(frozen=True)
class Claim:
    """We own the in-progress idempotency record for `key` under `attempt_id`."""

    key: str
    attempt_id: str


@dataclass(frozen=True)
class CompletedRecord:
    """The message's effect is committed; `delivered` maps outbox index -> Twilio SID or refusal.

    Once every reply is delivered or refused, the stored record drops the outbox (numbers and
    bodies): it is read back with an empty `outbox` and nothing left to send.
    """

    key: str
    outbox: tuple[OutboundSms, ...]
    delivered: Mapping[int, str] = field(default_factory=dict)
    lease_expires_at: float = 0.0
    recipients: tuple[str, ...] = ()  # contact ids of the recipients, once the outbox is dropped
    # When the first attempt began sending (the commit): every earlier send of a reply is later.
    completed_at: float | None = None
    # Outbox index -> its recipient's contact id, once the outbox is dropped: which SID went where.
    sent_to: Mapping[int, str] = field(default_factory=dict)

    def undelivered(self) -> list[int]:
        return [index for index in range(len(self.outbox)) if index not in self.delivered]


@dataclass(frozen=True)
class LockedPlayer:
    """A player record we hold the lease on, as read in the same request that took the lock.

    `player` is None when the phone has no player (the lock created a bare row). `budget` is the
    phone's reply budget as stored: on its player record, or, when it has none, on its contact
    record (keyed by a keyed hash of the number, so it survives an opt-out without the number).
    """

    phone: str
    lock_id: str
    expires_at: float
    player: Player | None
    budget: ReplyBudget | None = None
    # For a shared record's key (a leaderboard or lobby shard): the record as locked, empty if it
    # was missing.
    shared: SharedRecord | None = None
    # Whether the phone was sent the opt-in confirmation and has not opted out since: a player
    # record says so; a phone without one, its contact record's marker.
    opted_in: bool = True


class GameStore(Protocol):
    """Up to the commit: the claim, the lock-free reads, the leases, and the one transaction."""

    def claim(self, key: str, attempt_id: str, now: float) -> Claim | CompletedRecord:
        """Claim the message (or learn it is done). Raises ClaimHeldElsewhere if a live attempt has it."""

    def abandon(self, claim: Claim) -> None:
        """Give up an in-progress claim so a retry need not wait for it to expire."""

    def nickname_holder(self, nickname: str) -> NicknameHolder | None:
        """Whose the nickname (its look-alike key) is, and their spelling of it; None if free."""

    def get_player(self, phone: str) -> Player | None: ...

    def get_players(self, phones: Sequence[str]) -> dict[str, Player]: ...

    def get_shared(self, keys: Sequence[str]) -> Mapping[str, SharedRecord]:
        """Shared records read without a lock, in one request, by key (empty if never written)."""

    def lock(self, phone: str, lock_id: str, now: float, *, player_only: bool = False) -> LockedPlayer:
        """Take the phone's lease (taking over an expired one). Raises LockContended; with
        `player_only`, StaleRead if the phone has no player record (none is created). A shared
        record's key (`game.shared_record`) is locked the same way, created if missing."""

    def release(self, locked: LockedPlayer) -> None: ...

    def commit(
        self,
        claim: Claim,
        locked: Sequence[LockedPlayer],
        decision: Decision,
        outbox: Sequence[OutboundSms],
        budgets: Mapping[str, ReplyBudget],
        now: float,
    ) -> CompletedRecord:
        """Write the whole effect, release the locks and complete the claim, atomically.

        `budgets` are the locked phones' reply budgets after this message's replies.

        Raises LockLost or ClaimLost if a lease or the claim is no longer ours, StaleRead if a
        nickname changed hands since it was read.
        """


class OutboxStore(Protocol):
    """After the commit: a completed record's outbox, until every reply has its fate."""

    def lease(self, record: CompletedRecord, attempt_id: str, now: float) -> CompletedRecord | None:
        """Take the right to send the record's undelivered replies and return it as it is now;
        None if a live attempt has that right."""

    def release(self, key: str, attempt_id: str) -> None:
        """Give the outbox lease back early (after a transient send failure)."""

    def record_delivery(self, record: CompletedRecord, index: int, outcome: str) -> None:
        """Record one reply's fate; the last one also drops the outbox from the stored record and
        the record from its recipients' pending replies."""

    def finish(self, record: CompletedRecord) -> None:
        """For a record with nothing left to send: drop its outbox if it still has one, and take
        it off its recipients' pending replies (idempotent)."""

    def withhold_number(self, key: str, index: int, phone: str, fate: str) -> bool:
        """Record an opt-out confirmation's fate (`sending`, before it is sent, or a drop) and take
        its number and text out of the outbox at once: no redelivery sends it again. False if
        the entry no longer holds the number (a later opt-out erased it): send nothing."""

    def restore_number(self, key: str, index: int, sms: OutboundSms) -> None:
        """Undo `withhold_number` when Twilio certainly did not take it (a transient refusal)."""

    def erase_number(self, phone: str) -> None:
        """Remove the number from every outbox still waiting to send to it (marked erased, never
        sent), for an opt-out. The caller holds the phone's lock."""

    def others_sending_to(self, phone: str, key: str) -> OtherSends | None:
        """What every record but `key` sent to `phone`; None if that cannot be known now."""


class SmsSender(Protocol):
    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        """Send and return Twilio's message SID. `reply` names the reply, for status callbacks.

        Raises SmsPermanentlyRefused (never retry) or SmsTemporarilyFailed (retry later).
        """


@dataclass(frozen=True)
class OtherSends:
    """What the other records sent to one number, read after Twilio's list of messages to it:
    the SIDs they recorded (pending or finished) and the bodies of their replies to it that are
    not recorded yet and so may be in the list under a SID nobody holds."""

    sids: frozenset[str]
    unrecorded_bodies: frozenset[str]


@dataclass(frozen=True)
class SentSms:
    """One message in Twilio's Messages list, as far as finding a reply again needs it."""

    sid: str
    to: str
    from_: str | None
    body: str
    direction: str
    created_at: float  # Twilio's `date_created`, epoch seconds (whole seconds: RFC 2822)
    messaging_service_sid: str | None = None  # sent through a Messaging Service: it chose `from_`


class SentSmsLog(Protocol):
    def sent_to(self, to: str, limit: int) -> list[SentSms]:
        """Twilio's latest messages to `to`, newest first, at most `limit` (one request).

        Raises SmsTemporarilyFailed (the list cannot be read now) or ConfigurationProblem.
        """
