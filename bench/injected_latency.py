"""A fixed network latency for DynamoDB requests, waited out in a botocore event hook."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["InjectedLatency"]


@dataclass
class InjectedLatency:
    """Holds every DynamoDB request of a client for `seconds` before it leaves.

    DynamoDB Local answers on the loopback in about a millisecond, AWS's DynamoDB in several from
    a Lambda. The wait is a sleep, not a number added to a sum: a worker holding a lock keeps it
    for the round trips until its commit, and another waits for it, as they would on AWS, while
    the process uses no CPU (two shared cores are then not what limits a run). botocore sends
    `before-send` once per HTTP request, its own retries included, just before the request goes.
    """

    seconds: float
    sleep: Callable[[float], None] = time.sleep
    requests: int = 0

    def attach(self, dynamodb: Any) -> None:
        """Delay every request of this DynamoDB client (a client of another service: none)."""
        dynamodb.meta.events.register("before-send.dynamodb", self._wait)

    def _wait(self, **_: Any) -> None:
        self.requests += 1
        self.sleep(self.seconds)
