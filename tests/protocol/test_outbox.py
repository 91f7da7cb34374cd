"""Promises 2 (no lost results) and 3 (few duplicates): replies are committed with the state and
sent afterwards; a redelivery sends only what is missing; permanent refusals are recorded."""

from __future__ import annotations

import time
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.exceptions import ClaimHeldElsewhere, OutboxLeaseExpired, SmsTemporarilyFailed
from serverless_rps.game import reply_only
from serverless_rps.ports import Claim, OutboundSms
from serverless_rps.processing import Result
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, LEASE_SECONDS, FakeSms, Game, opted_out, transient_failure

SID = "SM" + "b" * 32
ALICE_WINS = replies.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "bob")
BOB_LOSES = replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "alice")


def _bob_waits_on_alice(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "scissors alice")


def test_a_failed_send_after_the_commit_loses_no_result_and_starts_no_new_game(game: Game) -> None:
    _bob_waits_on_alice(game)
    game.sms.fail_next(transient_failure())
    with pytest.raises(SmsTemporarilyFailed):
        game.text(ALICE, "rock bob", sid=SID)
    assert game.player(ALICE)["wins"]["N"] == "1", "the game is resolved, committed"

    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT
    assert game.sms.to(ALICE).count(ALICE_WINS) == 1
    assert game.sms.to(BOB).count(BOB_LOSES) == 1
    assert game.player(ALICE)["games"]["M"] == {}, "the retry did not start a new game"
    assert game.text(ALICE, "rock bob", sid=SID) is Result.DUPLICATE


def test_a_redelivery_sends_only_the_replies_that_were_not_sent(game: Game) -> None:
    _bob_waits_on_alice(game)
    sent_before = len(game.sms.sent)
    game.sms.fail_next(None, transient_failure())  # Alice's result goes out, Bob's does not
    with pytest.raises(SmsTemporarilyFailed):
        game.text(ALICE, "rock bob", sid=SID)
    assert [m.body for m in game.sms.sent[sent_before:]] == [ALICE_WINS]

    game.text(ALICE, "rock bob", sid=SID)
    assert [m.body for m in game.sms.sent[sent_before:]] == [ALICE_WINS, BOB_LOSES]


def test_a_permanent_refusal_is_recorded_and_never_retried(game: Game) -> None:
    _bob_waits_on_alice(game)
    game.sms.fail_next(opted_out())  # Alice's own result: she has opted out at the carrier
    assert game.text(ALICE, "rock bob", sid=SID) is Result.PROCESSED
    assert game.stored_record(SID)["delivered"]["M"]["0"]["S"] == "refused:21610"
    assert game.sms.to(BOB)[-1] == BOB_LOSES
    assert game.text(ALICE, "rock bob", sid=SID) is Result.DUPLICATE
    assert ALICE_WINS not in game.sms.to(ALICE)


def test_a_live_sender_keeps_its_outbox_until_its_lease_expires(game: Game, clock: Any) -> None:
    _bob_waits_on_alice(game)
    # An attempt committed and is (as far as anyone can tell) still sending: its lease is live.
    claim = game.store.claim(SID, "sender-attempt", time.time())
    assert isinstance(claim, Claim)
    game.store.commit(
        claim, [], reply_only(ALICE, "hello"), [OutboundSms(ALICE, "+1", "hello")], {}, time.time()
    )

    with pytest.raises(ClaimHeldElsewhere):
        game.text(ALICE, "help", sid=SID)
    assert "hello" not in game.sms.to(ALICE)

    clock.tick(LEASE_SECONDS + 1)
    assert game.text(ALICE, "help", sid=SID) is Result.RESENT
    assert game.sms.to(ALICE).count("hello") == 1


def test_a_transient_failure_gives_the_outbox_back_at_once(game: Game) -> None:
    _bob_waits_on_alice(game)
    game.sms.fail_next(transient_failure())
    with pytest.raises(SmsTemporarilyFailed) as failure:
        game.text(ALICE, "rock bob", sid=SID)
    assert failure.value.retry_after == 2
    # No waiting for the lease: the very next delivery may send.
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT


def test_a_redelivery_that_fails_to_send_gives_the_outbox_back_at_once_too(game: Game) -> None:
    _bob_waits_on_alice(game)
    game.sms.fail_next(transient_failure(), transient_failure())  # the first attempt, then its copy
    for _ in range(2):
        with pytest.raises(SmsTemporarilyFailed):
            game.text(ALICE, "rock bob", sid=SID)
    # The copy held the lease it took, and gave it back on failing: the third sends at once.
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT


def test_taking_the_outbox_reads_deliveries_recorded_since_the_claim(game: Game, clock: Any) -> None:
    # A copy claims (and reads the outbox) while the first attempt is still sending; by the time the
    # copy gets the lease, reply 0 has been recorded: the copy must see that, not its old read.
    claim = game.store.claim(SID, "first-attempt", time.time())
    assert isinstance(claim, Claim)
    outbox = [OutboundSms(ALICE, "+1", "zero"), OutboundSms(BOB, "+1", "one")]
    game.store.commit(claim, [], reply_only(ALICE, "zero"), outbox, {}, time.time())
    stale = game.store.claim(SID, "copy", time.time())
    assert not isinstance(stale, Claim)
    assert stale.undelivered() == [0, 1]

    game.store.outboxes.record_delivery(stale, 0, "SM0")
    game.store.outboxes.release(SID, "first-attempt")
    leased = game.store.outboxes.lease(stale, "copy", time.time())
    assert leased is not None
    assert leased.undelivered() == [1]


def test_an_attempt_frozen_past_its_outbox_lease_stops_sending(game: Game, clock: Any) -> None:
    _bob_waits_on_alice(game)
    sent_before = len(game.sms.sent)

    def freeze_after_first_send(message: Any, reply: Any = None) -> str:
        sid = FakeSms.send(game.sms, message, reply)
        clock.tick(LEASE_SECONDS + 1)  # the invocation is frozen, then wakes up
        return sid

    game.sms.send = freeze_after_first_send  # type: ignore[method-assign]
    with pytest.raises(OutboxLeaseExpired):
        game.text(ALICE, "rock bob", sid=SID)
    assert [m.body for m in game.sms.sent[sent_before:]] == [ALICE_WINS]
