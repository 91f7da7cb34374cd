"""Fixtures of the local stack's tests: one moto server (its own process) for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from serverless_rps_local.aws import MotoServer


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    server = MotoServer()
    yield server.start()
    server.stop()
