"""What can go wrong, one class per failure.

Business outcomes (an unknown nickname, a taken name) are *not* exceptions: they are replies.
These are the failures of the machinery, translated from SDK errors at the adapter edge.
"""

from __future__ import annotations

__all__ = [
    "ClaimHeldElsewhere",
    "ClaimLost",
    "ConfigurationProblem",
    "LockContended",
    "LockLost",
    "OutboxLeaseExpired",
    "PoisonMessage",
    "QueueUnavailable",
    "ReadsKeptChanging",
    "RetryLater",
    "SmsPermanentlyRefused",
    "SmsTemporarilyFailed",
    "StaleRead",
    "StoreUnavailable",
]


class RetryLater(Exception):
    """The message should be retried; `retry_after` seconds is a hint for its next visibility."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StoreUnavailable(RetryLater):
    """DynamoDB throttled, failed or could not be reached."""


class QueueUnavailable(RetryLater):
    """SQS throttled, failed or could not be reached."""


class LockContended(RetryLater):
    """Another live invocation holds a player's lock."""


class LockLost(RetryLater):
    """Our lock lease expired (or was taken over) before we committed: nothing was written."""


class ClaimHeldElsewhere(RetryLater):
    """Another live invocation is processing the same inbound SMS right now."""


class StaleRead(Exception):
    """A lock-free read (a nickname lookup) was overtaken before the commit; run the attempt again."""


class ReadsKeptChanging(RetryLater):
    """Every attempt's lock-free read was overtaken (a busy lobby, a name changing hands): the
    message comes back shortly, as it would for a contended lock."""


class SmsTemporarilyFailed(RetryLater):
    """Twilio could not take the SMS now (429, 5xx, network); sending it again may work.

    `maybe_sent`: the request may have reached Twilio and been accepted before the failure (a
    5xx, an answer lost to a timeout or a dropped connection), so a second send may be a second
    SMS; False when Twilio certainly did not take it (it answered 4xx, or no connection was made).
    `throttled`: Twilio answered 429 (too many concurrent requests from our account): never
    processed, safe to send again after a short pause.
    """

    def __init__(
        self,
        message: str,
        retry_after: float | None = None,
        *,
        maybe_sent: bool = False,
        throttled: bool = False,
    ) -> None:
        super().__init__(message, retry_after)
        self.maybe_sent = maybe_sent
        self.throttled = throttled


class SmsPermanentlyRefused(Exception):
    """Twilio refused the SMS for good (opted out, invalid number, ...): record it, never retry.

    `expired`: the refusal says the reply came too late to be worth sending (its ValidityPeriod
    ran out, or the sender's queue overflowed): the sender's rate fell behind the game's replies.
    """

    def __init__(self, message: str, code: int | None, *, expired: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.expired = expired


class PoisonMessage(Exception):
    """A record that can never be processed (not JSON, no From or Body): dead-letter it."""


class ClaimLost(RetryLater):
    """Our in-progress claim was taken over before we committed: nothing was written."""


class OutboxLeaseExpired(RetryLater):
    """Our right to send the replies ran out before all were sent (we were frozen or slow)."""


class ConfigurationProblem(RetryLater):
    """A resource or credential is missing or refused (no table, AccessDenied, Twilio 20003): no
    retry fixes it until an operator does. The message is kept (retried, then dead-lettered).
    Not `config.ConfigurationError`: a setting missing or malformed, found before anything runs."""
