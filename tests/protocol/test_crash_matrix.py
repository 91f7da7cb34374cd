"""Kill the processing of a message after each of its external calls, redeliver it once the
leases have expired, and compare with a run that never crashed: the same final state, every
reply delivered, and a duplicate SMS only when the kill fell between Twilio accepting a reply
and our recording it (contract promises 1, 2, 3, 4, 7)."""

from __future__ import annotations

import contextlib
import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from freezegun import freeze_time
from moto import mock_aws

from serverless_rps import replies
from serverless_rps.processing import Result
from serverless_rps.reply_budget import BudgetPolicy
from tests.conftest import (
    ALICE,
    BOB,
    CAROL,
    IN_PROGRESS_SECONDS,
    TABLES,
    FakeSms,
    Game,
    game_tables,
    neighbours,
    new_processor,
)
from tests.protocol.crashes import Crash, CrashInjector

# Slow: each scenario again after every one of its calls.
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Scenario:
    name: str
    setup: Callable[[Game], None]
    sender: str
    body: str


def _registered(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))


def _bob_waits_on_alice(game: Game) -> None:
    _registered(game)
    game.text(BOB, "rock alice")
    game.text(CAROL, "paper alice")


def _rematch_waits_on_alice(game: Game) -> None:
    _registered(game)
    game.text(BOB, "rock alice")
    game.text(ALICE, "scissors bob")  # bob wins: both are now each other's last opponent
    game.text(BOB, "again paper")


# A phone of bob's lobby room (its shard): its lobby throw plays bob at once, as one lobby did.
NEIGHBOUR = neighbours(BOB, 1)[0]


def _bob_in_the_lobby(game: Game) -> None:
    _registered(game)
    game.register((NEIGHBOUR, "dora"))
    game.text(BOB, "throw rock")


SCENARIOS = [
    Scenario("register", lambda game: None, ALICE, "nick alice"),
    Scenario("rename", _registered, ALICE, "nick Queen"),
    Scenario("name taken", _registered, ALICE, "nick BOB"),
    Scenario("waiting throw", _registered, ALICE, "throw rock bob"),
    Scenario("resolving throw", _bob_waits_on_alice, ALICE, "throw paper bob"),
    Scenario("games", _bob_waits_on_alice, ALICE, "games"),
    Scenario("score", _bob_waits_on_alice, BOB, "score"),
    Scenario("help", lambda game: None, CAROL, "help"),
    Scenario("stop", _bob_waits_on_alice, ALICE, "stop"),
    Scenario("resolving again", _rematch_waits_on_alice, ALICE, "again rock"),
    Scenario("stop of a ranked player", _rematch_waits_on_alice, BOB, "stop"),
    Scenario("top", _rematch_waits_on_alice, CAROL, "top"),
    Scenario("lobby throw that waits", _registered, ALICE, "throw rock"),
    Scenario("lobby throw that pairs", _bob_in_the_lobby, NEIGHBOUR, "paper"),
    Scenario("stop while in the lobby", _bob_in_the_lobby, BOB, "stop"),
    Scenario("games while in the lobby", _bob_in_the_lobby, BOB, "games"),
    Scenario("unknown nickname", _registered, ALICE, "rock nobody"),
    # Opt-outs Twilio may not have answered: goodbyes, then the bot's one confirmation.
    Scenario("confirmed opt-out", _bob_waits_on_alice, ALICE, "Stop."),
    Scenario("confirmed opt-out of a stranger", lambda game: None, ALICE, "ＳＴＯＰ"),
    Scenario("start after an opt-out", lambda game: game.text(ALICE, "stop"), ALICE, "start"),
]
CONFIRMATION = replies.opt_out_confirmation(replies.Program())
MESSAGE_SID = "SM" + "c" * 32
# A bucket that drains one reply an hour: a run's levels then count replies charged, whatever the
# moment each was charged (a redelivery comes later than the first attempt).
SLOW_DRAIN = BudgetPolicy(burst=60, per_hour=1)


def _run(
    scenario: Scenario, crash_after: int | None, dynamodb_endpoint: str | None, *, list_lags: bool = False
) -> tuple[dict[str, Any], Counter[tuple[str, str]], list[str]]:
    """Returns the final tables, every SMS sent (to, body), and the external calls of the attempt.
    The redelivery reads Twilio's Messages list before re-sending; `list_lags`: it shows nothing."""
    with (
        mock_aws(),
        freeze_time("2026-11-21 12:00:00") as clock,
        game_tables(dynamodb_endpoint) as dynamodb,
    ):
        sms = FakeSms()
        game = Game(dynamodb, sms, budget=SLOW_DRAIN)
        scenario.setup(game)
        setup_messages = len(sms.sent)

        injector = CrashInjector(dynamodb, sms, crash_after)
        doomed = new_processor(game.store, injector, game.sms, budget=SLOW_DRAIN)
        message = game.inbound(scenario.sender, scenario.body, MESSAGE_SID)
        with contextlib.suppress(Crash):
            doomed.process(message)
        injector.detach()
        calls = list(injector.calls)

        # SQS redelivers after the visibility timeout, which is longer than every lease.
        clock.tick(IN_PROGRESS_SECONDS + 1)
        sms.list_lags = list_lags
        redelivered = game.processor.process(game.inbound(scenario.sender, scenario.body, MESSAGE_SID))
        if crash_after is None:
            assert redelivered is Result.DUPLICATE
        return _tables(game, sms), Counter((m.to, m.body) for m in sms.sent[setup_messages:]), calls


# What a contact record's `recent_sids` must be once every record is finished, in every run.
EXACT = "every SID recorded as delivered to the number, once"


def _tables(game: Game, sms: FakeSms) -> dict[str, Any]:
    """The tables without what legitimately differs between runs (ids and times). A contact
    record's `recent_sids` is judged against what Twilio accepted for its number and some record
    recorded: a SID missing there would let a later look before re-sending take that SMS as
    another reply (a lost reply)."""
    volatile = {
        "player_id",
        "opponent_player_id",
        "challenger_player_id",
        "expires_epoch_timestamp",
        "attempt_id",
        "completed_at",
        "TTLEpochTimestamp",
        "outbox_lease",
        "in_progress_expiration",
        "since",  # when a leaderboard line reached its wins: the redelivery's time
    }

    def strip(value: Any) -> Any:
        if isinstance(value, dict) and "level" in value:
            # A reply budget: how much was spent, not when (the bucket barely drains in a run).
            return {"spent": math.ceil(float(value["level"]["N"]) - 1e-6)}
        if isinstance(value, dict) and "SS" in value:
            return sorted(value["SS"])
        if isinstance(value, dict):
            # The opt-in marker (`opted_in_at`): whether it is set, not when.
            return {
                key: "set" if key == "opted_in_at" else strip(inner)
                for key, inner in value.items()
                if key not in volatile
            }
        if isinstance(value, list):
            return [strip(inner) for inner in value]
        return value

    recorded = {
        outcome["S"]
        for item in game.items(TABLES.idempotency)
        for outcome in item.get("delivered", {}).get("M", {}).values()
    }
    sent_to: dict[str, set[str]] = {}
    for accepted in sms.listed:
        if accepted.sid in recorded:
            sent_to.setdefault(game.store.contact_id(accepted.to), set()).add(accepted.sid)

    def judged(item: dict[str, Any]) -> dict[str, Any]:
        snapshot: dict[str, Any] = strip(item)
        snapshot["delivered"] = sorted(item.get("delivered", {}).get("M", {}))  # which, not the SIDs
        key = item["messageId"]["S"]
        if key.startswith("contact#") and "pending_replies" not in item:
            kept = set(item.get("recent_sids", {}).get("SS", []))
            should = sent_to.get(key, set())
            snapshot["recent_sids"] = (
                EXACT
                if kept == should
                else {"missing": sorted(should - kept), "extra": sorted(kept - should)}
            )
        return snapshot

    # Items in a canonical order: an engine returns an item's attributes in an order of its own
    # (DynamoDB Local's depends on the item's history), so a repr would order equal items apart.
    def canonical(item: dict[str, Any]) -> str:
        return json.dumps(item, sort_keys=True)

    tables = {
        table: sorted((strip(item) for item in game.items(table)), key=canonical)
        for table in (TABLES.game_state, TABLES.nickname)
    }
    tables[TABLES.idempotency] = sorted(
        (judged(item) for item in game.items(TABLES.idempotency)), key=canonical
    )
    return tables


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.name)
def test_a_crash_after_any_call_changes_nothing_a_player_would_notice(
    scenario: Scenario, dynamodb_endpoint: str | None
) -> None:
    clean_tables, clean_sms, calls = _run(scenario, None, dynamodb_endpoint)
    assert calls, "the scenario made no external calls"
    assert all(item.get("recent_sids", EXACT) == EXACT for item in clean_tables[TABLES.idempotency])

    for crash_after in range(1, len(calls) + 1):
        tables, sent, _ = _run(scenario, crash_after, dynamodb_endpoint)
        killed_in = calls[crash_after - 1]
        where = f"killed after call {crash_after} ({killed_in}) of {calls}"
        assert tables == clean_tables, where
        lost = set(clean_sms) - set(sent)
        if lost:
            # An opt-out confirmation is at most once: marked before it leaves, so a death right
            # after the mark (before Twilio has it) loses it rather than risk sending it twice.
            confirmation = (scenario.sender, CONFIRMATION)
            marked = calls.index(f"Send to {scenario.sender}")  # the mark is the call just before
            assert lost == {confirmation}, f"a committed reply was lost; {where}"
            assert crash_after == marked, f"the confirmation was lost outside its mark->send window; {where}"
        # Even a death right after Twilio accepted a reply, before our record of it: the
        # redelivery finds the reply in Twilio's Messages list and records it instead of sending.
        assert not sent - clean_sms, f"a duplicate SMS; {where}"
        assert not any("user_locked" in item for item in tables[TABLES.game_state]), where


LAGGING = [scenario for scenario in SCENARIOS if scenario.name in {"resolving throw", "stop"}]


@pytest.mark.parametrize("scenario", LAGGING, ids=lambda scenario: scenario.name)
def test_a_list_that_lags_costs_one_duplicate_and_never_a_reply(
    scenario: Scenario, dynamodb_endpoint: str | None
) -> None:
    clean_tables, clean_sms, calls = _run(scenario, None, dynamodb_endpoint)
    for crash_after in range(1, len(calls) + 1):
        tables, sent, _ = _run(scenario, crash_after, dynamodb_endpoint, list_lags=True)
        killed_in = calls[crash_after - 1]
        where = f"killed after call {crash_after} ({killed_in}) of {calls}"
        assert tables == clean_tables, where
        lost = set(clean_sms) - set(sent)
        assert lost <= {(scenario.sender, CONFIRMATION)}, f"a committed reply was lost; {where}"
        duplicates = sent - clean_sms
        if killed_in.startswith("Send to"):
            # The window that remains: Twilio had it, our record did not, and the list did not show it.
            assert sum(duplicates.values()) <= 1, where
        else:
            assert not duplicates, f"no duplicate SMS outside the send->record window; {where}"


def test_the_resolving_throw_makes_at_most_eleven_dynamodb_requests(dynamodb_endpoint: str | None) -> None:
    # claim, nickname lookup, two locks and the leaderboard shards' (one, or two when the players'
    # lines live in different shards), commit, two delivery records, and taking the
    # record off each recipient's pending replies (what lets an opt-out find outboxes that hold
    # its number).
    _, _, calls = _run(SCENARIOS[4], None, dynamodb_endpoint)
    dynamodb_calls = [call for call in calls if not call.startswith("Send to")]
    assert len(dynamodb_calls) <= 11, dynamodb_calls
