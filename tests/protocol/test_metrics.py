"""The game function's CloudWatch metrics, as the embedded metric format lines it prints: what an
operator's dashboard and alarms read (docs/operations.md).

The handler runs as deployed, with template.yaml's POWERTOOLS_METRICS_NAMESPACE, and every line it
prints must be in that namespace: the dashboard looks nowhere else."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from serverless_rps import app, replies
from serverless_rps.config import DEFAULT_METRICS_NAMESPACE
from serverless_rps.exceptions import SmsTemporarilyFailed
from serverless_rps.observability import SERVICE, metrics, send_metrics_to
from serverless_rps.processing import Result
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import ALICE, BOB, CAROL, Game, new_store, transient_failure
from tests.protocol.test_lambda_handler import LambdaContext, _event, deployed

DAVE = "+15554440004"
# As template.yaml sets it for a stack called `test-stack`.
STACK_NAMESPACE = "ServerlessRps/test-stack"

__all__ = ["deployed"]


@pytest.fixture(autouse=True)
def _no_metrics_from_earlier_tests(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Tests that drive the processor without the handler add metrics nobody flushes; in Lambda
    # every invocation flushes its own (`metrics.log_metrics`). The namespace is the default until
    # a cold start reads the stack's from the environment.
    metrics.clear_metrics()
    send_metrics_to(DEFAULT_METRICS_NAMESPACE)
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", STACK_NAMESPACE)
    yield
    send_metrics_to(DEFAULT_METRICS_NAMESPACE)


class Emitted:
    """The EMF lines printed so far: metric totals, and `Messages` by (command, outcome)."""

    def __init__(self, output: str, namespace: str = STACK_NAMESPACE) -> None:
        self.totals: Counter[str] = Counter()
        self.values: dict[str, list[float]] = {}
        self.messages: Counter[tuple[str, str]] = Counter()
        for line in output.splitlines():
            if not line.startswith("{") or '"_aws"' not in line:
                continue
            emf = json.loads(line)
            [directive] = emf["_aws"]["CloudWatchMetrics"]
            assert directive["Namespace"] == namespace, line
            assert "service" in directive["Dimensions"][0], line
            assert emf["service"] == SERVICE, line
            for metric in directive["Metrics"]:
                name = metric["Name"]
                values = emf[name] if isinstance(emf[name], list) else [emf[name]]
                self.values.setdefault(name, []).extend(values)
                self.totals[name] += int(sum(values)) if metric["Unit"] == "Count" else 0
                if name == "Messages":
                    self.messages[(emf["command"], emf["outcome"])] += 1


def _texts(*messages: tuple[str, str, str], sent_ms_ago: int = 0) -> dict[str, Any]:
    event = _event(*messages)
    for record in event["Records"]:
        record["attributes"]["SentTimestamp"] = str(int(time.time() * 1000) - sent_ms_ago)
    return app.lambda_handler(event, LambdaContext())


def test_a_game_counts_its_messages_by_command_and_outcome_and_every_reply_sent(
    deployed: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _texts(("SM" + "1" * 32, ALICE, "nick alice"), ("SM" + "2" * 32, BOB, "nick bob"))
    _texts(("SM" + "3" * 32, ALICE, "rock bob"), sent_ms_ago=2000)
    _texts(("SM" + "3" * 32, ALICE, "rock bob"))  # Twilio posted it twice

    emitted = Emitted(capsys.readouterr().out)

    assert emitted.messages == {
        ("SetNickname", "processed"): 2,
        ("Throw", "processed"): 1,
        ("Throw", "duplicate"): 1,
    }
    # Each new player's opt-in confirmation and welcome, then the throw's two replies.
    assert emitted.totals["RepliesSent"] == 6
    assert emitted.totals["RepliesDeduplicated"] == 2, "the duplicate found both replies sent"
    assert emitted.totals["Records"] == 4
    # SMS received -> reply accepted, per reply: the throw's two, each about two seconds after.
    assert len(emitted.values["ReplyDelay"]) == 6
    assert sorted(emitted.values["ReplyDelay"])[-1] >= 2000


def test_a_poison_message_counts_as_a_dead_letter(deployed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    poison = {"Records": [{**_event(("SM" + "4" * 32, ALICE, "x"))["Records"][0], "body": "[]"}]}
    app.lambda_handler(poison, LambdaContext())

    emitted = Emitted(capsys.readouterr().out)

    assert emitted.totals["DeadLetters"] == 1
    assert emitted.messages == {("-", "poison"): 1}


def test_a_reply_twilio_refuses_is_counted_as_refused(
    deployed: Any, twilio: LocalTwilioApi, capsys: pytest.CaptureFixture[str]
) -> None:
    twilio.opt_out(ALICE)
    _texts(("SM" + "5" * 32, ALICE, "help"))

    emitted = Emitted(capsys.readouterr().out)

    # The opt-in confirmation, the program's help and the commands: each refused, none sent.
    assert (emitted.totals["RepliesRefused"], emitted.totals["RepliesSent"]) == (3, 0)


def test_a_reply_too_late_for_twilios_queue_is_counted_as_expired_and_not_retried(
    deployed: Any, twilio: LocalTwilioApi, capsys: pytest.CaptureFixture[str]
) -> None:
    twilio.fail_next(status=400, code=21611)  # the sender's queue already holds ten hours
    response = _texts(("SM" + "3" * 32, ALICE, "score"))

    emitted = Emitted(capsys.readouterr().out)

    assert response == {"batchItemFailures": []}, "recorded as refused: never sent again"
    assert (emitted.totals["RepliesExpired"], emitted.totals["RepliesRefused"]) == (1, 1)


def test_twilio_throttling_is_waited_out_in_the_invocation_and_counted(
    deployed: Any, twilio: LocalTwilioApi, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("time.sleep", lambda seconds: None)  # the outbox's pause between tries
    twilio.fail_next(status=429, code=20429)
    response = _texts(("SM" + "2" * 32, ALICE, "score"))

    emitted = Emitted(capsys.readouterr().out)

    assert response == {"batchItemFailures": []}, "the second try went through"
    assert emitted.totals["TwilioThrottled"] == 1
    assert [message["to"] for message in twilio.sent_messages()] == [ALICE, ALICE]  # opt-in, score


def test_lock_contention_and_the_retry_it_causes_are_counted(
    deployed: Any, dynamodb: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    new_store(dynamodb).lock(ALICE, "another-invocation", time.time())  # a live lease on alice

    response = _texts(("SM" + "6" * 32, ALICE, "help"))

    emitted = Emitted(capsys.readouterr().out)
    assert response["batchItemFailures"]
    assert emitted.totals["LockContention"] >= 1
    assert emitted.messages == {("ShowHelp", "retry"): 1}


def test_replies_the_budget_holds_back_are_counted(
    deployed: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REPLY_BUDGET_BURST", "2")
    app._cold_start.cache_clear()
    counted = []
    for sid in ("7", "8", "9"):
        _texts(("SM" + sid * 32, ALICE, "score"))
        emitted = Emitted(capsys.readouterr().out)
        counted.append((emitted.totals["BudgetHits"], emitted.totals["RepliesSent"]))

    # The opt-in confirmation and the answer; over the burst, the one notice in the answer's
    # place; and then silence.
    assert counted == [(0, 2), (1, 1), (1, 0)]


def test_a_redelivery_counts_the_replies_already_sent_and_times_the_ones_it_sends(
    game: Game, clock: Any
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "scissors alice")
    message = replace(game.inbound(ALICE, "rock bob"), enqueued_at=time.time() - 2)  # queued 2 s ago
    game.sms.fail_next(None, transient_failure())  # Alice's result goes out, Bob's does not
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)
    clock.tick(3)
    assert game.processor.process(message) is Result.RESENT

    # What the handler would print; no cold start, so no stack's namespace.
    emitted = Emitted(json.dumps(metrics.serialize_metric_set()), DEFAULT_METRICS_NAMESPACE)

    assert emitted.totals["RepliesDeduplicated"] == 1, "Alice's result, sent by the first attempt"
    assert emitted.values["ReplyDelay"] == [2000.0, 5000.0]


def test_an_opt_out_confirmation_is_timed_from_the_queue_like_any_reply(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    message = replace(game.inbound(ALICE, "Stop."), enqueued_at=time.time() - 2)  # queued 2 s ago
    metrics.clear_metrics()

    assert game.processor.process(message) is Result.PROCESSED

    emitted = Emitted(json.dumps(metrics.serialize_metric_set()), DEFAULT_METRICS_NAMESPACE)
    assert game.sms.to(ALICE)[-1] == replies.opt_out_confirmation(replies.Program())
    assert emitted.values["ReplyDelay"] == [2000.0]


def test_a_redelivery_counts_each_reply_the_first_attempt_sent(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"), (DAVE, "dave"))
    for thrower in (BOB, CAROL, DAVE):
        game.text(thrower, "rock alice")
    message = game.inbound(ALICE, "STOP")
    # Her STOP tells the three the game is off; the last of those replies fails.
    game.sms.fail_next(None, None, transient_failure())
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)
    metrics.clear_metrics()

    assert game.processor.process(message) is Result.RESENT

    emitted = Emitted(json.dumps(metrics.serialize_metric_set()), DEFAULT_METRICS_NAMESPACE)
    assert (emitted.totals["RepliesDeduplicated"], emitted.totals["RepliesSent"]) == (2, 1)


def test_an_opt_out_confirmation_dropped_as_too_late_is_counted(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    message = game.inbound(ALICE, "Stop.")  # not Twilio's keyword: the confirmation is ours to send
    game.sms.fail_next(transient_failure())  # Twilio is down when the opt-out commits
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)
    clock.tick(300 + 1)  # past the FCC's five minutes for an opt-out confirmation
    metrics.clear_metrics()

    assert game.processor.process(message) is Result.RESENT

    emitted = Emitted(json.dumps(metrics.serialize_metric_set()), DEFAULT_METRICS_NAMESPACE)
    assert (emitted.totals["LateConfirmationsDropped"], emitted.totals["RepliesSent"]) == (1, 0)
