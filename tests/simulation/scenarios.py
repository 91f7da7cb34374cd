"""The races worth proving, each a few SMS arriving at once (and what may go wrong meanwhile).

Adding one: name it, say what is set up first (texts processed one by one), which texts arrive
together, which faults the schedule may inject and how many. The checks are the same for all:
the final state must be what *some* one-at-a-time order of the texts produces, every reply must
go out, and nothing may be duplicated, left locked or inconsistent (see `invariants`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tests.conftest import ALICE, BOB, CAROL

__all__ = ["ALL_FAULTS", "SCENARIOS", "Scenario", "scenario_named"]

# kill: the invocation dies at this call. throttled/lost: a DynamoDB write is refused, or takes
# effect and its response is lost. 429/21610/lost: Twilio is busy, refuses for good (the player
# texted STOP), or takes the SMS and the response is lost. redeliver: the same MessageSid comes
# again as a new SQS message. wait: time passes beyond the lock lease or the in-progress expiry.
ALL_FAULTS = frozenset({"kill", "throttled", "lost", "429", "21610", "redeliver", "wait"})
CRASHES_AND_ERRORS = frozenset({"kill", "throttled", "lost", "429", "21610"})


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    messages: Mapping[str, tuple[str, str]]
    setup: Sequence[tuple[str, str]] = ()
    copies: Mapping[str, int] = field(default_factory=dict)
    faults: frozenset[str] = CRASHES_AND_ERRORS
    bound: int = 1
    opted_out: frozenset[str] = frozenset()
    # Labels whose text comes with Twilio's OptOutType (an opt-out Twilio matched, or the operator's
    # `erase`, which processes a STOP with OptOutType STOP).
    opt_out_types: Mapping[str, str] = field(default_factory=dict)
    # The operator's `outbox resend` of a message, by label (not a text: see world.OperatorResend).
    resends: Mapping[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return sorted(self.messages)


REGISTERED = ((ALICE, "nick alice"), (BOB, "nick bob"), (CAROL, "nick carol"))

SCENARIOS = (
    Scenario(
        "same_message_twice",
        "Twilio posts bob's resolving throw twice; both copies are processed at once",
        setup=(*REGISTERED, (ALICE, "rock bob")),
        messages={"b": (BOB, "paper alice")},
        copies={"b": 2},
        faults=CRASHES_AND_ERRORS | {"wait"},
    ),
    Scenario(
        "throw_at_each_other",
        "alice throws at bob while bob throws at alice",
        setup=REGISTERED,
        messages={"a": (ALICE, "rock bob"), "b": (BOB, "scissors alice")},
    ),
    Scenario(
        "resolve_while_opponent_stops",
        "bob answers alice's throw while alice texts STOP (Twilio refuses her from then on)",
        setup=(*REGISTERED, (ALICE, "rock bob")),
        messages={"a": (ALICE, "STOP"), "b": (BOB, "paper alice")},
        opted_out=frozenset({ALICE}),
    ),
    Scenario(
        "challenged_while_stopping",
        "carol throws at alice (a new waiting game) while alice texts STOP: the challenge is never "
        "left behind with alice's number, and her notice is erased or refused",
        setup=REGISTERED,
        messages={"a": (ALICE, "STOP"), "c": (CAROL, "rock alice")},
        opted_out=frozenset({ALICE}),
    ),
    Scenario(
        "erased_while_thrown_at",
        "the operator erases bob (a STOP with OptOutType STOP, as `admin erase` sends it) while "
        "carol throws at him and he still owes alice an answer: nothing is left with bob's number",
        setup=(*REGISTERED, (ALICE, "rock bob")),
        messages={"b": (BOB, "STOP"), "c": (CAROL, "paper bob")},
        opt_out_types={"b": "STOP"},
        opted_out=frozenset({BOB}),
    ),
    Scenario(
        "same_nickname_at_once",
        "two new phones claim the same nickname, in different cases",
        messages={"a": (ALICE, "nick Alex"), "b": (BOB, "nick ALEX")},
    ),
    Scenario(
        "rename_while_thrown_at",
        "carol throws at alice's name while alice renames herself",
        setup=REGISTERED,
        messages={"a": (ALICE, "nick queen"), "c": (CAROL, "rock alice")},
    ),
    Scenario(
        "crash_after_commit",
        "bob's resolving throw dies between its commit and its sends; a copy arrives meanwhile",
        setup=(*REGISTERED, (ALICE, "rock bob")),
        messages={"b": (BOB, "paper alice")},
        faults=frozenset({"kill", "lost", "redeliver", "wait"}),
        bound=2,
    ),
    Scenario(
        "resend_racing_redelivery",
        "bob's resolving throw dies after its commit; the operator's `outbox resend` of it races "
        "its redelivery: every reply goes out, none twice",
        setup=(*REGISTERED, (ALICE, "rock bob")),
        messages={"b": (BOB, "paper alice")},
        resends={"r": "b"},
        faults=frozenset({"kill", "lost", "redeliver", "wait"}),
        bound=2,
    ),
    Scenario(
        "two_lobby_throws_at_once",
        "alice and bob each throw for a stranger at the same moment: one waits, the other plays "
        "them, each exactly once, never themselves",
        setup=REGISTERED,
        messages={"a": (ALICE, "throw rock"), "b": (BOB, "paper")},
    ),
    Scenario(
        "lobby_throw_racing_stop",
        "alice waits in the lobby; bob's lobby throw races her STOP: bob plays her or waits "
        "himself, and her number leaves the lobby either way",
        setup=(*REGISTERED, (ALICE, "throw rock")),
        messages={"a": (ALICE, "STOP"), "b": (BOB, "throw paper")},
        opted_out=frozenset({ALICE}),
    ),
    Scenario(
        "expired_lease_fencing",
        "alice's throw at bob stalls past its lease while carol's throw at bob takes the lock",
        setup=REGISTERED,
        messages={"a": (ALICE, "rock bob"), "c": (CAROL, "paper bob")},
        faults=frozenset({"wait", "redeliver"}),
    ),
)


def scenario_named(name: str) -> Scenario:
    for scenario in SCENARIOS:
        if scenario.name == name:
            return scenario
    raise KeyError(f"no scenario {name!r}; known: {', '.join(s.name for s in SCENARIOS)}")
