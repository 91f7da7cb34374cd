"""Without --sample, a run plays as large a share of the burst as the CPU budget allows, and
keeps the replica's MaximumConcurrency whole."""

from __future__ import annotations

import pytest

from bench.burst.__main__ import replica_share


@pytest.mark.parametrize(
    ("phones", "concurrency", "share"),
    [(2_000, 10, 1), (20_000, 10, 5), (200_000, 10, 10), (200_000, 1000, 50)],
)
def test_a_replica_is_as_small_as_the_budget_asks_with_a_whole_concurrency(
    phones: int, concurrency: int, share: int
) -> None:
    assert replica_share(phones, concurrency) == share
