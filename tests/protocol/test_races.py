"""Deterministic races: another message lands between our lock-free nickname read and our commit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serverless_rps import replies
from serverless_rps.rules import Move
from tests.conftest import ALICE, BOB, CAROL, TABLES, Game


def _after_first_nickname_lookup(game: Game, interloper: Callable[[], None]) -> None:
    """Run `interloper` once, right after the next nickname-table read returns."""
    state = {"reading_nickname": False, "fired": False}

    def note_table(params: dict[str, Any], **_: Any) -> None:
        state["reading_nickname"] = params.get("TableName") == TABLES.nickname

    def after_read(**_: Any) -> None:
        if state["reading_nickname"] and not state["fired"]:
            state["fired"] = True
            interloper()

    game.dynamodb.meta.events.register("provide-client-params.dynamodb.GetItem", note_table)
    game.dynamodb.meta.events.register("after-call.dynamodb.GetItem", after_read)


def test_a_nickname_taken_between_lookup_and_commit_gets_the_taken_reply(game: Game) -> None:
    other = Game(game.dynamodb, game.sms, sid_prefix="9")  # a second invocation, on the same tables
    _after_first_nickname_lookup(game, lambda: other.text(BOB, "nick Zed"))
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

    _after_first_nickname_lookup(game, bob_renames_and_carol_takes_his_name)
    game.text(ALICE, "rock bob")
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)
    assert replies.challenged("alice") in game.sms.to(CAROL)
    assert replies.challenged("alice") not in game.sms.to(BOB)
