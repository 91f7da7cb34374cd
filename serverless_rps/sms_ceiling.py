"""The stack's daily SMS ceiling: past it, the bot sends nothing but opt-out confirmations until
midnight UTC, or until the operator lifts it for the rest of the day (`admin ceiling --lift`).

The reply budget (reply_budget.py) bounds what one phone can make the bot send; nothing bounded
many phones together. The ceiling (template.yaml's DailySmsCeiling, sized in docs/deployment.md)
bounds the day's bill whatever the number of phones.

**Counted in the commit.** Every commit adds the SMS of its outbox to one of the day's counter
items (game_store/sms_counts.py) in its own transaction: a message is counted exactly when its
replies are committed, so a crash cannot count a message that did not commit, and a redelivery of
a committed message, which never commits again, cannot count it twice. The counter is split in
shards, the message's key choosing one, so that no item is written by every commit of a crowd.

**Read from a cache.** The day's total is the sum of its shards, read in one request and kept for
`CACHE_SECONDS` by each execution environment, which adds its own commits to it meanwhile. A
message pays no request for it, but for one every few seconds per environment; in exchange the
stack may go over the ceiling by what its other environments commit in those seconds (about
2,500 SMS at 250 texts a second, docs/deployment.md), and by the replies of the message that
crosses it.

**Checked once a message is claimed** (processing.py), before any lock: past the ceiling, a
message is not played and waits on the queue (app.py sends it back as a new message until the
ceiling lifts); an opt-out is played, and sends only its confirmation. A message already committed
(a redelivery) sends its replies whatever the ceiling: they were counted when committed.

**Lifted** by the operator (`admin ceiling --lift`) for the rest of the UTC day: each execution
environment sees the lift at its next read, and logs it once (WARNING, with when it was lifted).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

from serverless_rps.exceptions import CeilingReached
from serverless_rps.observability import logger
from serverless_rps.ports import SmsCount, SmsCounts

__all__ = ["CACHE_SECONDS", "DAY_SECONDS", "SmsCeiling", "next_midnight", "utc_day"]

DAY_SECONDS = 24 * 60 * 60
# How long an execution environment trusts the day's total it read (plus its own commits since).
CACHE_SECONDS = 5.0


def utc_day(now: float) -> str:
    """The UTC day of `now` (epoch seconds), as the counter items name it: `2026-11-21`."""
    return time.strftime("%Y-%m-%d", time.gmtime(now))


def next_midnight(now: float) -> float:
    """When the day of `now` ends, midnight UTC, and its ceiling lifts by itself."""
    return (math.floor(now / DAY_SECONDS) + 1) * DAY_SECONDS


class SmsCeiling:
    """The day's count against the ceiling, as one execution environment knows it."""

    def __init__(self, counts: SmsCounts, ceiling: int, *, cache_seconds: float = CACHE_SECONDS) -> None:
        if ceiling < 1:
            raise ValueError(f"the daily SMS ceiling must be at least 1, not {ceiling}")
        self.ceiling = ceiling
        self._counts = counts
        self._cache_seconds = cache_seconds
        self._read: SmsCount | None = None
        self._read_at = 0.0
        self._committed_since = 0  # SMS this environment's commits counted since the read
        self._lift_logged: str | None = None  # the day whose lift this environment logged

    def today(self, now: float) -> SmsCount:
        """The day's count: read again once the cached one is older than the cache or of another day."""
        day = utc_day(now)
        read = self._read
        if read is None or read.day != day or not 0 <= now - self._read_at < self._cache_seconds:
            read = self._read = self._counts.sms_count(day)
            self._read_at = now
            self._committed_since = 0
            if read.lifted and self._lift_logged != day:
                self._log_lift(read)
        return replace(read, sent=read.sent + self._committed_since)

    def _log_lift(self, read: SmsCount) -> None:
        """The operator's lift, in the game function's log: once a day per execution environment,
        at its first read that finds it (`admin ceiling --lift` writes only the day's item)."""
        self._lift_logged = read.day
        logger.warning(
            "the daily SMS ceiling is lifted by the operator until midnight UTC",
            extra={
                "day": read.day,
                "lifted_at": read.lifted_at,
                "sms_sent": read.sent,
                "ceiling": self.ceiling,
            },
        )

    def reached(self, now: float) -> bool:
        """Whether the day's SMS reached the ceiling, and the operator did not lift it today."""
        count = self.today(now)
        return not count.lifted and count.sent >= self.ceiling

    def past(self, now: float, *, opt_out: bool) -> bool:
        """Whether a message is played past the ceiling: an opt-out is (erasure and its one
        confirmation cannot wait), and sends nothing else; any other message raises
        CeilingReached, to wait unplayed until midnight UTC or the operator's lift."""
        if not self.reached(now):
            return False
        if not opt_out:
            raise CeilingReached("the daily SMS ceiling is reached", retry_after=next_midnight(now) - now)
        return True

    def counted(self, sms: int, now: float) -> None:
        """This environment committed `sms` SMS at `now` (its commit counted them): the cached
        total grows with them until the next read."""
        if self._read is not None and self._read.day == utc_day(now):
            self._committed_since += sms
