"""Consent as a player meets it: the opt-in confirmation on a phone's first reply, HELP naming the
program, and the one confirmation of an opt-out Twilio did not answer itself (`Stop.`, `ＳＴＯＰ`, or
any `OptOut(confirm=True)`): sent once, first, within five minutes or never, and leaving the
number in no item of any table."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

import pytest

from serverless_rps import processing, replies
from serverless_rps.admin.store_reads import StoreReads
from serverless_rps.exceptions import ConfigurationProblem, SmsTemporarilyFailed
from serverless_rps.observability import mask_phone
from serverless_rps.parsing import OptOut
from serverless_rps.ports import DROPPED_LATE
from serverless_rps.processing import Result
from serverless_rps.replies import Program
from tests.conftest import ALICE, BOB, IN_PROGRESS_SECONDS, Game, opted_out, transient_failure
from tests.protocol.test_failure_visibility import json_log_lines

# The FCC's rule: one confirmation, within five minutes of the opt-out, or none. Written as the
# rule's number, not the code's constant, so that a changed window fails these tests.
FIVE_MINUTES = 300

PROGRAM = Program()  # what the processor sends when nothing is configured
WELCOME = replies.opt_in_confirmation(PROGRAM)
CONFIRMATION = replies.opt_out_confirmation(PROGRAM)
CONFIRMED_OPT_OUTS = ["Stop.", "ＳＴＯＰ", "quit!", "s\u200btop"]


def _alice_challenged_by_bob(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")


def test_the_first_reply_a_phone_ever_gets_is_the_opt_in_confirmation_then_its_answer(game: Game) -> None:
    game.text(ALICE, "help")
    game.text(ALICE, "score")
    game.text(ALICE, "nick alice")
    assert game.sms.to(ALICE) == [
        WELCOME,
        replies.program_help(PROGRAM),
        replies.help_overview(),
        replies.not_registered(),
        replies.nick_registered("alice"),
    ]


def test_a_new_players_first_text_gets_the_opt_in_confirmation_whatever_it_says(game: Game) -> None:
    game.text(ALICE, "nick alice")
    assert game.sms.to(ALICE) == [WELCOME, replies.nick_registered("alice")]


def test_help_names_the_program_its_support_and_stop_then_lists_the_commands(game: Game) -> None:
    game.register((ALICE, "alice"))
    sent = len(game.sms.to(ALICE))
    game.text(ALICE, "HELP")
    assert game.sms.to(ALICE)[sent:] == [replies.program_help(PROGRAM), replies.help_overview()]
    assert "Msg & data rates may apply" in replies.program_help(PROGRAM)


@pytest.mark.parametrize("body", CONFIRMED_OPT_OUTS)
def test_an_opt_out_twilio_may_not_have_answered_gets_one_confirmation_and_erases(
    game: Game, body: str
) -> None:
    _alice_challenged_by_bob(game)
    sent_to_alice = len(game.sms.to(ALICE))

    game.text(ALICE, body)

    assert game.sms.to(ALICE)[sent_to_alice:] == [CONFIRMATION]
    assert game.sms.last(BOB) == replies.opponent_left("alice")  # the same goodbye as STOP's
    assert game.items_holding(ALICE) == []
    assert game.player(ALICE) is None
    assert game.nickname_row("alice") is None


def test_a_stop_twilio_answered_gets_no_confirmation_from_the_bot(game: Game) -> None:
    _alice_challenged_by_bob(game)
    sent_to_alice = len(game.sms.to(ALICE))
    game.text(ALICE, "STOP")
    assert game.sms.to(ALICE)[sent_to_alice:] == []
    assert game.items_holding(ALICE) == []


def test_a_stranger_who_opts_out_is_confirmed_and_leaves_no_number(game: Game) -> None:
    game.text(ALICE, "Stop.")
    assert game.sms.to(ALICE) == [CONFIRMATION]  # no opt-in confirmation before an opt-out
    assert game.items_holding(ALICE) == []


def test_a_duplicate_and_a_late_redelivery_never_send_a_second_confirmation(game: Game, clock: Any) -> None:
    _alice_challenged_by_bob(game)
    message = game.inbound(ALICE, "Stop.")
    assert game.processor.process(message) is Result.PROCESSED
    assert game.processor.process(message) is Result.DUPLICATE  # Twilio's second POST
    clock.tick(3 * 24 * 60 * 60)
    assert game.processor.process(message) is Result.DUPLICATE  # redriven days later
    assert game.sms.to(ALICE).count(CONFIRMATION) == 1
    assert game.items_holding(ALICE) == []


def test_nothing_else_reaches_the_number_until_it_texts_again(game: Game) -> None:
    _alice_challenged_by_bob(game)
    game.text(ALICE, "ＳＴＯＰ")
    sent_to_alice = len(game.sms.to(ALICE))
    game.text(BOB, "paper alice")  # her nickname is gone: no challenge can reach her
    game.text(BOB, "throw rock")  # nor a lobby pairing
    assert len(game.sms.to(ALICE)) == sent_to_alice
    game.text(ALICE, "start")  # START after an opt-out: the opt-in confirmation again, once
    game.text(ALICE, "score")
    assert game.sms.to(ALICE)[sent_to_alice:] == [WELCOME, replies.not_registered()]


def test_texting_again_after_an_opt_out_gets_the_opt_in_confirmation_first(game: Game) -> None:
    game.register((ALICE, "alice"))
    game.text(ALICE, "STOP")
    sent_to_alice = len(game.sms.to(ALICE))
    game.text(ALICE, "nick alice")
    assert game.sms.to(ALICE)[sent_to_alice:] == [WELCOME, replies.nick_registered("alice")]


def test_a_number_twilio_blocked_has_its_refusal_recorded_and_gets_nothing_twice(
    game: Game, clock: Any
) -> None:
    _alice_challenged_by_bob(game)
    game.sms.fail_next(opted_out())  # Twilio matched the opt-out itself after all: 21610
    message = game.inbound(ALICE, "Stop.")
    game.processor.process(message)
    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.processor.process(message) is Result.DUPLICATE
    assert CONFIRMATION not in game.sms.to(ALICE)
    record = StoreReads.beside(game.store).read_completed(message.idempotency_key)
    assert record is not None
    assert record.delivered[0] == "refused:21610"
    assert game.sms.to(BOB).count(replies.opponent_left("alice")) == 1
    assert game.items_holding(ALICE) == []


def test_a_confirmation_twilio_may_have_taken_before_failing_is_never_sent_again(
    game: Game, clock: Any
) -> None:
    _alice_challenged_by_bob(game)
    # Twilio accepts the confirmation and its answer is lost (a read timeout): it may have gone.
    game.sms.fail_next(SmsTemporarilyFailed("Twilio's answer was lost", maybe_sent=True))
    message = game.inbound(ALICE, "Stop.")
    with json_log_lines() as lines, pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)
    assert _logged_to(lines, "opt-out confirmation may have been sent; it is not sent again") == [
        mask_phone(ALICE)
    ]

    clock.tick(IN_PROGRESS_SECONDS + 1)  # the redelivery, well within the five minutes
    assert game.processor.process(message) is Result.RESENT

    assert game.sms.to(ALICE).count(CONFIRMATION) == 1, "one confirmation, never two"
    assert game.sms.to(BOB).count(replies.opponent_left("alice")) == 1
    assert game.items_holding(ALICE) == []


def test_a_confirmation_that_cannot_go_out_within_five_minutes_is_dropped_and_logged(
    game: Game, clock: Any
) -> None:
    _alice_challenged_by_bob(game)
    game.sms.fail_next(transient_failure())  # Twilio is down when the opt-out commits
    message = game.inbound(ALICE, "Stop.")
    with pytest.raises(Exception, match="503"):
        game.processor.process(message)
    assert game.items_holding(ALICE), "the confirmation waits in the outbox for its retry"
    assert replies.opponent_left("alice") not in game.sms.to(BOB)

    clock.tick(FIVE_MINUTES + 1)  # the redelivery comes too late
    with json_log_lines() as lines:
        assert game.processor.process(message) is Result.RESENT

    assert CONFIRMATION not in game.sms.to(ALICE)
    assert game.sms.last(BOB) == replies.opponent_left("alice")  # the goodbye still goes
    record = StoreReads.beside(game.store).read_completed(message.idempotency_key)
    assert record is not None
    assert record.delivered[0] == DROPPED_LATE
    assert game.items_holding(ALICE) == []
    assert _logged_to(lines, "opt-out confirmation dropped: too late to send") == ["+*******0001"]


def test_an_opt_in_confirmation_the_budget_holds_back_comes_with_the_first_reply_that_goes(
    game: Game, clock: Any
) -> None:
    """The reply budget outlives an opt-out (on the number's contact record). A flooder who opts
    out and texts straight back is not answered, welcome included; once the budget has drained,
    the next text is answered with the opt-in confirmation first, as any returning number's is."""
    game.register((ALICE, "alice"))
    for _ in range(70):  # far past the burst: alice has had her notice
        game.text(ALICE, "score")
    game.text(ALICE, "STOP")
    sent_to_alice = len(game.sms.to(ALICE))
    game.text(ALICE, "score")
    assert game.sms.to(ALICE)[sent_to_alice:] == []

    clock.tick(3600)  # 180 replies an hour drain: empty again
    game.text(ALICE, "score")
    assert game.sms.to(ALICE)[sent_to_alice:] == [WELCOME, replies.not_registered()]


@pytest.mark.parametrize(("retried_after", "confirmed"), [(60, True), (61, False)])
def test_a_confirmations_five_minutes_run_from_when_the_webhook_queued_the_stop(
    game: Game, clock: Any, retried_after: int, confirmed: bool
) -> None:
    """A STOP that waited four minutes in the queue has one minute left: its retry still sends
    the confirmation at the fifth minute's last second, and drops it a second later."""
    _alice_challenged_by_bob(game)
    game.sms.fail_next(transient_failure())
    queued_at = time.time() - (FIVE_MINUTES - 60)
    message = dataclasses.replace(game.inbound(ALICE, "Stop."), enqueued_at=queued_at)
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)

    clock.tick(retried_after)
    assert game.processor.process(message) is Result.RESENT
    assert (CONFIRMATION in game.sms.to(ALICE)) is confirmed
    assert game.sms.last(BOB) == replies.opponent_left("alice")


@pytest.mark.parametrize("failing", ["the confirmation", "the goodbye"])
def test_a_reply_twilio_did_not_take_is_sent_by_the_redelivery_and_the_confirmation_once(
    game: Game, clock: Any, failing: str
) -> None:
    _alice_challenged_by_bob(game)
    game.sms.fail_next(
        *([transient_failure()] if failing == "the confirmation" else [None, transient_failure()])
    )
    message = game.inbound(ALICE, "Stop.")
    with pytest.raises(Exception, match="503"):
        game.processor.process(message)
    if failing == "the goodbye":
        assert game.items_holding(ALICE) == [], "sent: its number left the outbox before it went"

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.processor.process(message) is Result.RESENT
    assert game.processor.process(message) is Result.DUPLICATE
    assert game.sms.to(ALICE).count(CONFIRMATION) == 1
    assert game.sms.to(BOB).count(replies.opponent_left("alice")) == 1
    assert game.items_holding(ALICE) == []


def test_a_confirmation_our_account_could_not_send_goes_back_in_the_outbox_for_the_redelivery(
    game: Game, clock: Any
) -> None:
    """Twilio refused the account or the sender (an operator must fix it): the confirmation was not
    taken, so it goes back in the outbox, and the redelivery within the five minutes sends it."""
    _alice_challenged_by_bob(game)
    game.sms.fail_next(ConfigurationProblem("Twilio refused our account or sender: HTTP 401 code 20003"))
    message = game.inbound(ALICE, "Stop.")
    with pytest.raises(ConfigurationProblem):
        game.processor.process(message)
    assert CONFIRMATION not in game.sms.to(ALICE)

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.processor.process(message) is Result.RESENT
    assert game.sms.to(ALICE).count(CONFIRMATION) == 1
    assert game.items_holding(ALICE) == []


def test_a_death_between_marking_the_confirmation_and_sending_it_never_sends_it_twice(
    game: Game, clock: Any
) -> None:
    """At most once: the mark is written before Twilio is asked, so a death after Twilio took it
    (or before) leaves a redelivery that sends nothing more to the number, and drops the outbox."""
    game.register((ALICE, "alice"))
    sent_to_alice = len(game.sms.to(ALICE))
    message = game.inbound(ALICE, "Stop.")
    game.store.outboxes.record_delivery = _dies  # type: ignore[method-assign]  # dies right after Twilio took it
    with pytest.raises(_Died):
        game.processor.process(message)
    del game.store.outboxes.record_delivery
    assert game.sms.to(ALICE)[sent_to_alice:] == [CONFIRMATION]

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.processor.process(message) is Result.DUPLICATE
    assert game.sms.to(ALICE)[sent_to_alice:] == [CONFIRMATION]
    assert game.items_holding(ALICE) == []


def test_a_confirmation_a_later_opt_out_erased_before_it_left_is_not_sent(game: Game) -> None:
    """Alice's `Stop.` is committed; before its confirmation is marked and sent, her plain STOP
    (Twilio answered it itself) erases her number from every outbox, that confirmation's too. The
    first message's sender then finds the number gone and sends nothing to it, and goes on to the
    goodbye to Bob, whose challenge her opt-out called off."""
    _alice_challenged_by_bob(game)
    sent_to_alice = len(game.sms.to(ALICE))
    second: list[Result] = []

    def stop_again_before_the_mark(params: dict[str, Any], **_: Any) -> None:
        if not second and ":fate" in params.get("ExpressionAttributeValues", {}):
            second.append(game.text(ALICE, "STOP"))

    events = game.dynamodb.meta.events
    events.register("provide-client-params.dynamodb.UpdateItem", stop_again_before_the_mark)
    try:
        assert game.text(ALICE, "Stop.") is Result.PROCESSED
    finally:
        events.unregister("provide-client-params.dynamodb.UpdateItem", stop_again_before_the_mark)

    assert second == [Result.PROCESSED], "the plain STOP ran between the commit and the mark"
    assert game.sms.to(ALICE)[sent_to_alice:] == [], "nothing reached the erased number"
    assert game.sms.to(BOB).count(replies.opponent_left("alice")) == 1
    assert game.items_holding(ALICE) == []


class _Died(BaseException):
    """The invocation died (no clean-up runs)."""


def _dies(*args: object) -> None:
    raise _Died


def test_each_opt_out_is_logged_once_with_its_rule_and_a_masked_number(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"))
    message = game.inbound(ALICE, "Stop.")
    with json_log_lines() as lines:
        game.processor.process(message)
        clock.tick(IN_PROGRESS_SECONDS + 1)
        game.processor.process(message)
    audits = [line for line in lines if line["message"] == "audit"]
    assert [(line["decision"], line["rule"], line["confirm"], line["sender"]) for line in audits] == [
        ("opt-out", "keyword-as-typed", True, "+*******0001")
    ]
    assert ALICE not in json.dumps(lines)


def test_any_rule_that_asks_for_a_confirmation_gets_the_same_flow(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the free-text classifier's opt-outs will be: an OptOut with confirm and its own rule."""
    _alice_challenged_by_bob(game)
    monkeypatch.setattr(processing, "parse", lambda body, opt_out_type=None: OptOut(True, "stop-texting-me"))
    with json_log_lines() as lines:
        game.text(ALICE, "please stop texting me")
    assert game.sms.last(ALICE) == CONFIRMATION
    assert game.sms.last(BOB) == replies.opponent_left("alice")
    assert game.items_holding(ALICE) == []
    assert [line["rule"] for line in lines if line["message"] == "audit"] == ["stop-texting-me"]


def test_a_full_reply_budget_withholds_the_confirmation_and_sends_no_notice_instead(game: Game) -> None:
    game.register((ALICE, "alice"))
    for _ in range(70):  # far past the burst: alice has had her notice
        game.text(ALICE, "score")
    sent_to_alice = len(game.sms.to(ALICE))
    with json_log_lines() as lines:
        game.text(ALICE, "Stop.")
    assert game.sms.to(ALICE)[sent_to_alice:] == []
    withheld = [
        line.get("sender")
        for line in lines
        if line["message"] == "opt-out confirmation withheld by the reply budget"
    ]
    assert withheld == [mask_phone(ALICE)], (
        "the operator sees whose, masked: the line names the message's sender"
    )
    assert game.items_holding(ALICE) == []


def _logged_to(lines: list[dict[str, Any]], message: str) -> list[str | None]:
    """The number (masked) each log line with this message names."""
    return [line.get("to") for line in lines if line["message"] == message]
