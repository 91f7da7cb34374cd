"""DynamoDB requests per message, by command, must not grow with a player's pending games
(the original design made one request per pending game, and 13 for a resolving throw). The one
exception is by design: an opt-out rewrites every record that mentions the phone."""

from __future__ import annotations

from typing import Any

import pytest

from serverless_rps.game import board_shards
from serverless_rps.model import LOBBY_SWEEP_SECONDS
from tests.conftest import ALICE, BOB, Game

# command: (sender, body, requests). Every message: one claim, a lock on its sender (who pays the
# reply budget), one commit, and per recipient of its replies one delivery record and one update of
# the recipient's contact record (taking the message off its pending replies).
EXPECTED = {
    "help": (
        ALICE,
        "help",
        6,
    ),  # claim, lock, commit, two records (the program's help, the commands), contact
    "score": (ALICE, "score", 5),
    "games": (ALICE, "games", 6),  # + batch-read counterparts
    "games while in the lobby": (ALICE, "games", 7),  # + read the lobby, without a lock
    "nick": (ALICE, "nick alicia", 6),  # + nickname lookup
    "waiting throw": (BOB, "rock zed", 9),  # + lookup, a second lock, two replies
    # + a lock of the leaderboard's shard of each player's line, after the players: one when both
    # lines share a shard, two otherwise (RESULT_PLAYERS names them; the count below is for one)
    "resolving throw": (ALICE, "paper bob", 10),
    "top": (ALICE, "top", 6),  # + one read of every leaderboard shard: no scan
    "lobby throw that waits": (ALICE, "throw rock", 7),  # + one read of every lobby shard, lock one
    "lobby throw that plays": (BOB, "paper", 11),  # + the waiting player's lock, their shards
    "again": (BOB, "again paper", 10),  # a waiting throw + reading bob's record for his last opponent
}


# The two players of each result: a second leaderboard shard is one more lock.
RESULT_PLAYERS = {"resolving throw": (ALICE, BOB), "lobby throw that plays": (BOB, "+15557770000")}


def _board_shard_locks(game: Game, command: str) -> int:
    """Beyond the first: one lock per leaderboard shard the result's two lines live in."""
    phones = RESULT_PLAYERS.get(command)
    if phones is None:
        return 0
    return len(board_shards(*game.store.get_players(phones).values())) - 1


def _count_requests(game: Game, sender: str, body: str) -> int:
    calls: list[str] = []

    def count(model: Any, **_: Any) -> None:
        calls.append(model.name)

    game.dynamodb.meta.events.register("before-call.dynamodb", count)
    game.text(sender, body)
    game.dynamodb.meta.events.unregister("before-call.dynamodb", count)
    return len(calls)


def _alice_with_pending_games(game: Game, pending: int) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), ("+15557770000", "zed"))
    game.text(BOB, "rock zed")
    game.text("+15557770000", "paper bob")  # bob's last opponent is zed
    game.text(BOB, "rock alice")
    for n in range(pending):
        rival, target = f"+1555880{n:04d}", f"+1555990{n:04d}"
        game.register((rival, f"rival{n}"), (target, f"target{n}"))
        game.text(rival, "scissors alice")  # waiting on Alice
        game.text(ALICE, f"rock target{n}")  # Alice waiting on them


# Alice with no pending games, or 19 each way: those are set up text by text first, which is slow.
PENDING = [0, pytest.param(19, marks=pytest.mark.slow)]


@pytest.mark.parametrize("pending", PENDING)
@pytest.mark.parametrize("command", list(EXPECTED))
def test_requests_per_message_do_not_grow_with_pending_games(
    game: Game, clock: Any, command: str, pending: int
) -> None:
    sender, body, expected = EXPECTED[command]
    _alice_with_pending_games(game, pending)
    if command == "lobby throw that plays":
        game.text("+15557770000", "throw rock")  # zed waits in the lobby, in another room than bob's
        clock.tick(LOBBY_SWEEP_SECONDS)  # alone long enough to be played from any room
    if command == "games while in the lobby":
        game.text(ALICE, "throw rock")  # alice's record now says she may wait there
    expected += _board_shard_locks(game, command)
    assert _count_requests(game, sender, body) == expected


@pytest.mark.parametrize("pending", PENDING)
def test_an_opt_out_costs_one_lock_per_record_that_mentions_the_phone(game: Game, pending: int) -> None:
    _alice_with_pending_games(game, pending)
    mentioned = 1 + 2 * pending  # bob, and per pending game a rival and a target
    told = 1 + pending  # bob and the rivals threw at alice: each is told the game is off
    # claim, read own record, lock self and each counterpart, read contact, one commit; then per
    # goodbye a delivery record and its recipient's contact update.
    assert _count_requests(game, ALICE, "stop") == 4 + (1 + mentioned) + 2 * told
