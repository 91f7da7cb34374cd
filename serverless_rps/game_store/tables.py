"""What every part of the store shares: the three tables' names, one item of the commit, and an
update built from parts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TableNames", "TransactItem", "Update"]


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


@dataclass(frozen=True)
class Update:
    """An UpdateItem's expression as parts: SET and REMOVE clauses with the names and values they
    use. Parts are joined with `+`, never by splicing expression text, and only what a clause
    uses is declared (DynamoDB refuses a name or value no expression uses)."""

    sets: tuple[str, ...] = ()
    removes: tuple[str, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)

    def __add__(self, other: Update) -> Update:
        return Update(
            self.sets + other.sets,
            self.removes + other.removes,
            {**self.names, **other.names},
            {**self.values, **other.values},
        )

    def request(self) -> dict[str, Any]:
        """UpdateExpression and what it declares, as `update_item` takes them."""
        clauses = [f"SET {', '.join(self.sets)}"] if self.sets else []
        clauses += [f"REMOVE {', '.join(self.removes)}"] if self.removes else []
        request: dict[str, Any] = {"UpdateExpression": " ".join(clauses)}
        if self.names:
            request["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            request["ExpressionAttributeValues"] = dict(self.values)
        return request
