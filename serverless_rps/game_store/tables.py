"""What every part of the store shares: the three tables' names, and one item of the commit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["TableNames", "TransactItem"]


class TableNames:
    def __init__(self, game_state: str, nickname: str, idempotency: str) -> None:
        self.game_state = game_state
        self.nickname = nickname
        self.idempotency = idempotency


@dataclass(frozen=True)
class TransactItem:
    """One entry of the commit's TransactWriteItems, labelled with what it means if DynamoDB
    cancels the transaction because this item's condition was refused (None: it has no condition).

    Each record's part builds its own items, so the meaning is written beside the condition, and a
    cancellation is read back item by item (errors.cancellation_error), not by matching names."""

    request: dict[str, Any]  # {"Put": ...}, {"Update": ...} or {"Delete": ...}
    if_refused: Callable[[], Exception] | None
