"""`admin ceiling`: today's SMS (UTC), as the commits counted them, against the daily ceiling
(docs/protocol.md, "A bill with a ceiling")."""

from __future__ import annotations

import time
from typing import Any

from serverless_rps.ports import SmsCount
from serverless_rps.sms_ceiling import next_midnight

__all__ = ["report"]

_STATES = {
    "open": "the bot answers every text",
    "reached": "the bot answers only opt-outs; other texts wait on the queue until midnight UTC or a lift",
    "lifted": "lifted by an operator for the rest of the day: the bot answers every text",
}


def report(count: SmsCount, ceiling: int, now: float) -> dict[str, Any]:
    """The day's count read at `now` against `ceiling`: its state, what that means, when it resets."""
    state = "lifted" if count.lifted else "reached" if count.sent >= ceiling else "open"
    return {
        "day": count.day,
        "sms_sent": count.sent,
        "ceiling": ceiling,
        "state": state,
        "meaning": _STATES[state],
        # As the operator reads a moment: `2026-11-21T14:03:09Z`.
        "lifted_at": None
        if count.lifted_at is None
        else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(count.lifted_at)),
        "resets_in_seconds": round(next_midnight(now) - now),
    }
