"""The operator's tool at the edges of `unlock`, `erase` and `dlq list` on moto: what it tells the
operator word for word, a lease that expires the very second it looks, a stranger who registers
while their lease is released, the audit line an erasure leaves, and a dead letter's age by the
tool's own clock."""

from __future__ import annotations

import io
import json
import re
import time
from dataclasses import replace
from typing import Any

import boto3
import pytest

from serverless_rps.admin.errors import Refused
from serverless_rps.admin.operations import Operator
from serverless_rps.observability import logger
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import ALICE, BOB, REGION, TABLES
from tests.protocol.test_admin import (
    CAROL,
    _a_reply_that_could_not_be_sent,
    _admin,
    _register,
    _text,
    deployed,
    operator,
)

__all__ = ["deployed", "operator"]

NOW = 1_800_000_000.0


def test_a_phone_without_a_lease_is_told_so(operator: Operator) -> None:
    _register((ALICE, "alice"))
    assert operator.unlock(CAROL, force=False) == {"phone": "+*******0003", "result": "no lease"}
    assert operator.unlock(ALICE, force=False) == {"phone": "+*******0001", "result": "no lease"}


def test_a_live_lease_is_refused_with_how_long_it_has_left(operator: Operator) -> None:
    _register((ALICE, "alice"))
    operator.store.lock(ALICE, "live", NOW + 25 - operator.settings.lock_lease_seconds)
    operator.clock = lambda: NOW

    with pytest.raises(Refused) as refusal:
        operator.unlock(ALICE, force=False)

    assert str(refusal.value) == (
        "the lease on +*******0001 is live for 25 s more: an invocation is probably using it; wait, or use"
        " --force"
    )


def test_a_lease_expiring_the_second_the_tool_looks_is_released_without_force(operator: Operator) -> None:
    _register((ALICE, "alice"))
    operator.store.lock(ALICE, "ending", NOW - operator.settings.lock_lease_seconds)
    operator.clock = lambda: NOW
    [expiry] = [operator.reads.read_player_row(ALICE).lease_expires_at]  # type: ignore[union-attr]
    assert expiry == NOW

    assert operator.unlock(ALICE, force=False) == {"phone": "+*******0001", "result": "released"}


def test_a_stranger_who_registers_while_their_lease_is_released_keeps_it_and_the_operator_is_told(
    operator: Operator,
) -> None:
    operator.store.lock(CAROL, "dead", time.time() - 3600)
    release = operator.store.release
    dynamodb = boto3.client("dynamodb", region_name=REGION)

    def registering_meanwhile(locked: Any) -> None:
        dynamodb.update_item(
            TableName=TABLES.game_state,
            Key={"phone_number": {"S": CAROL}},
            UpdateExpression="SET player_id = :id, nickname = :name, display_name = :name",
            ExpressionAttributeValues={":id": {"S": "carol-id"}, ":name": {"S": "carol"}},
        )
        release(locked)

    operator.store.release = registering_meanwhile  # type: ignore[method-assign]

    assert operator.unlock(CAROL, force=False) == {
        "phone": "+*******0003",
        "result": "not released: it changed meanwhile",
    }


def test_an_erasure_is_audited_as_the_opt_out_it_is(
    operator: Operator, monkeypatch: pytest.MonkeyPatch
) -> None:
    _register((ALICE, "alice"))
    output = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", output)

    result = operator.erase(ALICE)

    assert (result["phone"], result["result"]) == ("+*******0001", "processed")
    assert re.fullmatch(r"erasure-request-[0-9a-f]{32}", result["request"]), (
        "an id the audit can be searched by"
    )
    [audit] = [line for line in map(json.loads, output.getvalue().splitlines()) if line["message"] == "audit"]
    assert (audit["decision"], audit["rule"], audit["confirm"], audit["sender"]) == (
        "opt-out",
        "advanced-opt-out",
        False,
        "+*******0001",
    )


def test_a_dead_letters_age_is_by_the_tools_clock(operator: Operator, deployed: Any) -> None:
    deployed.send_message(QueueUrl=operator.settings.dead_letter_queue_url, MessageBody="{}")
    operator.clock = lambda: time.time() + 3600

    [row] = operator.dead_letters()

    assert row["age_seconds"] == 3600


def test_status_counts_the_queue_and_takes_the_oldest_messages_age_from_its_latest_minute(
    operator: Operator, deployed: Any
) -> None:
    # Named as CloudFormation names the stack's queue: its random suffix may end with any letter.
    name = "rps-IncomingQueue-Q1X"
    queue = deployed.create_queue(QueueName=name)["QueueUrl"]
    operator.settings = replace(operator.settings, incoming_queue_url=queue)
    for body in ("{}", "[]"):
        deployed.send_message(QueueUrl=queue, MessageBody=body)
    deployed.receive_message(QueueUrl=queue, MaxNumberOfMessages=1, VisibilityTimeout=60)
    cloudwatch = boto3.client("cloudwatch", region_name=REGION)
    now = time.time()
    for minutes_ago, age in ((5, 40.0), (2, 12.0)):
        cloudwatch.put_metric_data(
            Namespace="AWS/SQS",
            MetricData=[
                {
                    "MetricName": "ApproximateAgeOfOldestMessage",
                    "Dimensions": [{"Name": "QueueName", "Value": name}],
                    "Timestamp": now - 60 * minutes_ago,
                    "Value": age,
                }
            ],
        )
    cloudwatch.put_metric_data(
        Namespace="AWS/SQS",
        MetricData=[
            {
                "MetricName": "ApproximateAgeOfOldestMessage",
                "Dimensions": [{"Name": "QueueName", "Value": "another-stacks-queue"}],
                "Timestamp": now - 60,
                "Value": 99.0,
            }
        ],
    )
    asked: list[dict[str, Any]] = []
    operator.cloudwatch.meta.events.register(
        "provide-client-params.cloudwatch.GetMetricStatistics", lambda params, **_: asked.append(params)
    )

    status = operator.status()

    assert status["incoming_queue"] == {"visible": 1, "in_flight": 1}
    assert status["oldest_message_age_seconds"] == 12.0
    [request] = asked
    assert request["Period"] % 60 == 0, "CloudWatch refuses a period that is not a multiple of 60 s"


def test_resend_all_takes_a_reply_that_failed_this_very_second(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    sid = _a_reply_that_could_not_be_sent(twilio)
    [message] = [m for m in operator.reads.scan_messages() if m.record is not None and m.record.undelivered()]
    committed_at = message.ttl - operator.settings.completed_record_seconds
    operator.clock = lambda: committed_at + 0.4

    status, output = _admin(operator, "--yes", "outbox", "resend", "--all")

    assert (status, json.loads(output)) == (0, [{"key": sid, "result": "resent", "was_missing": 2}])


def test_status_names_each_claim_and_lease_past_expiry_with_how_long_ago(operator: Operator) -> None:
    expiry, lease = operator.settings.in_progress_expiry_seconds, operator.settings.lock_lease_seconds
    operator.store.claim("SM" + "d" * 32, "dead", NOW - expiry - 100)
    operator.store.claim("SM" + "e" * 32, "ending", NOW - expiry)  # runs out this very second
    operator.store.lock(CAROL, "dead", NOW - lease - 50)
    operator.store.lock(ALICE, "ending", NOW - lease)  # runs out this very second
    operator.clock = lambda: NOW

    status = operator.status()

    assert status["claims_stuck_in_progress"] == [{"key": "SM" + "d" * 32, "expired_seconds_ago": 100}]
    assert status["leases_past_expiry"] == [{"phone": "+*******0003", "expired_seconds_ago": 50}]


def test_outbox_pending_and_status_list_the_reply_waiting_longest_first(
    operator: Operator, twilio: LocalTwilioApi, clock: Any
) -> None:
    _register((ALICE, "alice"), (BOB, "bob"))
    twilio.fail_next(1, status=500)
    assert _text(("SM" + "c" * 32, ALICE, "rock bob"))["batchItemFailures"]
    clock.tick(120)
    twilio.fail_next(1, status=500)
    assert _text(("SM" + "f" * 32, BOB, "score"))["batchItemFailures"]
    operator.clock = time.time  # the frozen clock, as the game's

    rows = operator.pending_outboxes()

    oldest, newest = ("SM" + "c" * 32, 120), ("SM" + "f" * 32, 0)
    assert [(row["key"], row["age_seconds"]) for row in rows] == [oldest, newest]
    status = operator.status()
    assert [(row["key"], row["age_seconds"]) for row in status["replies_not_sent"]] == [oldest, newest]
    assert status["oldest_unsent_age_seconds"] == 120


def test_player_shows_what_the_operator_asks_about_a_phone(
    operator: Operator, twilio: LocalTwilioApi, clock: Any
) -> None:
    _register((ALICE, "alice"), (BOB, "bob"))
    clock.tick(50)
    throw, help_ = "SM" + "c" * 32, "SM" + "9" * 32
    assert _text((throw, ALICE, "rock bob")) == {"batchItemFailures": []}
    assert _text((help_, CAROL, "help")) == {"batchItemFailures": []}
    clock.tick(100)
    operator.store.claim("SM" + "d" * 32, "in-flight", time.time())  # a message with no record yet
    operator.store.lock(ALICE, "live", time.time() - 5)
    operator.store.lock(BOB, "dead", time.time() - operator.settings.lock_lease_seconds - 75)
    operator.clock = time.time  # the frozen clock, as the game's
    score = {"wins": 0, "losses": 0, "ties": 0, "streak": 0}
    week = 7 * 24 * 3600 - 100

    def messages(registration: str) -> list[dict[str, Any]]:
        delivered = {"replies": "delivered", "delivery": "2 accepted"}
        return [
            {"key": throw, "age_seconds": 100, **delivered},
            {"key": registration, "age_seconds": 150, **delivered},
        ]

    assert operator.player(ALICE) == {
        "phone": ALICE,
        "registered": True,
        "nickname": "alice",
        "score": score,
        "waiting_on": [{"opponent": "bob", "move": "rock", "expires_in_seconds": week}],
        "challenged_by": [],
        "lease": {"state": "live", "expires_in_seconds": 20},
        "reply_budget": {"level": 1.0, "notified": False},
        "replies_not_sent": [],
        "recent_messages": messages("SM" + "alice".rjust(32, "0")),
    }
    bob = operator.player(BOB)
    assert (bob["waiting_on"], bob["challenged_by"]) == (
        [],
        [{"challenger": "alice", "expires_in_seconds": week}],
    )
    assert bob["lease"] == {"state": "expired", "expires_in_seconds": -75}
    assert bob["recent_messages"] == messages("SM" + "bob".rjust(32, "0"))
    assert operator.player(CAROL) == {
        "phone": CAROL,
        "registered": False,
        "replies_not_sent": [],
        "recent_messages": [
            {"key": help_, "age_seconds": 100, "replies": "delivered", "delivery": "3 accepted"}
        ],
    }
    operator.unlock(ALICE, force=True)
    assert operator.player(ALICE)["lease"] is None
    operator.store.lock(ALICE, "ending", time.time() - operator.settings.lock_lease_seconds)
    assert operator.player(ALICE)["lease"] == {"state": "expired", "expires_in_seconds": 0}
    operator.store.lock(CAROL, "bare", time.time())  # a stranger's row, only a lease
    carol = operator.player(CAROL)
    assert (carol["registered"], carol["nickname"], carol["score"], carol["waiting_on"]) == (
        False,
        None,
        None,
        [],
    )
    assert carol["lease"] == {"state": "live", "expires_in_seconds": operator.settings.lock_lease_seconds}
    with pytest.raises(Refused) as refusal:
        operator.player("+15550000009")
    assert str(refusal.value) == "no player and no message of +15550000009 (erased, or never texted the game)"


def test_resend_names_every_unknown_key_and_sends_the_rest_when_one_is_busy(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    busy = _a_reply_that_could_not_be_sent(twilio)
    twilio.fail_next(1, status=500)
    free = "SM" + "f" * 32
    assert _text((free, BOB, "score"))["batchItemFailures"]
    record = operator.reads.read_completed(busy)
    assert record is not None
    assert operator.store.outboxes.lease(record, "a-live-attempt", time.time()) is not None

    rows = {row["key"]: row for row in operator.pending_outboxes()}
    assert (rows[busy]["lease"], rows[free]["lease"]) == ("live", "free")

    with pytest.raises(Refused) as refusal:
        operator.resend([busy, "SM-unknown-2", "SM-unknown-1"])
    assert str(refusal.value) == (
        "no completed record with the key SM-unknown-2, SM-unknown-1; nothing sent (`outbox pending` shows"
        " the keys)"
    )

    [not_now, sent] = operator.resend([busy, free])
    assert not_now["key"] == busy
    assert not_now["result"].startswith("not sent now: ")
    assert sent == {"key": free, "result": "resent", "was_missing": 1}


def test_an_outbox_lease_ending_the_second_the_tool_looks_is_free(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    sid = _a_reply_that_could_not_be_sent(twilio)
    record = operator.reads.read_completed(sid)
    assert record is not None
    leased = operator.store.outboxes.lease(record, "an-attempt", time.time())
    assert leased is not None
    operator.clock = lambda: leased.lease_expires_at

    [row] = operator.pending_outboxes()

    assert row["lease"] == "free"


def test_an_opponent_whose_record_is_gone_is_shown_by_masked_number(operator: Operator) -> None:
    _register((ALICE, "alice"), (BOB, "bob"))
    assert _text(("SM" + "c" * 32, ALICE, "rock bob")) == {"batchItemFailures": []}
    boto3.client("dynamodb", region_name=REGION).delete_item(
        TableName=TABLES.game_state, Key={"phone_number": {"S": BOB}}
    )

    assert [game["opponent"] for game in operator.player(ALICE)["waiting_on"]] == ["+*******0002"]


def test_a_message_still_in_progress_hides_none_of_a_phones_messages(operator: Operator) -> None:
    operator.store.claim("SM" + "0" * 32, "in-flight", time.time())  # first in the table: no record yet
    _register((ALICE, "alice"))

    assert [row["key"] for row in operator.player(ALICE)["recent_messages"]] == [
        "SM" + "alice".rjust(32, "0")
    ]
