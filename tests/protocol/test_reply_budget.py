"""Bounded cost (promise 14): no phone can make the bot send more than its reply budget, whether it
floods the bot itself or uses the bot to flood someone else; honest play never meets the budget.

The targets, with the defaults (60 replies at once, draining 180 an hour): 1,000 texts from one
phone in 10 minutes cost at most 100 SMS to it and at most 100 to anyone it challenges.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.game_store import CONTACT_PREFIX
from tests.conftest import ALICE, BOB, STRANGER, TABLES, Game

# Floods of 1,000 texts: the `aws` fixture's per-item rollback keeps each text's cost from growing
# with the idempotency table (serverless_rps_local/moto_rollback.py).


FLOOD = 1_000
TEN_MINUTES = 600.0


def _notices(game: Game, phone: str) -> list[str]:
    return [body for body in game.sms.to(phone) if body.startswith("That's a lot of texts!")]


def _flood(game: Game, clock: Any, phone: str, bodies: list[str]) -> None:
    for index in range(FLOOD):
        game.text(phone, bodies[index % len(bodies)])
        clock.tick(TEN_MINUTES / FLOOD)


@pytest.mark.slow  # 1,000 texts
def test_a_thousand_texts_in_ten_minutes_cost_at_most_a_hundred_replies(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    sent_before = len(game.sms.to(ALICE))
    _flood(game, clock, ALICE, ["help", "score", "games", "what?"])

    received = len(game.sms.to(ALICE)) - sent_before
    assert received <= 100
    assert received >= 50, "the flood is still answered until the budget runs out"
    assert len(_notices(game, ALICE)) == 1, "one short notice, then silence"


@pytest.mark.slow  # 1,000 texts
def test_a_stranger_is_bounded_too(game: Game, clock: Any) -> None:
    _flood(game, clock, STRANGER, ["hello", "help"])
    assert len(game.sms.to(STRANGER)) <= 100
    assert len(_notices(game, STRANGER)) == 1


@pytest.mark.slow  # 1,000 texts
def test_a_phone_cannot_use_the_bot_to_flood_someone_else(game: Game, clock: Any) -> None:
    # Each round makes a new challenge notice to bob: throw at him, opt out (which drops the throw),
    # come back under a name. Opting out and back in must not reset alice's own budget either.
    game.register((ALICE, "alice"), (BOB, "bob"))
    bob_before, alice_before = len(game.sms.to(BOB)), len(game.sms.to(ALICE))
    _flood(game, clock, ALICE, ["throw rock bob", "STOP", "nick alice"])

    assert len(game.sms.to(BOB)) - bob_before <= 100
    assert len(game.sms.to(ALICE)) - alice_before <= 100
    assert len(_notices(game, BOB)) == 1


def test_after_the_notice_the_phone_is_heard_again_once_its_budget_has_drained(
    game: Game, clock: Any
) -> None:
    game.register((ALICE, "alice"))
    while not _notices(game, ALICE):
        game.text(ALICE, "help")
    replies_so_far = len(game.sms.to(ALICE))
    game.text(ALICE, "help")
    assert len(game.sms.to(ALICE)) == replies_so_far, "silence after the notice"

    clock.tick(61 * 60 / 3)  # (60 + 1) replies drained at 180 an hour: about 20 minutes
    game.text(ALICE, "help")
    assert game.sms.last(ALICE) == replies.help_overview()


@pytest.mark.slow  # a long game, text by text
def test_an_honest_fast_game_is_answered_in_full(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    expected = {ALICE: len(game.sms.to(ALICE)), BOB: len(game.sms.to(BOB))}
    for round_ in range(60):  # a round a minute for an hour, the challenger alternating
        first, second, second_name = (ALICE, BOB, "alice") if round_ % 2 else (BOB, ALICE, "bob")
        first_name = "bob" if second_name == "alice" else "alice"
        game.text(first, f"rock {first_name}")
        clock.tick(20)
        game.text(second, f"paper {second_name}")
        clock.tick(40)
        expected[ALICE] += 2
        expected[BOB] += 2
    assert len(game.sms.to(ALICE)) == expected[ALICE]
    assert len(game.sms.to(BOB)) == expected[BOB]
    assert not _notices(game, ALICE)
    assert not _notices(game, BOB)


def test_the_budget_that_survives_an_opt_out_is_kept_without_the_number(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    while not _notices(game, ALICE):
        game.text(ALICE, "help")
    game.text(ALICE, "STOP")
    game.text(ALICE, "START")
    assert not game.sms.last(ALICE).startswith("Welcome back"), "coming back does not refill the budget"

    contacts = [
        item for item in game.items(TABLES.idempotency) if item["messageId"]["S"].startswith(CONTACT_PREFIX)
    ]
    assert contacts, "the budget is kept under a keyed hash"
    assert all(ALICE not in json.dumps(item) for item in contacts)
    assert all(item["TTLEpochTimestamp"]["N"] for item in contacts), "and expires"
