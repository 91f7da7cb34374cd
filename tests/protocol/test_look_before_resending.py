"""Promise 3 (few duplicates): a redelivery looks for a reply an earlier attempt may have sent in
Twilio's Messages list before sending it again; the normal path never reads the list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.config import DEFAULT_METRICS_NAMESPACE
from serverless_rps.exceptions import ConfigurationProblem, SmsTemporarilyFailed
from serverless_rps.observability import metrics
from serverless_rps.ports import OutboundSms, ReplyId, SmsSender
from serverless_rps.processing import Result
from serverless_rps.rules import Move, Outcome
from tests.conftest import (
    ALICE,
    BOB,
    IN_PROGRESS_SECONDS,
    TABLES,
    FakeSms,
    Game,
    new_processor,
    transient_failure,
)
from tests.protocol.crashes import Crash
from tests.protocol.test_failure_visibility import json_log_lines
from tests.protocol.test_metrics import Emitted

SID = "SM" + "d" * 32
ALICE_WINS = replies.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "bob")
BOB_LOSES = replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "alice")


class DiesAfterTwilioAccepts:
    """Twilio takes the reply; the invocation dies before it can record the SID."""

    def __init__(self, sms: FakeSms, survive: int = 0) -> None:
        self._sms = sms
        self._survive = survive  # sends that complete before the fatal one

    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        sid = self._sms.send(message, reply)
        if self._survive == 0:
            raise Crash("killed right after Twilio accepted a reply")
        self._survive -= 1
        return sid


def _bob_waits_on_alice(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "scissors alice")


def _dies_processing(game: Game, sender: SmsSender, body: str, sid: str) -> None:
    """Alice's text `body`, processed by an invocation that `sender` kills."""
    doomed = new_processor(game.store, sender, game.sms)
    with pytest.raises(Crash):
        doomed.process(game.inbound(ALICE, body, sid))


def _dies_after_twilio_accepts(game: Game, survive: int = 0) -> None:
    _dies_processing(game, DiesAfterTwilioAccepts(game.sms, survive), "rock bob", SID)


def _delivered(game: Game) -> dict[str, str]:
    return {index: value["S"] for index, value in game.stored_record(SID)["delivered"]["M"].items()}


def _sids(game: Game, to: str, body: str) -> list[str]:
    return [sms.sid for sms in game.sms.listed if sms.to == to and sms.body == body]


def test_the_normal_path_never_reads_the_list(game: Game) -> None:
    _bob_waits_on_alice(game)
    game.text(ALICE, "rock bob", sid=SID)
    assert game.sms.lists_read == 0


def test_a_reply_twilio_accepted_before_the_death_is_found_recorded_and_not_sent_again(
    game: Game, clock: Any
) -> None:
    _bob_waits_on_alice(game)
    _dies_after_twilio_accepts(game)
    assert game.sms.to(ALICE).count(ALICE_WINS) == 1

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT

    assert game.sms.to(ALICE).count(ALICE_WINS) == 1, "no second copy"
    assert game.sms.to(BOB).count(BOB_LOSES) == 1, "the reply never sent is sent"
    # One list per recipient the redelivery had to look for.
    assert game.sms.lists_read == 2
    [alice_sid] = _sids(game, ALICE, ALICE_WINS)
    [bob_sid] = _sids(game, BOB, BOB_LOSES)
    assert game.text(ALICE, "rock bob", sid=SID) is Result.DUPLICATE
    assert game.sms.lists_read == 2, "a record with every reply recorded needs no look"
    assert sorted([alice_sid, bob_sid]) == sorted(_recorded_sids(game))


def test_a_reply_found_in_the_list_is_counted_and_logged_as_found_not_as_sent(game: Game, clock: Any) -> None:
    """What the operator reads of it: `RepliesFoundSent` on the dashboard, and a line in the log."""
    _bob_waits_on_alice(game)
    _dies_after_twilio_accepts(game)
    clock.tick(IN_PROGRESS_SECONDS + 1)
    metrics.clear_metrics()

    with json_log_lines() as lines:
        assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT

    emitted = Emitted(json.dumps(metrics.serialize_metric_set()), DEFAULT_METRICS_NAMESPACE)
    assert (emitted.totals["RepliesFoundSent"], emitted.totals["RepliesSent"]) == (1, 1), (
        "Alice's found, Bob's sent"
    )
    found = [
        line
        for line in lines
        if line["message"] == "an earlier attempt had sent this reply: recorded, not sent again"
    ]
    assert [line["level"] for line in found] == ["INFO"]


def test_the_look_reads_one_page_of_the_newest_messages_never_the_whole_history(
    game: Game, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Twilio's client pages through every message to the number when given no limit: a long-time
    # player's whole history, read on a redelivery that needs the last few minutes.
    _bob_waits_on_alice(game)
    _dies_after_twilio_accepts(game)
    asked: list[tuple[str, int]] = []
    read = game.sms.sent_to
    monkeypatch.setattr(
        game.sms, "sent_to", lambda to, limit: (asked.append((to, limit)), read(to, limit))[1]
    )

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT
    # A number, not the constant under test: the newest hundred, what a phone's reply budget (a
    # burst of 60) can have received since a commit a few minutes old, with room to spare.
    assert sorted(asked) == sorted([(ALICE, 100), (BOB, 100)])


def _recorded_sids(game: Game) -> list[str]:
    return [value["S"] for value in game.stored_record(SID)["delivered"]["M"].values()]


def test_a_list_that_does_not_show_it_yet_means_sending_it_again(game: Game, clock: Any) -> None:
    _bob_waits_on_alice(game)
    _dies_after_twilio_accepts(game)
    game.sms.list_lags = True

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT

    # The window that remains: a duplicate, never a lost reply.
    assert game.sms.to(ALICE).count(ALICE_WINS) == 2
    assert game.sms.to(BOB).count(BOB_LOSES) == 1


@pytest.mark.parametrize(
    "failure",
    [SmsTemporarilyFailed("Twilio 429 code 20429", retry_after=7), SmsTemporarilyFailed("Twilio 503")],
    ids=["throttled", "failing"],
)
def test_a_list_that_cannot_be_read_is_retried_later_and_sends_nothing_meanwhile(
    game: Game, clock: Any, failure: SmsTemporarilyFailed
) -> None:
    _bob_waits_on_alice(game)
    _dies_after_twilio_accepts(game)
    game.sms.list_failures.append(failure)
    sent_before = len(game.sms.sent)

    clock.tick(IN_PROGRESS_SECONDS + 1)
    with pytest.raises(SmsTemporarilyFailed) as retry:
        game.text(ALICE, "rock bob", sid=SID)
    assert retry.value.retry_after == failure.retry_after, "Twilio's Retry-After is the redelivery hint"
    assert len(game.sms.sent) == sent_before, "nothing sent blind"
    assert _delivered(game) == {}, "the replies stay in the outbox"

    # The outbox lease was given back: the next delivery need not wait for it, and looks again.
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT
    assert game.sms.to(ALICE).count(ALICE_WINS) == 1
    assert game.sms.to(BOB).count(BOB_LOSES) == 1


def test_a_list_our_account_may_not_read_is_a_configuration_problem_kept_for_retry(
    game: Game, clock: Any
) -> None:
    _bob_waits_on_alice(game)
    _dies_after_twilio_accepts(game)
    game.sms.list_failures.append(ConfigurationProblem("Twilio 20003", retry_after=60))

    clock.tick(IN_PROGRESS_SECONDS + 1)
    with pytest.raises(ConfigurationProblem):
        game.text(ALICE, "rock bob", sid=SID)
    assert _delivered(game) == {}


def test_a_later_reply_finds_its_own_send_not_the_recorded_one(game: Game, clock: Any) -> None:
    _bob_waits_on_alice(game)
    _dies_after_twilio_accepts(game, survive=1)  # Alice's result recorded; Bob's accepted, unrecorded

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.text(ALICE, "rock bob", sid=SID) is Result.RESENT

    assert game.sms.to(ALICE).count(ALICE_WINS) == 1
    assert game.sms.to(BOB).count(BOB_LOSES) == 1
    assert sorted(_recorded_sids(game)) == sorted(
        _sids(game, ALICE, ALICE_WINS) + _sids(game, BOB, BOB_LOSES)
    )


class DiesBeforeSending:
    """The invocation dies after the commit, before its first send reaches Twilio."""

    def send(self, message: OutboundSms, reply: ReplyId | None = None) -> str:
        raise Crash("killed between the commit and the send")


def test_another_messages_identical_reply_is_never_taken_for_one_never_sent(game: Game, clock: Any) -> None:
    # The soak's lost reply. Alice texts the same thing twice within seconds: the first message's
    # attempt dies before sending; the second's dies right after Twilio accepted its (identical)
    # reply. The first's redelivery must not take the second's SMS for its own.
    game.register((ALICE, "alice"), (BOB, "bob"))
    earlier = {sms.sid for sms in game.sms.listed}
    first, second = "SM" + "1" * 32, "SM" + "2" * 32
    _dies_processing(game, DiesBeforeSending(), "games", first)
    _dies_processing(game, DiesAfterTwilioAccepts(game.sms), "games", second)

    def new_to_alice() -> list[str]:
        return [sms.body for sms in game.sms.listed if sms.sid not in earlier and sms.to == ALICE]

    [reply] = new_to_alice()

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.text(ALICE, "games", sid=first) is Result.RESENT
    assert new_to_alice() == [reply, reply], "the first message's reply is sent, not taken"

    # The second's redelivery finds its own send: the first's SID is known as the first's.
    assert game.text(ALICE, "games", sid=second) is Result.RESENT
    assert new_to_alice() == [reply, reply], "two replies, two SMS: none lost, none doubled"
    recorded = [
        value["S"] for key in (first, second) for value in game.stored_record(key)["delivered"]["M"].values()
    ]
    assert sorted(recorded) == sorted(sms.sid for sms in game.sms.listed if sms.sid not in earlier)


def test_a_pending_record_that_cannot_be_read_proves_nothing_so_the_reply_is_sent(
    game: Game, clock: Any
) -> None:
    # As above, but the second message's record is gone when the first's redelivery looks (it
    # expired, or was deleted by hand) while Alice's contact record still lists it as pending;
    # a third message of hers, with another reply still to send, is read. Nothing then proves
    # that the identical SMS in the list is not the second's: send.
    game.register((ALICE, "alice"), (BOB, "bob"))
    earlier = {sms.sid for sms in game.sms.listed}
    first, second, third = "SM" + "1" * 32, "SM" + "2" * 32, "SM" + "3" * 32
    _dies_processing(game, DiesBeforeSending(), "games", first)
    _dies_processing(game, DiesBeforeSending(), "score", third)
    _dies_processing(game, DiesAfterTwilioAccepts(game.sms), "games", second)
    game.dynamodb.delete_item(TableName=TABLES.idempotency, Key={"messageId": {"S": second}})
    [reply] = [sms.body for sms in game.sms.listed if sms.sid not in earlier and sms.to == ALICE]

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.text(ALICE, "games", sid=first) is Result.RESENT
    assert [sms.body for sms in game.sms.listed if sms.sid not in earlier and sms.to == ALICE] == [
        reply,
        reply,
    ], "the first message's reply is sent: a duplicate is allowed, a lost reply never is"
    [recorded] = [value["S"] for value in game.stored_record(first)["delivered"]["M"].values()]
    assert recorded == game.sms.listed[-1].sid, "its own send, not the second message's"


def test_what_the_other_pending_records_sent_to_a_number_is_read_from_every_one_of_them(game: Game) -> None:
    """The look's account of the other records (`others_sending_to`): the bodies of their replies
    to the number not recorded yet (not those to anyone else, not those recorded), and the SIDs
    they recorded, read from each pending record."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    finished = {sms.sid for sms in game.sms.listed if sms.to == ALICE}  # kept on her contact record
    first, second, third = "SM" + "1" * 32, "SM" + "2" * 32, "SM" + "3" * 32
    _dies_processing(game, DiesBeforeSending(), "rock bob", first)  # to alice and to bob, unsent
    _dies_processing(game, DiesBeforeSending(), "score", second)
    game.sms.fail_next(None, transient_failure())  # the help overview is sent, the commands are not
    with pytest.raises(SmsTemporarilyFailed):
        game.text(ALICE, "help", sid=third)
    [sent_help] = game.sms.sids_sent_for(third)
    throw = game.stored_record(first)
    to_alice = [entry["M"]["body"]["S"] for entry in throw["outbox"]["L"] if entry["M"]["to"]["S"] == ALICE]

    others = game.store.outboxes.others_sending_to(ALICE, second)

    assert others is not None, "every other pending record could be read"
    assert others.unrecorded_bodies == {*to_alice, replies.help_overview()}
    assert others.sids == {*finished, sent_help}


def test_a_record_an_earlier_version_dropped_without_sent_to_gives_its_recipient_every_sid(
    game: Game,
) -> None:
    """Records dropped before `sent_to` existed name their recipients but not which reply went to
    whom. One such record, still on Bob's pending replies (its last delivery died before taking it
    off): a redelivery finishes it and Bob's contact record keeps every SID it sent, a superset,
    for a later look before re-sending to his number."""
    game.register((BOB, "bob"))
    game.text(BOB, "help", sid=SID)
    sent = game.sms.sids_sent_for(SID)
    contact = game.store.contact_id(BOB)
    # Rewind to what the earlier version left when it died between the drop and the forget.
    game.dynamodb.update_item(
        TableName=TABLES.idempotency, Key={"messageId": {"S": SID}}, UpdateExpression="REMOVE sent_to"
    )
    game.dynamodb.update_item(
        TableName=TABLES.idempotency,
        Key={"messageId": {"S": contact}},
        UpdateExpression="ADD pending_replies :key DELETE recent_sids :sids",
        ExpressionAttributeValues={":key": {"SS": [SID]}, ":sids": {"SS": sent}},
    )

    assert game.text(BOB, "help", sid=SID) == Result.DUPLICATE

    bobs = game.stored_record(contact)
    assert SID not in bobs.get("pending_replies", {}).get("SS", [])
    assert len(sent) == 2
    assert set(sent) <= set(bobs["recent_sids"]["SS"])
