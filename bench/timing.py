"""Time spent inside botocore calls, by operation, observed through client event hooks."""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

__all__ = ["CallTimer"]


class CallTimer:
    """From parameter validation to the parsed response: SDK work plus (here) moto's own work."""

    def __init__(self, client: Any) -> None:
        self.seconds = 0.0
        self.calls = 0
        self.by_operation: defaultdict[str, list[float]] = defaultdict(list)
        client.meta.events.register("before-parameter-build.*.*", self._start)
        client.meta.events.register("after-call.*.*", self._stop)

    def _start(self, context: dict[str, Any], **_: Any) -> None:
        context["call_timer_start"] = time.perf_counter()

    def _stop(self, model: Any, context: dict[str, Any], **_: Any) -> None:
        started = context.get("call_timer_start")
        if started is None:
            return
        elapsed = time.perf_counter() - started
        self.seconds += elapsed
        self.calls += 1
        self.by_operation[model.name].append(elapsed)

    def take(self) -> tuple[float, int]:
        """Seconds and calls since the last take."""
        seconds, calls = self.seconds, self.calls
        self.seconds, self.calls = 0.0, 0
        return seconds, calls
