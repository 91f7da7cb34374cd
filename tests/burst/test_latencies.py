"""Latencies are drawn from the cited distributions, and the function's CPU scales with its memory."""

from __future__ import annotations

import random
import statistics

import pytest

from bench.burst.latencies import DYNAMODB_SINGLE, DYNAMODB_TRANSACTION, Latencies, Quantiles


def test_draws_follow_the_quantiles_they_are_given() -> None:
    chance = random.Random(1)
    draws = sorted(DYNAMODB_SINGLE.draw(chance) for _ in range(20_000))

    assert statistics.median(draws) == pytest.approx(0.00755, rel=0.02)
    assert draws[int(0.95 * len(draws))] == pytest.approx(0.0132, rel=0.02)
    assert draws[0] >= 0.00547
    assert draws[-1] <= 0.029


def test_quantiles_must_cover_every_probability_in_order() -> None:
    with pytest.raises(ValueError, match="from probability 0 to 1"):
        Quantiles(((0.1, 0.001), (1.0, 0.002)), "starts above 0")


def test_a_transaction_takes_the_transaction_distribution_and_a_read_the_single_item_one() -> None:
    latencies = Latencies(random.Random(2), memory_mb=1769)
    transactions = [latencies.dynamodb("TransactWriteItems") for _ in range(500)]
    reads = [latencies.dynamodb("GetItem") for _ in range(500)]

    assert min(transactions) >= DYNAMODB_TRANSACTION.quantile(0)
    assert statistics.median(reads) == pytest.approx(DYNAMODB_SINGLE.quantile(0.5), rel=0.05)


def test_the_functions_cpu_takes_longer_the_less_memory_it_has() -> None:
    small, large = Latencies(random.Random(3), memory_mb=256), Latencies(random.Random(3), memory_mb=1769)

    assert small.engine() == pytest.approx(large.engine() * 1769 / 256)


def test_twilio_posts_scale_with_the_latency_factor() -> None:
    half, double = (Latencies(random.Random(4), 1769, twilio_factor) for twilio_factor in (0.5, 2.0))
    cpu = half.compute.twilio_sdk_per_post

    assert double.twilio() - cpu == pytest.approx(4 * (half.twilio() - cpu))
