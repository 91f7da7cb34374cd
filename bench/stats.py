"""Small statistics and formatting helpers shared by the benchmarks."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

__all__ = ["Distribution", "distribution", "milliseconds"]


class Distribution(dict[str, float]):
    """count, median, p95, p99, max and mean of a sample (seconds in, milliseconds out)."""


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of an already sorted sample."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


def distribution(seconds: Sequence[float]) -> Distribution:
    values = sorted(seconds)
    if not values:
        return Distribution(count=0)
    return Distribution(
        count=len(values),
        median_ms=statistics.median(values) * 1000,
        p95_ms=percentile(values, 0.95) * 1000,
        p99_ms=percentile(values, 0.99) * 1000,
        max_ms=values[-1] * 1000,
        mean_ms=statistics.fmean(values) * 1000,
    )


def milliseconds(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"
