"""Schedules worth keeping: each bug the exploration found, replayed as a plain test, and a few
races whose handling the engine must keep.

A schedule lists only the choices that matter; after its last choice the invocations run in name
order to the end, then quiescence (every lease expires, unfinished texts come back, each text
arrives once more) and every invariant is checked. Print any run step by step with
`python -m tests.simulation --scenario NAME --replay "SCHEDULE" --verbose`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.simulation.explore import Explorer, parse_schedule
from tests.simulation.harness import Harness
from tests.simulation.invariants import message_sid
from tests.simulation.scenarios import scenario_named


@dataclass(frozen=True)
class Regression:
    name: str
    scenario: str
    schedule: str


def go(invocation: str, times: int) -> str:
    return "; ".join([f"go {invocation}"] * times)


# Bob's resolving throw takes 11 calls: claim, read the nickname, lock both players (in phone
# order), lock the leaderboard shards of alice's and bob's lines (two: their ids fall in different
# shards; after every phone), commit, then send and record each of the two replies.
REGRESSIONS = (
    Regression(
        # Found by the exploration (same_message_twice, bound 1; first seen in crash_after_commit),
        # fixed in a80b897.
        # b1 commits and sends reply 0; before it records that, b2 (Twilio posted the SMS twice)
        # claims, finds the text completed with replies 0 and 1 unsent, and waits for b1's
        # outbox lease. b1 records reply 0, Twilio answers 429 on reply 1, b1 gives the lease
        # back. b2 takes it and sends what *it* read as unsent: reply 0 a second time, with no
        # crash between any send and its record.
        "a copy that read the outbox before a reply was recorded must not send that reply again",
        "same_message_twice",
        f"{go('b1', 8)}; go b2; go b1; fail b1 429; go b1",
    ),
    Regression(
        # Found by the exploration (same_message_twice, bound 1). b1 sends reply 0 and stalls
        # before recording it; time passes its outbox lease. b1 wakes, records reply 0 and, its
        # lease gone, must stop: b2 has taken the lease over and sends reply 1. Before a80b897
        # b1 sent reply 1 as well.
        "an invocation that wakes after its outbox lease ran out stops sending; the copy sends the rest once",
        "same_message_twice",
        f"{go('b1', 8)}; wait lease; go b1; {go('b2', 3)}",
    ),
    Regression(
        "a crash right after the commit loses no reply: the copy sends both once the lease expires",
        "crash_after_commit",
        f"{go('b1', 7)}; kill b1",
    ),
    Regression(
        "a crash between a send and its record may send that reply twice, and no other",
        "crash_after_commit",
        f"{go('b1', 8)}; kill b1",
    ),
    Regression(
        "a commit whose response is lost is not redone: the copy only sends the replies",
        "crash_after_commit",
        f"{go('b1', 6)}; fail b1 lost",
    ),
    Regression(
        "two copies at once: the second backs off from the first's claim, and on its return only confirms",
        "same_message_twice",
        f"go b1; go b2; {go('b1', 10)}",
    ),
    Regression(
        "throws crossing: whoever locks alice first goes first; the other backs off, returns and resolves",
        "throw_at_each_other",
        "go b1; go a1; go b1; go a1; go b1; go a1; go a1; go b1",
    ),
    Regression(
        "alice's STOP lands between bob's lookup of her name and his lock: bob is told she is gone",
        "resolve_while_opponent_stops",
        f"go b1; go b1; {go('a1', 3)}",
    ),
    Regression(
        "the same name claimed at once, the loser's commit fails on the name and it reads again",
        "same_nickname_at_once",
        "go a1; go a1; go b1; go b1; go a1; go a1",
    ),
    Regression(
        "carol throws at alice's old name while alice renames: the throw is re-read, not misdirected",
        "rename_while_thrown_at",
        f"go c1; go c1; {go('a1', 5)}",
    ),
    Regression(
        "a writer stalled past its lease is fenced out once another throw takes the lock",
        "expired_lease_fencing",
        f"{go('a1', 4)}; wait lease; {go('c1', 5)}",
    ),
)


@pytest.fixture(scope="module")
def explorers() -> Iterator[dict[str, Explorer]]:
    with Harness() as harness:
        names = {regression.scenario for regression in REGRESSIONS}
        yield {name: Explorer(harness, scenario_named(name)) for name in sorted(names)}


@pytest.mark.parametrize("regression", REGRESSIONS, ids=[regression.name for regression in REGRESSIONS])
def test_the_engine_keeps_every_promise_in_this_schedule(
    explorers: dict[str, Explorer], regression: Regression
) -> None:
    world = explorers[regression.scenario].replay(parse_schedule(regression.schedule))

    assert [str(violation) for violation in world.violations] == []


def test_a_crash_after_the_commit_costs_no_duplicate(explorers: dict[str, Explorer]) -> None:
    # Killed once reply 0 is sent and recorded (bob's throw: 7 calls to the commit, then the send
    # and its record): the copy sends reply 1 only.
    world = explorers["crash_after_commit"].replay(parse_schedule(f"{go('b1', 9)}; kill b1"))

    key = message_sid("b")
    assert world.ledger.sends[(key, 0)] == world.ledger.sends[(key, 1)] == 1


def test_a_crash_between_send_and_record_duplicates_only_that_reply(explorers: dict[str, Explorer]) -> None:
    # Killed once reply 0 is sent, before its record: the copy cannot know, and sends it again.
    world = explorers["crash_after_commit"].replay(parse_schedule(f"{go('b1', 8)}; kill b1"))

    key = message_sid("b")
    assert (world.ledger.sends[(key, 0)], world.ledger.sends[(key, 1)]) == (2, 1)
