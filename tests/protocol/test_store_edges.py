"""The store at DynamoDB's edges: refused requests, partial answers, a race inside an erasure.

When DynamoDB refuses a request, the error says which step of the protocol it refused.

An operator reading "DynamoDB refused to read records: AccessDeniedException" knows which IAM
action or table to look at; "could not lock a player: ThrottlingException" says where capacity ran
out. Each store request is refused in turn, three ways (a configuration error, throttling, no
connection), and the error must name its step and the cause, and be of the kind the handler
treats rightly (ConfigurationProblem: alarm, keep the message; StoreUnavailable: retry soon).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import EndpointConnectionError

from serverless_rps import replies
from serverless_rps.exceptions import (
    ClaimLost,
    ConfigurationProblem,
    LockContended,
    RetryLater,
    StoreUnavailable,
)
from serverless_rps.game import LEADERBOARD_SHARDS, LOBBY_SHARDS, Decision
from serverless_rps.game_store.delivery_status import DeliveryStatus, DeliveryStatusRecords
from serverless_rps.model import LOBBY_SWEEP_SECONDS
from serverless_rps.ports import SENDING, CompletedRecord, OutboundSms
from tests.conftest import (
    ALICE,
    BOB,
    BOT_NUMBER,
    CAROL,
    IN_PROGRESS_SECONDS,
    LEASE_SECONDS,
    STRANGER,
    TABLES,
    Game,
    transient_failure,
)

THROW_SID = "SM" + "7" * 32


@contextmanager
def refusing(game: Game, operation: str, how: str) -> Iterator[None]:
    """Every `operation` request (GetItem, UpdateItem, ...) fails, before reaching the engine."""

    def refuse(**_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        if how == "unreachable":
            raise EndpointConnectionError(endpoint_url="http://dynamodb.invalid")
        code = {"configuration": "AccessDeniedException", "throttled": "ThrottlingException"}[how]
        parsed = {"Error": {"Code": code, "Message": "refused"}, "ResponseMetadata": {"HTTPStatusCode": 400}}
        return AWSResponse("http://refused", 400, {}, None), parsed

    event = f"before-call.dynamodb.{operation}"
    game.dynamodb.meta.events.register(event, refuse)
    try:
        yield
    finally:
        game.dynamodb.meta.events.unregister(event, refuse)


def _waiting_record(game: Game) -> CompletedRecord:
    """alice threw at bob; Twilio failed, so both replies (to alice and to bob) wait in the outbox."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.sms.fail_next(transient_failure())
    with pytest.raises(RetryLater):
        game.text(ALICE, "rock bob", sid=THROW_SID)
    record = game.store.claim(
        game.inbound(ALICE, "rock bob", sid=THROW_SID).idempotency_key, "a2", time.time()
    )
    assert isinstance(record, CompletedRecord)
    assert len(record.undelivered()) == 2
    return record


def _claimed(game: Game) -> Callable[[], object]:
    claim = game.store.claim("SM-new", "a1", time.time())
    assert not isinstance(claim, CompletedRecord)
    return lambda: game.store.abandon(claim)


def _locked(game: Game, phone: str) -> Callable[[], object]:
    game.register((ALICE, "alice"))
    locked = game.store.lock(phone, "l1", time.time())
    return lambda: game.store.release(locked)


def _sent_but_not_recorded(game: Game) -> Callable[[], object]:
    record = _waiting_record(game)
    return lambda: game.store.outboxes.finish(record)


def _delivering(game: Game) -> Callable[[], object]:
    record = _waiting_record(game)
    return lambda: game.store.outboxes.record_delivery(record, record.undelivered()[0], "SM" + "d" * 32)


def _recording_a_status(game: Game) -> Callable[[], object]:
    record = _waiting_record(game)
    statuses = DeliveryStatusRecords(game.dynamodb, TABLES.idempotency)
    return lambda: statuses.record(
        record.key, 0, DeliveryStatus("SM" + "d" * 32, "delivered", None, time.time())
    )


def _withholding(game: Game) -> Callable[[], object]:
    record = _waiting_record(game)
    index = record.undelivered()[0]
    return lambda: game.store.outboxes.withhold_number(record.key, index, record.outbox[index].to, SENDING)


def _restoring(game: Game) -> Callable[[], object]:
    record = _waiting_record(game)
    index = record.undelivered()[0]
    sms = record.outbox[index]
    assert game.store.outboxes.withhold_number(record.key, index, sms.to, SENDING)
    return lambda: game.store.outboxes.restore_number(record.key, index, sms)


Setup = Callable[[Game], Callable[[], object]]
STEPS: list[tuple[str, str, Setup]] = [
    ("claim the message", "PutItem", lambda game: lambda: game.store.claim("SM-new", "a1", time.time())),
    ("abandon the claim", "DeleteItem", _claimed),
    (
        "lease the outbox",
        "UpdateItem",
        lambda game: (lambda record: lambda: game.store.outboxes.lease(record, "a3", time.time() + 3600))(
            _waiting_record(game)
        ),
    ),
    (
        "release the outbox",
        "UpdateItem",
        lambda game: (lambda record: lambda: game.store.outboxes.release(record.key, "a2"))(
            _waiting_record(game)
        ),
    ),
    ("record a delivery", "UpdateItem", _delivering),
    # The status route's one write (the webhook), and the undoing of an opt-out confirmation's
    # withheld number after a send that certainly failed (processing).
    ("record a delivery status", "UpdateItem", _recording_a_status),
    ("withhold a number", "UpdateItem", _withholding),
    ("restore a withheld reply", "UpdateItem", _restoring),
    ("drop a sent outbox", "UpdateItem", _sent_but_not_recorded),
    ("read a contact", "GetItem", lambda game: lambda: game.store.outboxes.erase_number(BOB)),
    # The look before re-sending reads what other records sent the number (reconciliation).
    ("read a contact", "GetItem", lambda game: lambda: game.store.outboxes.others_sending_to(BOB, THROW_SID)),
    (
        "read records",
        "BatchGetItem",
        lambda game: (_waiting_record(game), lambda: game.store.outboxes.erase_number(BOB))[1],
    ),
    (
        "erase a number from an outbox",
        "UpdateItem",
        lambda game: (_waiting_record(game), lambda: game.store.outboxes.erase_number(BOB))[1],
    ),
    ("look up a nickname", "GetItem", lambda game: lambda: game.store.nickname_holder("bob")),
    ("read a player", "GetItem", lambda game: lambda: game.store.get_player(ALICE)),
    ("read players", "BatchGetItem", lambda game: lambda: game.store.get_players([ALICE, BOB])),
    ("read shared records", "BatchGetItem", lambda game: lambda: game.store.get_shared(LEADERBOARD_SHARDS)),
    ("lock a player", "UpdateItem", lambda game: lambda: game.store.lock(ALICE, "l1", time.time())),
    # A phone without a player record keeps its reply budget on its contact record.
    ("read a contact", "GetItem", lambda game: lambda: game.store.lock(STRANGER, "l1", time.time())),
    ("release a lock", "UpdateItem", lambda game: _locked(game, ALICE)),
    ("release a lock", "DeleteItem", lambda game: _locked(game, STRANGER)),  # the bare row goes
    (
        "commit",
        "TransactWriteItems",
        lambda game: (game.register((ALICE, "alice")), lambda: game.text(ALICE, "score"))[1],
    ),
]
EXPECTED = {
    "configuration": (ConfigurationProblem, "DynamoDB refused to {action}: AccessDeniedException"),
    "throttled": (StoreUnavailable, "could not {action}: ThrottlingException"),
    "unreachable": (StoreUnavailable, "could not {action}: EndpointConnectionError"),
}


@pytest.mark.parametrize("how", sorted(EXPECTED))
@pytest.mark.parametrize(
    ("action", "operation", "setup"),
    STEPS,
    ids=[f"{row:02d} {action} ({operation})" for row, (action, operation, _) in enumerate(STEPS)],
)
def test_a_refused_request_names_its_step(
    game: Game, action: str, operation: str, setup: Setup, how: str
) -> None:
    call = setup(game)
    kind, message = EXPECTED[how]
    with refusing(game, operation, how), pytest.raises(RetryLater) as raised:
        call()
    assert type(raised.value) is kind
    assert str(raised.value) == message.format(action=action)


def test_a_configuration_error_asks_for_a_slow_retry_and_a_passing_one_for_a_quick_one(game: Game) -> None:
    with refusing(game, "GetItem", "configuration"), pytest.raises(ConfigurationProblem) as configuration:
        game.store.get_player(ALICE)
    with refusing(game, "GetItem", "throttled"), pytest.raises(StoreUnavailable) as throttled:
        game.store.get_player(ALICE)
    assert configuration.value.retry_after == 60
    assert throttled.value.retry_after == 1


def test_the_shared_records_and_a_strangers_budget_are_read_strongly_consistently(
    game: Game, clock: Any
) -> None:
    """`top` answers from a read with no lock, a lobby throw decides whom to lock from one, and a
    stranger's reply budget is read beside its lock: an eventually consistent read could miss the
    result, the waiting player or the replies just committed."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    reads: list[tuple[str, bool]] = []

    def note_read(params: dict[str, Any], **_: Any) -> None:
        if "Key" in params:
            [key] = params["Key"].values()
            reads.append((key["S"], bool(params.get("ConsistentRead"))))
        for request in params.get("RequestItems", {}).values():
            for keys in request["Keys"]:
                [key] = keys.values()
                reads.append((key["S"], bool(request.get("ConsistentRead"))))

    events = ("provide-client-params.dynamodb.GetItem", "provide-client-params.dynamodb.BatchGetItem")
    for event in events:
        game.dynamodb.meta.events.register(event, note_read)
    try:
        for sender, body in ((STRANGER, "hello"), (ALICE, "rock"), (BOB, "paper"), (ALICE, "top")):
            game.text(sender, body)
            clock.tick(LOBBY_SWEEP_SECONDS)  # bob's lobby room is another than alice's
    finally:
        for event in events:
            game.dynamodb.meta.events.unregister(event, note_read)
    assert game.sms.last(ALICE) == replies.top_unranked([("bob", 1)]), "alice lost: not ranked"
    shared = {*LOBBY_SHARDS, *LEADERBOARD_SHARDS}
    assert {*shared, game.store.contact_id(STRANGER)} <= {key for key, _ in reads}
    assert all(consistent for _, consistent in reads), reads


def test_a_strangers_lock_reads_nothing_but_the_budget_and_opt_in_of_its_contact_record(game: Game) -> None:
    """A contact record also lists the outboxes waiting with replies to the number, which can be
    many keys: the lock asks DynamoDB for the budget and the opt-in marker alone. (The read costs
    the same capacity either way, DynamoDB charges by the whole item's size; the answer the
    function waits for and parses stays small.)"""
    game.text(STRANGER, "score")  # a contact record with a budget and an expiry
    answers: list[set[str]] = []

    def note_answer(parsed: dict[str, Any], **_: Any) -> None:
        answers.append(set(parsed.get("Item", {})))

    game.dynamodb.meta.events.register("after-call.dynamodb.GetItem", note_answer)
    try:
        locked = game.store.lock(STRANGER, "attempt", time.time())
    finally:
        game.dynamodb.meta.events.unregister("after-call.dynamodb.GetItem", note_answer)
    assert locked.budget is not None
    assert answers == [{"reply_budget", "opted_in_at"}]


# -- partial answers --------------------------------------------------------------------------------


@contextmanager
def answering_one_item_at_a_time(game: Game) -> Iterator[list[int]]:
    """BatchGetItem answers with nothing at first, then at most one item at a time, and returns the
    other keys as UnprocessedKeys, as DynamoDB may under throttling or past 16 MB. A table with no
    item in an answer is absent from its Responses. Yields how many items each answer held."""
    answers: list[int] = []
    key_names = {TABLES.game_state: "phone_number", TABLES.idempotency: "messageId"}

    def hold_back(parsed: dict[str, Any], **_: Any) -> None:
        for table, items in list(parsed["Responses"].items()):
            kept, held = (items[:1], items[1:]) if answers else ([], items)
            answers.append(len(kept))
            if kept:
                parsed["Responses"][table] = kept
            else:
                del parsed["Responses"][table]
            if held:
                keys = [{key_names[table]: item[key_names[table]]} for item in held]
                parsed["UnprocessedKeys"][table] = {"Keys": keys, "ConsistentRead": True}

    game.dynamodb.meta.events.register("after-call.dynamodb.BatchGetItem", hold_back)
    try:
        yield answers
    finally:
        game.dynamodb.meta.events.unregister("after-call.dynamodb.BatchGetItem", hold_back)


def test_players_held_back_by_a_partial_answer_are_asked_for_again(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    with answering_one_item_at_a_time(game) as answers:
        players = game.store.get_players([ALICE, BOB, CAROL])
    assert answers == [0, 1, 1, 1]
    assert sorted(players) == [ALICE, BOB, CAROL]
    assert all(player.phone == phone for phone, player in players.items())


def test_outboxes_held_back_by_a_partial_answer_are_still_erased(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    for sender, body in ((ALICE, "rock bob"), (CAROL, "paper bob")):
        game.sms.fail_next(transient_failure())
        with pytest.raises(RetryLater):
            game.text(sender, body)
    waiting = [item for item in game.items(TABLES.idempotency) if BOB in json.dumps(item)]
    assert len(waiting) == 2, "two outboxes wait with a reply to bob"

    with answering_one_item_at_a_time(game) as answers:
        game.store.outboxes.erase_number(BOB)

    assert answers == [0, 1, 1]
    assert [item for item in game.items(TABLES.idempotency) if BOB in json.dumps(item)] == []


# -- races inside one store call ------------------------------------------------------------------


def test_an_erasure_that_meets_the_last_delivery_leaves_no_number_and_keeps_the_delivery(game: Game) -> None:
    """STOP reads the outbox, then the sending attempt records its last delivery and drops the
    outbox, then STOP's conditional rewrite fails: the number is gone already, and so is done."""
    record = _waiting_record(game)
    sent: list[str] = []

    def deliver_everything_first(params: dict[str, Any], **_: Any) -> None:
        if sent or "#to = :phone" not in params.get("ConditionExpression", ""):
            return
        for index in record.undelivered():
            sent.append(f"SM{index:032x}")
            game.store.outboxes.record_delivery(record, index, sent[-1])

    events = game.dynamodb.meta.events
    events.register("provide-client-params.dynamodb.UpdateItem", deliver_everything_first)
    try:
        game.store.outboxes.erase_number(BOB)
    finally:
        events.unregister("provide-client-params.dynamodb.UpdateItem", deliver_everything_first)

    assert len(sent) == 2, "the deliveries ran between STOP's read and its write"
    stored = game.stored_record(record.key)
    assert {value["S"] for value in stored["delivered"]["M"].values()} == set(sent)
    assert BOB not in json.dumps(game.items(TABLES.idempotency))


def test_a_claim_on_a_completed_message_is_recognised_when_the_refusal_omits_the_item(game: Game) -> None:
    """ReturnValuesOnConditionCheckFailure returns the record the claim failed on; should an
    answer come without it, the store reads the record rather than guess."""
    record = _waiting_record(game)

    def drop_item(parsed: dict[str, Any], **_: Any) -> None:
        parsed.pop("Item", None)

    reads: list[bool] = []

    def note_read(params: dict[str, Any], **_: Any) -> None:
        reads.append(bool(params.get("ConsistentRead")))

    events = game.dynamodb.meta.events
    events.register("after-call.dynamodb.PutItem", drop_item)
    events.register("provide-client-params.dynamodb.GetItem", note_read)
    try:
        again = game.store.claim(record.key, "a9", time.time())
    finally:
        events.unregister("after-call.dynamodb.PutItem", drop_item)
        events.unregister("provide-client-params.dynamodb.GetItem", note_read)
    assert isinstance(again, CompletedRecord)
    assert again.outbox == record.outbox
    assert reads == [True], "one read, strongly consistent: a claim decides on it"


def test_a_lock_refused_without_the_item_it_failed_on_is_contention_to_retry_at_once(game: Game) -> None:
    """ReturnValuesOnConditionCheckFailure returns the record a lock failed on, with the lease that
    holds it; should an answer come without it, the lock is still contended, and retried at once
    rather than after a guessed wait."""
    game.register((ALICE, "alice"))
    game.store.lock(ALICE, "holder", time.time())

    def drop_item(parsed: dict[str, Any], **_: Any) -> None:
        parsed.pop("Item", None)

    game.dynamodb.meta.events.register("after-call.dynamodb.UpdateItem", drop_item)
    try:
        with pytest.raises(LockContended) as contended:
            game.store.lock(ALICE, "waiter", time.time())
    finally:
        game.dynamodb.meta.events.unregister("after-call.dynamodb.UpdateItem", drop_item)
    assert contended.value.retry_after == 0


def test_only_the_holder_of_the_outbox_lease_can_give_it_back(game: Game) -> None:
    record = _waiting_record(game)
    now = time.time()
    assert game.store.outboxes.lease(record, "sender-1", now) is not None
    game.store.outboxes.release(record.key, "sender-2")  # not the holder: nothing happens, no error
    assert game.store.outboxes.lease(record, "sender-2", now) is None, "the lease is still sender-1's"
    game.store.outboxes.release(record.key, "sender-1")
    assert game.store.outboxes.lease(record, "sender-2", now) is not None


def test_a_lock_taken_over_after_expiry_is_not_released_by_its_former_holder(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    stale = game.store.lock(ALICE, "frozen-attempt", time.time())
    stranger_stale = game.store.lock(STRANGER, "frozen-attempt", time.time())
    clock.tick(LEASE_SECONDS + 1)
    game.store.lock(ALICE, "live-attempt", time.time())
    game.store.lock(STRANGER, "live-attempt", time.time())

    game.store.release(stale)  # no error: there is nothing of ours to give back
    game.store.release(stranger_stale)

    for phone in (ALICE, STRANGER):
        row = game.player(phone)
        assert row is not None, "the live attempt's bare row stays"
        assert row["user_locked"]["M"]["lock_uuid"]["S"] == "live-attempt"


def test_a_commit_after_the_claim_was_taken_over_is_refused_as_a_lost_claim_and_writes_nothing(
    game: Game, clock: Any
) -> None:
    """The completion is fenced on the claim: an attempt frozen past its claim's expiry, whose
    message another attempt claimed meanwhile, learns that its claim was lost (so its message
    comes back, and the live attempt answers it), not that the store failed."""
    stale = game.store.claim("SM-slow", "frozen-attempt", time.time())
    clock.tick(IN_PROGRESS_SECONDS + 1)
    game.store.claim("SM-slow", "live-attempt", time.time())
    assert not isinstance(stale, CompletedRecord)
    reply = OutboundSms(ALICE, BOT_NUMBER, "too late")

    with pytest.raises(ClaimLost, match="the claim was taken over before the commit"):
        game.store.commit(stale, [], Decision(), [reply], {}, time.time())

    record = game.stored_record("SM-slow")
    assert record["attempt_id"]["S"] == "live-attempt"
    assert "outbox" not in record
    assert game.items_holding(ALICE) == []


def test_a_claim_taken_over_after_expiry_is_not_abandoned_by_its_former_holder(
    game: Game, clock: Any
) -> None:
    stale = game.store.claim("SM-slow", "frozen-attempt", time.time())
    clock.tick(IN_PROGRESS_SECONDS + 1)
    live = game.store.claim("SM-slow", "live-attempt", time.time())
    assert not isinstance(stale, CompletedRecord)
    assert not isinstance(live, CompletedRecord)

    game.store.abandon(stale)  # no error, and the live claim stays

    record = game.stored_record("SM-slow")
    assert record["attempt_id"]["S"] == "live-attempt"
