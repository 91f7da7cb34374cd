"""moto with its parsed expressions remembered must answer every request exactly as stock moto does."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any
from unittest import mock

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from serverless_rps_local.moto_expressions import (
    STOCK_PARSE,
    expression_memory,
    install_expression_memory,
    stock_expressions,
)

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

REGION = "us-east-1"
KEY = {"id": {"S": "alice"}}


def _update(expression: str, values: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"TableName": "players", "Key": KEY, "UpdateExpression": expression, **extra}
    if values:
        request["ExpressionAttributeValues"] = values
    return request


# The same texts again and again with other values (what the memory serves from its copy), every
# kind of clause and condition, refused conditions, and requests moto rejects as invalid.
CLAIM = "SET #s = :claimed, attempt = :attempt, expires = :expires"
CLAIM_IF = "attribute_not_exists(#s) OR (#s = :claimed AND expires < :now)"
CLAIM_NAMES = {"#s": "state"}


def _claim(attempt: str, expires: str, now: str) -> dict[str, Any]:
    """Claim alice's row if unclaimed or expired: one text, one condition, the values vary."""
    values = {
        ":claimed": {"S": "claimed"},
        ":attempt": {"S": attempt},
        ":expires": {"N": expires},
        ":now": {"N": now},
    }
    return _update(CLAIM, values, ConditionExpression=CLAIM_IF, ExpressionAttributeNames=CLAIM_NAMES)


PENDING_IF = "size(pending) BETWEEN :inc AND :max AND #s IN (:states) AND NOT attribute_exists(gone)"
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    *(
        ("update_item", {**_claim(attempt, expires, now), "ReturnValues": "ALL_NEW"})
        for attempt, expires, now in [
            ("a1", "100", "50"),
            ("a2", "200", "60"),
            ("a3", "300", "150"),
            ("a3", "300", "150"),
        ]
    ),
    (
        "update_item",
        _update(
            "SET pending = list_append(if_not_exists(pending, :empty), :one)"
            " ADD sids :sid, wins :inc REMOVE attempt",
            {":empty": {"L": []}, ":one": {"L": [{"S": "m1"}]}, ":sid": {"SS": ["SM1"]}, ":inc": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        ),
    ),
    (
        "update_item",
        _update(
            "DELETE sids :sid SET wins = wins + :inc",
            {":sid": {"SS": ["SM1"]}, ":inc": {"N": "1"}, ":max": {"N": "5"}, ":states": {"S": "claimed"}},
            ConditionExpression=PENDING_IF,
            ExpressionAttributeNames=CLAIM_NAMES,
            ReturnValues="ALL_OLD",
        ),
    ),
    (
        "update_item",
        _update(
            "DELETE sids :sid SET wins = wins + :inc",
            {":sid": {"SS": ["SM1"]}, ":inc": {"N": "9"}, ":max": {"N": "5"}, ":states": {"S": "claimed"}},
            ConditionExpression=PENDING_IF,
            ExpressionAttributeNames=CLAIM_NAMES,
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        ),
    ),
    ("update_item", _update("SET wins = :w", {":w": {"N": "1"}, ":unused": {"N": "2"}})),
    ("update_item", _update("SET wins = :w", {":w": {"N": "1"}, ":unused": {"N": "2"}})),
    ("update_item", _update("SET wins = :missing", {":w": {"N": "1"}})),
    ("update_item", _update("SET = broken", {":w": {"N": "1"}})),
    ("update_item", _update("SET = broken", {":w": {"N": "1"}})),
    (
        "put_item",
        {
            "TableName": "players",
            "Item": {"id": {"S": "bob"}, "state": {"S": "idle"}},
            "ConditionExpression": "attribute_not_exists(id)",
        },
    ),
    (
        "put_item",
        {
            "TableName": "players",
            "Item": {"id": {"S": "bob"}, "state": {"S": "idle"}},
            "ConditionExpression": "attribute_not_exists(id)",
        },
    ),
    (
        "transact_write_items",
        {
            "TransactItems": [
                {"Update": _claim("t1", "400", "350")},
                {
                    "Delete": {
                        "TableName": "players",
                        "Key": {"id": {"S": "bob"}},
                        "ConditionExpression": "#s = :idle",
                        "ExpressionAttributeNames": CLAIM_NAMES,
                        "ExpressionAttributeValues": {":idle": {"S": "idle"}},
                    }
                },
            ]
        },
    ),
    (
        "transact_write_items",
        {
            "TransactItems": [
                {"Update": _claim("t2", "500", "360")},
            ]
        },
    ),
    (
        "scan",
        {
            "TableName": "players",
            "FilterExpression": "attempt = :a",
            "ExpressionAttributeValues": {":a": {"S": "t1"}},
        },
    ),
    (
        "scan",
        {
            "TableName": "players",
            "FilterExpression": "attempt = :a",
            "ExpressionAttributeValues": {":a": {"S": "a1"}},
        },
    ),
]


def _play() -> list[Any]:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    dynamodb.create_table(
        TableName="players",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    answers: list[Any] = []
    for operation, request in REQUESTS:
        try:
            answer = getattr(dynamodb, operation)(**request)
            answers.append({key: value for key, value in answer.items() if key != "ResponseMetadata"})
        except ClientError as error:
            answers.append(
                (
                    error.response["Error"]["Code"],
                    error.response["Error"].get("Message"),
                    error.response.get("Item"),
                    [reason["Code"] for reason in error.response.get("CancellationReasons", [])],
                )
            )
    answers.append(sorted(dynamodb.scan(TableName="players")["Items"], key=lambda item: item["id"]["S"]))
    return answers


@pytest.fixture(autouse=True)
def _credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)


def _run(*patches: Callable[[], contextlib.AbstractContextManager[None]]) -> list[Any]:
    with mock_aws(), contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch())
        return _play()


def test_every_answer_and_the_tables_are_the_same_as_stock_moto() -> None:
    stock = _run(stock_expressions)
    remembered = _run(stock_expressions, expression_memory)

    assert remembered == stock
    claims = [
        answer["Attributes"]["attempt"]["S"] if "Attributes" in answer else answer[0] for answer in stock[:4]
    ]
    # A remembered condition is evaluated with each request's own values: a3 claims, its repeat
    # with the same values finds the claim unexpired (300 > 150) and is refused.
    assert claims == ["a1", "ConditionalCheckFailedException", "a3", "ConditionalCheckFailedException"]
    # size(pending) is 1: BETWEEN 1 AND 5 holds, BETWEEN 9 AND 5 does not. The refusal returns
    # the item as the first update left it.
    assert stock[5]["Attributes"]["wins"] == {"N": "1"}
    code, _, item, _ = stock[6]
    assert code == "ConditionalCheckFailedException"
    assert item["wins"] == {"N": "2"}
    assert "sids" not in item
    # Invalid requests are refused every time, not only the first.
    assert stock[7] == stock[8]
    assert stock[10] == stock[11]
    assert [stock[index][0] for index in (7, 9, 10)] == ["ValidationException"] * 3
    # bob is put once; the transaction claims alice (expired at 300, now 350) and deletes bob; the
    # next finds t1's claim unexpired.
    assert stock[13][0] == "ConditionalCheckFailedException"
    assert stock[15][3] == ["ConditionalCheckFailed"]
    assert [item["id"]["S"] for item in stock[16]["Items"]] == ["alice"]
    assert stock[17]["Items"] == []
    assert [(item["id"]["S"], item["attempt"]["S"]) for item in stock[-1]] == [("alice", "t1")]


def test_each_text_is_parsed_once_however_often_it_is_sent() -> None:
    from moto.dynamodb.comparisons import ConditionExpressionParser
    from moto.dynamodb.parsing.tokens import ExpressionTokenizer  # type: ignore[attr-defined]

    def parses(*patches: Callable[[], contextlib.AbstractContextManager[None]]) -> tuple[int, int]:
        with (
            mock.patch.object(
                ExpressionTokenizer, "make_list", wraps=ExpressionTokenizer.make_list
            ) as updates,
            mock.patch.object(
                ConditionExpressionParser,
                "_lex_condition_expression",
                autospec=True,
                side_effect=ConditionExpressionParser._lex_condition_expression,
            ) as conditions,
        ):
            _run(*patches)
        return updates.call_count, conditions.call_count

    stock = parses(stock_expressions)
    remembered = parses(stock_expressions, expression_memory)

    update_texts = {request["UpdateExpression"] for _, request in REQUESTS if "UpdateExpression" in request}
    assert remembered[0] < stock[0]
    assert remembered[0] <= len(update_texts) + 2  # the claim's text, inside the transactions, once more
    assert remembered[1] < stock[1] / 2


def test_the_test_process_runs_with_the_memory_and_can_take_it_out() -> None:
    from moto.dynamodb.comparisons import ConditionExpressionParser

    installed = ConditionExpressionParser.__dict__["parse"]
    assert installed is not STOCK_PARSE
    with stock_expressions():
        assert ConditionExpressionParser.__dict__["parse"] is STOCK_PARSE
    assert ConditionExpressionParser.__dict__["parse"] is installed
    undo = install_expression_memory()
    undo()
    assert ConditionExpressionParser.__dict__["parse"] is installed
