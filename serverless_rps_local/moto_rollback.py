"""Per-item rollback for moto's TransactWriteItems, so moto's cost does not grow with the tables.

moto snapshots every table a transaction touches with `copy.deepcopy` so it can roll back a
cancelled transaction. That makes each transaction O(table size): on the scripted game it grows
from ~20 ms to ~300 ms as the idempotency table fills, and a long session's server grows by
gigabytes. DynamoDB has no such cost. Here the snapshot covers only the items the transaction
names, and a cancelled transaction restores just those; behaviour is otherwise moto's own.

Sound only where requests are served one at a time (moto's whole-table restore would erase a
concurrent write anyway; serialized_moto explains). The local stack's moto process installs it
for good; benchmarks use `light_transaction_rollback()` and also report stock moto's figures.
Hash-key tables only, which is all the template has.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table

__all__ = ["install_light_transaction_rollback", "light_transaction_rollback"]


class _NoTableCopy:
    """Stands in for the `copy` module inside moto.dynamodb.models: tables are not copied."""

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        if isinstance(value, Table):
            return value
        return copy.deepcopy(value, memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


_Touched = tuple[Table, Any, Any]  # the table, the item's partition key and its sort key (or None)


def _touched_items(backend: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> list[_Touched]:
    touched = []
    for entry in transact_items:
        (_, operation), *_ = entry.items()
        table = backend.get_table(operation["TableName"])
        source = operation.get("Key") or operation.get("Item") or {}
        if table.hash_key_attr not in source or (
            table.range_key_attr is not None and table.range_key_attr not in source
        ):
            raise NotImplementedError("light rollback needs every item's whole key")
        sort = DynamoType(source[table.range_key_attr]) if table.range_key_attr is not None else None
        touched.append((table, DynamoType(source[table.hash_key_attr]), sort))
    return touched


def _saved(table: Table, key: Any, sort: Any) -> tuple[bool, Any]:
    """Whether the partition key had items, and the item as it is (a copy), None if absent."""
    if sort is None:
        return key in table.items, copy.deepcopy(table.items.get(key))
    return key in table.items, copy.deepcopy(table.items.get(key, {}).get(sort))


def _restore(table: Table, key: Any, sort: Any, had_key: bool, item: Any) -> None:
    if sort is None:
        if item is None:
            table.items.pop(key, None)
        else:
            table.items[key] = item
        return
    if item is not None:
        table.items.setdefault(key, {})[sort] = item
        return
    if key in table.items:
        table.items[key].pop(sort, None)
        if not had_key and not table.items[key]:
            del table.items[key]


def install_light_transaction_rollback() -> Callable[[], None]:
    """Patch moto for good (the soak's moto server process); returns the function that undoes it."""
    original = DynamoDBBackend.transact_write_items

    def transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
        touched = _touched_items(self, transact_items)
        snapshot = [(table, key, sort, *_saved(table, key, sort)) for table, key, sort in touched]
        try:
            original(self, transact_items)
        except BaseException:
            for table, key, sort, had_key, item in reversed(snapshot):
                _restore(table, key, sort, had_key, item)
            raise

    saved_copy = dynamodb_models.copy  # type: ignore[attr-defined]
    dynamodb_models.copy = _NoTableCopy()  # type: ignore[attr-defined,assignment]
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]

    def undo() -> None:
        DynamoDBBackend.transact_write_items = original  # type: ignore[method-assign]
        dynamodb_models.copy = saved_copy  # type: ignore[attr-defined]

    return undo


@contextmanager
def light_transaction_rollback() -> Iterator[None]:
    undo = install_light_transaction_rollback()
    try:
        yield
    finally:
        undo()
