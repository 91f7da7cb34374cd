"""The soak's checker must be able to fail: each test plants one broken promise in a made-up record."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bench.chaos.checker import Inbound, SoakRecord, check
from serverless_rps import replies, replies_es
from serverless_rps.rules import Move, Outcome

BOT = "+15550100000"
ALICE = "+15550770001"
BOB = "+15550770002"
WAITING = replies.throw_waiting("bob", Move.ROCK)
CHALLENGED = replies.challenged("alice")
ALICE_WON = replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "bob")
BOB_LOST = replies.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "alice")


def _player(phone: str, name: str, wins: int = 0, losses: int = 0) -> dict[str, Any]:
    return {
        "phone_number": {"S": phone},
        "player_id": {"S": f"id-{name}"},
        "nickname": {"S": name},
        "display_name": {"S": name},
        "games": {"M": {}},
        "challenges": {"M": {}},
        "wins": {"N": str(wins)},
        "losses": {"N": str(losses)},
        "ties": {"N": "0"},
    }


def _events(pid: int, key: str, sends: list[tuple[str, str, str]], t: float) -> list[dict[str, Any]]:
    events = [
        {"e": "claim", "pid": pid, "t": t, "key": key, "ok": True},
        {"e": "commit", "pid": pid, "t": t + 0.1, "key": key, "ok": True, "code": None, "reasons": []},
    ]
    for index, (sid, to, body) in enumerate(sends):
        events.append(
            {"e": "sent", "pid": pid, "t": t + 0.2 + index, "key": key, "sid": sid, "to": to, "body": body}
        )
        events.append(
            {
                "e": "recorded",
                "pid": pid,
                "t": t + 0.3 + index,
                "key": key,
                "index": index,
                "outcome": sid,
                "ok": True,
            }
        )
    return events


def clean_record() -> SoakRecord:
    """Bob throws at Alice (waits), Alice throws back (resolves): every promise kept."""
    return SoakRecord(
        inbound={
            "SM1": Inbound("SM1", BOB, "throw rock alice", "challenge", 0.0),
            "SM2": Inbound("SM2", ALICE, "throw paper bob", "answer", 5.0),
        },
        poison_bodies=["not json"],
        idempotency={
            "SM1": {
                "status": "COMPLETED",
                "outbox": [(BOB, BOT, WAITING), (ALICE, BOT, CHALLENGED)],
                "delivered": {0: "SMa", 1: "SMb"},
            },
            "SM2": {
                "status": "COMPLETED",
                "outbox": [(ALICE, BOT, ALICE_WON), (BOB, BOT, BOB_LOST)],
                "delivered": {0: "SMc", 1: "SMd"},
            },
        },
        players={ALICE: _player(ALICE, "alice", wins=1), BOB: _player(BOB, "bob", losses=1)},
        nicknames={"alice": ALICE, "bob": BOB},
        sms=[
            {"sid": "SMa", "to": BOB, "from": BOT, "body": WAITING, "at": 1.0},
            {"sid": "SMb", "to": ALICE, "from": BOT, "body": CHALLENGED, "at": 1.1},
            {"sid": "SMc", "to": ALICE, "from": BOT, "body": ALICE_WON, "at": 6.0},
            {"sid": "SMd", "to": BOB, "from": BOT, "body": BOB_LOST, "at": 6.1},
        ],
        worker_events=_events(100, "SM1", [("SMa", BOB, WAITING), ("SMb", ALICE, CHALLENGED)], 0.5)
        + _events(100, "SM2", [("SMc", ALICE, ALICE_WON), ("SMd", BOB, BOB_LOST)], 5.5),
        dead_letters=[{"body": "not json", "attributes": {"reason": {"StringValue": "body is not JSON"}}}],
        stable_phones={ALICE, BOB},
        lock_lease_seconds=3.0,
        checked_at_epoch=2_000_000_000.0,
    )


def test_a_clean_record_passes() -> None:
    verdict = check(clean_record())
    assert verdict.violations == []
    assert verdict.figures["duplicate SMS observed"] == 0
    assert verdict.figures["games resolved between stable players (checked exactly once)"] == 1
    assert verdict.figures["players texted in Spanish at the end"] == 0


def test_a_duplicate_from_a_worker_killed_between_send_and_record_is_counted_not_failed() -> None:
    record = clean_record()
    # Worker 200 sent the result, was killed before recording it; worker 300 sent it again.
    record.sms.append({"sid": "SMc0", "to": ALICE, "from": BOT, "body": ALICE_WON, "at": 5.9})
    record.worker_events += [
        {"e": "claim", "pid": 200, "t": 5.2, "key": "SM2", "ok": True},
        {"e": "sent", "pid": 200, "t": 5.8, "key": "SM2", "sid": "SMc0", "to": ALICE, "body": ALICE_WON},
        {"e": "kill", "pid": 200, "t": 5.85, "key": "SM2", "point": "after_send"},
    ]
    verdict = check(record)
    assert verdict.violations == []
    assert verdict.figures["duplicate SMS observed"] == 1
    assert verdict.figures[WINDOW] == 1, "the one send the kill left unrecorded"


WINDOW = "sends left in the duplicate window (the most duplicates there may be)"


def _sent_again_while_the_first_sender_was_recording(*, taken_over: bool) -> SoakRecord:
    """Worker 200 took SM2 first and sent Alice's result (SMc0), recording it at 9.1; worker 100
    sent it again (SMc) at 5.7, having decided at its claim (5.5). With `taken_over`, worker 100
    took the outbox lease at 5.65, worker 200 having stalled past it right after its send: the
    window was open. Without, worker 100 sent it without the outbox."""
    record = clean_record()
    record.idempotency["SM2"]["delivered"][0] = "SMc0"  # worker 200's record, the later write
    record.sms.append({"sid": "SMc0", "to": ALICE, "from": BOT, "body": ALICE_WON, "at": 5.35})
    record.worker_events += [
        {"e": "claim", "pid": 200, "t": 5.2, "key": "SM2", "ok": True},
        {"e": "sent", "pid": 200, "t": 5.4, "key": "SM2", "sid": "SMc0", "to": ALICE, "body": ALICE_WON},
        {"e": "recorded", "pid": 200, "t": 9.1, "key": "SM2", "index": 0, "outcome": "SMc0", "ok": True},
    ]
    if taken_over:
        record.worker_events.append({"e": "lease", "pid": 100, "t": 5.65, "key": "SM2", "ok": True})
    return record


def test_a_send_recorded_only_after_another_attempt_took_its_outbox_over_may_be_sent_once_more() -> None:
    verdict = check(_sent_again_while_the_first_sender_was_recording(taken_over=True))
    assert verdict.violations == []
    assert (verdict.figures["duplicate SMS observed"], verdict.figures[WINDOW]) == (1, 1)


def test_a_copy_that_sends_while_the_first_sender_holds_the_outbox_exceeds_the_duplicate_bound() -> None:
    violations = check(_sent_again_while_the_first_sender_was_recording(taken_over=False)).violations
    assert (
        "reply 0 of SM2 went out 2 times with 0 send(s) left in the window (accepted, and unrecorded "
        "by its sender when another attempt could send it): 1 duplicate(s) from elsewhere"
    ) in violations, violations


def test_a_reply_one_attempt_sent_twice_is_a_violation_though_another_replys_window_was_open() -> None:
    record = clean_record()
    # Twilio's answer to Alice's challenge (SMb) was lost; a look found it later: a window opened.
    record.worker_events = [event for event in record.worker_events if event.get("sid") != "SMb"]
    # Worker 100 sends Alice's result twice in one attempt, and records the second.
    record.sms.append({"sid": "SMc1", "to": ALICE, "from": BOT, "body": ALICE_WON, "at": 5.62})
    record.worker_events.append(
        {"e": "sent", "pid": 100, "t": 5.65, "key": "SM2", "sid": "SMc1", "to": ALICE, "body": ALICE_WON}
    )
    verdict = check(record)
    assert verdict.figures[WINDOW] == 1, "SMb's lost answer"
    assert any(
        violation.startswith("reply 0 of SM2 went out 2 times with 0 send(s) left in the window")
        for violation in verdict.violations
    ), verdict.violations


def _one_duplicate_in_five_sms(limit: float) -> SoakRecord:
    record = clean_record()
    record.duplicate_share_limit = limit
    record.sms.append({"sid": "SMc0", "to": ALICE, "from": BOT, "body": ALICE_WON, "at": 5.9})
    record.worker_events += [
        {"e": "claim", "pid": 200, "t": 5.2, "key": "SM2", "ok": True},
        {"e": "sent", "pid": 200, "t": 5.8, "key": "SM2", "sid": "SMc0", "to": ALICE, "body": ALICE_WON},
        {"e": "kill", "pid": 200, "t": 5.85, "key": "SM2", "point": "after_send"},
    ]
    return record


def test_duplicates_past_the_long_soaks_share_fail_it_even_inside_the_window() -> None:
    violations = check(_one_duplicate_in_five_sms(0.001)).violations
    assert violations == ["1 duplicate SMS of 5 accepted (20.00%): more than 0.1%"]


def test_duplicates_up_to_the_share_allowed_pass() -> None:
    assert check(_one_duplicate_in_five_sms(0.2)).violations == []


def test_a_reply_sent_again_after_it_was_recorded_is_a_violation() -> None:
    record = clean_record()
    record.sms.append({"sid": "SMz", "to": BOB, "from": BOT, "body": WAITING, "at": 9.0})
    record.idempotency["SM1"]["delivered"][0] = "SMz"
    record.worker_events += [
        {"e": "claim", "pid": 300, "t": 8.0, "key": "SM1", "ok": False},
        {"e": "sent", "pid": 300, "t": 8.9, "key": "SM1", "sid": "SMz", "to": BOB, "body": WAITING},
        {"e": "recorded", "pid": 300, "t": 9.1, "key": "SM1", "index": 0, "outcome": "SMz", "ok": True},
    ]
    violations = check(record).violations
    assert any("outside the documented window" in violation for violation in violations), violations


def test_a_copy_that_leased_the_outbox_after_the_reply_was_recorded_must_not_send_it_again() -> None:
    record = clean_record()
    # Worker 500 claimed (6.0) before Bob's result was recorded (6.8), but took the outbox lease
    # after it was (7.0): what a copy sends is decided at its lease, so this re-send is outside
    # the window (the bug tests/simulation found in the first engine).
    record.sms.append({"sid": "SMd2", "to": BOB, "from": BOT, "body": BOB_LOST, "at": 7.1})
    record.worker_events += [
        {"e": "claim", "pid": 500, "t": 6.0, "key": "SM2", "ok": False},
        {"e": "lease", "pid": 500, "t": 7.0, "key": "SM2", "ok": True},
        {"e": "sent", "pid": 500, "t": 7.1, "key": "SM2", "sid": "SMd2", "to": BOB, "body": BOB_LOST},
    ]
    violations = check(record).violations
    assert any("outside the documented window" in violation for violation in violations), violations


def test_a_committed_reply_that_was_never_sent_is_a_violation() -> None:
    record = clean_record()
    record.idempotency["SM2"]["delivered"] = {0: "SMc"}
    record.sms = [sms for sms in record.sms if sms["sid"] != "SMd"]
    violations = check(record).violations
    assert any("never recorded as sent" in violation for violation in violations), violations


def test_a_reply_still_unsent_when_the_queue_drained_is_a_violation_even_if_sent_later() -> None:
    record = clean_record()
    # At drain, Bob's result was committed but unsent and its message sat on the dead-letter queue;
    # a very late duplicate then sent it, so the final tables alone look complete.
    record.idempotency_at_drain = {
        "SM1": record.idempotency["SM1"],
        "SM2": {**record.idempotency["SM2"], "delivered": {0: "SMc"}},
    }
    record.dead_letters.append({"body": '{"MessageSid": "SM2"}', "attributes": {}})
    record.sms_after_very_late_duplicates = [sms for sms in record.sms if sms["sid"] == "SMd"]
    violations = check(record).violations
    assert (
        "reply 1 of SM2 was committed but still unsent when the queue drained "
        "(its message is on the dead-letter queue)"
    ) in violations, violations
    assert any(
        violation.startswith("a very late duplicate made SMS SMd") and "(reply 1 of SM2)" in violation
        for violation in violations
    ), violations


def test_a_game_scored_twice_is_a_violation() -> None:
    record = clean_record()
    record.players[ALICE] = _player(ALICE, "alice", wins=2)
    violations = check(record).violations
    assert any("wins/losses/ties (2, 0, 0)" in violation for violation in violations), violations


def test_a_throw_that_waited_and_was_never_resolved_nor_pending_is_a_violation() -> None:
    record = clean_record()
    del record.idempotency["SM2"]
    record.inbound.pop("SM2")
    record.sms = record.sms[:2]
    record.players[ALICE] = _player(ALICE, "alice")
    record.players[BOB] = _player(BOB, "bob")
    violations = check(record).violations
    assert any("1 throws waited, 0 games resolved, 0 still pending" in violation for violation in violations)


def test_a_lock_still_held_and_a_dangling_nickname_are_violations() -> None:
    record = clean_record()
    record.players[BOB] = {
        **record.players[BOB],
        "user_locked": {"M": {"lock_uuid": {"S": "x"}, "expiration_epoch_timestamp": {"N": "2000000100"}}},
    }
    record.nicknames["carol"] = "+15550770003"
    violations = check(record).violations
    assert any("still locked" in violation for violation in violations), violations
    assert any("'carol'" in violation for violation in violations), violations


def test_a_stale_writer_that_commits_after_its_lease_is_a_violation() -> None:
    record = clean_record()
    record.worker_events += [
        {"e": "claim", "pid": 400, "t": 19.9, "key": "SM9", "ok": True},
        {"e": "lock", "pid": 400, "t": 20.0, "key": "SM9", "ok": True, "expires": {"N": "1003.0"}},
        {
            "e": "stall",
            "pid": 400,
            "t": 20.0,
            "key": "SM9",
            "point": "after_lock",
            "seconds": 4.0,
            "wall": 1000.0,
        },
        {"e": "woke", "pid": 400, "t": 24.0, "key": "SM9", "point": "after_lock", "wall": 1004.0},
        {"e": "commit", "pid": 400, "t": 24.1, "key": "SM9", "ok": True, "fenced_at": ["1004.1"]},
    ]
    violations = check(record).violations
    assert any("after its lock expired" in violation for violation in violations), violations


def _stale_read_attempt(*, relock: tuple[str, ...], commit_ok: bool) -> list[dict[str, Any]]:
    """A STOP's attempt that locks Alice and Bob, stalls past both leases, meets a stale read, gives
    its leases back and locks `relock` again with fresh leases, then commits writing both."""

    def lock(phone: str, t: float, expires: str) -> dict[str, Any]:
        return {
            "e": "lock",
            "pid": 400,
            "t": t,
            "key": "SM9",
            "phone": phone,
            "ok": True,
            "expires": {"N": expires},
        }

    events = [
        {"e": "claim", "pid": 400, "t": 19.9, "key": "SM9", "ok": True},
        lock(ALICE, 20.0, "1003.0"),
        lock(BOB, 20.1, "1003.1"),
        {
            "e": "stall",
            "pid": 400,
            "t": 20.1,
            "key": "SM9",
            "point": "after_lock",
            "seconds": 4.3,
            "wall": 1000.0,
        },
        {"e": "woke", "pid": 400, "t": 24.4, "key": "SM9", "point": "after_lock", "wall": 1004.4},
        {"e": "release", "pid": 400, "t": 24.5, "key": "SM9", "phone": ALICE, "ok": True},
        {"e": "release", "pid": 400, "t": 24.6, "key": "SM9", "phone": BOB, "ok": True},
    ]
    events += [lock(phone, 24.7 + index / 10, "1008.0") for index, phone in enumerate(relock)]
    events.append(
        {
            "e": "commit",
            "pid": 400,
            "t": 25.0,
            "key": "SM9",
            "ok": commit_ok,
            "fenced_phones": [ALICE, BOB],
            "fenced_at": ["1005.0", "1005.0"],
        }
    )
    return events


def test_a_commit_is_judged_by_the_leases_it_holds_when_it_commits_not_by_leases_it_gave_up() -> None:
    record = clean_record()
    record.worker_events += _stale_read_attempt(relock=(ALICE, BOB), commit_ok=True)
    verdict = check(record)
    assert not any("SM9" in violation for violation in verdict.violations), verdict.violations


def test_a_commit_writing_a_record_whose_old_lease_expired_and_was_never_taken_again_is_a_violation() -> None:
    record = clean_record()
    record.worker_events += [
        event
        for event in _stale_read_attempt(relock=(ALICE,), commit_ok=True)
        if not (event["e"] == "release" and event["phone"] == BOB)
    ]
    violations = check(record).violations
    assert any(
        "SM9" in violation and "after its lock expired at 1003.100" in violation for violation in violations
    ), violations


def test_a_commit_writing_a_record_it_holds_no_lease_on_is_a_violation() -> None:
    record = clean_record()
    record.worker_events += _stale_read_attempt(relock=(ALICE,), commit_ok=True)
    violations = check(record).violations
    assert any("SM9" in violation and "no lease" in violation for violation in violations), violations


def test_a_refused_commit_of_a_writer_stalled_past_a_lease_it_still_holds_counts_as_fenced() -> None:
    record = clean_record()
    record.worker_events += [
        event for event in _stale_read_attempt(relock=(), commit_ok=False) if event["e"] != "release"
    ]
    verdict = check(record)
    assert not any("SM9" in violation for violation in verdict.violations), verdict.violations
    assert verdict.figures["stale writers fenced (stalled past the lease, commit refused)"] == 1


def test_poison_missing_from_the_dead_letter_queue_and_a_lost_message_are_violations() -> None:
    record = replace(clean_record(), dead_letters=[])
    record.inbound["SM3"] = Inbound("SM3", ALICE, "score", "score", 9.0)
    violations = check(record).violations
    assert any("poison message" in violation for violation in violations), violations
    assert any("SM3" in violation for violation in violations), violations


def test_an_outbox_is_known_from_the_attempt_that_leased_it_when_its_commit_was_never_logged(
    tmp_path: Any,
) -> None:
    """A worker killed after DynamoDB applied its commit but before it logged it: the copy that
    leased the outbox logged what it read, which stands in (the commit's own log wins if any)."""
    import json

    from bench.chaos.soak import _committed_outboxes

    read_at_lease = [["+15550770000", "+15550100000", "You lost."]]
    as_committed = [["+15550770001", "+15550100000", "You won!"]]
    (tmp_path / "worker-1.jsonl").write_text(
        json.dumps({"e": "outbox", "key": "SMa", "outbox": read_at_lease, "source": "lease"})
        + "\n"
        + json.dumps({"e": "outbox", "key": "SMb", "outbox": [["erased", "x", "erased"]], "source": "lease"})
        + "\n"
    )
    (tmp_path / "worker-2.jsonl").write_text(
        json.dumps({"e": "outbox", "key": "SMb", "outbox": as_committed, "source": "commit"}) + "\n"
    )

    outboxes = _committed_outboxes(tmp_path)

    assert outboxes["SMa"] == [tuple(read_at_lease[0])]
    assert outboxes["SMb"] == [tuple(as_committed[0])]


def _with_a_lobby_game(record: SoakRecord, *, alice_ties: int) -> SoakRecord:
    """Alice and Bob also met through the lobby (throws with no nickname) and tied."""
    alice_tied = replies.lobby_result(Outcome.TIE, Move.ROCK, Move.ROCK, "bob")
    bob_tied = replies.lobby_result(Outcome.TIE, Move.ROCK, Move.ROCK, "alice")
    record.inbound["SM3"] = Inbound("SM3", ALICE, "rock", "junk", 9.0)
    record.idempotency["SM3"] = {
        "status": "COMPLETED",
        "outbox": [(ALICE, BOT, alice_tied), (BOB, BOT, bob_tied)],
        "delivered": {0: "SMe", 1: "SMf"},
    }
    record.sms += [
        {"sid": "SMe", "to": ALICE, "from": BOT, "body": alice_tied, "at": 10.0},
        {"sid": "SMf", "to": BOB, "from": BOT, "body": bob_tied, "at": 10.1},
    ]
    record.worker_events += _events(100, "SM3", [("SMe", ALICE, alice_tied), ("SMf", BOB, bob_tied)], 9.5)
    record.players[ALICE]["ties"] = {"N": str(alice_ties)}
    record.players[BOB]["ties"] = {"N": "1"}
    return record


def test_a_game_played_through_the_lobby_counts_in_both_players_results() -> None:
    verdict = check(_with_a_lobby_game(clean_record(), alice_ties=1))
    assert verdict.violations == []
    assert verdict.figures["games played through the lobby"] == 1
    assert verdict.figures["games resolved between stable players (checked exactly once)"] == 1


def test_a_lobby_game_scored_twice_is_a_violation() -> None:
    violations = check(_with_a_lobby_game(clean_record(), alice_ties=2)).violations
    assert any("wins/losses/ties (1, 0, 2)" in violation for violation in violations), violations


def _resent_after_a_look(looked_at: float) -> SoakRecord:
    """Worker 200 sent Alice's result and died unrecorded; worker 300 took the outbox, read
    Twilio's Messages list to Alice at `looked_at`, and sent the result again at 6.5."""
    record = clean_record()
    record.sms.append({"sid": "SMc0", "to": ALICE, "from": BOT, "body": ALICE_WON, "at": 5.9})
    record.worker_events += [
        {"e": "claim", "pid": 200, "t": 5.2, "key": "SM2", "ok": True},
        {"e": "sent", "pid": 200, "t": 5.9, "key": "SM2", "sid": "SMc0", "to": ALICE, "body": ALICE_WON},
        {"e": "kill", "pid": 200, "t": 5.95, "key": "SM2", "point": "after_send"},
    ]
    # Worker 100 (clean_record's) is the one that resends: it looked before its send at 6.0.
    record.worker_events.append(
        {
            "e": "looked",
            "pid": 100,
            "t": looked_at,
            "key": "SM2",
            "to": ALICE,
            "started": looked_at,
            "sids": [],
        }
    )
    return record


def test_a_duplicate_whose_earlier_send_reached_twilio_after_the_look_is_counted_as_such() -> None:
    verdict = check(_resent_after_a_look(looked_at=5.8))
    assert verdict.violations == []
    assert verdict.figures["duplicate SMS observed"] == 1
    assert (
        verdict.figures[
            "  duplicates: the earlier send reached Twilio after the resender read the Messages list"
        ]
        == 1
    )


def test_a_duplicate_the_list_should_have_shown_is_counted_as_a_missed_match() -> None:
    verdict = check(_resent_after_a_look(looked_at=5.95))
    assert verdict.figures["duplicate SMS observed"] == 1
    assert (
        verdict.figures[
            "  duplicates: the Messages list showed the earlier send; the resender did not match it"
        ]
        == 1
    )


def test_a_resender_killed_while_twilio_took_its_send_is_still_known_to_have_looked_first() -> None:
    """Worker 100 read the list (which showed worker 200's send), began its own POST, and died
    before Twilio's answer reached it; worker 400 later found that send in the list and recorded it.
    The duplicate is the look's missed match, not a send no one can place."""
    record = _resent_after_a_look(looked_at=5.95)
    record.worker_events = [
        event
        for event in record.worker_events
        if not (event["pid"] == 100 and event.get("sid", event.get("outcome")) == "SMc")
    ]
    record.worker_events += [
        {
            "e": "sending",
            "pid": 100,
            "t": 5.96,
            "key": "SM2",
            "to": ALICE,
            "body": ALICE_WON,
            "started": 5.96,
        },
        {"e": "lease", "pid": 400, "t": 7.0, "key": "SM2", "ok": True},
        {"e": "looked", "pid": 400, "t": 7.1, "key": "SM2", "to": ALICE, "started": 7.1, "sids": ["SMc"]},
        {"e": "recorded", "pid": 400, "t": 7.2, "key": "SM2", "index": 0, "outcome": "SMc", "ok": True},
    ]

    verdict = check(record)

    assert verdict.figures["duplicate SMS observed"] == 1
    assert (
        verdict.figures[
            "  duplicates: the Messages list showed the earlier send; the resender did not match it"
        ]
        == 1
    )


def test_one_sms_recorded_for_two_replies_is_a_lost_reply() -> None:
    record = clean_record()
    # A look that took Alice's challenge (SMb) for the result of the next message too.
    record.idempotency["SM2"]["outbox"][0] = (ALICE, BOT, CHALLENGED)
    record.idempotency["SM2"]["delivered"][0] = "SMb"
    violations = check(record).violations
    assert any("both recorded as SMb: one of them was never sent" in violation for violation in violations), (
        violations
    )


def _translated(record: SoakRecord, texts: dict[str, str]) -> SoakRecord:
    """The same record with some replies written in another language (`texts`: old -> new body),
    everywhere the record holds them: outboxes, accepted SMS and the workers' logs."""
    for item in record.idempotency.values():
        item["outbox"] = [(to, sender, texts.get(body, body)) for to, sender, body in item["outbox"]]
    record.sms = [{**sms, "body": texts.get(sms["body"], sms["body"])} for sms in record.sms]
    record.worker_events = [
        {**event, "body": texts.get(event["body"], event["body"])} if "body" in event else event
        for event in record.worker_events
    ]
    return record


def _alice_plays_in_spanish() -> SoakRecord:
    """clean_record with Alice reading Spanish (she challenged someone in Spanish once): her
    challenge and her result are Spanish, Bob's replies stay English."""
    record = clean_record()
    record.players[ALICE]["language"] = {"S": "es"}
    return _translated(
        record,
        {
            CHALLENGED: replies_es.challenged("alice"),
            ALICE_WON: replies_es.result(Outcome.WIN, Move.PAPER, Move.ROCK, "bob"),
        },
    )


def _both_play_in_spanish() -> SoakRecord:
    record = _alice_plays_in_spanish()
    record.players[BOB]["language"] = {"S": "es"}
    return _translated(
        record,
        {
            WAITING: replies_es.throw_waiting("bob", Move.ROCK),
            BOB_LOST: replies_es.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "alice"),
        },
    )


def test_a_game_read_in_spanish_by_one_or_both_players_is_checked_as_an_english_one() -> None:
    for record, spanish in ((_alice_plays_in_spanish(), 1), (_both_play_in_spanish(), 2)):
        assert CHALLENGED not in [sms["body"] for sms in record.sms]
        verdict = check(record)
        assert verdict.violations == []
        assert verdict.figures["games resolved between stable players (checked exactly once)"] == 1
        assert verdict.figures["players texted in Spanish at the end"] == spanish


def test_a_game_scored_twice_in_spanish_is_a_violation() -> None:
    record = _both_play_in_spanish()
    record.players[ALICE] = _player(ALICE, "alice", wins=2)
    violations = check(record).violations
    assert any("wins/losses/ties (2, 0, 0)" in violation for violation in violations), violations


def test_a_throw_that_waited_in_spanish_and_was_never_resolved_is_a_violation() -> None:
    record = _both_play_in_spanish()
    del record.idempotency["SM2"]
    record.inbound.pop("SM2")
    record.sms = record.sms[:2]
    record.players[ALICE] = _player(ALICE, "alice")
    record.players[BOB] = _player(BOB, "bob")
    violations = check(record).violations
    assert any("1 throws waited, 0 games resolved, 0 still pending" in violation for violation in violations)


def test_a_spanish_lobby_game_counts_in_both_players_results() -> None:
    lobby = {
        replies.lobby_result(outcome, mine, theirs, name): (
            replies_es.lobby_result(outcome, mine, theirs, name)
        )
        for outcome in Outcome
        for mine in Move
        for theirs in Move
        for name in ("alice", "bob")
    }
    record = _translated(_with_a_lobby_game(_both_play_in_spanish(), alice_ties=1), lobby)
    assert any(sms["body"] in lobby.values() for sms in record.sms)
    verdict = check(record)
    assert verdict.violations == []
    assert verdict.figures["games played through the lobby"] == 1


def test_the_liveness_round_counts_an_answer_in_either_language_and_only_after_the_question() -> None:
    """A locked player answered in Spanish is answered; an old reply from before the question is not."""
    from bench.chaos.soak import first_answers

    expected = {
        "+15550000005": {"Your name is still Ana.", "Tu nombre sigue siendo Ana."},
        "+15550000011": {"Your name is still Bo.", "Tu nombre sigue siendo Bo."},
    }
    posted_at = {"+15550000005": 100.0, "+15550000011": 100.0}
    sms = [
        {"to": "+15550000011", "body": "Your name is still Bo.", "at": 90.0},  # before the question
        {"to": "+15550000005", "body": "Tu nombre sigue siendo Ana.", "at": 104.0},
        {"to": "+15550000005", "body": "Tu nombre sigue siendo Ana.", "at": 103.0},
        {"to": "+15550000011", "body": "Something else.", "at": 105.0},
    ]

    assert first_answers(sms, expected, posted_at) == {"+15550000005": 103.0}


def _alices_result_erased_with_its_number(*, alice_opted_out: bool) -> SoakRecord:
    """Alice's result was erased before it left, its number blanked with it, and the commit's own
    log of its outbox was lost (its worker died right after the commit)."""
    record = clean_record()
    record.idempotency["SM2"]["outbox"][0] = ("erased", BOT, "erased")
    record.idempotency["SM2"]["delivered"][0] = "erased"
    record.sms = [sms for sms in record.sms if sms["sid"] != "SMc"]
    record.worker_events = [
        event for event in record.worker_events if "SMc" not in (event.get("sid"), event.get("outcome"))
    ]
    if alice_opted_out:
        record.inbound["SM9"] = Inbound("SM9", ALICE, "STOP", "stop", 5.2)
        record.idempotency["SM9"] = {"status": "COMPLETED", "outbox": [], "delivered": {}}
    return record


def test_a_reply_erased_with_its_number_is_judged_by_the_phones_of_its_message() -> None:
    assert not [
        violation
        for violation in check(_alices_result_erased_with_its_number(alice_opted_out=True)).violations
        if "erased" in violation
    ]
    violations = check(_alices_result_erased_with_its_number(alice_opted_out=False)).violations
    assert any("reply 0 of SM2 was erased, but 0001, 0002 never opted out" in v for v in violations), (
        violations
    )
