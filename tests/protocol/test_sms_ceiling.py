"""The stack's daily SMS ceiling (template.yaml's DailySmsCeiling), as players and the operator meet
it: past it, the bot answers nothing but opt-outs (an opt-out still erases, and sends only its
confirmation); every other message waits, unplayed, back on the queue, and is played once when the
ceiling lifts, at midnight UTC or when the operator lifts it. Each message's SMS are counted in its
commit: once, and never without the commit."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse

from serverless_rps import app, replies
from serverless_rps.app import HOLD_WITHIN_SECONDS
from serverless_rps.exceptions import CeilingReached, RetryLater
from serverless_rps.game_store.sms_counts import CEILING_PREFIX, COUNTER_SHARDS
from serverless_rps.processing import Result
from serverless_rps.rules import Move, Outcome
from serverless_rps.sms_ceiling import CACHE_SECONDS, utc_day
from serverless_rps_local.in_process import TABLES
from tests.conftest import ALICE, BOB, CAROL, FakeSms, Game, transient_failure
from tests.protocol.test_batch_handler import Queues
from tests.protocol.test_lambda_handler import LambdaContext, _event, deployed
from tests.protocol.test_metrics import Emitted, _no_metrics_from_earlier_tests
from tests.protocol.test_postponed import Contended

__all__ = ["_no_metrics_from_earlier_tests", "deployed"]

# Alice and Bob registering: each gets the opt-in confirmation and the nickname's reply.
REGISTERED = 4
SID = "SM" + "c" * 32
CONFIRMATION = replies.opt_out_confirmation(replies.Program())


@pytest.fixture
def capped(dynamodb: Any, sms: FakeSms, clock: Any) -> Game:
    """A game whose ceiling is what Alice and Bob's registration sends: they reach it."""
    game = Game(dynamodb, sms, daily_sms_ceiling=REGISTERED)
    game.register((ALICE, "alice"), (BOB, "bob"))
    return game


def counted(game: Game, day: str | None = None) -> int:
    """The day's SMS as the commits counted them (today's by default)."""
    return game.store.sms_count(day or utc_day(time.time())).sent


def _copy_as_received(copy: dict[str, Any]) -> dict[str, Any]:
    """A copy the game function sent back, as SQS delivers it once its delay is over."""
    return {
        "messageId": "copy-" + str(len(copy["MessageBody"])),
        "receiptHandle": "",
        "body": copy["MessageBody"],
        "attributes": {"ApproximateReceiveCount": "1"},
        "messageAttributes": {
            name: {"stringValue": value["StringValue"], "dataType": value["DataType"]}
            for name, value in copy["MessageAttributes"].items()
        },
    }


# -- past the ceiling ------------------------------------------------------------------------------


def test_past_the_ceiling_a_message_is_not_played_and_nothing_of_it_is_written(capped: Game) -> None:
    assert counted(capped) == REGISTERED
    before = len(capped.sms.sent)

    with pytest.raises(CeilingReached) as held:
        capped.text(ALICE, "rock bob", sid=SID)

    assert held.value.retry_after == 12 * 60 * 60, "at noon, the ceiling lifts by itself in twelve hours"
    assert capped.sms.sent[before:] == []
    assert capped.message_record(SID) is None, "the claim is given back: the message is not played"
    alice = capped.player(ALICE)
    assert alice is not None
    assert alice["games"]["M"] == {}
    assert counted(capped) == REGISTERED


@pytest.mark.parametrize(
    ("text", "sent"),
    [("please stop texting me", [CONFIRMATION]), ("STOP", [])],
    ids=["an opt-out the bot confirms", "Twilio's keyword, which Twilio answers"],
)
def test_past_the_ceiling_an_opt_out_erases_and_sends_only_its_confirmation(
    dynamodb: Any, sms: FakeSms, clock: Any, text: str, sent: list[str]
) -> None:
    game = Game(dynamodb, sms, daily_sms_ceiling=REGISTERED + 2)
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")  # Bob's acknowledgement, Alice's challenge: the ceiling
    before = len(sms.sent)

    assert game.text(ALICE, text) is Result.PROCESSED

    assert game.items_holding(ALICE) == [], "erased, ceiling or not (promise 13)"
    assert [(reply.to, reply.body) for reply in sms.sent[before:]] == [(ALICE, body) for body in sent]
    assert replies.opponent_left("alice") not in sms.to(BOB), "the goodbye is an SMS like any other"
    assert counted(game) == REGISTERED + 2 + len(sent)


def test_a_message_committed_before_the_ceiling_sends_its_replies_after_it(capped: Game) -> None:
    """Its replies were counted when it committed: a redelivery sends what is missing."""
    game = Game(capped.dynamodb, capped.sms, daily_sms_ceiling=REGISTERED + 2, sid_prefix="b")
    capped.sms.fail_next(None, transient_failure())  # Alice's acknowledgement goes, Bob's challenge waits
    with pytest.raises(RetryLater):
        game.text(ALICE, "rock bob", sid=SID)
    assert counted(game) == REGISTERED + 2, "the ceiling: both replies were counted in the commit"

    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT

    assert capped.sms.to(BOB)[-1] == replies.challenged("alice")
    assert counted(game) == REGISTERED + 2


# -- waiting, then played once -------------------------------------------------------------------


def test_a_held_message_goes_back_to_the_queue_whatever_its_receives_and_plays_once_at_midnight(
    capped: Game, queues: Queues, copies: list[dict[str, Any]], clock: Any
) -> None:
    function = queues.function(capped.processor)
    body = queues.sms_body(ALICE, "rock bob")
    event = queues.event(body)
    event["Records"][0]["attributes"]["SentTimestamp"] = str(int(time.time() * 1000))
    before = len(capped.sms.sent)

    assert function.handle_batch(event, None) == {"batchItemFailures": []}, "acknowledged: it does not count"
    [copy] = copies
    assert copy["MessageBody"] == body
    assert copy["DelaySeconds"] == 15 * 60, "SQS's longest delay: it looks again every 15 minutes"
    assert "ReceivedAt" in copy["MessageAttributes"], "its first arrival travels with it"

    clock.move_to("2026-11-21 23:55:00")
    assert function.handle_batch({"Records": [_copy_as_received(copy)]}, None) == {"batchItemFailures": []}
    assert copies[1]["DelaySeconds"] == 5 * 60, "back at midnight, when the ceiling lifts"
    assert capped.sms.sent[before:] == []

    clock.move_to("2026-11-22 00:00:01")
    at_midnight = {"Records": [_copy_as_received(copies[1])]}
    assert function.handle_batch(at_midnight, None) == {"batchItemFailures": []}
    assert capped.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)
    assert capped.sms.last(BOB) == replies.challenged("alice")
    assert counted(capped) == 2, "a new day's count"
    assert counted(capped, "2026-11-21") == REGISTERED, "the day before keeps its own"

    again = [_copy_as_received(copy), {**event["Records"][0], "messageId": "original-again"}]
    assert function.handle_batch({"Records": again}, None) == {"batchItemFailures": []}
    assert capped.sms.to(BOB).count(replies.challenged("alice")) == 1, "a copy or the original: once"
    assert len(copies) == 2


def test_a_batch_that_crosses_the_ceiling_plays_up_to_it_and_holds_the_rest_none_failed(
    dynamodb: Any, sms: FakeSms, queues: Queues, copies: list[dict[str, Any]], clock: Any
) -> None:
    """One batch of five: the text that crosses the ceiling is played whole (its replies are the
    documented overshoot), the ones after it wait on the queue (one at its last receive before the
    dead-letter queue), an opt-out among them is played; the batch reports no failure, and at
    midnight the held texts are played once."""
    ceiling = REGISTERED + 3
    game = Game(dynamodb, sms, daily_sms_ceiling=ceiling)
    game.register((ALICE, "alice"), (BOB, "bob"))
    function = queues.function(game.processor)
    carol_registers = queues.sms_body(CAROL, "nick carol")  # 2 SMS: 6 of 7
    alice_throws = queues.sms_body(ALICE, "rock bob")  # 2 SMS: 8, over by one
    bob_throws = queues.sms_body(BOB, "paper alice")  # held
    carol_stops = queues.sms_body(CAROL, "please stop texting me")  # played: its confirmation only
    alice_asks = queues.sms_body(ALICE, "score")  # held
    event = queues.event(carol_registers, alice_throws, bob_throws, carol_stops, alice_asks)
    event["Records"][2]["attributes"]["ApproximateReceiveCount"] = str(function.max_receive_count)
    before = len(sms.sent)

    assert function.handle_batch(event, None) == {"batchItemFailures": []}

    assert [copy["MessageBody"] for copy in copies] == [bob_throws, alice_asks], "held, in order"
    assert queues.dead_letters() == [], "its last receive does not dead-letter a held text"
    assert [(reply.to, reply.body) for reply in sms.sent[before:]] == [
        (CAROL, replies.opt_in_confirmation(replies.Program())),
        (CAROL, replies.nick_registered("carol")),
        (ALICE, replies.throw_waiting("bob", Move.ROCK)),
        (BOB, replies.challenged("alice")),
        (CAROL, CONFIRMATION),
    ]
    assert game.items_holding(CAROL) == [], "the opt-out erased her past the ceiling"
    assert counted(game) == ceiling + 2, "over by the replies of the text that crossed it, and the opt-out's"
    for held in (bob_throws, alice_asks):
        assert game.message_record(json.loads(held)["MessageSid"]) is None, "nothing of it written"

    clock.move_to("2026-11-22 00:00:01")
    back = [{**_copy_as_received(copy), "messageId": f"copy-{index}"} for index, copy in enumerate(copies)]
    assert function.handle_batch({"Records": back}, None) == {"batchItemFailures": []}
    assert sms.to(BOB)[-1] == replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "alice")
    assert replies.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob") in sms.to(ALICE)
    assert len(copies) == 2, "played: nothing held again"
    assert counted(game) == 3, "the new day's: the result to each, and Alice's score"


def test_the_operator_lifting_the_ceiling_lets_held_messages_play_within_seconds(
    capped: Game, clock: Any
) -> None:
    with pytest.raises(CeilingReached):
        capped.text(ALICE, "rock bob", sid=SID)

    capped.store.lift_ceiling(time.time())
    clock.tick(CACHE_SECONDS)  # each execution environment reads the day's count again

    assert capped.text(ALICE, "rock bob", sid=SID) is Result.PROCESSED
    assert capped.sms.last(BOB) == replies.challenged("alice")
    assert capped.store.sms_count(utc_day(time.time())).lifted
    assert counted(capped) == REGISTERED + 2, "still counted, for the operator to see"


def test_a_message_held_for_over_a_day_is_parked_on_the_dead_letter_queue_with_its_reason(
    queues: Queues, copies: list[dict[str, Any]]
) -> None:
    function = queues.function(Contended(CeilingReached("the daily SMS ceiling is reached", 600)))
    event = queues.event(queues.sms_body(ALICE, "rock bob"))
    event["Records"][0]["attributes"]["SentTimestamp"] = str(int((time.time() - HOLD_WITHIN_SECONDS) * 1000))

    assert function.handle_batch(event, None) == {"batchItemFailures": []}

    assert copies == []
    [parked] = queues.dead_letters()
    assert (
        parked["MessageAttributes"]["reason"]["StringValue"] == "held by the daily SMS ceiling for over a day"
    )
    assert HOLD_WITHIN_SECONDS == 25 * 60 * 60, "a day, and an hour after midnight to drain the queue"


def test_a_held_message_is_counted_for_the_alarm_and_by_its_outcome(
    deployed: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DAILY_SMS_CEILING", "2")
    app.lambda_handler(_event(("SM" + "1" * 32, ALICE, "nick alice")), LambdaContext())
    capsys.readouterr()

    response = app.lambda_handler(_event(("SM" + "2" * 32, BOB, "nick bob")), LambdaContext())

    assert response == {"batchItemFailures": []}
    emitted = Emitted(capsys.readouterr().out)
    assert emitted.totals["HeldByCeiling"] == 1
    assert emitted.messages[("SetNickname", "held")] == 1


# -- counted in the commit -------------------------------------------------------------------------


@pytest.fixture
def counting(dynamodb: Any, sms: FakeSms, clock: Any) -> Game:
    return Game(dynamodb, sms, daily_sms_ceiling=1000)


def test_a_message_is_counted_once_however_often_it_is_delivered(counting: Game) -> None:
    counting.text(ALICE, "help", sid=SID)  # the opt-in confirmation, the program's help, the commands
    assert counted(counting) == 3

    for _ in range(3):
        assert counting.text(ALICE, "help", sid=SID) is Result.DUPLICATE

    assert counted(counting) == 3


def test_the_count_is_an_item_of_the_commit_so_a_cancelled_commit_counts_nothing(counting: Game) -> None:
    """A crash between counting and committing cannot happen: they are one transaction. Here
    DynamoDB cancels it (a conflict on the counter's shard, say): nothing is counted, and the
    retried message is counted once."""
    commits: list[dict[str, Any]] = []
    counter_writes: list[str] = []

    def note(params: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "TransactWriteItems":
            commits.append(params)
        elif CEILING_PREFIX in json.dumps(params) and model.name != "BatchGetItem":
            counter_writes.append(model.name)

    def conflict_once(**_: Any) -> tuple[AWSResponse, dict[str, Any]] | None:
        if len(commits) > 1:
            return None
        parsed = {
            "Error": {"Code": "TransactionCanceledException", "Message": "[None, TransactionConflict, None]"},
            "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}, {"Code": "None"}],
            "ResponseMetadata": {"HTTPStatusCode": 400},
        }
        return AWSResponse("http://conflict", 400, {}, None), parsed

    events = counting.dynamodb.meta.events
    events.register("provide-client-params.dynamodb", note)
    events.register("before-call.dynamodb.TransactWriteItems", conflict_once)

    with pytest.raises(RetryLater):
        counting.text(ALICE, "help", sid=SID)
    assert counted(counting) == 0
    assert counting.text(ALICE, "help", sid=SID) is Result.PROCESSED

    assert counted(counting) == 3
    assert counter_writes == [], "no request but the commit writes a counter"
    [add] = [item["Update"] for item in commits[-1]["TransactItems"] if CEILING_PREFIX in json.dumps(item)]
    assert add["UpdateExpression"].startswith("ADD #sms :sms")
    assert add["ExpressionAttributeValues"][":sms"] == {"N": "3"}


def test_the_counter_holds_no_number_and_expires_a_day_after_its_day(counting: Game) -> None:
    for phone, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        counting.text(phone, f"nick {name}")

    counters = [
        item
        for item in counting.items(TABLES.idempotency)
        if item["messageId"]["S"].startswith(CEILING_PREFIX)
    ]
    assert 1 <= len(counters) <= 3
    tomorrow_ends = datetime(2026, 11, 23, tzinfo=UTC).timestamp()
    for item in counters:
        key = item["messageId"]["S"]
        assert key.startswith("ceiling#2026-11-21#")
        assert 0 <= int(key.rsplit("#", 1)[1]) < COUNTER_SHARDS
        assert set(item) == {"messageId", "sms", "TTLEpochTimestamp"}
        assert float(item["TTLEpochTimestamp"]["N"]) == tomorrow_ends
        assert not any(phone in json.dumps(item) for phone in (ALICE, BOB, CAROL))
    assert sum(int(item["sms"]["N"]) for item in counters) == 6


# -- read from a cache: how far over a stack may go ---------------------------------------------------


@pytest.fixture
def reads(dynamodb: Any) -> Iterator[list[str]]:
    """The reads of the day's count (one BatchGetItem of its shards each)."""
    made: list[str] = []

    def note(params: dict[str, Any], **_: Any) -> None:
        if CEILING_PREFIX in json.dumps(params):
            made.append("BatchGetItem")

    dynamodb.meta.events.register("provide-client-params.dynamodb.BatchGetItem", note)
    yield made
    dynamodb.meta.events.unregister("provide-client-params.dynamodb.BatchGetItem", note)


def test_each_environment_reads_the_days_count_once_every_few_seconds_and_adds_its_own_commits(
    dynamodb: Any, sms: FakeSms, clock: Any, reads: list[str]
) -> None:
    """Two execution environments: each sees its own commits at once, the other's within
    CACHE_SECONDS. What the other commits meanwhile is how far over the ceiling the stack goes."""
    ceiling = 2 + REGISTERED
    first = Game(dynamodb, sms, daily_sms_ceiling=ceiling, sid_prefix="1")
    second = Game(dynamodb, sms, daily_sms_ceiling=ceiling, sid_prefix="2")
    second.text(CAROL, "score")  # the second reads the day's count (nothing yet) and commits 2
    first.register((ALICE, "alice"), (BOB, "bob"))  # the first reads it (2), then commits 4 more
    assert reads == ["BatchGetItem", "BatchGetItem"], "one read each; their own commits are added"

    with pytest.raises(CeilingReached):
        first.text(ALICE, "score")
    assert second.text(CAROL, "score") is Result.PROCESSED, "the second has not read the first's 4 yet"
    assert counted(first) == ceiling + 1, "one SMS over: what the cache let through"

    clock.tick(CACHE_SECONDS)
    reads.clear()
    with pytest.raises(CeilingReached):
        second.text(CAROL, "score")
    assert reads == ["BatchGetItem"], "its cache ran out: it reads the day's count again"
