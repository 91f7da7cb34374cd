"""The local stack's per-item rollback must leave moto's tables exactly as stock moto does."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from serverless_rps_local.moto_rollback import light_transaction_rollback

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

REGION = "us-east-1"


def _put(table: str, key: str, **values: str) -> dict[str, Any]:
    item = {"id": {"S": key}, **{name: {"S": value} for name, value in values.items()}}
    return {"Put": {"TableName": table, "Item": item}}


def _put_if_absent(table: str, key: str, **values: str) -> dict[str, Any]:
    put = _put(table, key, **values)
    put["Put"]["ConditionExpression"] = "attribute_not_exists(id)"
    return put


def _set_if(table: str, key: str, expected: str, new: str) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": table,
            "Key": {"id": {"S": key}},
            "UpdateExpression": "SET v = :new",
            "ConditionExpression": "v = :expected",
            "ExpressionAttributeValues": {":new": {"S": new}, ":expected": {"S": expected}},
        }
    }


def _delete(table: str, key: str) -> dict[str, Any]:
    return {"Delete": {"TableName": table, "Key": {"id": {"S": key}}}}


# Committed and cancelled transactions over two tables; each cancelled one has items before and
# after the failing condition, so a partial application would show.
TRANSACTIONS: list[list[dict[str, Any]]] = [
    [_put("players", "alice", v="1"), _put("players", "bob", v="1"), _put("names", "alice", v="x")],
    [
        _set_if("players", "alice", "1", "2"),
        _put("players", "carol", v="1"),
        _set_if("players", "bob", "9", "2"),
    ],
    [_put("names", "bob", v="y"), _put_if_absent("names", "alice", v="z")],
    [_delete("players", "bob"), _set_if("players", "alice", "1", "3")],
    [_set_if("players", "alice", "1", "3"), _delete("names", "alice"), _put("players", "dave", v="1")],
    [_put("players", "erin", v="1"), _set_if("players", "alice", "3", "4")],
]


def _play() -> tuple[list[str], dict[str, list[dict[str, Any]]]]:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    for table in ("players", "names"):
        dynamodb.create_table(
            TableName=table,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
    outcomes = []
    for items in TRANSACTIONS:
        try:
            dynamodb.transact_write_items(TransactItems=items)
            outcomes.append("committed")
        except ClientError as error:
            reasons = error.response.get("CancellationReasons", [])
            outcomes.append("cancelled: " + ",".join(reason["Code"] for reason in reasons))
    tables = {
        table: sorted(dynamodb.scan(TableName=table)["Items"], key=lambda item: item["id"]["S"])
        for table in ("players", "names")
    }
    return outcomes, tables


@pytest.fixture(autouse=True)
def _credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)


def _run(patch: Callable[[], contextlib.AbstractContextManager[None]]) -> Any:
    with mock_aws(), patch():
        return _play()


def test_committed_and_cancelled_transactions_leave_the_same_tables_as_stock_moto() -> None:
    stock = _run(contextlib.nullcontext)
    light = _run(light_transaction_rollback)

    assert light == stock
    outcomes, tables = light
    assert outcomes == [
        "committed",
        "cancelled: None,None,ConditionalCheckFailed",
        "cancelled: None,ConditionalCheckFailed",
        "committed",
        "cancelled: ConditionalCheckFailed,None,None",
        "committed",
    ]
    # Nothing of a cancelled transaction survives: no carol, no dave, alice's name row intact.
    assert [item["id"]["S"] for item in tables["players"]] == ["alice", "erin"]
    assert [(item["id"]["S"], item["v"]["S"]) for item in tables["names"]] == [("alice", "x")]
    assert tables["players"][0]["v"] == {"S": "4"}


def _event(number: str, event: str, **values: str) -> dict[str, Any]:
    item = {"number": {"S": number}, "event": {"S": event}, **{name: {"S": v} for name, v in values.items()}}
    return {"Put": {"TableName": "proof", "Item": item}}


def _event_if_absent(number: str, event: str) -> dict[str, Any]:
    put = _event(number, event)
    put["Put"]["ConditionExpression"] = "attribute_not_exists(#event)"
    put["Put"]["ExpressionAttributeNames"] = {"#event": "event"}
    return put


# A table with a sort key (as the proof table has): items of one partition and of a new one,
# before and after the refused condition.
KEYED_BY_TWO: list[list[dict[str, Any]]] = [
    [_event("n1", "a", v="1"), _event("n1", "b", v="1")],
    [_event("n1", "c", v="1"), _event("n2", "a", v="1"), _event_if_absent("n1", "a")],
    [_event("n1", "a", v="2"), _event_if_absent("n1", "b")],
    [_event("n3", "a", v="1"), _event("n1", "b", v="3")],
]


def _play_keyed_by_two() -> tuple[list[str], list[dict[str, Any]]]:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    dynamodb.create_table(
        TableName="proof",
        KeySchema=[
            {"AttributeName": "number", "KeyType": "HASH"},
            {"AttributeName": "event", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "number", "AttributeType": "S"},
            {"AttributeName": "event", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    outcomes = []
    for items in KEYED_BY_TWO:
        try:
            dynamodb.transact_write_items(TransactItems=items)
            outcomes.append("committed")
        except ClientError as error:
            outcomes.append(
                "cancelled: " + ",".join(r["Code"] for r in error.response["CancellationReasons"])
            )
    items = dynamodb.scan(TableName="proof")["Items"]
    return outcomes, sorted(items, key=lambda item: (item["number"]["S"], item["event"]["S"]))


def test_a_table_with_a_sort_key_is_rolled_back_item_by_item_as_stock_moto_does() -> None:
    with mock_aws():
        stock = _play_keyed_by_two()
    with mock_aws(), light_transaction_rollback():
        light = _play_keyed_by_two()

    assert light == stock
    outcomes, items = light
    assert outcomes == [
        "committed",
        "cancelled: None,None,ConditionalCheckFailed",
        "cancelled: None,ConditionalCheckFailed",
        "committed",
    ]
    # The cancelled transactions left no n1/c, no partition n2, and n1/a as it was.
    assert [(item["number"]["S"], item["event"]["S"], item["v"]["S"]) for item in items] == [
        ("n1", "a", "1"),
        ("n1", "b", "3"),
        ("n3", "a", "1"),
    ]
