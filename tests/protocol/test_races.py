"""Deterministic races: another message lands between our lock-free read (a nickname, the lobby)
and our commit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.exceptions import ReadsKeptChanging
from serverless_rps.game import LOBBY_SHARDS, Lobby, lobby_shard
from serverless_rps.model import LOBBY_SWEEP_SECONDS
from serverless_rps.processing import Result
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, CAROL, TABLES, Game, neighbours, phones_in_room
from tests.protocol.test_failure_visibility import json_log_lines


def _after_reads(
    game: Game, of: Callable[[dict[str, Any]], bool], interlopers: list[Callable[[], None]]
) -> None:
    """Run the next of `interlopers` right after each read of ours (GetItem or BatchGetItem) whose
    request `of` picks returns (an interloper's own reads go through the same client: they are
    not ours)."""
    state = {"picked": False, "interloping": False}

    def note(params: dict[str, Any], **_: Any) -> None:
        state["picked"] = of(params)

    def after_read(**_: Any) -> None:
        if state["picked"] and interlopers and not state["interloping"]:
            state["picked"], state["interloping"] = False, True
            interlopers.pop(0)()
            state["interloping"] = False

    for read in ("GetItem", "BatchGetItem"):
        game.dynamodb.meta.events.register(f"provide-client-params.dynamodb.{read}", note)
        game.dynamodb.meta.events.register(f"after-call.dynamodb.{read}", after_read)


def _after_nickname_lookups(game: Game, interlopers: list[Callable[[], None]]) -> None:
    _after_reads(game, lambda params: params.get("TableName") == TABLES.nickname, interlopers)


def _after_lobby_reads(game: Game, interlopers: list[Callable[[], None]]) -> None:
    def reads_the_lobby(params: dict[str, Any]) -> bool:
        keys = params.get("RequestItems", {}).get(TABLES.game_state, {}).get("Keys", [])
        return {key["phone_number"]["S"] for key in keys} == set(LOBBY_SHARDS)

    _after_reads(game, reads_the_lobby, interlopers)


def _sent_back_then_played(game: Game, body: str, why: str) -> None:
    """Alice's message, overtaken under every attempt, goes back to the queue named for the
    operator (contention, not a fault: back in a second); SQS's redelivery then plays it."""
    message = game.inbound(ALICE, body)
    with pytest.raises(ReadsKeptChanging) as kept_changing:
        game.processor.process(message)
    assert (str(kept_changing.value), kept_changing.value.retry_after) == (why, 1)
    assert game.processor.process(message) is Result.PROCESSED


def test_a_nickname_taken_between_lookup_and_commit_gets_the_taken_reply(game: Game) -> None:
    other = Game(game.dynamodb, game.sms, sid_prefix="9")  # a second invocation, on the same tables
    _after_nickname_lookups(game, [lambda: other.text(BOB, "nick Zed")])
    game.text(ALICE, "nick zed")
    assert game.sms.last(BOB) == replies.nick_registered("Zed")
    assert game.sms.last(ALICE) == replies.nick_taken("zed")
    assert game.player(ALICE) is None


def test_a_throw_at_a_name_that_moved_to_another_phone_is_never_scored_against_the_old_owner(
    game: Game,
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    other = Game(game.dynamodb, game.sms, sid_prefix="9")

    def bob_renames_and_carol_takes_his_name() -> None:
        other.text(BOB, "nick robert")
        other.text(CAROL, "nick bob")

    _after_nickname_lookups(game, [bob_renames_and_carol_takes_his_name])
    game.text(ALICE, "rock bob")
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)
    assert replies.challenged("alice") in game.sms.to(CAROL)
    assert replies.challenged("alice") not in game.sms.to(BOB)


def test_a_lobby_throw_that_lands_between_our_read_and_our_lock_is_played_not_overwritten(
    game: Game,
) -> None:
    [neighbour] = neighbours(ALICE, 1)  # its throws wait in alice's shard
    game.register((ALICE, "alice"), (neighbour, "bob"))
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    _after_lobby_reads(game, [lambda: other.text(neighbour, "throw rock")])
    game.text(ALICE, "paper")  # read an empty lobby; bob's throw waits there before alice's lock
    assert game.sms.last(ALICE) == replies.lobby_result(Outcome.WIN, Move.PAPER, Move.ROCK, "bob")
    assert game.sms.last(neighbour) == replies.lobby_result(Outcome.LOSS, Move.ROCK, Move.PAPER, "alice")


def test_a_stranger_in_another_room_is_played_once_left_waiting_alone_for_the_sweep(
    game: Game, clock: Any
) -> None:
    """Rooms (docs/protocol.md, "Shards"): within LOBBY_SWEEP_SECONDS of each other, strangers of
    different rooms both wait, as if they came one at a time, however their reads and locks
    interleave; once a waiter has been alone that long, the next throw from any room plays them."""
    assert len({lobby_shard(ALICE), lobby_shard(BOB), lobby_shard(CAROL)}) == 3
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    _after_lobby_reads(game, [lambda: other.text(BOB, "throw rock")])
    game.text(ALICE, "paper")
    assert game.sms.last(ALICE) == replies.lobby_waiting(Move.PAPER)
    assert game.sms.last(BOB) == replies.lobby_waiting(Move.ROCK)

    clock.tick(LOBBY_SWEEP_SECONDS)
    game.text(CAROL, "scissors")

    played = [phone for phone in (ALICE, BOB) if "carol" in game.sms.last(phone)]
    assert len(played) == 1, "carol plays exactly one of them; the other still waits"


def test_a_lobby_that_changes_between_the_read_and_the_lock_is_played_as_locked_without_reading_again(
    game: Game,
) -> None:
    """The room is locked before any phone and the choice made again over it as locked: whatever
    landed there since the read, the throw plays it at once, never starting over."""
    (first, _), (second, _) = players = [
        (phone, f"crowd{index}") for index, phone in enumerate(neighbours(ALICE, 2))
    ]
    game.register((ALICE, "alice"), *players)
    game.text(first, "rock")  # alice reads crowd0 waiting in her room ...
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    _after_lobby_reads(game, [lambda: other.text(second, "scissors")])  # ... crowd1 plays crowd0 first
    with json_log_lines() as lines:
        assert game.text(ALICE, "paper") is Result.PROCESSED
    assert game.sms.last(ALICE) == replies.lobby_waiting(Move.PAPER), "the room as locked: empty"
    assert game.sms.last(first) == replies.lobby_result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "crowd1")
    assert "a lock-free read was overtaken mid-attempt; reading again" not in [
        line["message"] for line in lines
    ]


def _rooms_after_alices(count: int) -> list[str]:
    """One phone in each of the `count` rooms that come after alice's in the rooms' order."""
    home = LOBBY_SHARDS.index(lobby_shard(ALICE))
    wanted = [LOBBY_SHARDS[(home + step) % len(LOBBY_SHARDS)] for step in range(1, count + 1)]
    return [phones_in_room(room, 1)[0] for room in wanted]


def test_a_stranger_in_another_room_played_by_someone_else_under_every_attempt_sends_the_throw_back(
    game: Game, clock: Any
) -> None:
    """The one change a room locked first cannot absorb: the stranger left waiting in another room,
    whom the throw chose, was played before the lock, so the choice itself moves. Three attempts
    running, the message goes back to the queue saying why, and its redelivery waits."""
    waiters = _rooms_after_alices(3)
    interlopers = [neighbours(waiter, 2)[1] for waiter in waiters]
    game.register(
        (ALICE, "alice"),
        *((phone, f"wait{index}") for index, phone in enumerate(waiters)),
        *((phone, f"come{index}") for index, phone in enumerate(interlopers)),
    )
    for waiter in waiters:
        game.text(waiter, "rock")
    clock.tick(LOBBY_SWEEP_SECONDS)  # each has waited alone long enough to be played from any room
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    _after_lobby_reads(game, [lambda phone=phone: other.text(phone, "paper") for phone in interlopers])
    _sent_back_then_played(game, "scissors", "what was locked first changed the choice made from it")
    assert game.sms.last(ALICE) == replies.lobby_waiting(Move.SCISSORS)
    for index, waiter in enumerate(waiters):
        assert game.sms.last(waiter) == replies.lobby_result(
            Outcome.LOSS, Move.ROCK, Move.PAPER, f"come{index}"
        )


def test_a_rematch_whose_last_opponent_changes_under_every_attempt_is_sent_back_saying_why(
    game: Game,
) -> None:
    """AGAIN finds the last opponent's nickname without a lock. Here, after each lookup, alice's
    own earlier message finishes another game first: her last opponent is someone else by the
    time she is locked, three attempts running."""
    others = [(f"+1555440{index:04d}", f"crowd{index}") for index in range(3)]
    game.register((ALICE, "alice"), (BOB, "bob"), *others)
    game.text(ALICE, "rock bob")
    game.text(BOB, "paper alice")  # bob is her last opponent
    for phone, _ in others:
        game.text(phone, "rock alice")
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    _after_nickname_lookups(
        game, [lambda name=name: other.text(ALICE, f"paper {name}") for _, name in others]
    )
    _sent_back_then_played(game, "again scissors", "the last opponent changed after the lookup")
    assert game.sms.last(ALICE) == replies.throw_waiting("crowd2", Move.SCISSORS)


def test_a_stop_that_games_keep_beginning_against_is_sent_back_and_then_erases_them_all(game: Game) -> None:
    """STOP finds whom the player's record names without a lock. Here, after each such read,
    someone new throws at the player before the STOP locks them: three attempts running. No
    attempt may commit with a record it never locked still holding the number."""
    crowd = [(f"+1555440{index:04d}", f"crowd{index}") for index in range(3)]
    game.register((ALICE, "alice"), *crowd)
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    reads_alice = {"TableName": TABLES.game_state, "Key": {"phone_number": {"S": ALICE}}}
    _after_reads(
        game,
        lambda params: {name: params.get(name) for name in reads_alice} == reads_alice,
        [lambda phone=phone: other.text(phone, "rock alice") for phone, _ in crowd],
    )
    _sent_back_then_played(game, "STOP", "a game with a new counterpart began after the lookup")
    for phone, _ in crowd:
        assert game.sms.last(phone) == replies.opponent_left("alice")
    assert [item for table in vars(TABLES).values() for item in game.items(table) if ALICE in str(item)] == []


def test_a_stop_read_before_the_players_own_lobby_throw_waited_still_takes_the_entry_out(game: Game) -> None:
    """STOP locks the player's room first only when the read says they wait there. Here their own
    lobby throw, from another invocation, waits between that read and the lock: the locked record
    says `in_lobby` with no room held, so the attempt starts over, locks the room, and the entry
    holding the number goes with the rest."""
    game.register((ALICE, "alice"))
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    reads_alice = {"TableName": TABLES.game_state, "Key": {"phone_number": {"S": ALICE}}}
    _after_reads(
        game,
        lambda params: {name: params.get(name) for name in reads_alice} == reads_alice,
        [lambda: other.text(ALICE, "rock")],
    )
    with json_log_lines() as lines:
        assert game.text(ALICE, "STOP") is Result.PROCESSED
    assert game.store.get_shared([lobby_shard(ALICE)]) == {lobby_shard(ALICE): Lobby()}
    assert [item for table in vars(TABLES).values() for item in game.items(table) if ALICE in str(item)] == []
    assert "a lock-free read was overtaken mid-attempt; reading again" in [line["message"] for line in lines]


def test_a_throw_at_a_name_that_keeps_changing_hands_is_sent_back_saying_why(game: Game) -> None:
    holders = [f"+1555440{index:04d}" for index in range(4)]
    game.register((ALICE, "alice"), (holders[0], "zed"))
    other = Game(game.dynamodb, game.sms, sid_prefix="9")

    def zed_changes_hands(index: int) -> None:
        other.text(holders[index], f"nick former{index}")
        other.text(holders[index + 1], "nick zed")

    _after_nickname_lookups(game, [lambda index=index: zed_changes_hands(index) for index in range(3)])
    _sent_back_then_played(game, "rock zed", "the nickname moved to another phone after the lookup")
    assert game.sms.last(holders[3]) == replies.challenged("alice")
    assert all(replies.challenged("alice") not in game.sms.to(phone) for phone in holders[:3])


def test_a_rename_whose_old_name_is_no_longer_the_players_commits_nothing_and_is_sent_back(
    game: Game,
) -> None:
    """The old name's row says another phone (edited by hand, or its table restored alone): giving
    it up would delete someone else's name, so the rename is read again, then sent back saying why
    (the operator's to mend); once the row is Alice's again, the redelivery plays it."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    alices_row = game.nickname_row("alice")
    assert alices_row is not None

    def the_row_says(phone: str) -> None:
        game.dynamodb.put_item(TableName=TABLES.nickname, Item={**alices_row, "phone_number": {"S": phone}})

    _after_nickname_lookups(game, [lambda: the_row_says(BOB)])
    message = game.inbound(ALICE, "nick alix")
    with pytest.raises(ReadsKeptChanging) as kept_changing:
        game.processor.process(message)
    assert (str(kept_changing.value), kept_changing.value.retry_after) == (
        "a nickname changed hands after it was read",
        1,
    )
    assert (game.player(ALICE)["display_name"]["S"], game.nickname_row("alix")) == ("alice", None)
    the_row_says(ALICE)
    assert game.processor.process(message) is Result.PROCESSED
    assert (game.player(ALICE)["display_name"]["S"], game.nickname_row("alice")) == ("alix", None)
    assert game.sms.last(ALICE) == replies.nick_changed("alice", "alix")
