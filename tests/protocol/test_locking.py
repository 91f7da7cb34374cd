"""Promises 4 (liveness), 5 (fencing) and 6 (ordered locking), with the clock under freezegun."""

from __future__ import annotations

import time
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.exceptions import LockContended, LockLost
from serverless_rps.game import LEADERBOARD, Limits, throw
from serverless_rps.parsing import Throw
from serverless_rps.ports import Claim, OutboundSms
from serverless_rps.processing import MessageProcessor
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, LEASE_SECONDS, TABLES, Game


def test_a_crashed_invocations_lock_is_taken_over_after_its_lease(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "crashed-attempt", time.time())  # its finally never ran

    with pytest.raises(LockContended) as contended:
        game.text(ALICE, "rock bob")
    assert 0 < (contended.value.retry_after or 0) <= LEASE_SECONDS

    clock.tick(LEASE_SECONDS + 1)
    game.text(ALICE, "rock bob")
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)
    game.text(BOB, "paper alice")  # and Bob, whose record was locked, plays on
    assert game.sms.last(BOB) == replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "alice")
    assert all("user_locked" not in item for item in game.items(TABLES.game_state))


def _slow_attempt_decides(game: Game) -> tuple[Claim, list[Any], Any]:
    """An attempt that locked both players and decided Alice's throw, then froze before committing."""
    now = time.time()
    claim = game.store.claim("SM" + "f" * 32, "slow-attempt", now)
    assert isinstance(claim, Claim)
    locked = [game.store.lock(phone, "slow-attempt", now) for phone in sorted((ALICE, BOB))]
    players = {held.phone: held.player for held in locked}
    decision = throw(ALICE, players[ALICE], players[BOB], Throw(Move.ROCK, "bob"), now, Limits())
    return claim, locked, decision


def test_a_writer_whose_lease_expired_cannot_commit_even_if_nobody_took_over(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    claim, locked, decision = _slow_attempt_decides(game)
    clock.tick(LEASE_SECONDS + 1)
    outbox = [OutboundSms(reply.to, "+1", reply.body) for reply in decision.replies]
    with pytest.raises(LockLost):
        game.store.commit(claim, locked, decision, outbox, {}, time.time())
    assert game.player(ALICE)["games"]["M"] == {}


def test_a_slow_writer_cannot_overwrite_the_invocation_that_took_its_lock_over(
    game: Game, clock: Any
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    claim, locked, decision = _slow_attempt_decides(game)
    clock.tick(LEASE_SECONDS + 1)
    game.text(BOB, "scissors alice")  # takes the expired locks over and commits
    outbox = [OutboundSms(reply.to, "+1", reply.body) for reply in decision.replies]
    with pytest.raises(LockLost):
        game.store.commit(claim, locked, decision, outbox, {}, time.time() - LEASE_SECONDS)
    assert set(game.player(BOB)["games"]["M"]) == {ALICE}, "Bob's throw stands; the slow write never landed"


def test_players_are_locked_in_ascending_phone_order_whoever_throws(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    order: list[str] = []

    def record_lock(params: dict[str, Any], **_: Any) -> None:
        if "user_locked = :lock" in params.get("UpdateExpression", ""):
            order.append(params["Key"]["phone_number"]["S"])

    game.dynamodb.meta.events.register("provide-client-params.dynamodb.UpdateItem", record_lock)
    game.text(BOB, "rock alice")
    game.text(ALICE, "rock bob")
    # The result's leaderboard comes last: its key sorts after every phone.
    assert order == [*sorted([ALICE, BOB]), *sorted([ALICE, BOB]), LEADERBOARD]


def test_a_lock_contended_briefly_is_waited_for_inside_the_invocation(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "short-lived", time.time())
    waits: list[float] = []

    def sleep_and_release(seconds: float) -> None:
        waits.append(seconds)
        game.dynamodb.update_item(
            TableName=TABLES.game_state,
            Key={"phone_number": {"S": BOB}},
            UpdateExpression="REMOVE user_locked",
        )

    # The holder finishes while we back off.
    patient = MessageProcessor(
        game.store, game.sms, limits=Limits(), lock_wait_seconds=5, sleep=sleep_and_release
    )
    patient.process(game.inbound(ALICE, "rock bob"))
    assert len(waits) == 1
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)
