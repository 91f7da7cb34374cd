"""Promises 8 (poison is contained) and 9 (one bad message never fails the batch), through the
game function's batch handler with real SQS queues on moto."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from serverless_rps import app, parsing, replies
from serverless_rps.app import GameFunction, build_game_function
from serverless_rps.game_store import DynamoGameStore, TableNames
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps.rules import Move
from tests.conftest import (
    ALICE,
    BOB,
    BOT_NUMBER,
    CAROL,
    LEASE_SECONDS,
    REGION,
    TABLES,
    FakeSms,
    Game,
    new_processor,
)
from tests.protocol.test_failure_visibility import json_log_lines


class Queues:
    def __init__(self) -> None:
        self.sqs = boto3.client("sqs", region_name=REGION)
        self.dead_letter_url = self.sqs.create_queue(QueueName="rps-dlq")["QueueUrl"]
        self.incoming_url = self.sqs.create_queue(QueueName="rps-incoming")["QueueUrl"]
        self.visibility_changes: list[int] = []
        self.sqs.meta.events.register("provide-client-params.sqs.ChangeMessageVisibility", self._spy)
        self._sids = 0

    def _spy(self, params: dict[str, Any], **_: Any) -> None:
        self.visibility_changes.append(params["VisibilityTimeout"])

    def function(self, processor: Any, incoming: IncomingQueue | None = None) -> GameFunction:
        """The game function around `processor`, on these queues (`incoming` in place of the
        incoming queue's own client, when a test needs one that fails)."""
        return GameFunction(
            processor,
            incoming or IncomingQueue(self.sqs, self.incoming_url),
            DeadLetterQueue(self.sqs, self.dead_letter_url),
        )

    def sms_body(self, sender: str, body: str) -> str:
        self._sids += 1
        return json.dumps(
            {"MessageSid": f"SM{'e' * 16}{self._sids:016x}", "From": sender, "To": BOT_NUMBER, "Body": body}
        )

    def event(self, *bodies: str) -> dict[str, Any]:
        """Put the bodies on the incoming queue and receive them as Lambda's event source would."""
        for body in bodies:
            self.sqs.send_message(QueueUrl=self.incoming_url, MessageBody=body)
        received = self.sqs.receive_message(QueueUrl=self.incoming_url, MaxNumberOfMessages=10)["Messages"]
        assert len(received) == len(bodies)
        by_body = {message["Body"]: message for message in received}
        return {
            "Records": [
                {
                    "messageId": by_body[body]["MessageId"],
                    "receiptHandle": by_body[body]["ReceiptHandle"],
                    "body": body,
                    "attributes": {"ApproximateReceiveCount": "1"},
                    "messageAttributes": {},
                    "md5OfBody": by_body[body]["MD5OfBody"],
                    "eventSource": "aws:sqs",
                    "eventSourceARN": f"arn:aws:sqs:{REGION}:123456789012:rps-incoming",
                    "awsRegion": REGION,
                }
                for body in bodies
            ]
        }

    def dead_letters(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.sqs.receive_message(
            QueueUrl=self.dead_letter_url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
        ).get("Messages", [])
        return messages


@pytest.fixture
def queues(aws: None) -> Queues:
    return Queues()


@pytest.fixture
def function(game: Game, queues: Queues) -> GameFunction:
    return queues.function(game.processor)


def _failed_ids(response: dict[str, Any]) -> list[str]:
    return [failure["itemIdentifier"] for failure in response["batchItemFailures"]]


def test_poison_records_are_parked_with_a_reason_and_never_fail_the_batch(
    game: Game, queues: Queues, function: GameFunction
) -> None:
    good = queues.sms_body(ALICE, "help")
    event = queues.event(good, "this is not json", json.dumps({"From": ALICE, "To": BOT_NUMBER}))
    response = function.handle_batch(event, None)

    assert _failed_ids(response) == []
    assert game.sms.last(ALICE) == replies.help_overview()
    parked = queues.dead_letters()
    reasons = sorted(message["MessageAttributes"]["reason"]["StringValue"] for message in parked)
    assert reasons == ["Body is missing or not a string", "body is not JSON"]
    assert {message["Body"] for message in parked} >= {"this is not json"}


def test_a_message_that_must_wait_fails_alone_and_comes_back_in_seconds(
    game: Game, queues: Queues, function: GameFunction
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "another-invocation", time.time())
    event = queues.event(queues.sms_body(ALICE, "rock bob"), queues.sms_body(ALICE, "score"))
    response = function.handle_batch(event, None)

    assert _failed_ids(response) == [event["Records"][0]["messageId"]]
    assert game.sms.last(ALICE) == replies.score(0, 0, 0, 0)
    assert len(queues.visibility_changes) == 1
    assert 1 <= queues.visibility_changes[0] <= LEASE_SECONDS + 1


def test_a_failed_unlock_does_not_abort_the_rest_of_the_batch(
    game: Game, queues: Queues, function: GameFunction, clock: Any
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))

    def throttle(params: dict[str, Any], **_: Any) -> None:
        # The throw's commit and then its clean-up both fail: the locks stay behind.
        writes_players = any(ALICE in json.dumps(item) for item in params.get("TransactItems", []))
        if writes_players or params.get("UpdateExpression") == "REMOVE user_locked":
            raise ClientError(
                {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}}, "Write"
            )

    game.dynamodb.meta.events.register("provide-client-params.dynamodb", throttle)
    # Carol's help locks only carol, whom the stranded locks do not involve.
    event = queues.event(queues.sms_body(ALICE, "rock bob"), queues.sms_body(CAROL, "help"))
    response = function.handle_batch(event, None)
    game.dynamodb.meta.events.unregister("provide-client-params.dynamodb", throttle)

    assert _failed_ids(response) == [event["Records"][0]["messageId"]]
    assert game.sms.last(CAROL) == replies.help_overview()
    clock.tick(LEASE_SECONDS + 1)  # the stranded locks expire and are taken over
    game.text(ALICE, "rock bob")
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)


def test_a_batch_where_everything_fails_reports_each_message(
    game: Game, queues: Queues, function: GameFunction
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "another-invocation", time.time())
    event = queues.event(queues.sms_body(ALICE, "rock bob"), queues.sms_body(ALICE, "paper bob"))
    response = function.handle_batch(event, None)
    assert sorted(_failed_ids(response)) == sorted(record["messageId"] for record in event["Records"])


def test_poison_that_cannot_be_parked_is_retried_not_dropped(game: Game, queues: Queues) -> None:
    broken_dlq = DeadLetterQueue(queues.sqs, queues.dead_letter_url + "-missing")
    function = GameFunction(game.processor, IncomingQueue(queues.sqs, queues.incoming_url), broken_dlq)
    event = queues.event("{not json")
    assert _failed_ids(function.handle_batch(event, None)) == [event["Records"][0]["messageId"]]


def test_duplicates_inside_one_batch_are_processed_once(
    game: Game, queues: Queues, function: GameFunction
) -> None:
    body = queues.sms_body(ALICE, "nick alice")
    # Twilio posted the same SMS twice: two SQS messages, one MessageSid.
    event = queues.event(body, body.replace('"Body"', '"NumMedia": "0", "Body"'))
    assert _failed_ids(function.handle_batch(event, None)) == []
    assert game.sms.to(ALICE) == [
        replies.opt_in_confirmation(replies.Program()),
        replies.nick_registered("alice"),
    ]


def test_the_game_function_reads_its_wiring_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, queues: Queues, dynamodb: Any
) -> None:
    from serverless_rps.config import GameSettings

    for name, value in {
        "GAME_STATE_TABLE": TABLES.game_state,
        "NICKNAME_TABLE": TABLES.nickname,
        "IDEMPOTENCY_TABLE": TABLES.idempotency,
        "INCOMING_QUEUE_URL": queues.incoming_url,
        "DEAD_LETTER_QUEUE_URL": queues.dead_letter_url,
        "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
        "TWILIO_AUTH_TOKEN": "local-token",
    }.items():
        monkeypatch.setenv(name, value)
    function = build_game_function(GameSettings.from_environment())
    response = function.handle_batch(queues.event("not json either"), None)
    assert response == {"batchItemFailures": []}
    assert len(queues.dead_letters()) == 1


def test_fake_sms_is_not_needed_when_wiring_by_hand(game: Game) -> None:
    processor = new_processor(game.store, FakeSms())
    assert processor.process(game.inbound(ALICE, "help")).value == "processed"


def test_each_message_is_parsed_once_for_its_metric_and_its_processing(
    function: GameFunction, queues: Queues, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[str] = []
    real_parse = parsing.parse

    def counted(body: str, opt_out_type: str | None = None) -> parsing.Command:
        parsed.append(body)
        return real_parse(body, opt_out_type)

    for module in list(sys.modules.values()):
        if module.__name__.startswith("serverless_rps") and getattr(module, "parse", None) is real_parse:
            monkeypatch.setattr(module, "parse", counted)

    event = queues.event(queues.sms_body(ALICE, "nick alice"), queues.sms_body(BOB, "help"))
    assert _failed_ids(function.handle_batch(event, None)) == []

    assert sorted(parsed) == ["help", "nick alice"]
    # A new phone's first reply is the opt-in confirmation, then the answer.
    assert game.sms.to(ALICE) == [
        replies.opt_in_confirmation(replies.Program()),
        replies.nick_registered("alice"),
    ]


def test_a_parked_poison_message_is_an_error_line_with_its_reason(
    queues: Queues, function: GameFunction
) -> None:
    event = queues.event("this is not json")
    with json_log_lines() as lines:
        function.handle_batch(event, None)
    [line] = [line for line in lines if line["level"] == "ERROR"]
    assert (line["message"], line["reason"]) == (
        "poison message parked on the dead-letter queue",
        "body is not JSON",
    )


def test_a_record_without_a_body_is_parked_as_empty(queues: Queues, function: GameFunction) -> None:
    record = {"messageId": "m-1", "receiptHandle": "", "attributes": {}}
    assert _failed_ids(function.handle_batch({"Records": [record]}, None)) == []
    [parked] = queues.dead_letters()
    assert parked["Body"] == "<empty>"
    assert parked["MessageAttributes"]["source_message_id"]["StringValue"] == "m-1"


def _messages_metrics(output: str) -> list[tuple[str, str]]:
    """The (command, outcome) of each `Messages` metric line written."""
    lines = (json.loads(text) for text in output.splitlines() if '"Messages"' in text)
    return [(metric["command"], metric["outcome"]) for metric in lines]


def test_a_missing_table_is_a_configuration_error_counted_and_logged_with_its_cause(
    queues: Queues, game: Game, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = TableNames("no-such-state", "no-such-nicknames", "no-such-records")
    store = DynamoGameStore(
        game.dynamodb,
        missing,
        lock_lease_seconds=LEASE_SECONDS,
        in_progress_expiry_seconds=LEASE_SECONDS,
        completed_record_seconds=3600,
        contact_key=b"k" * 32,
    )
    function = queues.function(new_processor(store, FakeSms()))
    event = queues.event(queues.sms_body(ALICE, "help"))
    capsys.readouterr()
    with json_log_lines() as lines:
        assert _failed_ids(function.handle_batch(event, None)) == [event["Records"][0]["messageId"]]

    [line] = [line for line in lines if line["level"] == "ERROR"]
    assert line["message"] == "configuration error; the message will be retried"
    assert line["error_type"] == "ConfigurationProblem"
    assert "ResourceNotFoundException" in line["cause"]
    assert _messages_metrics(capsys.readouterr().out) == [("ShowHelp", "configuration_error")]


def test_a_message_that_must_wait_is_a_warning_with_why_and_when_and_counted_as_a_retry(
    game: Game, queues: Queues, function: GameFunction, capsys: pytest.CaptureFixture[str]
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "another-invocation", time.time())
    event = queues.event(queues.sms_body(ALICE, "rock bob"))
    capsys.readouterr()
    with json_log_lines() as lines:
        function.handle_batch(event, None)

    [line] = [line for line in lines if line["level"] == "WARNING"]
    assert line["message"] == "message will be retried"
    assert line["reason"] == "player +*******0002 is locked"
    assert 0 < line["retry_after"] <= LEASE_SECONDS
    assert _messages_metrics(capsys.readouterr().out) == [("Throw", "retry")]


class _Broken:
    """A processor with a bug: every message raises what no one planned for."""

    def process(self, sms: object) -> None:
        raise KeyError("games")


def test_an_unexpected_error_is_logged_once_with_its_stack_and_counted(
    queues: Queues, capsys: pytest.CaptureFixture[str]
) -> None:
    function = queues.function(_Broken())
    event = queues.event(queues.sms_body(ALICE, "score"))
    capsys.readouterr()
    with json_log_lines() as lines:
        assert _failed_ids(function.handle_batch(event, None)) == [event["Records"][0]["messageId"]]

    [line] = [line for line in lines if line["level"] == "ERROR"]
    assert line["message"] == "unexpected error; the message will be retried"
    assert (line["error_type"], line["reason"]) == ("KeyError", "'games'")
    assert 'raise KeyError("games")' in line["exception"]
    assert _messages_metrics(capsys.readouterr().out) == [("ShowScore", "unexpected_error")]


def test_an_event_without_records_is_nothing_to_do(function: GameFunction) -> None:
    assert function.handle_batch({}, None) == {"batchItemFailures": []}


def test_a_hand_made_event_without_a_receipt_handle_waits_out_the_visibility_timeout_quietly(
    game: Game, queues: Queues, function: GameFunction
) -> None:
    """`invoke`'s events have no receipt handle: nothing to shorten, and nothing to warn about but
    the retry itself."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "another-invocation", time.time())
    event = queues.event(queues.sms_body(ALICE, "rock bob"))
    event["Records"][0]["receiptHandle"] = ""
    with json_log_lines() as lines:
        function.handle_batch(event, None)
    assert [line["message"] for line in lines if line["level"] == "WARNING"] == ["message will be retried"]
    assert queues.visibility_changes == []


class _RecordingTracer:
    """Stands for Powertools' Tracer (no X-Ray daemon here): the annotations put on the trace."""

    def __init__(self) -> None:
        self.annotations: list[tuple[str, object]] = []

    def put_annotation(self, key: str, value: object) -> None:
        self.annotations.append((key, value))


def test_each_message_played_is_annotated_on_its_trace_with_its_result(
    function: GameFunction, queues: Queues, monkeypatch: pytest.MonkeyPatch
) -> None:
    tracer = _RecordingTracer()
    monkeypatch.setattr(app, "tracer", tracer)
    function.handle_batch(queues.event(queues.sms_body(ALICE, "help"), queues.sms_body(ALICE, "score")), None)
    assert tracer.annotations == [("result", "processed"), ("result", "processed")]
