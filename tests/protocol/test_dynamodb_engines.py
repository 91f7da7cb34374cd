"""Where moto, DynamoDB Local and DynamoDB differ, and what the protocol relies on
(docs/reliability.md, "moto, DynamoDB Local and DynamoDB", has the table).

Each test runs on the selected engine (`DYNAMODB=local` for DynamoDB Local). Where the engines
differ, the test says what each does and why; the moto branch pins a gap of moto's, so that a
moto release that closes it is noticed and the table updated.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ClientError

from serverless_rps import replies
from serverless_rps.exceptions import RetryLater
from serverless_rps.processing import Result
from serverless_rps.rules import Move
from serverless_rps_local.dynamodb_local import DynamoDbEngine
from tests.conftest import ALICE, BOB, ENGINE, LEASE_SECONDS, TABLES, Game, transient_failure

ON_MOTO = ENGINE is DynamoDbEngine.MOTO
SID = "SM" + "7" * 32


def _error_code(exc: pytest.ExceptionInfo[ClientError]) -> str:
    return str(exc.value.response["Error"]["Code"])


# -- the protocol under what only DynamoDB (and DynamoDB Local) do -----------------------------------


def test_a_commit_resent_by_the_sdk_after_it_was_applied_is_answered_once(game: Game, clock: Any) -> None:
    """The commit is applied but its answer is lost (a timeout, a 500): botocore sends the same
    request again, with the same ClientRequestToken.

    DynamoDB (and DynamoDB Local) answer the resend with success and apply nothing twice. moto
    ignores the token: the resend runs again, its fences fail, and the attempt gives up (a
    retry-later error, LockLost today) without sending; the redelivery after the outbox lease
    finds the commit and sends the replies. Either way each reply reaches its player once.
    """
    game.register((ALICE, "alice"), (BOB, "bob"))
    resent: list[int] = []

    def resend_once(attempts: int, **_: Any) -> float | None:
        if attempts == 1 and not resent:
            resent.append(attempts)
            return 0.0  # retry at once
        return None

    game.dynamodb.meta.events.register("needs-retry.dynamodb.TransactWriteItems", resend_once)
    if ON_MOTO:
        with pytest.raises(RetryLater):
            game.text(ALICE, "rock bob", sid=SID)
        clock.tick(LEASE_SECONDS + 1)
        assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT
    else:
        assert game.text(ALICE, "rock bob", sid=SID) is Result.PROCESSED
    assert resent == [1], "the commit was sent twice"
    assert game.sms.to(ALICE).count(replies.throw_waiting("bob", Move.ROCK)) == 1
    assert game.sms.to(BOB).count(replies.challenged("alice")) == 1
    assert game.text(ALICE, "rock bob", sid=SID) is Result.DUPLICATE


def test_a_transaction_conflict_is_retried_and_acts_once(game: Game) -> None:
    """DynamoDB cancels a transaction that meets another on one of its items (TransactionConflict).
    Neither moto nor DynamoDB Local does that here (each runs one transaction at a time), so the
    cancellation is injected: the message must be retried, and then act once."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    conflicts: list[str] = []

    def conflict_once(**_: Any) -> tuple[AWSResponse, dict[str, Any]] | None:
        # A response from before-call stands in for the request: neither engine sees it.
        if conflicts:
            return None
        conflicts.append("injected")
        parsed = {
            "Error": {"Code": "TransactionCanceledException", "Message": "[TransactionConflict, None, None]"},
            "CancellationReasons": [
                {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"},
                {"Code": "None"},
                {"Code": "None"},
            ],
            "ResponseMetadata": {"HTTPStatusCode": 400},
        }
        return AWSResponse("http://conflict", 400, {}, None), parsed

    game.dynamodb.meta.events.register("before-call.dynamodb.TransactWriteItems", conflict_once)
    with pytest.raises(RetryLater):
        game.text(ALICE, "rock bob", sid=SID)
    assert game.player(ALICE)["games"]["M"] == {}, "nothing of the cancelled commit was written"
    assert game.text(ALICE, "rock bob", sid=SID) is Result.PROCESSED
    assert game.sms.to(BOB).count(replies.challenged("alice")) == 1


def test_every_read_the_protocol_makes_is_strongly_consistent(game: Game) -> None:
    """DynamoDB reads are eventually consistent unless asked otherwise; moto and DynamoDB Local
    always answer with the latest write, so neither engine can catch a stale read. The protocol
    must ask for consistency on every read it decides on."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    reads: list[tuple[str, bool]] = []

    def note_get(params: dict[str, Any], **_: Any) -> None:
        reads.append(("GetItem", bool(params.get("ConsistentRead"))))

    def note_batch(params: dict[str, Any], **_: Any) -> None:
        for request in params["RequestItems"].values():
            reads.append(("BatchGetItem", bool(request.get("ConsistentRead"))))

    events = game.dynamodb.meta.events
    events.register("provide-client-params.dynamodb.GetItem", note_get)
    events.register("provide-client-params.dynamodb.BatchGetItem", note_batch)
    for sender, body in ((BOB, "rock alice"), (ALICE, "games"), (ALICE, "score"), (ALICE, "paper bob")):
        game.text(sender, body)
    game.sms.fail_next(transient_failure())  # replies to bob wait in an outbox ...
    with pytest.raises(RetryLater):
        game.text(ALICE, "rock bob")
    game.text(BOB, "stop")  # ... which his STOP reads to erase him from it
    events.unregister("provide-client-params.dynamodb.GetItem", note_get)
    events.unregister("provide-client-params.dynamodb.BatchGetItem", note_batch)
    assert {operation for operation, _ in reads} == {"GetItem", "BatchGetItem"}
    assert all(consistent for _, consistent in reads), reads


# -- the engines themselves -------------------------------------------------------------------------


def _counter_update(amount: int) -> list[dict[str, Any]]:
    return [
        {
            "Update": {
                "TableName": TABLES.idempotency,
                "Key": {"messageId": {"S": "counter"}},
                "UpdateExpression": "ADD hits :n",
                "ExpressionAttributeValues": {":n": {"N": str(amount)}},
            }
        }
    ]


def _hits(dynamodb: Any) -> int:
    item = dynamodb.get_item(TableName=TABLES.idempotency, Key={"messageId": {"S": "counter"}})["Item"]
    return int(item["hits"]["N"])


def test_a_client_request_token_makes_a_transaction_idempotent(dynamodb: Any) -> None:
    """DynamoDB: the same token with the same request within 10 minutes succeeds without acting
    again; with another request it fails with IdempotentParameterMismatch. moto ignores tokens."""
    token = uuid.uuid4().hex
    dynamodb.transact_write_items(TransactItems=_counter_update(1), ClientRequestToken=token)
    dynamodb.transact_write_items(TransactItems=_counter_update(1), ClientRequestToken=token)
    if ON_MOTO:
        assert _hits(dynamodb) == 2, "moto applied the replay"
        dynamodb.transact_write_items(TransactItems=_counter_update(5), ClientRequestToken=token)
        assert _hits(dynamodb) == 7
    else:
        assert _hits(dynamodb) == 1
        with pytest.raises(ClientError) as mismatch:
            dynamodb.transact_write_items(TransactItems=_counter_update(5), ClientRequestToken=token)
        assert _error_code(mismatch) == "IdempotentParameterMismatchException"
        assert _hits(dynamodb) == 1


def test_a_failed_condition_returns_the_item_it_failed_on(dynamodb: Any) -> None:
    """ReturnValuesOnConditionCheckFailure=ALL_OLD: the claim and the lock read the holder's record
    from the failure instead of a second request. Both engines return it, as DynamoDB does, on
    PutItem, UpdateItem and inside a transaction; and nothing when there was no item."""
    key = {"messageId": {"S": "held"}}
    held = {**key, "attempt_id": {"S": "first"}}
    dynamodb.put_item(TableName=TABLES.idempotency, Item=held)
    condition = {"ConditionExpression": "attribute_not_exists(messageId)"}

    with pytest.raises(ClientError) as put:
        dynamodb.put_item(
            TableName=TABLES.idempotency, Item=key, ReturnValuesOnConditionCheckFailure="ALL_OLD", **condition
        )
    with pytest.raises(ClientError) as update:
        dynamodb.update_item(
            TableName=TABLES.idempotency,
            Key=key,
            UpdateExpression="SET attempt_id = :me",
            ExpressionAttributeValues={":me": {"S": "second"}},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
            **condition,
        )
    with pytest.raises(ClientError) as transaction:
        dynamodb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLES.idempotency, "Item": {"messageId": {"S": "other"}}}},
                {
                    "Put": {
                        "TableName": TABLES.idempotency,
                        "Item": key,
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                        **condition,
                    }
                },
            ]
        )
    with pytest.raises(ClientError) as missing:
        dynamodb.update_item(
            TableName=TABLES.idempotency,
            Key={"messageId": {"S": "nobody"}},
            UpdateExpression="SET attempt_id = :me",
            ConditionExpression="attribute_exists(messageId)",
            ExpressionAttributeValues={":me": {"S": "second"}},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )

    assert put.value.response["Item"] == held  # type: ignore[typeddict-item]
    assert update.value.response["Item"] == held  # type: ignore[typeddict-item]
    reasons = transaction.value.response["CancellationReasons"]  # type: ignore[typeddict-item]
    assert [reason["Code"] for reason in reasons] == ["None", "ConditionalCheckFailed"]
    assert reasons[1]["Item"] == held
    assert "Item" not in missing.value.response
    no_partial = dynamodb.get_item(TableName=TABLES.idempotency, Key={"messageId": {"S": "other"}})
    assert "Item" not in no_partial, "the cancelled transaction wrote nothing"


def test_requests_dynamodb_would_refuse(dynamodb: Any) -> None:
    """DynamoDB refuses an expression over 4 KB, an expression value the expression does not use,
    and a number of more than 38 digits. DynamoDB Local refuses all three; moto accepts them, so
    only the DynamoDB Local run can show that the protocol sends none of them."""
    long_condition = " AND ".join(f"attribute_not_exists(a{n})" for n in range(200))
    requests = {
        "expression over 4 KB": {
            "Item": {"messageId": {"S": "a"}},
            "ConditionExpression": long_condition,
        },
        "unused expression value": {
            "Item": {"messageId": {"S": "b"}},
            "ConditionExpression": "attribute_not_exists(messageId)",
            "ExpressionAttributeValues": {":unused": {"S": "x"}},
        },
        "number of 39 digits": {"Item": {"messageId": {"S": "c"}, "n": {"N": "1" * 39}}},
    }
    assert len(long_condition) > 4096
    refused = {}
    for name, request in requests.items():
        try:
            dynamodb.put_item(TableName=TABLES.idempotency, **request)
            refused[name] = False
        except ClientError as exc:
            refused[name] = exc.response["Error"]["Code"] == "ValidationException"
    assert refused == dict.fromkeys(requests, not ON_MOTO)


def test_the_400_kb_item_limit(dynamodb: Any) -> None:
    """DynamoDB: an item is at most 400 KB, attribute names and values counted. DynamoDB Local
    agrees to the byte, for PutItem and for an UpdateItem that grows an item past it. moto refuses
    a put a few bytes under the limit (it counts differently) and lets an update grow an item
    past it."""
    limit = 400 * 1024
    name_bytes = len("messageId") + len("big") + len("pad")
    just_fits = {"messageId": {"S": "big"}, "pad": {"S": "x" * (limit - name_bytes)}}
    too_big = {"messageId": {"S": "big"}, "pad": {"S": "x" * (limit - name_bytes + 1)}}

    with pytest.raises(ClientError) as over:
        dynamodb.put_item(TableName=TABLES.idempotency, Item=too_big)
    assert _error_code(over) == "ValidationException"
    if ON_MOTO:
        with pytest.raises(ClientError):
            dynamodb.put_item(TableName=TABLES.idempotency, Item=just_fits)
        dynamodb.put_item(TableName=TABLES.idempotency, Item={**just_fits, "pad": {"S": "x" * 300_000}})
    else:
        dynamodb.put_item(TableName=TABLES.idempotency, Item=just_fits)
    growing = {
        "TableName": TABLES.idempotency,
        "Key": {"messageId": {"S": "big"}},
        "UpdateExpression": "SET more = :more",
        "ExpressionAttributeValues": {":more": {"S": "y" * 1000}},
    }
    if ON_MOTO:
        dynamodb.update_item(**growing)
    else:
        with pytest.raises(ClientError) as grown:
            dynamodb.update_item(**growing)
        assert _error_code(grown) == "ValidationException"


def test_batch_get_item_takes_100_keys_and_returns_the_rest_of_16_mb_as_unprocessed(dynamodb: Any) -> None:
    """Both engines do what DynamoDB documents: more than 100 keys are refused, and past 16 MB of
    items the remaining keys come back in UnprocessedKeys (the store asks again for those)."""
    keys = [{"messageId": {"S": f"m{n}"}} for n in range(101)]
    with pytest.raises(ClientError) as too_many:
        dynamodb.batch_get_item(RequestItems={TABLES.idempotency: {"Keys": keys}})
    assert _error_code(too_many) == "ValidationException"

    large = 350 * 1024
    for n in range(50):  # 50 x 350 KB: more than 16 MB
        dynamodb.put_item(
            TableName=TABLES.idempotency, Item={"messageId": {"S": f"m{n}"}, "p": {"S": "z" * large}}
        )
    response = dynamodb.batch_get_item(
        RequestItems={TABLES.idempotency: {"Keys": keys[:50], "ConsistentRead": True}}
    )
    returned = len(response["Responses"][TABLES.idempotency])
    unprocessed = response["UnprocessedKeys"][TABLES.idempotency]["Keys"]
    assert returned * large <= 16 * 1024 * 1024
    assert unprocessed
    assert returned + len(unprocessed) == 50


def test_expired_items_are_deleted_by_dynamodb_local_and_never_by_moto(dynamodb: Any) -> None:
    """DynamoDB deletes items whose TTL has passed in the background, typically within two days,
    and returns them in reads until then. DynamoDB Local deletes them within seconds (by the real
    clock, whatever a test's frozen clock says); moto never does. The protocol counts on TTL for
    cost only: claims and leases expire by their own timestamps, which every condition checks."""
    dynamodb.update_time_to_live(
        TableName=TABLES.idempotency,
        TimeToLiveSpecification={"AttributeName": "TTLEpochTimestamp", "Enabled": True},
    )
    expired = {"messageId": {"S": "old"}, "TTLEpochTimestamp": {"N": str(int(time.time()) - 3600)}}
    dynamodb.put_item(TableName=TABLES.idempotency, Item=expired)
    deadline = time.monotonic() + (1 if ON_MOTO else 15)
    while time.monotonic() < deadline:
        read = dynamodb.get_item(
            TableName=TABLES.idempotency, Key={"messageId": {"S": "old"}}, ConsistentRead=True
        )
        if "Item" not in read:
            break
        time.sleep(0.2)
    assert ("Item" in read) is ON_MOTO
