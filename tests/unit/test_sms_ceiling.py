"""The daily SMS ceiling as one execution environment knows it (sms_ceiling.py), over a fake count:
read once every CACHE_SECONDS or on a new UTC day, its own commits added meanwhile."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from serverless_rps.exceptions import CeilingReached
from serverless_rps.ports import SmsCount, SmsCounts
from serverless_rps.sms_ceiling import CACHE_SECONDS, SmsCeiling, next_midnight, utc_day

NOON = datetime(2026, 11, 21, 12, tzinfo=UTC).timestamp()
MIDNIGHT = datetime(2026, 11, 22, tzinfo=UTC).timestamp()


class FakeCounts(SmsCounts):
    """What the stack's commits counted, by day; and the reads made of it."""

    def __init__(self) -> None:
        self.sent: dict[str, int] = {}
        self.lifted: set[str] = set()
        self.reads: list[str] = []

    def sms_count(self, day: str) -> SmsCount:
        self.reads.append(day)
        return SmsCount(day, self.sent.get(day, 0), day in self.lifted)


def test_the_day_is_utc_and_ends_at_midnight_utc() -> None:
    assert utc_day(NOON) == "2026-11-21"
    assert utc_day(MIDNIGHT - 0.001) == "2026-11-21"
    assert utc_day(MIDNIGHT) == "2026-11-22"
    assert next_midnight(NOON) == next_midnight(MIDNIGHT - 1) == MIDNIGHT
    assert next_midnight(MIDNIGHT) == MIDNIGHT + 24 * 60 * 60


def test_the_count_is_read_once_every_few_seconds_and_own_commits_are_added_meanwhile() -> None:
    counts = FakeCounts()
    counts.sent["2026-11-21"] = 8
    ceiling = SmsCeiling(counts, 10)

    assert not ceiling.reached(NOON)
    ceiling.counted(2, NOON + 1)
    counts.sent["2026-11-21"] = 9  # another environment's commit: not seen yet

    assert ceiling.today(NOON + 1).sent == 10
    assert ceiling.reached(NOON + 1)
    assert counts.reads == ["2026-11-21"]
    assert ceiling.today(NOON + CACHE_SECONDS).sent == 9, "read again: the stack's count, as stored"
    assert len(counts.reads) == 2


def test_a_new_day_is_read_at_once_and_starts_afresh() -> None:
    counts = FakeCounts()
    counts.sent["2026-11-21"] = 10
    ceiling = SmsCeiling(counts, 10)
    assert ceiling.reached(MIDNIGHT - 1)

    assert not ceiling.reached(MIDNIGHT)
    assert counts.reads == ["2026-11-21", "2026-11-22"]


def test_past_the_ceiling_a_message_waits_until_midnight_and_an_opt_out_is_played() -> None:
    counts = FakeCounts()
    counts.sent["2026-11-21"] = 10
    ceiling = SmsCeiling(counts, 10)

    with pytest.raises(CeilingReached) as held:
        ceiling.past(NOON, opt_out=False)
    assert held.value.retry_after == MIDNIGHT - NOON
    assert ceiling.past(NOON, opt_out=True), "played, sending only its confirmation"


def test_a_lifted_day_is_never_past_its_ceiling() -> None:
    counts = FakeCounts()
    counts.sent["2026-11-21"] = 50
    counts.lifted.add("2026-11-21")

    assert not SmsCeiling(counts, 10).past(NOON, opt_out=False)


def test_each_environment_logs_the_operators_lift_once_a_day(caplog: pytest.LogCaptureFixture) -> None:
    counts = FakeCounts()
    counts.sent["2026-11-21"] = 12
    ceiling = SmsCeiling(counts, 10)
    assert ceiling.reached(NOON)

    counts.lifted.add("2026-11-21")
    for second in range(0, 60, int(CACHE_SECONDS)):  # read again every 5 s: logged at the first
        assert not ceiling.reached(NOON + CACHE_SECONDS + second)
    counts.lifted.add("2026-11-22")
    ceiling.reached(MIDNIGHT)

    lifts = [record for record in caplog.records if "lifted by the operator" in record.getMessage()]
    assert [(record.levelname, record.day, record.sms_sent) for record in lifts] == [  # type: ignore[attr-defined]
        ("WARNING", "2026-11-21", 12),
        ("WARNING", "2026-11-22", 0),
    ]
    assert len(counts.reads) == 14


def test_a_ceiling_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SmsCeiling(FakeCounts(), 0)
