"""Twilio's status callbacks: each reply's delivery status on its record, written once, never
overtaken by a late earlier status; the SID of a send that was never recorded learnt from them, so
the redelivery does not send it again; and nothing recorded for a callback we did not sign for.

The callbacks go through the webhook's status route (`webhook.handle`) as API Gateway events,
signed with twilio's own RequestValidator, onto the real store's tables.
"""

from __future__ import annotations

import json
import time
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest
from boto3.dynamodb.types import TypeDeserializer
from twilio.request_validator import RequestValidator

from serverless_rps import webhook
from serverless_rps.admin.operations import Operator
from serverless_rps.config import GameSettings, TwilioCredentials
from serverless_rps.exceptions import SmsTemporarilyFailed
from serverless_rps.game_store.delivery_status import DeliveryStatus, DeliveryStatusRecords, statuses_from
from serverless_rps.message_queue import IncomingQueue
from serverless_rps.ports import OutboundSms, ReplyId
from serverless_rps.processing import Result
from tests.conftest import (
    ALICE,
    BOB,
    COMPLETED_SECONDS,
    LEASE_SECONDS,
    REGION,
    TABLES,
    FakeSms,
    Game,
    transient_failure,
)
from tests.protocol.crashes import Crash
from tests.protocol.test_failure_visibility import json_log_lines
from tests.unit.test_webhook import DOMAIN, TOKEN, http_event, sign

SID = "SM" + "c" * 32
STATUS_PATH = "/sms/the-secret-segment/status"


@pytest.fixture
def ingress(game: Game) -> webhook.Ingress:
    sqs = boto3.client("sqs", region_name=REGION)
    queue = sqs.create_queue(QueueName="incoming")["QueueUrl"]
    return webhook.Ingress(
        RequestValidator(TOKEN),
        IncomingQueue(sqs, queue),
        statuses=DeliveryStatusRecords(game.dynamodb, TABLES.idempotency),
    )


def callback(reply: ReplyId | None, sid: str, status: str, error_code: int | None = None) -> dict[str, Any]:
    """Twilio's status callback for one send, signed as Twilio signs it: over the whole URL."""
    assert reply is not None, "every reply is sent with its identity"
    parameters = {
        "AccountSid": "AC" + "a" * 32,
        "MessageSid": sid,
        "SmsSid": sid,
        "MessageStatus": status,
        "SmsStatus": status,
        "To": ALICE,
        "From": "+15550000000",
        "ApiVersion": "2010-04-01",
        **({"ErrorCode": str(error_code)} if error_code is not None else {}),
    }
    query = urlencode({"key": reply.key, "index": reply.index})
    url = f"https://{DOMAIN}{STATUS_PATH}?{query}"
    return http_event(
        urlencode(parameters), signature=sign(parameters, url), raw_path=STATUS_PATH, raw_query=query
    )


def post(ingress: webhook.Ingress, event: dict[str, Any]) -> int:
    return int(webhook.handle(event, ingress)["statusCode"])


def alice_says_help(game: Game) -> tuple[ReplyId, str]:
    """Alice texts HELP (her first text: the opt-in confirmation, then the answer); the answer's send."""
    assert game.text(ALICE, "help", sid=SID) is Result.PROCESSED
    reply, sid = game.sms.accepted[-1]
    assert reply is not None
    assert reply.key == SID
    return reply, sid


def delivery_metrics(output: str) -> list[tuple[str, dict[str, str]]]:
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{") and '"_aws"' in line]
    return [
        (metric["Name"], {name: line[name] for name in directive["Dimensions"][0]})
        for line in lines
        for directive in line["_aws"]["CloudWatchMetrics"]
        for metric in directive["Metrics"]
    ]


def _details(line: dict[str, Any]) -> tuple[Any, ...]:
    """What a status-route log line says the callback was about (the logger leaves out a None)."""
    return (line["key"], line["index"], line["message_sid"], line["status"], line.get("error_code"))


def callback_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The status route's log lines about what a callback changed."""
    return [line for line in lines if str(line["message"]).startswith("status callback")]


def test_every_reply_is_sent_with_its_identity_for_the_callbacks(game: Game) -> None:
    game.text(ALICE, "help", sid=SID)
    assert [reply for reply, _ in game.sms.accepted] == [
        ReplyId(SID, index) for index in range(len(game.sms.sent))
    ]


def test_a_replys_statuses_are_recorded_as_twilio_reports_them(
    game: Game, ingress: webhook.Ingress, capsys: pytest.CaptureFixture[str]
) -> None:
    reply, sid = alice_says_help(game)
    capsys.readouterr()
    assert post(ingress, callback(reply, sid, "sent")) == 200
    assert statuses_from(game.stored_record(SID))[reply.index].status == "sent"

    with json_log_lines() as lines:
        assert post(ingress, callback(reply, sid, "delivered")) == 200
    [status] = [s for index, s in statuses_from(game.stored_record(SID)).items() if index == reply.index]
    assert (status.sid, status.status, status.error_code) == (sid, "delivered", None)
    assert delivery_metrics(capsys.readouterr().out) == [("RepliesDelivered", {"service": "serverless-rps"})]
    # The worker had recorded this send: the callback is news about it, not a warning.
    assert [(line["level"], line["message"], line["outcome"]) for line in callback_lines(lines)] == [
        ("INFO", "status callback", "recorded")
    ]


def test_a_status_is_stored_as_the_table_formats_show_it_with_when_it_came(
    game: Game, ingress: webhook.Ingress, clock: Any
) -> None:
    reply, sid = alice_says_help(game)
    assert post(ingress, callback(reply, sid, "sent")) == 200
    clock.tick(2.5)
    came = time.time()
    assert post(ingress, callback(reply, sid, "undelivered", 30007)) == 200

    entry = game.stored_record(SID)["delivery_status"]["M"][str(reply.index)]
    assert TypeDeserializer().deserialize(entry) == {
        "sid": sid,
        "status": "undelivered",
        "rank": 4,
        "error_code": 30007,
        "updated_at": Decimal(str(came)),
    }
    assert statuses_from(game.stored_record(SID))[reply.index].updated_at == came


def test_a_late_or_repeated_callback_never_overwrites_a_later_status(
    game: Game, ingress: webhook.Ingress, capsys: pytest.CaptureFixture[str]
) -> None:
    reply, sid = alice_says_help(game)
    capsys.readouterr()
    assert post(ingress, callback(reply, sid, "undelivered", 30007)) == 200
    for late in ("sent", "queued", "undelivered", "delivered"):
        assert post(ingress, callback(reply, sid, late)) == 200

    status = statuses_from(game.stored_record(SID))[reply.index]
    assert (status.status, status.error_code) == ("undelivered", 30007)
    assert delivery_metrics(capsys.readouterr().out) == [
        ("RepliesUndelivered", {"service": "serverless-rps"}),
        ("DeliveryErrors", {"service": "serverless-rps", "error_code": "30007"}),
    ], "counted once, however often Twilio says it"


def test_a_reply_that_expired_in_twilios_queue_is_counted_as_expired(
    game: Game, ingress: webhook.Ingress, capsys: pytest.CaptureFixture[str]
) -> None:
    reply, sid = alice_says_help(game)
    capsys.readouterr()
    assert post(ingress, callback(reply, sid, "failed", 30036)) == 200  # its ValidityPeriod ran out

    assert delivery_metrics(capsys.readouterr().out) == [
        ("RepliesFailed", {"service": "serverless-rps"}),
        ("DeliveryErrors", {"service": "serverless-rps", "error_code": "30036"}),
        ("RepliesExpired", {"service": "serverless-rps"}),
    ]


def test_a_send_never_recorded_is_learnt_from_its_callback_and_not_sent_again(
    game: Game, ingress: webhook.Ingress, clock: Any
) -> None:
    class DiesOnceTwilioAccepts:
        """Twilio takes the reply; the invocation dies before recording it."""

        def __init__(self, twilio: FakeSms) -> None:
            self.twilio = twilio

        def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
            self.twilio.send(message, reply)
            raise Crash

    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "scissors alice")
    real, game.processor._outbox._sender = game.processor._outbox._sender, DiesOnceTwilioAccepts(game.sms)
    with pytest.raises(Crash):
        game.text(ALICE, "rock bob", sid=SID)
    game.processor._outbox._sender = real
    reply, sid = game.sms.accepted[-1]
    assert reply is not None
    assert reply.index == 0
    assert "0" not in game.stored_record(SID)["delivered"]["M"], "the send was never recorded"

    with json_log_lines() as lines:
        assert post(ingress, callback(reply, sid, "sent")) == 200
    assert game.stored_record(SID)["delivered"]["M"]["0"] == {"S": sid}, "the callback recorded its SID"
    # An operator is told: the one duplicate window was hit, and closed by the callback.
    [learnt] = callback_lines(lines)
    assert (learnt["level"], learnt["message"], learnt["message_sid"], learnt["index"]) == (
        "WARNING",
        "status callback named a send that was never recorded; recorded now",
        sid,
        0,
    )

    sent_before = len(game.sms.sent)
    clock.tick(LEASE_SECONDS + 1)  # the dead attempt's outbox lease has run out
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT
    assert [message.to for message in game.sms.sent[sent_before:]] == [BOB], (
        "Alice's result is not sent twice"
    )
    finished = game.stored_record(SID)
    assert "outbox" not in finished, "the redelivery finished the record: no numbers left in it"


def test_the_callback_of_a_send_the_record_does_not_name_changes_nothing(
    game: Game, ingress: webhook.Ingress
) -> None:
    reply, _ = alice_says_help(game)
    other = "SM" + "d" * 32
    before = game.stored_record(SID)
    assert post(ingress, callback(reply, other, "delivered")) == 200
    assert game.stored_record(SID) == before


def test_a_callback_for_a_reply_we_have_no_record_of_gets_200_and_writes_nothing(
    game: Game, ingress: webhook.Ingress
) -> None:
    unknown = ReplyId("SM" + "e" * 32, 0)
    with json_log_lines() as lines:
        assert post(ingress, callback(unknown, SID, "delivered")) == 200
    [line] = [line for line in lines if line["level"] == "WARNING"]
    assert line["message"] == "status callback for a reply we have no record of; nothing recorded"
    assert _details(line) == (unknown.key, 0, SID, "delivered", None)
    assert game.message_record(unknown.key) is None, "no record was created"


def test_a_forged_unsigned_or_replayed_callback_gets_403_and_records_nothing(
    game: Game, ingress: webhook.Ingress
) -> None:
    reply, sid = alice_says_help(game)
    before = game.stored_record(SID)
    genuine = callback(reply, sid, "delivered")

    unsigned = {
        **genuine,
        "headers": {k: v for k, v in genuine["headers"].items() if k != "x-twilio-signature"},
    }
    forged = {**genuine, "headers": {**genuine["headers"], "x-twilio-signature": "Zm9yZ2Vk"}}
    # Twilio's signed callback for this reply, replayed at another reply (or as an inbound SMS).
    other_query = urlencode({"key": reply.key, "index": 0})
    onto_other_reply = {**genuine, "rawQueryString": other_query}
    onto_inbound_route = {**genuine, "rawPath": "/sms/the-secret-segment", "rawQueryString": ""}
    for event in (unsigned, forged, onto_other_reply, onto_inbound_route):
        assert post(ingress, event) == 403
    assert game.stored_record(SID) == before

    # The same callback twice is Twilio's own retry: it is answered, and changes nothing more.
    assert post(ingress, genuine) == 200
    once = game.stored_record(SID)
    assert post(ingress, genuine) == 200
    assert game.stored_record(SID) == once


def test_an_opt_out_erased_reply_keeps_its_fate_and_no_callback_writes_a_number_back(
    game: Game, ingress: webhook.Ingress
) -> None:
    records = DeliveryStatusRecords(game.dynamodb, TABLES.idempotency)
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.sms.fail_next(None, transient_failure())  # Alice's acknowledgement goes, Bob's challenge waits
    with pytest.raises(SmsTemporarilyFailed):
        game.text(ALICE, "rock bob", sid=SID)
    game.text(BOB, "stop")
    stored = game.stored_record(SID)
    erased = [int(index) for index, fate in stored["delivered"]["M"].items() if fate == {"S": "erased"}]
    assert erased, "the opt-out erased Bob's reply"

    before = game.stored_record(SID)
    outcome = records.record(SID, erased[0], DeliveryStatus("SM" + "f" * 32, "delivered", None, 1.0))
    assert outcome.value == "other_send"
    assert game.stored_record(SID) == before
    for table in (TABLES.game_state, TABLES.nickname, TABLES.idempotency):
        assert BOB not in json.dumps(game.items(table)), table


def test_the_operator_sees_each_replys_delivery_in_outbox_pending_and_player(
    game: Game, ingress: webhook.Ingress
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.sms.fail_next(None, transient_failure())  # Alice's acknowledgement goes, Bob's challenge waits
    with pytest.raises(SmsTemporarilyFailed):
        game.text(ALICE, "rock bob", sid=SID)
    reply, sid = game.sms.accepted[-1]
    assert post(ingress, callback(reply, sid, "undelivered", 30007)) == 200
    settings = GameSettings(
        TABLES.game_state,
        TABLES.nickname,
        TABLES.idempotency,
        "",
        "",
        TwilioCredentials("AC" + "a" * 32, None, TOKEN, None),
        completed_record_seconds=COMPLETED_SECONDS,
    )
    operator = Operator(settings, game.engine, sqs=None, cloudwatch=None)

    [pending] = operator.pending_outboxes()
    assert pending["delivery"] == ["undelivered 30007", "not sent"]
    [bobs] = [row for row in operator.player(BOB)["recent_messages"] if row["key"] == SID]
    assert bobs["delivery"] == "1 not sent"

    [resent] = operator.resend([SID])
    assert resent["result"] == "resent"
    # The outbox (and its numbers) is gone: the message's replies are counted for either player.
    [alices] = [row for row in operator.player(ALICE)["recent_messages"] if row["key"] == SID]
    assert alices["delivery"] == "1 accepted, 1 undelivered 30007"


# --- what the status route answers Twilio, and what it tells the operator ----------------------

PLAIN = {"Content-Type": "text/plain; charset=utf-8"}


def test_a_recorded_callback_is_answered_with_an_empty_plain_text_200(
    game: Game, ingress: webhook.Ingress
) -> None:
    reply, sid = alice_says_help(game)
    assert webhook.handle(callback(reply, sid, "delivered"), ingress) == {
        "statusCode": 200,
        "headers": PLAIN,
        "body": "",
    }


def test_a_malformed_callback_is_answered_400_with_what_is_wrong_and_the_refusal_logged(
    game: Game, ingress: webhook.Ingress
) -> None:
    reply, sid = alice_says_help(game)
    before = game.stored_record(SID)
    with json_log_lines() as lines:
        answer = webhook.handle(callback(reply, sid, "Delivered!"), ingress)
    wrong = "MessageStatus missing or malformed"
    assert answer == {"statusCode": 400, "headers": PLAIN, "body": wrong}
    refused = [line for line in lines if line["message"] == "request refused"]
    assert [(line["status"], line["reason"]) for line in refused] == [(400, wrong)]
    assert game.stored_record(SID) == before


def test_a_status_we_do_not_keep_is_answered_200_and_logged_with_what_it_was_about(
    game: Game, ingress: webhook.Ingress
) -> None:
    reply, sid = alice_says_help(game)
    before = game.stored_record(SID)
    with json_log_lines() as lines:
        answer = webhook.handle(callback(reply, sid, "read", error_code=30008), ingress)
    assert answer == {"statusCode": 200, "headers": PLAIN, "body": ""}
    assert game.stored_record(SID) == before
    [line] = callback_lines(lines)
    assert line["message"] == "status callback: a status not kept"
    assert _details(line) == (reply.key, reply.index, sid, "read", 30008)


def test_without_its_table_the_status_route_answers_500_and_logs_the_missing_setting(
    game: Game, ingress: webhook.Ingress
) -> None:
    reply, sid = alice_says_help(game)
    unconfigured = webhook.Ingress(ingress.validator, ingress.queue, statuses=None)
    with json_log_lines() as lines:
        answer = webhook.handle(callback(reply, sid, "delivered"), unconfigured)
    assert answer == {"statusCode": 500, "headers": PLAIN, "body": "service unavailable"}
    [line] = [line for line in lines if line["level"] == "ERROR"]
    assert line["message"] == "configuration error: IDEMPOTENCY_TABLE is not set; status not recorded"
    assert _details(line) == (reply.key, reply.index, sid, "delivered", None)


def test_a_store_that_fails_is_answered_500_for_twilio_to_retry_and_logged_with_its_cause(
    game: Game, ingress: webhook.Ingress
) -> None:
    reply, sid = alice_says_help(game)
    before = game.stored_record(SID)
    missing_table = DeliveryStatusRecords(game.dynamodb, "no-such-table")
    failing = webhook.Ingress(ingress.validator, ingress.queue, statuses=missing_table)
    with json_log_lines() as lines:
        answer = webhook.handle(callback(reply, sid, "undelivered", error_code=30003), failing)
    assert answer == {
        "statusCode": 500,
        "headers": PLAIN,
        "body": "could not record the status now, try again",
    }
    [line] = [line for line in lines if line["level"] == "ERROR"]
    assert line["message"] == "could not record a delivery status"
    assert _details(line) == (reply.key, reply.index, sid, "undelivered", 30003)
    assert "ResourceNotFoundException" in line["exception"], "the cause is in the log"
    assert game.stored_record(SID) == before
    # Twilio retries; with the table back, the same callback is recorded.
    assert post(ingress, callback(reply, sid, "undelivered", error_code=30003)) == 200
    assert game.stored_record(SID) != before
