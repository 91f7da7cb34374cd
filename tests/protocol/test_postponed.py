"""A message that failed only for now is not poison: when its next failure would send it to the
dead-letter queue, the game function puts it back on the queue as a new message (its receive
count starts again) and acknowledges the one it holds; the game knows the copy by its SMS id.
Poison, configuration errors and old messages still go the way they always did."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.app import POSTPONE_WITHIN_SECONDS
from serverless_rps.exceptions import ConfigurationProblem, LockContended
from serverless_rps.processing import InboundSms, Result
from tests.conftest import ALICE, BOB, Game
from tests.protocol.test_batch_handler import Queues, _messages_metrics
from tests.protocol.test_failure_visibility import json_log_lines

MAX_RECEIVES = 8


class Contended:
    """A processor whose every attempt meets a lock held elsewhere (or `failure`)."""

    def __init__(self, failure: Exception | None = None) -> None:
        self.failure = failure or LockContended("player +*******0002 is locked", retry_after=3)
        self.seen: list[InboundSms] = []

    def process(self, sms: InboundSms) -> Result:
        self.seen.append(sms)
        raise self.failure


def _received(event: dict[str, Any], receives: int, sent_ms: int | None = None) -> dict[str, Any]:
    """The event's one record as SQS delivers it the `receives`-th time."""
    [record] = event["Records"]
    record["attributes"]["ApproximateReceiveCount"] = str(receives)
    if sent_ms is not None:
        record["attributes"]["SentTimestamp"] = str(sent_ms)
    return event


def test_a_message_whose_next_failure_would_dead_letter_it_goes_back_to_the_queue_as_a_new_one(
    queues: Queues, copies: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    function = queues.function(Contended())
    function.max_receive_count = MAX_RECEIVES
    body = queues.sms_body(ALICE, "rock bob")
    arrived = int(time.time() * 1000) - 60_000  # a minute ago
    event = _received(queues.event(body), MAX_RECEIVES - 1, sent_ms=arrived)

    with json_log_lines() as lines:
        response = function.handle_batch(event, None)

    assert response == {"batchItemFailures": []}, "acknowledged: the copy carries it on"
    [copy] = copies
    assert copy["MessageBody"] == body
    assert copy["MessageAttributes"]["ReceivedAt"]["StringValue"] == str(arrived), "its arrival travels"
    assert copy["DelaySeconds"] == 3, "back when the lock it met may be free (its retry_after)"
    assert queues.dead_letters() == []
    [line] = [line for line in lines if line["message"].startswith("message sent back to the queue")]
    assert (line["level"], line["receives"]) == ("WARNING", MAX_RECEIVES - 1)
    assert _messages_metrics(capsys.readouterr().out) == [("Throw", "postponed")]


@pytest.mark.parametrize("receives", [1, MAX_RECEIVES - 2])
def test_a_failure_with_receives_to_spare_is_retried_by_sqs_as_before(
    queues: Queues, copies: list[dict[str, Any]], receives: int
) -> None:
    function = queues.function(Contended())
    function.max_receive_count = MAX_RECEIVES
    event = _received(queues.event(queues.sms_body(ALICE, "rock bob")), receives)

    response = function.handle_batch(event, None)

    assert response == {"batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]}
    assert copies == [], "no copy: the original comes back after its visibility timeout"


def test_a_configuration_error_is_never_postponed_it_waits_for_an_operator(
    queues: Queues, copies: list[dict[str, Any]]
) -> None:
    function = queues.function(Contended(ConfigurationProblem("DynamoDB refused: AccessDenied", 60)))
    function.max_receive_count = MAX_RECEIVES
    event = _received(queues.event(queues.sms_body(ALICE, "score")), MAX_RECEIVES - 1)

    response = function.handle_batch(event, None)

    assert response["batchItemFailures"] == [{"itemIdentifier": event["Records"][0]["messageId"]}]
    assert copies == []


def test_a_message_failing_for_over_an_hour_is_dead_lettered_as_any_other(
    queues: Queues, copies: list[dict[str, Any]]
) -> None:
    function = queues.function(Contended())
    function.max_receive_count = MAX_RECEIVES
    long_ago = int((time.time() - POSTPONE_WITHIN_SECONDS - 1) * 1000)
    event = _received(queues.event(queues.sms_body(ALICE, "score")), MAX_RECEIVES - 1, sent_ms=long_ago)

    response = function.handle_batch(event, None)

    assert response["batchItemFailures"] == [{"itemIdentifier": event["Records"][0]["messageId"]}]
    assert copies == [], "no copy: SQS moves it to the dead-letter queue on its next failure"
    assert POSTPONE_WITHIN_SECONDS == 3600, "an hour, as template.yaml's completed records allow for"


def test_a_postponed_copy_is_played_once_and_its_opt_out_confirmation_runs_from_the_first_arrival(
    game: Game, queues: Queues, clock: Any
) -> None:
    """The copy is the same SMS to the game (one MessageSid): it is played once, and the five
    minutes of an opt-out confirmation run from when the SMS first reached the queue, not the copy."""
    function = queues.function(game.processor)
    stop = queues.sms_body(ALICE, "please stop texting me")
    arrived = time.time() - 240  # four minutes ago, postponed since
    copy_record = _received(queues.event(stop), 1)["Records"][0]
    copy_record["messageAttributes"] = {
        "ReceivedAt": {"stringValue": str(int(arrived * 1000)), "dataType": "Number"}
    }
    clock.tick(120)  # six minutes after the first arrival: too late for a confirmation

    assert function.handle_batch({"Records": [copy_record]}, None) == {"batchItemFailures": []}
    assert game.sms.to(ALICE) == [], "past the five minutes from the first arrival: none is sent"
    sid = json.loads(stop)["MessageSid"]
    assert game.text(ALICE, "please stop texting me", sid=sid) is Result.DUPLICATE
    assert replies.opt_out_confirmation(replies.Program()) not in game.sms.to(ALICE)
    assert BOB not in {message.to for message in game.sms.sent}
