"""Opt-out erases (promise 13): once a STOP is processed, the number is in no item of any table.

Each test plays a game on moto through the real protocol, has a player text STOP, then scans every
table for the number, in any attribute, key or value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from serverless_rps import replies
from serverless_rps.exceptions import SmsTemporarilyFailed
from serverless_rps.game import LEADERBOARD_SHARDS
from serverless_rps.ports import ERASED, ReplyId
from serverless_rps.processing import Result
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, CAROL, IN_PROGRESS_SECONDS, STRANGER, TABLES, Game, transient_failure
from tests.protocol.crashes import Crash, CrashInjector
from tests.protocol.test_failure_visibility import json_log_lines
from tests.protocol.test_races import _after_nickname_lookups

CHALLENGE_EXPIRY = 7 * 24 * 60 * 60


def test_after_stop_the_number_is_in_no_item_of_any_table(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    game.text(ALICE, "rock bob")  # alice waits on bob
    game.text(CAROL, "paper alice")  # carol waits on alice
    game.text(BOB, "scissors carol")
    game.text(CAROL, "rock bob")  # a game alice has no part in: resolved
    game.text(ALICE, "score")
    assert game.items_holding(ALICE), "alice is in the tables before she opts out"

    game.text(ALICE, "STOP")

    assert game.items_holding(ALICE) == []
    assert game.player(BOB) is not None
    assert game.player(CAROL) is not None


def test_the_last_opponent_kept_for_again_holds_no_number(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(BOB, "paper alice")  # both now remember each other for AGAIN

    game.text(ALICE, "STOP")

    assert game.items_holding(ALICE) == []
    game.text(BOB, "again rock")
    assert game.sms.last(BOB) == replies.last_opponent_gone("alice")


def test_the_leaderboard_keeps_no_number_and_loses_the_quitters_line(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")
    game.text(ALICE, "paper bob")  # alice wins: she is on the leaderboard
    game.text(ALICE, "top")
    assert game.sms.last(ALICE) == replies.top([("alice", 1)])

    game.text(ALICE, "STOP")

    assert game.items_holding(ALICE) == []
    assert all("alice" not in json.dumps(game.player(key)) for key in LEADERBOARD_SHARDS), "her line left"
    game.text(BOB, "top")
    assert game.sms.last(BOB) == replies.top([])


@pytest.mark.slow  # fifty games set up first
def test_a_ranked_player_with_fifty_throws_waiting_on_them_still_opts_out_in_one_transaction(
    game: Game,
) -> None:
    # Fifty goodbyes, fifty rewritten records and the leaderboard would be 104 items: more than
    # DynamoDB takes in one transaction. The latest throws are told; everything is erased.
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")
    game.text(ALICE, "paper bob")  # alice wins: ranked
    throwers = [f"+1555770{index:04d}" for index in range(50)]
    for index, phone in enumerate(throwers):
        game.register((phone, f"thrower{index}"))
        game.text(phone, "rock alice")

    game.text(ALICE, "STOP")

    assert game.items_holding(ALICE) == []
    told = [phone for phone in throwers if replies.opponent_left("alice") in game.sms.to(phone)]
    assert len(told) > 40
    assert all(game.player(phone)["games"]["M"] == {} for phone in throwers)


def test_a_player_waiting_in_the_lobby_who_stops_leaves_it(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "throw rock")  # the lobby holds her number

    game.text(ALICE, "STOP")

    assert game.items_holding(ALICE) == []
    game.text(BOB, "paper")
    assert game.sms.last(BOB) == replies.lobby_waiting(Move.PAPER), "bob waits: no one to play"


def test_an_expired_challenge_does_not_keep_the_number_in_the_other_record(game: Game, clock: Any) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    clock.tick(CHALLENGE_EXPIRY + 60)
    game.text(ALICE, "nick queen")  # alice's record is written after the challenge expired
    assert ALICE in json.dumps(game.player(BOB)), "the expired entry is still stored on bob's side"

    game.text(ALICE, "stop")

    assert game.items_holding(ALICE) == []


def test_a_reply_still_waiting_to_be_sent_is_erased_and_never_sent(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.sms.fail_next(None, transient_failure())  # bob's acknowledgement goes, alice's notice fails
    bob_throw = game.inbound(BOB, "rock alice")
    with pytest.raises(SmsTemporarilyFailed):  # the message is left for SQS to bring back
        game.processor.process(bob_throw)
    assert game.sms.to(ALICE)[-1] == replies.nick_registered("alice")

    game.text(ALICE, "STOP")
    assert game.items_holding(ALICE) == []

    # Nothing is left to send, so the STOP closes the record as the last delivery would have,
    # without waiting for a redelivery that may never come:
    record = game.stored_record(bob_throw.idempotency_key)
    assert record["delivered"]["M"]["1"]["S"] == ERASED
    assert "outbox" not in record
    # what the record keeps for a late redelivery names bob (a keyed hash), not alice ...
    assert record["recipients"]["SS"] == [game.store.contact_id(BOB)]
    # ... and bob's contact record no longer lists it as holding a reply to him, but keeps the SID
    # of the acknowledgement it sent him: a look before re-sending another reply to bob must not
    # take that SMS for its own.
    bobs = game.stored_record(game.store.contact_id(BOB))
    assert bob_throw.idempotency_key not in bobs.get("pending_replies", {}).get("SS", [])
    [acknowledgement] = [
        sid for reply, sid in game.sms.accepted if reply == ReplyId(bob_throw.idempotency_key, 0)
    ]
    assert acknowledgement in bobs["recent_sids"]["SS"]
    # Alice's own contact record stays (it keeps her reply budget), with nothing waiting for her.
    assert "pending_replies" not in game.stored_record(game.store.contact_id(ALICE))

    game.processor.process(bob_throw)  # the redelivery finds nothing left to send to alice
    assert game.sms.to(ALICE)[-1] == replies.nick_registered("alice"), "the notice was never sent"
    assert game.sms.to(BOB).count(replies.throw_waiting("alice", Move.ROCK)) == 1


@pytest.mark.parametrize(
    ("failure", "named"),
    [
        (
            lambda: ClientError(
                {"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "UpdateItem"
            ),
            "ThrottlingException",
        ),
        (lambda: EndpointConnectionError(endpoint_url="http://dynamodb.invalid"), "EndpointConnectionError"),
    ],
    ids=["throttled", "unreachable"],
)
def test_a_contact_record_the_stop_cannot_update_is_logged_and_the_number_is_erased_all_the_same(
    game: Game, failure: Any, named: str
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.sms.fail_next(None, transient_failure())  # alice's notice of bob's throw waits in its outbox
    with pytest.raises(SmsTemporarilyFailed):
        game.text(BOB, "rock alice")
    bob = game.store.contact_id(BOB)

    def refuse_bobs_contact(params: dict[str, Any], **_: Any) -> None:
        if params["Key"].get("messageId") == {"S": bob}:
            raise failure()

    # Alice's STOP leaves nothing to send in that outbox, and tells bob the game is off: each
    # record then comes off bob's pending replies, a tidy-up that may fail without failing the STOP.
    game.dynamodb.meta.events.register("provide-client-params.dynamodb.UpdateItem", refuse_bobs_contact)
    try:
        with json_log_lines() as lines:
            game.text(ALICE, "STOP")
    finally:
        game.dynamodb.meta.events.unregister("provide-client-params.dynamodb.UpdateItem", refuse_bobs_contact)

    assert game.items_holding(ALICE) == []
    assert game.sms.last(BOB) == replies.opponent_left("alice")
    warnings = [line for line in lines if line["message"] == "could not update a contact's pending replies"]
    assert warnings, "the tidy-up that failed is logged"
    assert all(line["level"] == "WARNING" and named in line["error"] for line in warnings), warnings


def test_a_stop_after_its_own_reply_went_out_erases_it_and_the_others_still_get_theirs(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.sms.fail_next(None, transient_failure())  # bob's acknowledgement goes, alice's challenge fails
    bob_throw = game.inbound(BOB, "rock alice")
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(bob_throw)

    game.text(BOB, "STOP")
    waiting = game.stored_record(bob_throw.idempotency_key)
    assert BOB not in json.dumps(waiting), "bob's delivered reply no longer holds his number"
    assert "rock" not in waiting["outbox"]["L"][0]["M"]["body"]["S"], "nor its text"
    # The record is off bob's pending replies now, but what it sent him stays known to a look
    # before re-sending to his number (his contact record, a keyed hash, outlives the STOP).
    [acknowledgement] = [
        sid for reply, sid in game.sms.accepted if reply == ReplyId(bob_throw.idempotency_key, 0)
    ]
    bobs = game.stored_record(game.store.contact_id(BOB))
    assert bob_throw.idempotency_key not in bobs.get("pending_replies", {}).get("SS", [])
    assert acknowledgement in bobs["recent_sids"]["SS"]

    game.processor.process(bob_throw)  # the redelivery still brings alice her challenge, once
    assert game.sms.to(ALICE).count(replies.challenged("bob")) == 1
    assert game.items_holding(BOB) == []
    # Its last delivery drops the outbox; what stays names alice alone (a keyed hash), not the
    # erased entry as if it were a recipient.
    done = game.stored_record(bob_throw.idempotency_key)
    assert done["recipients"]["SS"] == [game.store.contact_id(ALICE)]


def test_a_delivered_record_keeps_only_what_a_redelivery_needs(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(BOB, "paper alice", sid="SM" + "b" * 32)

    record = game.stored_record("SM" + "b" * 32)
    assert "outbox" not in record
    assert record["outbox_size"]["N"] == "2"
    assert sorted(record["delivered"]["M"]) == ["0", "1"]
    assert BOB not in json.dumps(record)
    assert ALICE not in json.dumps(record)
    assert "rock" not in json.dumps(record).lower(), "no reply body stays behind"


def test_other_players_keep_their_games_with_each_other(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    game.text(BOB, "rock carol")
    game.text(ALICE, "paper bob")
    game.text(ALICE, "STOP")

    game.text(CAROL, "scissors bob")
    assert game.sms.last(CAROL) == replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "bob")
    game.text(BOB, "games")
    assert game.sms.last(BOB) == replies.games_summary([], [])


def test_a_stranger_who_texts_stop_is_erased_too(game: Game) -> None:
    game.text(STRANGER, "hello?")
    game.text(STRANGER, "help")
    game.text(STRANGER, "stop")
    assert game.items_holding(STRANGER) == []


def test_a_player_the_game_has_not_texted_for_weeks_can_still_opt_out(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    # 18 days after the last reply to her, DynamoDB's TTL deletes her contact record; her player
    # record, and her throw at bob, stay.
    game.dynamodb.delete_item(
        TableName=TABLES.idempotency, Key={"messageId": {"S": game.store.contact_id(ALICE)}}
    )

    game.text(ALICE, "STOP")

    assert game.items_holding(ALICE) == []
    assert game.player(BOB)["challenges"]["M"] == {}


def test_a_player_who_comes_back_starts_afresh_and_can_be_challenged(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(ALICE, "STOP")
    game.text(ALICE, "START")
    game.text(ALICE, "nick alice")
    assert game.sms.last(ALICE) == replies.nick_registered("alice")

    game.text(BOB, "paper alice")
    assert game.sms.last(ALICE) == replies.challenged("bob"), "the old throw at bob is gone, not scored"
    game.text(ALICE, "score")
    assert game.sms.last(ALICE) == replies.score(0, 0, 0, 0)


def test_a_throw_at_a_player_who_opted_out_meanwhile_is_answered_as_unknown(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "STOP")
    game.text(BOB, "rock alice")
    assert game.sms.last(BOB) == replies.unknown_player("alice")
    assert game.items_holding(ALICE) == []


def test_a_throw_that_dies_after_locking_an_opponent_who_opted_out_meanwhile_leaves_no_row_of_theirs(
    game: Game, clock: Any
) -> None:
    """Bob opts out between alice's lookup of his nickname and her lock of his record. Her attempt
    then dies before any `finally` runs. Locking someone other than the sender must not create a
    row for a phone with no player: nothing would ever come back to delete it."""
    game.register((ALICE, "alice"), (BOB, "bob"))
    other = Game(game.dynamodb, game.sms, sid_prefix="9")
    opted_out: list[Result] = []
    _after_nickname_lookups(game, [lambda: opted_out.append(other.text(BOB, "STOP"))])
    injector = CrashInjector(game.dynamodb, game.sms, crash_after=None)

    def die_after_alice_locks_bob(params: dict[str, Any], **_: Any) -> None:
        locks_bob = (
            params["Key"]["phone_number"]["S"] == BOB and "user_locked = :lock" in params["UpdateExpression"]
        )
        if opted_out and locks_bob:
            injector.crash_after = len(injector.calls) + 1

    game.dynamodb.meta.events.register("provide-client-params.dynamodb.UpdateItem", die_after_alice_locks_bob)
    message = game.inbound(ALICE, "rock bob")
    with pytest.raises(Crash):
        game.processor.process(message)
    injector.detach()
    game.dynamodb.meta.events.unregister(
        "provide-client-params.dynamodb.UpdateItem", die_after_alice_locks_bob
    )
    assert opted_out == [Result.PROCESSED]
    assert injector.calls[-1] == "UpdateItem", "alice's attempt died right after locking bob"

    clock.tick(IN_PROGRESS_SECONDS + 1)  # SQS redelivers once the dead attempt's claim expires
    assert game.processor.process(message) is Result.PROCESSED
    assert game.sms.last(ALICE) == replies.unknown_player("bob")
    assert game.items_holding(BOB) == []


def test_an_opt_out_keeps_what_every_pending_record_had_sent_the_number_for_a_later_look(game: Game) -> None:
    """Two of Bob's messages each sent him one reply and failed to send the next; his STOP erases
    both from their outboxes, and the SIDs of both sends stay on his contact record, for a look
    before re-sending to tell them from its own."""
    game.register((BOB, "bob"))
    sent = []
    for sid in ("SM" + "1" * 32, "SM" + "2" * 32):
        game.sms.fail_next(None, transient_failure())  # the program's help goes, the commands do not
        with pytest.raises(SmsTemporarilyFailed):
            game.text(BOB, "help", sid=sid)
        sent += game.sms.sids_sent_for(sid)

    game.text(BOB, "stop")

    others = game.store.outboxes.others_sending_to(BOB, "SM" + "3" * 32)
    assert others is not None
    assert set(sent) <= others.sids
    assert len(sent) == 2
