"""The proof of an opt-out: every revocation, however worded, leaves a record keyed by an HMAC of
the number, written in the very transaction that erases the number, and kept four years; the
outbox settles the confirmation's fate on it; a text after it is recorded on it; and nothing of it
is the number (docs/privacy.md, "The proof of an opt-out"; docs/protocol.md, "Proof records").

On moto and, with DYNAMODB=local, on DynamoDB Local (every test asks for the engine)."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse

from serverless_rps import replies, replies_es
from serverless_rps.exceptions import RetryLater, SmsTemporarilyFailed
from serverless_rps.game_store import DeliveryStatus, DeliveryStatusRecords, DynamoGameStore
from serverless_rps.game_store.proofs import ProofSettings
from serverless_rps.opt_out_proof import ProofKey, ProofKeys
from serverless_rps.parsing import OptOut, parse
from serverless_rps.processing import InboundSms, Result
from tests.conftest import (
    ALICE,
    BOB,
    COMPLETED_SECONDS,
    CONTACT_KEY,
    IN_PROGRESS_SECONDS,
    LEASE_SECONDS,
    PROOF_KEY,
    PROOF_TABLE,
    STRANGER,
    TABLES,
    Game,
    opted_out,
    transient_failure,
)

FOUR_YEARS = (4 * 365 + 1) * 24 * 60 * 60
FIVE_MINUTES = 300
CONFIRMATION = replies.opt_out_confirmation(replies.Program())


def _alice_challenged_by_bob(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")


def _number(item: dict[str, Any], name: str) -> float:
    return float(item[name]["N"])


def _text(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name)
    return value["S"] if value is not None else None


@dataclasses.dataclass
class _Commits:
    requests: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def __call__(self, params: dict[str, Any], **_: Any) -> None:
        self.requests.append(params)


# -- written with the erasure --------------------------------------------------------------------


def test_a_stop_is_proven_in_the_transaction_that_erases_the_number(game: Game) -> None:
    _alice_challenged_by_bob(game)
    arrived = time.time() - 3  # the webhook queued it three seconds ago
    commits = _Commits()
    game.dynamodb.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", commits)
    message = dataclasses.replace(game.inbound(ALICE, "STOP"), enqueued_at=arrived)

    assert game.processor.process(message) is Result.PROCESSED

    [erasure] = [
        request
        for request in commits.requests
        if {"Delete": {"phone_number": {"S": ALICE}}}
        in [{kind: body.get("Key")} for item in request["TransactItems"] for kind, body in item.items()]
    ]
    written = [body for item in erasure["TransactItems"] for body in item.values()]
    proof = [body["Item"] for body in written if body["TableName"] == PROOF_TABLE]
    assert [_text(item, "event") for item in proof] == [
        f"opt-out#{round(arrived * 1000):013d}#{message.idempotency_key}",
        "status",
    ], "the proof record and the number's status are items of the erasure's own commit"
    [opt_out] = game.opt_outs_of(ALICE)
    assert (_text(opt_out, "rule"), _text(opt_out, "wording"), _text(opt_out, "language")) == (
        "keyword",
        "keyword",
        "en",
    )
    assert _text(opt_out, "confirmation") == "by-twilio", "Twilio answered the exact keyword itself"
    assert _number(opt_out, "received_at") == round(arrived, 3)
    assert _number(opt_out, "erased_at") == time.time()
    assert _number(opt_out, "TTLEpochTimestamp") == int(time.time() + FOUR_YEARS)
    assert _text(opt_out, "key") == PROOF_KEY.label
    assert "texted_again_at" not in opt_out
    assert game.items_holding(ALICE) == []


def test_an_erasure_that_does_not_commit_leaves_no_proof_and_its_redelivery_writes_one(
    game: Game, clock: Any
) -> None:
    game.register((ALICE, "alice"))
    conflicts: list[str] = []

    def conflict_once(**_: Any) -> tuple[AWSResponse, dict[str, Any]] | None:
        if conflicts:
            return None
        conflicts.append("injected")
        parsed = {
            "Error": {"Code": "TransactionCanceledException", "Message": "[TransactionConflict]"},
            "CancellationReasons": [{"Code": "TransactionConflict", "Message": "ongoing"}],
            "ResponseMetadata": {"HTTPStatusCode": 400},
        }
        return AWSResponse("http://conflict", 400, {}, None), parsed

    game.dynamodb.meta.events.register("before-call.dynamodb.TransactWriteItems", conflict_once)
    message = game.inbound(ALICE, "STOP")
    with pytest.raises(RetryLater):
        game.processor.process(message)
    assert game.player(ALICE) is not None, "not erased"
    assert game.proof_of(ALICE) == [], "no proof of an erasure that did not happen"

    clock.tick(1)
    assert game.processor.process(message) is Result.PROCESSED
    assert game.player(ALICE) is None
    assert len(game.opt_outs_of(ALICE)) == 1
    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.processor.process(message) is Result.DUPLICATE
    assert len(game.opt_outs_of(ALICE)) == 1, "a redelivery proves nothing twice"


OPT_OUTS = [
    pytest.param("STOP", None, "keyword", "en", "by-twilio", id="keyword"),
    pytest.param("Stop.", None, "keyword", "en", "sent", id="keyword as typed"),
    pytest.param("ALTO", None, "keyword", "es", "sent", id="Spanish keyword"),
    pytest.param("BAJA", "STOP", "carrier opt-out", None, "by-twilio", id="Advanced Opt-Out"),
    pytest.param("please stop texting me", None, "free text", "en", "sent", id="English free text"),
    pytest.param("ya no me escriban", None, "free text", "es", "sent", id="Spanish free text"),
]


@pytest.mark.parametrize(("body", "opt_out_type", "wording", "language", "confirmation"), OPT_OUTS)
def test_every_way_of_opting_out_is_proven_with_its_rule_wording_and_language_never_its_text(
    game: Game, body: str, opt_out_type: str | None, wording: str, language: str | None, confirmation: str
) -> None:
    _alice_challenged_by_bob(game)
    read_as = parse(body, opt_out_type)
    assert isinstance(read_as, OptOut), "the classifier reads it as an opt-out"
    message = dataclasses.replace(game.inbound(ALICE, body), opt_out_type=opt_out_type)

    game.processor.process(message)

    [opt_out] = game.opt_outs_of(ALICE)
    assert _text(opt_out, "rule") == read_as.rule
    assert _text(opt_out, "wording") == wording
    assert _text(opt_out, "language") == (language or read_as.language)
    assert _text(opt_out, "confirmation") == confirmation
    if confirmation == "sent":
        assert _text(opt_out, "confirmation_sid") == game.sms.sids_sent_for(message.idempotency_key)[0]
        # In the language of the opt-out (docs/opt-out.md): ALTO and a Spanish request in Spanish.
        catalogue = replies_es if (language or read_as.language) == "es" else replies
        assert game.sms.to(ALICE)[-1] == catalogue.opt_out_confirmation(replies.Program())
    assert body not in repr(game.proof_of(ALICE)), "how it was read, never the text"
    assert game.items_holding(ALICE) == []


def test_an_operators_erasure_is_proven_as_a_deletion_request_with_nothing_to_confirm(game: Game) -> None:
    _alice_challenged_by_bob(game)
    erasure = dataclasses.replace(
        game.inbound(ALICE, "STOP", sid="erasure-request-1"), opt_out_type="STOP", by_operator=True
    )

    game.processor.process(erasure)

    [opt_out] = game.opt_outs_of(ALICE)
    assert (_text(opt_out, "rule"), _text(opt_out, "wording"), _text(opt_out, "language")) == (
        "erase-request",
        "deletion request",
        None,
    )
    assert _text(opt_out, "confirmation") == "none"


# -- the confirmation's fate ---------------------------------------------------------------------


def test_a_confirmation_refused_because_twilio_blocked_the_number_is_proven_refused(game: Game) -> None:
    _alice_challenged_by_bob(game)
    game.sms.fail_next(opted_out())  # 21610: Twilio matched the opt-out and confirmed it itself

    game.text(ALICE, "Stop.")

    [opt_out] = game.opt_outs_of(ALICE)
    assert _text(opt_out, "confirmation") == "refused:21610"
    assert "confirmation_sid" not in opt_out


def test_a_confirmation_too_late_to_send_is_proven_dropped(game: Game, clock: Any) -> None:
    _alice_challenged_by_bob(game)
    game.sms.fail_next(transient_failure())
    message = game.inbound(ALICE, "Stop.")
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)
    assert _text(game.opt_outs_of(ALICE)[0], "confirmation") == "pending", "committed, not yet sent"

    clock.tick(FIVE_MINUTES + 1)
    game.processor.process(message)

    [opt_out] = game.opt_outs_of(ALICE)
    assert _text(opt_out, "confirmation") == "dropped:late"
    assert _number(opt_out, "confirmation_at") == time.time()


def test_a_confirmation_the_reply_budget_held_back_is_proven_withheld(game: Game) -> None:
    game.register((ALICE, "alice"))
    for _ in range(70):  # far past the burst
        game.text(ALICE, "score")

    game.text(ALICE, "Stop.")

    [opt_out] = game.opt_outs_of(ALICE)
    assert _text(opt_out, "confirmation") == "withheld:budget"


def _alice_stops_and_dies_after_the_commit(game: Game) -> InboundSms:
    """Alice, challenged by Bob, texts "Stop."; the attempt commits and dies before it marks her
    confirmation as sending. Her message, for its redelivery."""
    _alice_challenged_by_bob(game)
    message = game.inbound(ALICE, "Stop.")
    game.store.outboxes.withhold_number = _dies  # type: ignore[method-assign]  # dies before the send
    with pytest.raises(_Died):
        game.processor.process(message)
    del game.store.outboxes.withhold_number
    return message


def test_a_death_after_the_commit_leaves_the_fate_pending_and_the_redelivery_settles_it(
    game: Game, clock: Any
) -> None:
    message = _alice_stops_and_dies_after_the_commit(game)
    assert game.player(ALICE) is None, "erased: the commit is done"
    assert _text(game.opt_outs_of(ALICE)[0], "confirmation") == "pending"

    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.processor.process(message) is Result.RESENT

    [opt_out] = game.opt_outs_of(ALICE)
    assert _text(opt_out, "confirmation") == "sent"
    assert _text(opt_out, "confirmation_sid") == game.sms.sids_sent_for(message.idempotency_key)[0]
    assert game.sms.to(ALICE).count(CONFIRMATION) == 1


def test_a_copy_that_finds_every_reply_recorded_once_it_holds_the_outbox_settles_the_proof(
    game: Game, clock: Any
) -> None:
    """The copy read the outbox while the confirmation still waited; by the time it leased the
    outbox, an earlier attempt had sent and recorded every reply. It sends nothing, and the proof
    learns the confirmation's fate from what it leased."""
    message = _alice_stops_and_dies_after_the_commit(game)
    clock.tick(max(IN_PROGRESS_SECONDS, LEASE_SECONDS) + 1)
    lease = game.store.outboxes.lease
    sid = "SM" + "e" * 32

    def the_earlier_attempt_finished_meanwhile(record: Any, attempt_id: str, now: float) -> Any:
        for index in record.undelivered():
            game.store.outboxes.record_delivery(record, index, sid)
        return lease(record, attempt_id, now)

    game.store.outboxes.lease = the_earlier_attempt_finished_meanwhile  # type: ignore[method-assign]
    sent = len(game.sms.sent)
    assert game.processor.process(message) is Result.DUPLICATE
    assert len(game.sms.sent) == sent, "nothing sent again"
    [opt_out] = game.opt_outs_of(ALICE)
    assert (_text(opt_out, "confirmation"), _text(opt_out, "confirmation_sid")) == ("sent", sid)


def test_a_death_between_the_mark_and_twilios_answer_is_unknown_until_its_callback_names_the_sid(
    game: Game, clock: Any
) -> None:
    _alice_challenged_by_bob(game)
    message = game.inbound(ALICE, "Stop.")
    game.store.outboxes.record_delivery = _dies  # type: ignore[method-assign]  # Twilio took it, then death
    with pytest.raises(_Died):
        game.processor.process(message)
    del game.store.outboxes.record_delivery
    clock.tick(IN_PROGRESS_SECONDS + 1)
    game.processor.process(message)
    assert _text(game.opt_outs_of(ALICE)[0], "confirmation") == "unknown", "the record never learnt the SID"

    # Twilio's status callback for it arrives, and a late duplicate of the SMS comes after it.
    [sid, *_] = game.sms.sids_sent_for(message.idempotency_key)
    statuses = DeliveryStatusRecords(game.dynamodb, TABLES.idempotency)
    statuses.record(message.idempotency_key, 0, DeliveryStatus(sid, "delivered", None, time.time()))
    clock.tick(IN_PROGRESS_SECONDS + 1)
    assert game.processor.process(message) is Result.DUPLICATE

    [opt_out] = game.opt_outs_of(ALICE)
    assert (_text(opt_out, "confirmation"), _text(opt_out, "confirmation_sid")) == ("sent", sid)
    assert game.sms.to(ALICE).count(CONFIRMATION) == 1


@contextlib.contextmanager
def _alice_stops_again_before_her_confirmation_is_marked(game: Game) -> Iterator[list[Result]]:
    """Alice texts STOP again (processed at once) just before her first confirmation's fate is
    written on its outbox (sending, or dropped as too late); the result is in the list given."""
    second: list[Result] = []

    def stop_again_before_the_mark(params: dict[str, Any], **_: Any) -> None:
        marking = ":fate" in params.get("ExpressionAttributeValues", {})
        if not second and marking and params.get("TableName") == TABLES.idempotency:
            second.append(game.text(ALICE, "STOP"))

    events = game.dynamodb.meta.events
    events.register("provide-client-params.dynamodb.UpdateItem", stop_again_before_the_mark)
    try:
        yield second
    finally:
        events.unregister("provide-client-params.dynamodb.UpdateItem", stop_again_before_the_mark)


def test_a_confirmation_a_later_opt_out_erased_is_proven_not_sent_and_the_later_one_stands(
    game: Game,
) -> None:
    _alice_challenged_by_bob(game)

    with _alice_stops_again_before_her_confirmation_is_marked(game) as second:
        game.text(ALICE, "Stop.")

    assert second == [Result.PROCESSED]
    first, later = game.opt_outs_of(ALICE)
    assert (_text(first, "confirmation"), _text(later, "confirmation")) == ("erased", "by-twilio")
    assert _text(first, "texted_again_with") == "opt-out", "the second STOP was a text after the first"


def test_a_late_confirmation_a_later_opt_out_erased_first_is_proven_erased_not_dropped(
    game: Game, clock: Any
) -> None:
    """Too late to send, and while its redelivery drops it, a second STOP erases it first: the
    proof says what happened to the number (erased), not what this attempt meant to do."""
    _alice_challenged_by_bob(game)
    game.sms.fail_next(transient_failure())
    message = game.inbound(ALICE, "Stop.")
    with pytest.raises(SmsTemporarilyFailed):
        game.processor.process(message)
    clock.tick(FIVE_MINUTES + 1)

    with _alice_stops_again_before_her_confirmation_is_marked(game) as second:  # marked dropped
        game.processor.process(message)

    assert second == [Result.PROCESSED]
    first, _later = game.opt_outs_of(ALICE)
    assert _text(first, "confirmation") == "erased"
    assert game.sms.to(ALICE).count(CONFIRMATION) == 0


# -- a text after it -----------------------------------------------------------------------------


def test_a_later_opt_out_after_start_adds_to_the_trail_and_start_is_recorded_on_the_first(
    game: Game, clock: Any
) -> None:
    game.register((ALICE, "alice"))
    game.text(ALICE, "STOP")
    clock.tick(60)
    game.text(ALICE, "START")
    started = time.time()
    clock.tick(60)
    game.text(ALICE, "nick alice")
    game.text(ALICE, "help")
    clock.tick(60)
    game.text(ALICE, "Stop.")

    first, second = game.opt_outs_of(ALICE)
    assert _number(first, "texted_again_at") == started, "the first text after it, not a later one"
    assert _text(first, "texted_again_with") == "opt-in keyword"
    assert "texted_again_at" not in second, "the number has not texted since the second"
    status = game.proof_of(ALICE)[-1]
    assert _text(status, "latest") == _text(second, "event")
    assert status["awaiting_text"] == {"BOOL": True}
    assert game.items_holding(ALICE) == []


def test_any_text_after_an_opt_out_is_recorded_once_without_its_words(game: Game, clock: Any) -> None:
    game.text(STRANGER, "STOP")  # a number the game never knew can opt out, and is proven too
    clock.tick(3600)
    game.text(STRANGER, "what is this game")
    answered = time.time()
    clock.tick(60)
    game.text(STRANGER, "help")

    [opt_out] = game.opt_outs_of(STRANGER)
    assert (_number(opt_out, "texted_again_at"), _text(opt_out, "texted_again_with")) == (
        answered,
        "other text",
    )
    assert "awaiting_text" not in game.proof_of(STRANGER)[-1]
    assert "what is this game" not in repr(game.proof_of(STRANGER))


def test_twilios_start_verdict_counts_as_an_opt_in_keyword(game: Game) -> None:
    game.text(STRANGER, "STOP")

    game.processor.process(dataclasses.replace(game.inbound(STRANGER, "START"), opt_out_type="START"))

    [opt_out] = game.opt_outs_of(STRANGER)
    assert _text(opt_out, "texted_again_with") == "opt-in keyword"


def test_an_operators_erasure_is_not_a_text_from_the_number(game: Game) -> None:
    game.text(STRANGER, "STOP")

    erasure = dataclasses.replace(
        game.inbound(STRANGER, "STOP", sid="erasure-request-2"), opt_out_type="STOP", by_operator=True
    )
    game.processor.process(erasure)

    first, second = game.opt_outs_of(STRANGER)
    assert "texted_again_at" not in first
    assert _text(second, "wording") == "deletion request"


def test_players_who_never_opted_out_have_no_proof_record(game: Game) -> None:
    _alice_challenged_by_bob(game)
    game.text(ALICE, "paper bob")
    game.text(STRANGER, "help")

    assert game.items(PROOF_TABLE) == []


class _Died(BaseException):
    """The invocation died (no clean-up runs)."""


def _dies(*args: object, **kwargs: object) -> None:
    raise _Died


def test_a_key_with_more_versions_than_one_batch_holds_still_lets_a_stranger_in(game: Game) -> None:
    """SSM keeps a parameter's last 100 versions; with the contact record, a read of every one's
    status would be 101 keys, over BatchGetItem's 100. The newest 99 are read."""
    versions = tuple(ProofKey(bytes([version]) * 32, f"k:{version}") for version in range(150, 0, -1))
    keys = ProofKeys(versions[0], versions[1:])
    store = DynamoGameStore(
        game.dynamodb,
        TABLES,
        lock_lease_seconds=LEASE_SECONDS,
        in_progress_expiry_seconds=IN_PROGRESS_SECONDS,
        completed_record_seconds=COMPLETED_SECONDS,
        contact_key=CONTACT_KEY,
        proof=ProofSettings(PROOF_TABLE, lambda: keys, FOUR_YEARS),
    )

    locked = store.lock(STRANGER, "attempt", time.time())

    assert (locked.player, locked.proof_waiting) == (None, ())
