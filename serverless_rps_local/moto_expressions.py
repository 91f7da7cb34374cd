"""Parse each DynamoDB expression once, not on every call, so that moto answers in less CPU.

moto parses an `UpdateExpression` from its text on every `UpdateItem` and every transaction's
update, twice (once to check the request, once to apply it), and a `ConditionExpression` twice
too: the request handler parses it to check the names and values it uses, then the backend
parses it again, with the same names and values, to evaluate it. The game sends the same few
dozen expressions over and over, so the test run spent a tenth of its CPU re-reading them.

Here both parses are remembered:

- an update expression's syntax tree by its text alone, since moto's validator works on a deep
  copy of the tree and never changes it (the names and values are substituted into the copy);
- a condition by its text, names and values together, since moto substitutes the values while
  it parses. The second parse of one call, and a retry with the same values, reuse the first.

Nothing else changes: the same trees, so the same answers, the same refusals and the same errors
(a parse that raises is not remembered and raises again).
tests/local/test_moto_expressions.py plays the same requests with and without the memory and
compares every answer. The test process and the local stack's moto process install it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb.comparisons import ConditionExpressionParser
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]

__all__ = ["expression_memory", "install_expression_memory", "stock_expressions"]

# Distinct texts the game sends are a few dozen; conditions vary with their values (times, ids),
# and only the latest need remembering: the repeat comes within the same call.
UPDATE_TEXTS = 512
CONDITIONS = 256

# moto's own parsers, as imported: what `stock_expressions()` puts back.
STOCK_MAKE = UpdateExpressionParser.__dict__["make"]
STOCK_PARSE = ConditionExpressionParser.__dict__["parse"]


def _put(make: Any, parse: Any) -> Callable[[], None]:
    """Put these parsers in moto's place; returns the function that puts back what was there."""
    saved = (UpdateExpressionParser.__dict__["make"], ConditionExpressionParser.__dict__["parse"])
    UpdateExpressionParser.make = make
    ConditionExpressionParser.parse = parse  # type: ignore[method-assign]

    def restore() -> None:
        _put(*saved)

    return restore


def install_expression_memory() -> Callable[[], None]:
    """Patch moto for good (the test process, the local stack); returns the function that undoes it."""
    saved_parse = ConditionExpressionParser.__dict__["parse"]
    original_make = UpdateExpressionParser.make

    @functools.lru_cache(maxsize=UPDATE_TEXTS)
    def update_tree(text: str) -> Any:
        return original_make(text)

    @functools.lru_cache(maxsize=CONDITIONS)
    def condition(text: str, names: str, values: str) -> tuple[Any, list[str], list[str]]:
        parser = ConditionExpressionParser(text, json.loads(names), json.loads(values))
        op = saved_parse(parser)
        return op, parser.expr_attr_names_found, parser.expr_attr_values_found

    def make(cls: type, expression_str: str) -> Any:
        return update_tree(expression_str)

    def parse(self: ConditionExpressionParser) -> Any:
        try:
            names = json.dumps(self.expression_attribute_names, sort_keys=True)
            values = json.dumps(self.expression_attribute_values, sort_keys=True)
        except TypeError:  # not plain JSON (never from a request's body): parse as moto does
            return saved_parse(self)
        op, names_found, values_found = condition(self.condition_expression or "", names, values)
        self.expr_attr_names_found.extend(names_found)
        self.expr_attr_values_found.extend(values_found)
        return op

    return _put(classmethod(make), parse)


@contextmanager
def expression_memory() -> Iterator[None]:
    """The same, for the length of a `with` block (the test that compares it with stock moto)."""
    undo = install_expression_memory()
    try:
        yield
    finally:
        undo()


@contextmanager
def stock_expressions() -> Iterator[None]:
    """moto's own parsers for the length of a `with` block, whatever is installed around it."""
    restore = _put(STOCK_MAKE, STOCK_PARSE)
    try:
        yield
    finally:
        restore()
