"""DynamoDB requests per message, by command, must not grow with a player's pending games
(the original design made one request per pending game, and 13 for a resolving throw)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ALICE, BOB, Game

# command: (sender, body, requests). Every message: one claim, one commit, one record per reply.
EXPECTED = {
    "help": (ALICE, "help", 3),  # claim, commit, record
    "score": (ALICE, "score", 4),  # + read player
    "games": (ALICE, "games", 5),  # + read player, batch-read counterparts
    "nick": (ALICE, "nick alicia", 5),  # + nickname lookup, lock
    "waiting throw": (BOB, "rock zed", 7),  # + lookup, two locks, two replies
    "resolving throw": (ALICE, "paper bob", 7),
    "stop": (ALICE, "stop", 3),  # claim, lock, commit; no reply
}


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
    game.text(BOB, "rock alice")
    for n in range(pending):
        rival, target = f"+1555880{n:04d}", f"+1555990{n:04d}"
        game.register((rival, f"rival{n}"), (target, f"target{n}"))
        game.text(rival, "scissors alice")  # waiting on Alice
        game.text(ALICE, f"rock target{n}")  # Alice waiting on them


@pytest.mark.parametrize("pending", [0, 19])
@pytest.mark.parametrize("command", list(EXPECTED))
def test_requests_per_message_do_not_grow_with_pending_games(game: Game, command: str, pending: int) -> None:
    sender, body, expected = EXPECTED[command]
    _alice_with_pending_games(game, pending)
    assert _count_requests(game, sender, body) == expected
