"""The tables' items, as docs/protocol.md ("Table formats") documents them.

An operator reads these items (the console, `aws dynamodb get-item`), and the next version of the
code reads what this one wrote: an attribute stored under another name, or left out, is a
different table even when this version reads its own writes back consistently.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from serverless_rps import replies
from serverless_rps.game import Limits, board_shard, lobby_shard
from serverless_rps.model import LOBBY_SWEEP_SECONDS
from serverless_rps.parsing import nickname_skeleton
from tests.conftest import ALICE, BOB, COMPLETED_SECONDS, LEASE_SECONDS, STRANGER, TABLES, Game

WEEK = Limits().challenge_expiry_seconds


def _plain(item: dict[str, Any] | None) -> dict[str, Any]:
    """An item as plain values (numbers as Decimal, which compare equal to ints and floats)."""
    assert item is not None
    deserializer = TypeDeserializer()
    return {name: deserializer.deserialize(value) for name, value in item.items()}


def _contact(game: Game, phone: str) -> dict[str, Any]:
    return _plain(game.message_record(game.store.contact_id(phone)))


def test_a_throw_waits_on_the_throwers_record_and_is_announced_on_the_opponents(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    alice, bob = _plain(game.player(ALICE)), _plain(game.player(BOB))

    expires = time.time() + WEEK
    assert alice["games"] == {
        BOB: {"move": "rock", "opponent_player_id": bob["player_id"], "expires_epoch_timestamp": expires}
    }
    assert bob["challenges"] == {
        ALICE: {"challenger_player_id": alice["player_id"], "expires_epoch_timestamp": expires}
    }
    assert alice["challenges"] == bob["games"] == {}


def test_a_players_record_after_a_result(game: Game) -> None:
    game.register((ALICE, "Alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")
    game.text(ALICE, "paper bob")
    alice, bob = _plain(game.player(ALICE)), _plain(game.player(BOB))

    assert alice["player_id"] != bob["player_id"]
    assert alice == {
        "phone_number": ALICE,
        "player_id": alice["player_id"],
        "nickname": nickname_skeleton("Alice"),
        "display_name": "Alice",
        "games": {},
        "challenges": {},
        "wins": 1,
        "losses": 0,
        "ties": 0,
        "streak": 1,
        "ranked": True,
        "last_opponent": {"nickname": "bob", "display_name": "bob", "player_id": bob["player_id"]},
        "reply_budget": {
            "level": alice["reply_budget"]["level"],
            "updated_at": time.time(),
            "notified": False,
        },
    }
    assert alice["reply_budget"]["level"] > 0, "her registration and her result were charged"
    assert (bob["wins"], bob["losses"], bob["streak"]) == (0, 1, -1), "a losing run is negative"
    assert bob["last_opponent"] == {
        "nickname": nickname_skeleton("Alice"),
        "display_name": "Alice",
        "player_id": alice["player_id"],
    }


def test_a_player_locked_for_a_message_that_sends_him_nothing_keeps_his_reply_budget(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    budget = _plain(game.player(BOB))["reply_budget"]

    game.text(ALICE, "rock bob")  # bob is locked and rewritten; only alice is told

    assert game.sms.last(ALICE) == replies.already_thrown("bob")
    assert _plain(game.player(BOB))["reply_budget"] == budget


def test_a_new_player_is_neither_ranked_nor_in_the_lobby_nor_anyones_opponent(game: Game) -> None:
    """Flags that are false are left out of the record rather than stored as false."""
    game.register((ALICE, "alice"))
    assert set(_plain(game.player(ALICE))) == {
        "phone_number",
        "player_id",
        "nickname",
        "display_name",
        "games",
        "challenges",
        "wins",
        "losses",
        "ties",
        "streak",
        "reply_budget",
    }


def test_a_lock_is_stored_on_the_record_with_its_holder_and_expiry(game: Game) -> None:
    game.register((ALICE, "alice"))
    game.store.lock(ALICE, "attempt-1", time.time())
    assert _plain(game.player(ALICE))["user_locked"] == {
        "lock_uuid": "attempt-1",
        "expiration_epoch_timestamp": time.time() + LEASE_SECONDS,
    }


def test_times_are_stored_to_the_millisecond(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    start = time.time()  # a whole second
    clock.tick(0.1234)
    game.store.lock(ALICE, "attempt-1", time.time())
    stored = Decimal(game.player(ALICE)["user_locked"]["M"]["expiration_epoch_timestamp"]["N"])
    assert stored == Decimal(str(start + LEASE_SECONDS)) + Decimal("0.123"), "0.1234 s is kept as 0.123"


def test_a_nickname_row_holds_the_name_as_typed_and_its_owner(game: Game) -> None:
    game.register((ALICE, "aLiCe"))
    assert _plain(game.nickname_row("alice")) == {
        "nickname": nickname_skeleton("alice"),
        "display_name": "aLiCe",
        "phone_number": ALICE,
    }


def test_the_lobby_holds_the_waiting_stranger_and_the_leaderboard_the_results(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock")
    alice = _plain(game.player(ALICE))
    assert alice["in_lobby"] is True
    lobby = lobby_shard(ALICE)  # the shard of alice's phone: "~lobby#06"
    assert _plain(game.player(lobby)) == {
        "phone_number": lobby,
        "waiting": {
            "phone_number": ALICE,
            "player_id": alice["player_id"],
            "display_name": "alice",
            "move": "rock",
            "expires_epoch_timestamp": time.time() + WEEK,
            "since": time.time(),  # when she began to wait: another room plays her after LOBBY_SWEEP_SECONDS
        },
    }

    clock.tick(LOBBY_SWEEP_SECONDS)  # bob's room is another than alice's
    game.text(BOB, "paper")
    assert _plain(game.player(lobby)) == {"phone_number": lobby}, "the pair left the lobby"
    bob = _plain(game.player(BOB))
    board = board_shard(bob["player_id"])  # the shard of bob's line: "~leaderboard#NN"
    assert _plain(game.player(board)) == {
        "phone_number": board,
        "rankings": [
            {
                "player_id": bob["player_id"],
                "display_name": "bob",
                "wins": 1,
                "losses": 0,
                "since": time.time(),
            }
        ],
    }


def test_a_strangers_budget_lives_on_its_contact_record_until_it_registers(game: Game) -> None:
    game.text(STRANGER, "score")
    assert game.sms.last(STRANGER) == replies.not_registered()
    contact = _contact(game, STRANGER)
    assert contact == {
        "messageId": game.store.contact_id(STRANGER),
        "reply_budget": {
            "level": contact["reply_budget"]["level"],
            "updated_at": time.time(),
            "notified": False,
        },
        "TTLEpochTimestamp": int(time.time() + COMPLETED_SECONDS),  # outlives the outboxes it lists
        "opted_in_at": time.time(),  # it was sent the opt-in confirmation (an opt-out removes it)
        # The SIDs its finished records sent it (the opt-in confirmation and the reply): what a
        # look before re-sending never takes as another reply. SIDs only, no body.
        "recent_sids": {sms.sid for sms in game.sms.listed if sms.to == STRANGER},
    }
    assert len(contact["recent_sids"]) == 2
    assert contact["reply_budget"]["level"] > 0

    game.text(STRANGER, "nick newcomer")

    assert "reply_budget" not in _contact(game, STRANGER), "the player record holds it now"
    assert _plain(game.player(STRANGER))["reply_budget"]["level"] > contact["reply_budget"]["level"]
    game.text(STRANGER, "score")  # a text that leaves the player unchanged spends from their record
    assert "reply_budget" not in _contact(game, STRANGER)


def test_a_player_record_with_only_its_name_reads_as_a_player_with_no_games_and_no_score(
    game: Game,
) -> None:
    """Scores, games and the flags are read with defaults: a record written before one of those
    attributes existed is still a player, not a failure."""
    game.dynamodb.put_item(
        TableName=TABLES.game_state,
        Item={
            "phone_number": {"S": ALICE},
            "player_id": {"S": "p-alice"},
            "nickname": {"S": nickname_skeleton("alice")},
            "display_name": {"S": "alice"},
        },
    )
    game.text(ALICE, "score")
    assert game.sms.last(ALICE) == replies.score(0, 0, 0, 0)
    game.text(ALICE, "games")
    assert game.sms.last(ALICE) == replies.games_summary([], [])


def test_a_completed_record_names_who_holds_its_outbox_since_when_and_until_when(game: Game) -> None:
    game.register((ALICE, "alice"))
    sid = "SM" + "e" * 32
    game.text(ALICE, "help", sid=sid)
    record = _plain(game.message_record(sid))
    assert record["outbox_lease"] == {
        "owner": record["attempt_id"],  # the attempt that committed it sent it
        "started_at": time.time(),  # the commit: when that attempt began sending
        "expires_at": time.time() + LEASE_SECONDS,
    }
    assert record["completed_at"] == time.time()
