"""Integration tests talk to a real account: undo the fake credentials of tests/conftest.py."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _aws_credentials() -> None:
    """Overrides the root fixture of the same name: keep the caller's real AWS credentials."""
