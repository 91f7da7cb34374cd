"""Crash injection: kill an invocation right after its k-th external call.

A Lambda that dies runs no `except` and no `finally`. `Crash` is a BaseException, so no
`except Exception` in the engine catches it; and once an invocation is dead, every further
external call it attempts raises `Crash` before reaching DynamoDB or Twilio, so the clean-up in
its `finally` blocks has no effect, exactly as if it never ran.
"""

from __future__ import annotations

from typing import Any

from serverless_rps.ports import OutboundSms, ReplyId


class Crash(BaseException):
    """The invocation died here (timeout, out of memory, host lost)."""


class CrashInjector:
    def __init__(self, dynamodb: Any, sender: Any, crash_after: int | None) -> None:
        self.calls: list[str] = []
        self.crash_after = crash_after
        self.dead = False
        self._dynamodb = dynamodb
        self._sender = sender
        dynamodb.meta.events.register("before-call.dynamodb", self._before_call)
        dynamodb.meta.events.register("after-call.dynamodb", self._after_call)

    def detach(self) -> None:
        self._dynamodb.meta.events.unregister("before-call.dynamodb", self._before_call)
        self._dynamodb.meta.events.unregister("after-call.dynamodb", self._after_call)

    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        """Stands in front of the SMS port, counting sends as external calls."""
        self._check_alive()
        sid: str = self._sender.send(message, reply)
        self._count(f"Send to {message.to}")
        return sid

    def _before_call(self, **kwargs: Any) -> None:
        self._check_alive()

    def _after_call(self, **kwargs: Any) -> None:
        self._count(kwargs["model"].name)

    def _check_alive(self) -> None:
        if self.dead:
            raise Crash("a dead invocation cannot make calls")

    def _count(self, name: str) -> None:
        self.calls.append(name)
        if self.crash_after is not None and len(self.calls) == self.crash_after:
            self.dead = True
            raise Crash(f"killed after call {len(self.calls)}: {name}")
