"""Count DynamoDB requests and the capacity units they would consume on AWS, at the botocore level.

The engine is observed, never changed: hooks on a client's event system see every request the
store makes. `ReturnConsumedCapacity=TOTAL` is added to each request so the request shape is the
one that would report capacity on AWS, but moto answers with constants (1.0 per single-item
request, nothing for transactions), so the units in the report are computed here from the
documented on-demand rules and the item sizes read back from the tables:

* strongly consistent read: 1 RRU per 4 KB of item (rounded up per item; 1 even if the item is absent)
* write (Put/Update/Delete): 1 WRU per 1 KB of the larger of the item before and after
  (a write whose condition fails still consumes at least 1 WRU)
* transactional write: 2 WRU per 1 KB for each item in the transaction

https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

__all__ = ["CapacityMeter", "Tally", "attribute_size", "consumed_units", "item_size", "touched_items"]

_KEYS: dict[str, tuple[str, ...]] = {
    "rps-game-state": ("phone_number",),
    "rps-nicknames": ("nickname",),
    "rps-idempotency": ("messageId",),
    "rps-opt-out-proof": ("number", "event"),
}
_SUPPORTS_CONSUMED_CAPACITY = {
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactWriteItems",
    "TransactGetItems",
    "Query",
    "Scan",
}


def attribute_size(value: dict[str, Any]) -> int:
    """Bytes one DynamoDB attribute value takes, by the documented item-size rules."""
    (kind, content), *_ = value.items()
    if kind == "S":
        return len(content.encode("utf-8"))
    if kind == "N":
        digits = str(Decimal(content).normalize()).lstrip("-").replace(".", "").lstrip("0") or "0"
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(content)
    if kind in {"BOOL", "NULL"}:
        return 1
    if kind == "M":
        return 3 + sum(len(name.encode()) + attribute_size(item) + 1 for name, item in content.items())
    if kind == "L":
        return 3 + sum(attribute_size(item) + 1 for item in content)
    if kind in {"SS", "NS", "BS"}:
        return sum(attribute_size({kind[0]: element}) for element in content)
    raise ValueError(f"unknown attribute type {kind}")


def item_size(item: dict[str, Any] | None) -> int:
    if not item:
        return 0
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def _read_units(size: int) -> float:
    return float(max(1, math.ceil(size / 4096)))


def _write_units(size: int) -> float:
    return float(max(1, math.ceil(size / 1024)))


def consumed_units(operation: str, sizes: list[tuple[int, int]], *, consistent: bool) -> tuple[float, float]:
    """Read and write units one request consumes, by the rules above, from the size of each item
    it touches before and after it (a failed request: the same size twice)."""
    read_units = write_units = 0.0
    for before, after in sizes:
        if operation in {"GetItem", "BatchGetItem"}:
            read_units += _read_units(before) * (1.0 if consistent else 0.5)
        elif operation == "TransactWriteItems":
            write_units += 2 * _write_units(max(before, after))
        else:
            write_units += _write_units(max(before, after))
    return read_units, write_units


@dataclass
class Tally:
    """What a stretch of work asked of DynamoDB."""

    requests: Counter[str] = field(default_factory=Counter)
    read_units: float = 0.0
    write_units: float = 0.0
    moto_reported_units: float = 0.0
    seconds_in_calls: float = 0.0
    largest_item_bytes: int = 0

    @property
    def total_requests(self) -> int:
        return sum(self.requests.values())

    def summary(self) -> str:
        return ", ".join(f"{name} {count}" for name, count in sorted(self.requests.items()))


class CapacityMeter:
    """Hooks onto one DynamoDB client; `raw` is a second client (no hooks) for reading sizes."""

    def __init__(self, client: Any, raw: Any) -> None:
        self._raw = raw
        self.tally = Tally()
        self._pending: dict[int, tuple[float, list[tuple[str, dict[str, Any], int]], bool]] = {}
        events = client.meta.events
        events.register("provide-client-params.dynamodb.*", self._ask_for_capacity)
        events.register("before-parameter-build.dynamodb.*", self._before)
        events.register("after-call.dynamodb.*", self._after)

    def reset(self) -> Tally:
        done, self.tally = self.tally, Tally()
        return done

    # -- hooks -----------------------------------------------------------------------------------

    def _ask_for_capacity(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name in _SUPPORTS_CONSUMED_CAPACITY:
            params.setdefault("ReturnConsumedCapacity", "TOTAL")

    def _before(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        operation = model.name
        touched = touched_items(operation, params)
        sizes = [(table, key, item_size(self._get(table, key))) for table, key in touched]
        consistent = operation != "GetItem" or bool(params.get("ConsistentRead"))
        context["bench_start"] = time.perf_counter()
        context["bench_touched"] = (sizes, consistent)

    def _after(
        self, http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
    ) -> None:
        operation = model.name
        started = context.get("bench_start")
        if started is None:
            return
        tally = self.tally
        tally.seconds_in_calls += time.perf_counter() - started
        tally.requests[operation] += 1
        sizes, consistent = context["bench_touched"]
        failed = "Error" in parsed
        before_and_after = [
            (before, before if failed else item_size(self._get(table, key))) for table, key, before in sizes
        ]
        for before, after in before_and_after:
            tally.largest_item_bytes = max(tally.largest_item_bytes, before, after)
        read_units, write_units = consumed_units(operation, before_and_after, consistent=consistent)
        tally.read_units += read_units
        tally.write_units += write_units
        reported = parsed.get("ConsumedCapacity")
        for entry in reported if isinstance(reported, list) else [reported] if reported else []:
            tally.moto_reported_units += float(entry.get("CapacityUnits", 0))

    # -- helpers ---------------------------------------------------------------------------------

    def _get(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self._raw.get_item(TableName=table, Key=key, ConsistentRead=True).get(
            "Item"
        )
        return item


def touched_items(operation: str, params: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (table, key) of every item a request reads or writes."""
    if operation in {"GetItem", "UpdateItem", "DeleteItem"}:
        return [(params["TableName"], params["Key"])]
    if operation == "PutItem":
        return [(params["TableName"], _key_of(params["TableName"], params["Item"]))]
    if operation == "BatchGetItem":
        return [(table, key) for table, spec in params["RequestItems"].items() for key in spec["Keys"]]
    if operation == "TransactWriteItems":
        touched = []
        for entry in params["TransactItems"]:
            (_kind, spec), *_ = entry.items()
            key = spec["Key"] if "Key" in spec else _key_of(spec["TableName"], spec["Item"])
            touched.append((spec["TableName"], key))
        return touched
    return []


def _key_of(table: str, item: dict[str, Any]) -> dict[str, Any]:
    names = _KEYS.get(table) or (next(iter(item)),)
    return {name: item[name] for name in names}
