"""The simulation's own machinery: runs are reproducible, faults do what they say, and the
partial-order reduction loses nothing the plain search finds."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from serverless_rps.exceptions import LockLost, StoreUnavailable
from tests.conftest import ALICE, BOB, TABLES
from tests.simulation.explore import Explorer, format_schedule, parse_schedule
from tests.simulation.harness import Harness
from tests.simulation.invariants import message_sid
from tests.simulation.scenarios import Scenario, scenario_named
from tests.simulation.world import Choice, Delivery, World


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness() as harness:
        yield harness


def test_a_schedule_is_written_and_read_back_as_the_same_choices() -> None:
    schedule = parse_schedule("go a1; kill b1 ; fail a1 lost; redeliver b; wait lease")

    assert schedule[2] == Choice("fail", "a1", "lost")
    assert parse_schedule(format_schedule(schedule)) == schedule


def test_replaying_a_schedule_twice_gives_the_same_run(harness: Harness) -> None:
    explorer = Explorer(harness, scenario_named("throw_at_each_other"))
    schedule = parse_schedule("go b1; go a1; go b1; go a1; go a1; go b1")

    first, second = explorer.replay(schedule), explorer.replay(schedule)

    assert first.trace == second.trace
    assert first.end_state == second.end_state
    assert first.violations == second.violations == []


def test_a_killed_invocation_never_runs_its_clean_up(harness: Harness) -> None:
    explorer = Explorer(harness, scenario_named("same_nickname_at_once"))
    with explorer.world(any_fault=True) as world:
        for choice in parse_schedule(
            "go a1; go a1; go a1; go a1; kill a1"
        ):  # claim, read the name, lock, read the phone's contact record: die at commit
            world.apply(choice)
        alice = next(row for row in harness.items(TABLES.game_state) if row["phone_number"]["S"] == ALICE)
        claim = next(
            row for row in harness.items(TABLES.idempotency) if row["messageId"]["S"] == message_sid("a")
        )

        assert world.scheduler.invocations["a1"].killed
        assert "user_locked" in alice, "the `finally` that releases the lock must not have run"
        assert claim["status"]["S"] == "IN_PROGRESS", (
            "the `finally` that abandons the claim must not have run"
        )


def test_a_throttled_commit_fails_the_attempt_and_the_message_succeeds_when_it_comes_back(
    harness: Harness,
) -> None:
    explorer = Explorer(harness, scenario_named("same_nickname_at_once"))

    world = explorer.replay(parse_schedule("go a1; go a1; go a1; go a1; fail a1 throttled"))

    first, retried = _deliveries(world, "a")[:2]
    assert isinstance(first.error, StoreUnavailable)
    assert retried.succeeded
    assert world.violations == []


def test_a_writer_stalled_past_its_lease_is_fenced_out_by_the_lock_it_lost(harness: Harness) -> None:
    explorer = Explorer(harness, scenario_named("expired_lease_fencing"))
    # alice's throw locks alice and bob, then stalls at its commit; time passes every lease;
    # carol's throw takes bob's lock and commits; alice's commit then lands.
    schedule = "go a1; go a1; go a1; go a1; wait lease; " + "; ".join(["go c1"] * 5) + "; go a1"

    world = explorer.replay(parse_schedule(schedule))

    assert isinstance(_deliveries(world, "a")[0].error, LockLost)
    assert world.violations == []


def test_a_reply_refused_for_good_is_recorded_and_never_retried(harness: Harness) -> None:
    explorer = Explorer(harness, scenario_named("resolve_while_opponent_stops"))

    world = explorer.replay(
        parse_schedule("; ".join(["go b1"] * 7))
    )  # bob resolves first; alice has opted out

    record = next(
        row for row in harness.items(TABLES.idempotency) if row["messageId"]["S"] == message_sid("b")
    )
    outcomes = {index: value["S"] for index, value in record["delivered"]["M"].items()}
    committed = world.ledger.outboxes[message_sid("b")]  # the record dropped its outbox once done
    bodies_to_alice = [index for index, (to, _, _) in enumerate(committed) if to == ALICE]
    assert [outcomes[str(index)] for index in bodies_to_alice] == ["refused:21610"]
    assert world.ledger.sends[(message_sid("b"), bodies_to_alice[0])] == 0
    assert any(to == BOB for to, _, _ in committed)
    assert "outbox" not in record
    assert world.violations == []


# Small enough for every test run: commuting steps, crashes, a redelivery and time passing; and two
# invocations sending to one phone while Twilio may refuse it (a send, then a refusal, conflict).
# Alice is registered first, so that each text has one reply (a new phone's first reply comes with
# the opt-in confirmation, and the plain search over three sends would not fit the test's time).
# Between them the cases inject each kind of fault the reduction treats apart (world.transitions):
# a death, a failure that touched nothing (429), one whose call took effect (lost, in
# crash_after_commit) and a refusal that conflicts with later sends (21610). With `lost` in the
# third case as well, both searches agreed too (308 schedules each) and took 1.5 times as long.
REDUCTION_CASES = (
    replace(scenario_named("rename_while_thrown_at"), bound=0),
    replace(scenario_named("crash_after_commit"), bound=1),
    Scenario(
        "two_texts_from_one_phone",
        "alice texts twice at once; Twilio may refuse her",
        setup=((ALICE, "nick alice"),),
        messages={"a": (ALICE, "help throw"), "b": (ALICE, "help nick")},
        faults=frozenset({"kill", "429", "21610"}),
    ),
)


@pytest.mark.slow  # every schedule, unreduced
@pytest.mark.parametrize("scenario", REDUCTION_CASES, ids=[case.name for case in REDUCTION_CASES])
def test_the_partial_order_reduction_explores_every_schedule_the_plain_search_does(
    harness: Harness, scenario: Scenario
) -> None:
    reduced = Explorer(harness, scenario).explore(record_traces=True)
    plain = Explorer(harness, scenario, exhaustive=True).explore(record_traces=True)

    assert reduced.traces == plain.traces  # the same schedules, up to the order of commuting steps
    assert reduced.end_states == plain.end_states
    assert len(plain.traces) > 2
    assert reduced.schedules + reduced.pruned < plain.schedules + plain.pruned


def _deliveries(world: World, label: str) -> list[Delivery]:
    return [delivery for delivery in world.deliveries if delivery.label == label]
