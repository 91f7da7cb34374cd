"""Promise 1 (exactly-once effect) and 4 (an in-progress claim of a dead invocation is taken over)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.exceptions import ClaimHeldElsewhere
from serverless_rps.game_store import CONTACT_PREFIX, IN_PROGRESS
from serverless_rps.ports import Claim, CompletedRecord
from serverless_rps.processing import InboundSms, Result
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, BOT_NUMBER, COMPLETED_SECONDS, IN_PROGRESS_SECONDS, TABLES, Game

SID = "SM" + "a" * 32


def _scores(game: Game, phone: str) -> tuple[str, str]:
    player = game.player(phone)
    assert player is not None
    return player["wins"]["N"], player["losses"]["N"]


def test_the_same_sms_under_two_sqs_message_ids_is_processed_once(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    first = InboundSms(SID, BOB, BOT_NUMBER, "paper alice", transport_id="sqs-1")
    second = InboundSms(SID, BOB, BOT_NUMBER, "paper alice", transport_id="sqs-2")
    assert game.processor.process(first) is Result.PROCESSED
    assert game.processor.process(second) is Result.DUPLICATE
    assert _scores(game, BOB) == ("1", "0")
    assert game.sms.to(BOB).count(replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "alice")) == 1


@pytest.mark.parametrize("late_by", [11, 60 * 60, 4 * 24 * 60 * 60, 17 * 24 * 60 * 60])
def test_a_late_duplicate_is_still_recognised(game: Game, clock: Any, late_by: int) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob", sid=SID)
    clock.tick(late_by)
    assert game.text(ALICE, "rock bob", sid=SID) is Result.DUPLICATE
    assert game.sms.to(ALICE).count(replies.throw_waiting("bob", Move.ROCK)) == 1


def test_completed_records_outlive_the_queue_and_dead_letter_queue() -> None:
    four_days, fourteen_days = 4 * 86400, 14 * 86400
    assert four_days + fourteen_days <= COMPLETED_SECONDS


def test_every_record_a_message_leaves_carries_the_expiry_dynamodb_deletes_it_by(game: Game) -> None:
    """moto never applies TTL, so the late-duplicate test above cannot see a record written with
    too short a TTL: DynamoDB would delete it and process the duplicate again. Checked here: the
    claim, the completed record and the contact records all say now + COMPLETED_SECONDS."""
    stranger = "+15554440004"
    game.register((ALICE, "alice"), (BOB, "bob"))
    now = time.time()
    claim = game.store.claim("SM-claim", "attempt-1", now)
    assert not isinstance(claim, CompletedRecord)
    game.text(ALICE, "rock bob", sid=SID)
    game.text(stranger, "help")  # a phone with no record keeps its budget on a contact record

    expected = str(int(now + COMPLETED_SECONDS))
    records = {item["messageId"]["S"]: item for item in game.items(TABLES.idempotency)}
    contacts = [item for key, item in records.items() if key.startswith(CONTACT_PREFIX)]
    assert records["SM-claim"]["TTLEpochTimestamp"]["N"] == expected
    assert records[SID]["TTLEpochTimestamp"]["N"] == expected
    assert len(contacts) == 3, "alice, bob (replies sent to them) and the stranger (its budget)"
    assert {item["TTLEpochTimestamp"]["N"] for item in contacts} == {expected}


def test_a_message_without_an_sms_id_is_deduplicated_on_its_sqs_id(game: Game) -> None:
    game.register((ALICE, "alice"))
    message = InboundSms(None, ALICE, BOT_NUMBER, "help", transport_id="sqs-only")
    assert game.processor.process(message) is Result.PROCESSED
    assert game.processor.process(message) is Result.DUPLICATE


def _leave_in_progress_claim(game: Game, key: str) -> None:
    game.store.claim(key, attempt_id="dead-attempt", now=time.time())


def test_a_live_claim_makes_a_concurrent_duplicate_wait(game: Game) -> None:
    game.register((ALICE, "alice"))
    _leave_in_progress_claim(game, SID)
    with pytest.raises(ClaimHeldElsewhere) as held:
        game.text(ALICE, "help", sid=SID)
    assert 0 < (held.value.retry_after or 0) <= IN_PROGRESS_SECONDS
    assert str(held.value) == "another attempt is processing this message"
    assert game.sms.to(ALICE)[-1] != replies.help_overview()


def test_a_claim_given_up_while_it_is_checked_lets_the_message_be_claimed_at_once(game: Game) -> None:
    """The claim is refused without the record it failed on, and by the time the store reads that
    record its holder has given it up: the message is retried at once, and then claims it."""
    held = game.store.claim(SID, "giving-up", time.time())
    assert isinstance(held, Claim)

    def give_up_meanwhile(parsed: dict[str, Any], **_: Any) -> None:
        parsed.pop("Item", None)
        game.store.abandon(held)

    events = game.dynamodb.meta.events
    events.register("after-call.dynamodb.PutItem", give_up_meanwhile)
    try:
        with pytest.raises(ClaimHeldElsewhere) as vanished:
            game.store.claim(SID, "next", time.time())
    finally:
        events.unregister("after-call.dynamodb.PutItem", give_up_meanwhile)
    assert str(vanished.value) == "claim vanished while checking it"
    assert vanished.value.retry_after == 0
    assert isinstance(game.store.claim(SID, "next", time.time()), Claim)


def test_a_duplicate_is_recognised_from_its_refused_claim_without_reading_the_record_again(
    game: Game,
) -> None:
    game.register((ALICE, "alice"))
    game.text(ALICE, "help", sid=SID)
    requests: list[str] = []

    def note(model: Any, **_: Any) -> None:
        requests.append(model.name)

    game.dynamodb.meta.events.register("before-call.dynamodb", note)
    try:
        assert game.text(ALICE, "help", sid=SID) is Result.DUPLICATE
    finally:
        game.dynamodb.meta.events.unregister("before-call.dynamodb", note)
    # The refused claim returns the record it failed on; then alice's contact record is tidied.
    assert requests == ["PutItem", "UpdateItem"]


def test_a_dead_invocations_claim_is_taken_over_once_it_expires(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    _leave_in_progress_claim(game, SID)
    clock.tick(IN_PROGRESS_SECONDS + 0.5)
    assert game.text(ALICE, "help", sid=SID) is Result.PROCESSED
    assert game.sms.last(ALICE) == replies.help_overview()


def test_a_failed_attempt_gives_its_claim_back_for_an_immediate_retry(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "someone-else", now=time.time())
    with pytest.raises(Exception, match="locked"):
        game.text(ALICE, "rock bob", sid=SID)
    record = game.message_record(SID)
    assert record is None or record["status"]["S"] != IN_PROGRESS
