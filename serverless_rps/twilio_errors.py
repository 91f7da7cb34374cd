"""Twilio's error codes, by what each says of a send: refused for good, our configuration, or
for now. Data, and the one rule that reads it (`classify`); the Twilio adapter (sms_gateway.py)
raises by it, and the webhook's status route counts late replies by it without loading the SDK.
Pure: standard library only.
"""

from __future__ import annotations

import enum

__all__ = [
    "EXPIRED",
    "REFUSED_FOR_GOOD",
    "THROTTLED",
    "TWILIO_ERRORS",
    "TwilioFailure",
    "classify",
]


class TwilioFailure(enum.Enum):
    """What a Twilio error means for the reply, and so what we do."""

    REFUSED = "refused"  # this SMS can never be sent: record `refused:<code>`, never retry
    CONFIGURATION = "configuration"  # nothing will send until an operator acts: retry, log, alarm
    TRANSIENT = "transient"  # try again later (Retry-After when Twilio gives one)


# Twilio's error dictionary (twilio.com/docs/api/errors), each code by what it says of the send.
TWILIO_ERRORS: dict[int, TwilioFailure] = {
    # The recipient or this message, for good: another try gets the same answer.
    21211: TwilioFailure.REFUSED,  # invalid 'To' phone number
    21214: TwilioFailure.REFUSED,  # 'To' phone number cannot be reached
    21217: TwilioFailure.REFUSED,  # phone number does not appear to be valid
    21265: TwilioFailure.REFUSED,  # 'To' number cannot be a short code
    21266: TwilioFailure.REFUSED,  # 'To' and 'From' number cannot be the same
    21408: TwilioFailure.REFUSED,  # permission to send to this region is not enabled
    21608: TwilioFailure.REFUSED,  # trial account: the number is unverified
    21610: TwilioFailure.REFUSED,  # the recipient replied STOP
    21612: TwilioFailure.REFUSED,  # 'To' cannot be reached from this 'From' (no route)
    21614: TwilioFailure.REFUSED,  # 'To' is not a valid mobile number
    21617: TwilioFailure.REFUSED,  # body exceeds the 1,600-character limit
    30003: TwilioFailure.REFUSED,  # unreachable destination handset
    30004: TwilioFailure.REFUSED,  # message blocked (by the recipient or the carrier)
    30005: TwilioFailure.REFUSED,  # unknown destination handset
    30006: TwilioFailure.REFUSED,  # landline or unreachable carrier
    30007: TwilioFailure.REFUSED,  # carrier filtering: the message was flagged
    # Too late: the reply waited in Twilio's queue past its ValidityPeriod (or the sender's queue
    # overflowed). A reply that late is worse than none: recorded, never sent again (EXPIRED).
    21611: TwilioFailure.REFUSED,  # 'From' number has more than ten hours of messages queued
    30001: TwilioFailure.REFUSED,  # queue overflow: the message waited past Twilio's window
    30036: TwilioFailure.REFUSED,  # the message's ValidityPeriod ran out in Twilio's queue
    # Our account or sender: every reply would fail the same way until an operator acts. Retried
    # (so the replies stay in the outbox for a redrive), logged as a configuration error, alarmed.
    20003: TwilioFailure.CONFIGURATION,  # authentication failed: wrong account SID or auth token
    20005: TwilioFailure.CONFIGURATION,  # account not active
    20404: TwilioFailure.CONFIGURATION,  # resource not found (the account in the URL)
    21212: TwilioFailure.CONFIGURATION,  # invalid 'From' number
    21606: TwilioFailure.CONFIGURATION,  # 'From' number cannot send SMS (or is not ours)
    21659: TwilioFailure.CONFIGURATION,  # 'From' is not a Twilio number enabled for this account
    21660: TwilioFailure.CONFIGURATION,  # mismatch between the 'From' number and the account
    21701: TwilioFailure.CONFIGURATION,  # the Messaging Service does not exist (or is not ours)
    21703: TwilioFailure.CONFIGURATION,  # the Messaging Service has no number available to send
    21704: TwilioFailure.CONFIGURATION,  # the Messaging Service contains no phone numbers
    21705: TwilioFailure.CONFIGURATION,  # the Messaging Service SID is invalid
    30002: TwilioFailure.CONFIGURATION,  # account suspended
    # Busy or briefly broken: another try later may work.
    14107: TwilioFailure.TRANSIENT,  # rate limit exceeded
    20429: TwilioFailure.TRANSIENT,  # too many requests: our account's concurrent REST requests
    20500: TwilioFailure.TRANSIENT,  # internal server error
    20503: TwilioFailure.TRANSIENT,  # service unavailable
}
REFUSED_FOR_GOOD = frozenset(code for code, kind in TWILIO_ERRORS.items() if kind is TwilioFailure.REFUSED)
# The refusals that say a reply came too late to be worth sending: counted apart (RepliesExpired)
# and alarmed, since they mean the sender's rate fell behind what the game sends.
EXPIRED = frozenset({21611, 30001, 30036})
# Our account sent too many requests at once: Twilio processed nothing, a pause and a retry do.
THROTTLED = frozenset({14107, 20429})


def classify(code: int | None, status: int) -> TwilioFailure:
    """A code we do not know is retried, never recorded as refused: a refusal would drop the reply
    for good, while a retry keeps it in the outbox and, if it never works, on the dead-letter queue
    with its alarm. 401/403 without a code are the account's credentials."""
    if code in TWILIO_ERRORS:
        return TWILIO_ERRORS[code]
    if status in {401, 403}:
        return TwilioFailure.CONFIGURATION
    return TwilioFailure.TRANSIENT
