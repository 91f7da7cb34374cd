"""The processor at its edges: how long it waits for a lock, what it asks SQS to do when another
attempt holds the outbox, where its outbox lease ends, and the log lines an operator follows."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from serverless_rps import commands, observability, replies
from serverless_rps import game as game_rules
from serverless_rps.exceptions import (
    ClaimHeldElsewhere,
    LockContended,
    OutboxLeaseExpired,
    SmsTemporarilyFailed,
)
from serverless_rps.game import LEADERBOARD_SHARDS, LOBBY_SHARDS
from serverless_rps.observability import Untraced
from serverless_rps.parsing import ShowScore
from serverless_rps.ports import OutboundSms, ReplyId
from serverless_rps.processing import Result
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, LEASE_SECONDS, FakeSms, Game, new_processor, transient_failure
from tests.protocol.test_failure_visibility import json_log_lines


def test_a_contended_lock_is_retried_after_doubling_jittered_pauses_until_the_next_would_end_the_wait(
    game: Game,
) -> None:
    game.register((ALICE, "alice"))
    game.store.lock(ALICE, "another-invocation", time.time())  # held for its whole lease
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        assert len(pauses) <= 3, f"still waiting after {pauses}"

    # Jitter 0.5 of 0.05, 0.1, 0.2, then 0.4 s (the cap): the fourth pause, 0.2 s, would reach the
    # 0.2 s wait (the clock is frozen), so the waiter gives up instead.
    waiter = new_processor(game.store, game.sms, lock_wait_seconds=0.2, sleep=sleep, jitter=lambda: 0.5)
    with pytest.raises(LockContended):
        waiter.process(game.inbound(ALICE, "help"))
    assert pauses == [0.025, 0.05, 0.1]


def test_a_copy_arriving_while_the_replies_are_sent_is_asked_back_in_five_seconds(game: Game) -> None:
    game.register((ALICE, "alice"))
    message = game.inbound(ALICE, "score")  # one reply: the copy arrives once, mid-send
    refused: list[ClaimHeldElsewhere] = []

    def send_while_the_copy_arrives(sms: OutboundSms, reply: ReplyId | None = None) -> str:
        try:
            game.processor.process(message)  # Twilio posted the SMS twice: the copy, mid-send
        except ClaimHeldElsewhere as held:
            refused.append(held)
        return FakeSms.send(game.sms, sms, reply)

    game.sms.send = send_while_the_copy_arrives  # type: ignore[method-assign]
    assert game.processor.process(message) is Result.PROCESSED

    [held] = refused
    assert (str(held), held.retry_after) == ("another attempt is sending this message's replies", 5)
    assert game.sms.to(ALICE).count(replies.score(0, 0, 0, 0)) == 1


def test_an_attempt_still_sending_when_its_outbox_lease_ends_stops_at_that_instant(
    game: Game, clock: Any
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "scissors alice")
    sent_before = len(game.sms.sent)

    def send_until_the_lease_ends(sms: OutboundSms, reply: ReplyId | None = None) -> str:
        clock.tick(LEASE_SECONDS)  # the outbox lease was taken at the commit, LEASE_SECONDS ago
        return FakeSms.send(game.sms, sms, reply)

    game.sms.send = send_until_the_lease_ends  # type: ignore[method-assign]
    with pytest.raises(OutboxLeaseExpired) as expired:
        game.text(ALICE, "rock bob")
    assert str(expired.value) == "the outbox lease ran out before every reply was sent"
    left = "Bob's result is left to the redelivery"
    assert [sms.to for sms in game.sms.sent[sent_before:]] == [ALICE], left


def test_each_message_is_logged_with_its_command_and_the_masked_sender(game: Game) -> None:
    with json_log_lines() as lines:
        game.text(ALICE, "nick alice")
        game.text(ALICE, "rock")

    assert [(line["command"], line["sender"]) for line in lines if line["message"] == "processing"] == [
        ("SetNickname", "+*******0001"),
        ("LobbyThrow", "+*******0001"),
    ]


def test_each_messages_trace_is_annotated_with_its_command(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With tracing on (`Tracing: Active`), X-Ray's traces are searched by this annotation.
    annotations: list[tuple[str, str]] = []

    class Recording(Untraced):
        def put_annotation(self, key: str, value: str | float | bool) -> None:
            annotations.append((key, str(value)))

    monkeypatch.setattr(observability, "tracer", Recording())
    game.text(ALICE, "nick alice")
    game.text(ALICE, "score")
    assert annotations == [("command", "SetNickname"), ("command", "ShowScore")]


def test_a_duplicate_and_a_redelivery_that_sends_what_was_missing_each_say_so(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "scissors alice")
    message = game.inbound(ALICE, "rock bob")
    game.sms.fail_next(None, transient_failure())  # Alice's result goes out, Bob's does not
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)

    with json_log_lines() as lines:
        assert game.processor.process(message) is Result.RESENT
        assert game.processor.process(message) is Result.DUPLICATE

    said = [(line["message"], line.get("missing")) for line in lines if line["level"] == "INFO"]
    assert said == [
        ("completed earlier; sending the replies it did not send", 1),
        ("duplicate of a completed message; nothing to do", None),
    ]
    assert game.sms.last(BOB) == replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "alice")


def test_a_commands_hooks_run_in_the_order_its_description_gives_each_handed_the_command(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The processor walks a command's row (`commands.CommandSpec`) in the order its docstring
    gives: look_up before any lock, needs once the players are locked, then, with the shared
    records it asked for locked and read, check, decide, and audit once the commit is done."""
    seen: list[tuple[str, object]] = []
    real = commands.COMMANDS[ShowScore]

    def look_up(command: ShowScore, sender: str, reads: object, now: float) -> commands.LookedUp:
        seen.append(("look_up", command))
        return commands.LookedUp()

    def needs(command: ShowScore, facts: commands.Facts) -> commands.Needs:
        seen.append(("needs", command))
        assert facts.shared == {}, "needs sees the players only"
        return commands.Needs(lock=(LEADERBOARD_SHARDS[0],), read=(LOBBY_SHARDS[0],))

    def check(command: ShowScore, facts: commands.Facts) -> None:
        seen.append(("check", command))
        assert set(facts.shared) == {LEADERBOARD_SHARDS[0]}
        assert set(facts.read_shared) == {LOBBY_SHARDS[0]}

    def decide(command: ShowScore, facts: commands.Facts) -> game_rules.Decision:
        seen.append(("decide", command))
        return real.decide(command, facts)

    def audit(command: ShowScore) -> dict[str, object]:
        seen.append(("audit", command))
        return {}

    spec = replace(real, look_up=look_up, needs=needs, check=check, decide=decide, audit=audit)
    monkeypatch.setitem(commands.COMMANDS, ShowScore, spec)
    game.register((ALICE, "alice"))

    game.text(ALICE, "score")

    assert seen == [(hook, ShowScore()) for hook in ("look_up", "needs", "check", "decide", "audit")]
    assert game.sms.last(ALICE) == replies.score(0, 0, 0, 0)
