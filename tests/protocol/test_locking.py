"""Promises 4 (liveness), 5 (fencing) and 6 (ordered locking), with the clock under freezegun."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from serverless_rps import commands, replies
from serverless_rps.commands import Needs
from serverless_rps.exceptions import LockContended, LockLost, StaleRead
from serverless_rps.game import LEADERBOARD_SHARDS, Limits, Lobby, board_shards, lobby_shard, throw
from serverless_rps.observability import mask_phone
from serverless_rps.parsing import ShowScore, Throw
from serverless_rps.ports import Claim, OutboundSms
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, CAROL, LEASE_SECONDS, STRANGER, TABLES, Game, neighbours, new_processor


def test_a_crashed_invocations_lock_is_taken_over_after_its_lease(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "crashed-attempt", time.time())  # its finally never ran

    with pytest.raises(LockContended) as contended:
        game.text(ALICE, "rock bob")
    assert 0 < (contended.value.retry_after or 0) <= LEASE_SECONDS
    assert str(contended.value) == f"player {mask_phone(BOB)} is locked", "the operator's log line says whom"

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


def test_a_writer_that_lost_only_the_leaderboards_lease_cannot_commit(game: Game, clock: Any) -> None:
    """The leaderboard is fenced like a player: a result whose board lease was taken over is
    refused as a lost lock, and neither the players nor the board change."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")
    players = game.store.get_players([ALICE, BOB])
    keys = board_shards(*players.values())  # the shards of alice's and bob's lines
    claim = game.store.claim("SM" + "f" * 32, "slow-attempt", time.time())
    assert isinstance(claim, Claim)
    boards = [game.store.lock(key, "slow-attempt", time.time()) for key in keys]
    clock.tick(LEASE_SECONDS + 1)  # the board's leases run out; the players' below are fresh
    now = time.time()
    alice, bob = (game.store.lock(phone, "slow-attempt", now) for phone in (ALICE, BOB))
    game.store.lock(keys[0], "live-attempt", now)
    shards = {board.phone: board.shared for board in boards}
    decision = throw(ALICE, alice.player, bob.player, Throw(Move.PAPER, "bob"), now, Limits(), shards)  # type: ignore[arg-type]
    assert set(keys) <= set(decision.shared), "the throw resolves: the board is part of the commit"
    outbox = [OutboundSms(reply.to, "+1", reply.body) for reply in decision.replies]

    with pytest.raises(LockLost):
        game.store.commit(claim, [alice, bob, *boards], decision, outbox, {}, now)

    assert set(game.player(BOB)["games"]["M"]) == {ALICE}, "bob's throw still waits: no result landed"
    assert game.player(keys[0])["user_locked"]["M"]["lock_uuid"]["S"] == "live-attempt"


def test_a_lock_tells_its_holder_when_its_lease_lapses(game: Game) -> None:
    game.register((ALICE, "alice"))
    now = time.time()
    for key in (ALICE, LEADERBOARD_SHARDS[0], STRANGER):  # a player, a shared record, a phone with no player
        locked = game.store.lock(key, "attempt", now)
        stored = game.player(key)["user_locked"]["M"]["expiration_epoch_timestamp"]["N"]
        assert locked.expires_at == float(stored) == now + LEASE_SECONDS


def test_a_phone_whose_player_left_is_not_locked_as_someone_else(game: Game) -> None:
    """Locking an opponent (`player_only`) whose record is gone creates no row with their number,
    and says whom it missed: the read that named them is stale."""
    with pytest.raises(StaleRead) as stale:
        game.store.lock(STRANGER, "attempt", time.time(), player_only=True)
    assert str(stale.value) == f"player {mask_phone(STRANGER)} is gone"
    assert game.player(STRANGER) is None


def test_a_held_lock_on_a_phone_without_a_player_is_contention(game: Game) -> None:
    """A stranger's bare row, locked by one message, makes the next wait for the lease: it is not
    mistaken for a player that left."""
    game.store.lock(STRANGER, "first-attempt", time.time())
    with pytest.raises(LockContended) as contended:
        game.store.lock(STRANGER, "second-attempt", time.time())
    assert contended.value.retry_after == LEASE_SECONDS


def test_players_are_locked_in_ascending_phone_order_whoever_throws(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    order = _locks_taken(game)
    game.text(BOB, "rock alice")
    game.text(ALICE, "rock bob")
    # The result's leaderboard shards come last: their keys sort after every phone.
    shards = board_shards(*game.store.get_players([ALICE, BOB]).values())
    assert order == [*sorted([ALICE, BOB]), *sorted([ALICE, BOB]), *shards]


def test_a_lobby_throw_locks_its_room_first_then_the_phones_then_the_leaderboard(game: Game) -> None:
    """The one order (game.lock_position): a room before any phone, so the throw knows from the
    locked room whom to lock; the leaderboard's shards after every phone. A STOP of a waiting
    player takes the same order."""
    [neighbour] = neighbours(ALICE, 1)
    game.register((ALICE, "alice"), (neighbour, "bob"), (CAROL, "carol"))
    order = _locks_taken(game)
    game.text(neighbour, "rock")
    game.text(ALICE, "paper")
    room = lobby_shard(ALICE)
    shards = board_shards(*game.store.get_players([ALICE, neighbour]).values())
    assert order == [room, neighbour, room, *sorted([ALICE, neighbour]), *shards]

    order.clear()
    game.text(CAROL, "rock")
    game.text(CAROL, "stop")
    assert order == [lobby_shard(CAROL), CAROL, lobby_shard(CAROL), CAROL]
    assert game.store.get_shared([lobby_shard(CAROL)]) == {lobby_shard(CAROL): Lobby()}


def _locks_taken(game: Game) -> list[str]:
    order: list[str] = []

    def record_lock(params: dict[str, Any], **_: Any) -> None:
        if "user_locked = :lock" in params.get("UpdateExpression", ""):
            order.append(params["Key"]["phone_number"]["S"])

    game.dynamodb.meta.events.register("provide-client-params.dynamodb.UpdateItem", record_lock)
    return order


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
    patient = new_processor(game.store, game.sms, lock_wait_seconds=5, sleep=sleep_and_release)
    patient.process(game.inbound(ALICE, "rock bob"))
    assert len(waits) == 1
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)


def test_a_command_that_would_lock_a_record_out_of_the_canonical_order_is_stopped_and_lets_go(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shared records are locked after the players, so their keys must sort after every phone held
    (docs/protocol.md): a command naming one that does not is a bug, stopped before that lock is
    taken, with the locks it holds given back."""
    game.register((ALICE, "alice"))
    spec = commands.COMMANDS[ShowScore]
    monkeypatch.setitem(
        commands.COMMANDS, ShowScore, replace(spec, needs=lambda command, facts: Needs(lock=(ALICE,)))
    )

    with pytest.raises(AssertionError) as stopped:
        game.text(ALICE, "score")

    assert str(stopped.value) == f"{ALICE!r} would be locked out of the canonical order"
    alice = game.player(ALICE)
    assert alice is not None
    assert "user_locked" not in alice, "the lock on alice was given back"
