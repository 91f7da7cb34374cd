"""bench/injected_latency.py: the contention benchmark's latency is waited before each DynamoDB
request leaves, so a worker holding a lock holds it across the wait."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from bench.injected_latency import InjectedLatency
from serverless_rps_local.in_process import REGION

TABLE = "latency-probe"


@pytest.fixture
def session() -> Iterator[boto3.session.Session]:
    with mock_aws():
        session = boto3.session.Session(region_name=REGION)
        session.client("dynamodb").create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        yield session


def _item(dynamodb: Any, key: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = dynamodb.get_item(TableName=TABLE, Key={"id": {"S": key}}).get("Item")
    return item


def test_a_request_reaches_dynamodb_only_once_its_wait_is_over(session: boto3.session.Session) -> None:
    waiting, release = threading.Event(), threading.Event()

    def sleep(seconds: float) -> None:
        waiting.set()
        release.wait(timeout=30)

    delayed, observer = session.client("dynamodb"), session.client("dynamodb")
    InjectedLatency(0.010, sleep=sleep).attach(delayed)
    put = threading.Thread(
        target=lambda: delayed.put_item(TableName=TABLE, Item={"id": {"S": "held"}}), daemon=True
    )
    put.start()

    assert waiting.wait(timeout=30)
    assert _item(observer, "held") is None  # still asleep in the hook: not sent yet
    release.set()
    put.join(timeout=30)
    assert _item(observer, "held") == {"id": {"S": "held"}}


def test_every_dynamodb_request_waits_the_latency_once(session: boto3.session.Session) -> None:
    waits: list[float] = []
    dynamodb = session.client("dynamodb")
    latency = InjectedLatency(0.010, sleep=waits.append)
    latency.attach(dynamodb)

    dynamodb.put_item(TableName=TABLE, Item={"id": {"S": "a"}})
    _item(dynamodb, "a")
    with pytest.raises(dynamodb.exceptions.ConditionalCheckFailedException):
        dynamodb.put_item(
            TableName=TABLE, Item={"id": {"S": "a"}}, ConditionExpression="attribute_not_exists(id)"
        )

    assert waits == [0.010, 0.010, 0.010]
    assert latency.requests == 3


def test_other_clients_and_services_do_not_wait(session: boto3.session.Session) -> None:
    waits: list[float] = []
    InjectedLatency(0.010, sleep=waits.append).attach(session.client("dynamodb"))

    _item(session.client("dynamodb"), "a")
    session.client("sqs").list_queues()

    assert waits == []


def test_the_wait_is_a_sleep_of_the_process_not_a_sum() -> None:
    assert InjectedLatency(0.010).sleep is time.sleep
