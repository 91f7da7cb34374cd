"""The operator's tool against moto and the local Twilio API: each command finds what the pipeline
left behind and repairs it through the game's own protocol (docs/operations.md)."""

from __future__ import annotations

import io
import json
import time
from dataclasses import replace
from typing import Any

import boto3
import pytest

from serverless_rps import app, replies
from serverless_rps.admin import cli, locate
from serverless_rps.admin.operations import Operator
from serverless_rps.observability import mask_phone
from serverless_rps.rules import Move
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import ALICE, BOB, BOT_NUMBER, REGION, TABLES
from tests.protocol.test_lambda_handler import LambdaContext, _event, deployed

__all__ = ["deployed"]

CAROL = "+15550000003"


@pytest.fixture
def operator(deployed: Any) -> Operator:
    return _connected()


def _connected(session: boto3.session.Session | None = None, **settings: Any) -> Operator:
    """The tool as `--stack` or the environment would connect it; `settings` override what it
    found. A test watches the tool's requests through handlers registered on `session` first."""
    return Operator.connect(replace(locate.from_environment(), **settings), session)


def _text(*messages: tuple[str, str, str]) -> dict[str, Any]:
    return app.lambda_handler(_event(*messages), LambdaContext())


def _admin(operator: Operator, *argv: str, answer: str = "") -> tuple[int, str]:
    out = io.StringIO()
    status = cli.main(["--json", *argv], connect=lambda _: operator, out=out, ask=lambda _: answer)
    return status, out.getvalue()


def _register(*players: tuple[str, str]) -> None:
    for number, (phone, name) in enumerate(players):
        assert _text((f"SM{name:0>32}"[:34], phone, f"nick {name}")) == {"batchItemFailures": []}, number


# -- outbox ---------------------------------------------------------------------------------------


def _a_reply_that_could_not_be_sent(twilio: LocalTwilioApi) -> str:
    """Alice throws at bob; the commit holds both replies, but Twilio fails and SQS's message
    never comes back (it expired, or was dead-lettered): neither reply is ever sent."""
    _register((ALICE, "alice"), (BOB, "bob"))
    twilio.fail_next(1, status=500)
    sid = "SM" + "c" * 32
    assert _text((sid, ALICE, "rock bob"))["batchItemFailures"]
    return sid


def test_outbox_pending_lists_a_committed_reply_that_was_never_sent(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    sid = _a_reply_that_could_not_be_sent(twilio)

    status, output = _admin(operator, "outbox", "pending")

    assert status == 0
    [row] = json.loads(output)
    assert (row["key"], row["not_sent"], row["replies"]) == (sid, 2, 2)
    assert row["to"] == sorted([mask_phone(ALICE), mask_phone(BOB)])
    assert _admin(operator, "outbox", "pending", "--older-than", "1h")[1].strip() == "[]"


def test_outbox_resend_sends_the_missing_reply_once_and_then_there_is_nothing_to_send(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    sid = _a_reply_that_could_not_be_sent(twilio)
    challenge = replies.challenged("alice")

    status, output = _admin(operator, "--yes", "outbox", "resend", "--all")

    assert status == 0
    assert json.loads(output) == [{"key": sid, "result": "resent", "was_missing": 2}]
    assert [m["body"] for m in twilio.sent_messages() if m["to"] == BOB].count(challenge) == 1
    assert [m["body"] for m in twilio.sent_messages() if m["to"] == ALICE].count(
        replies.throw_waiting("bob", Move.ROCK)
    ) == 1
    assert json.loads(_admin(operator, "outbox", "pending")[1]) == []
    # The late redelivery of the SQS message now finds everything sent.
    assert _text((sid, ALICE, "rock bob")) == {"batchItemFailures": []}
    _admin(operator, "--yes", "outbox", "resend", sid)
    assert [m["body"] for m in twilio.sent_messages() if m["to"] == BOB].count(challenge) == 1


def test_a_resend_racing_a_redelivery_waits_for_its_outbox_lease_and_never_doubles_a_reply(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    sid = _a_reply_that_could_not_be_sent(twilio)
    record = operator.reads.read_completed(sid)
    assert record is not None
    # A redelivery has just taken the outbox lease and is about to send.
    leased = operator.store.outboxes.lease(record, "redelivery", time.time())
    assert leased is not None

    [result] = operator.resend([sid])
    assert result["result"].startswith("not sent now")
    # bob's opt-in confirmation and nick confirmation only
    assert [m["to"] for m in twilio.sent_messages()].count(BOB) == 2

    # The redelivery sends and records it; the resend that comes after finds nothing to send.
    operator.engine.outbox._deliver(leased, "redelivery")
    [again] = operator.resend([sid])
    assert again["result"] == "duplicate"
    assert [m["body"] for m in twilio.sent_messages()].count(replies.challenged("alice")) == 1


def test_a_resend_does_not_bring_back_a_contact_record_dynamodb_has_expired(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    """A record and the contact records it names expire together, and DynamoDB's TTL deletes them
    days late and in no set order (docs/privacy.md): a record the tool still lists may name a
    contact record that is gone. Sending its replies must not write it again, as a record no TTL
    would ever delete."""
    sid = _a_reply_that_could_not_be_sent(twilio)
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    dynamodb.delete_item(
        TableName=TABLES.idempotency, Key={"messageId": {"S": operator.store.contact_id(BOB)}}
    )

    _admin(operator, "--yes", "outbox", "resend", sid)

    assert [m["body"] for m in twilio.sent_messages() if m["to"] == BOB].count(
        replies.challenged("alice")
    ) == 1
    items = dynamodb.scan(TableName=TABLES.idempotency)["Items"]
    assert [item["messageId"]["S"] for item in items if "TTLEpochTimestamp" not in item] == []


def test_resend_naming_an_unknown_key_says_so_sends_nothing_and_fails(
    operator: Operator, twilio: LocalTwilioApi, capsys: pytest.CaptureFixture[str]
) -> None:
    sid = _a_reply_that_could_not_be_sent(twilio)
    texts_before = len(twilio.sent_messages())
    unknown = "SM" + "0" * 32

    status, output = _admin(operator, "--yes", "outbox", "resend", sid, unknown)

    assert (status, output) == (1, "")
    assert capsys.readouterr().err == (
        f"error: no completed record with the key {unknown}; nothing sent (`outbox pending` shows the keys)\n"
    )
    assert len(twilio.sent_messages()) == texts_before
    assert [row["key"] for row in json.loads(_admin(operator, "outbox", "pending")[1])] == [sid]


def test_resend_of_a_key_that_holds_no_message_says_so(operator: Operator, twilio: LocalTwilioApi) -> None:
    _register((ALICE, "alice"))
    texts_before = len(twilio.sent_messages())
    contact = operator.store.contact_id(ALICE)  # a record in the same table, with no status

    status, output = _admin(operator, "--yes", "outbox", "resend", contact)

    assert (status, output) == (1, "")
    assert len(twilio.sent_messages()) == texts_before


# -- dead letters ---------------------------------------------------------------------------------


def test_dlq_list_shows_why_each_message_is_there_and_redrive_returns_it_unchanged(
    operator: Operator, deployed: Any, twilio: LocalTwilioApi
) -> None:
    sqs = deployed
    settings = operator.settings
    # One parked by the game function as poison, one moved by the queue's redrive policy.
    poison = {"Records": [{**_event(("SM" + "1" * 32, ALICE, "x"))["Records"][0], "body": "not json"}]}
    assert app.lambda_handler(poison, LambdaContext()) == {"batchItemFailures": []}
    body = json.dumps({"MessageSid": "SM" + "2" * 32, "From": CAROL, "To": BOT_NUMBER, "Body": "help"})
    failed = sqs.send_message(QueueUrl=settings.dead_letter_queue_url, MessageBody=body)["MessageId"]

    listed = {row["id"]: row for row in json.loads(_admin(operator, "dlq", "list")[1])}

    assert len(listed) == 2
    assert listed[failed]["reason"] == "failed every receive allowed (the queue's redrive policy)"
    assert (listed[failed]["message_sid"], listed[failed]["from"]) == ("SM" + "2" * 32, mask_phone(CAROL))
    [parked] = [row for row in listed.values() if row["id"] != failed]
    assert parked["reason"] == "body is not JSON"
    # Listing hides nothing afterwards: a redrive right after finds the message.
    status, output = _admin(operator, "--yes", "dlq", "redrive", failed)
    assert status == 0
    assert [row["id"] for row in json.loads(output)] == [failed]
    [moved] = sqs.receive_message(QueueUrl=settings.incoming_queue_url)["Messages"]
    assert moved["Body"] == body
    assert [row["id"] for row in json.loads(_admin(operator, "dlq", "list")[1])] == [parked["id"]]


def test_redrive_naming_an_id_that_is_not_there_moves_nothing_and_fails(
    operator: Operator, deployed: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = operator.settings
    there = deployed.send_message(QueueUrl=settings.dead_letter_queue_url, MessageBody="{}")["MessageId"]

    status, output = _admin(operator, "--yes", "dlq", "redrive", there, "no-such-id")

    assert (status, output) == (1, "")
    assert capsys.readouterr().err.startswith(
        "error: not on the dead-letter queue: no-such-id; nothing moved"
    )
    assert "Messages" not in deployed.receive_message(QueueUrl=settings.incoming_queue_url)
    # Still on the dead-letter queue, and visible at once to the next listing.
    assert [row["id"] for row in json.loads(_admin(operator, "dlq", "list")[1])] == [there]


# -- status and player ------------------------------------------------------------------------------


def test_status_finds_stuck_claims_expired_leases_unsent_replies_and_dead_letters(
    operator: Operator, deployed: Any, twilio: LocalTwilioApi
) -> None:
    sid = _a_reply_that_could_not_be_sent(twilio)
    now = time.time()
    operator.store.claim("SM" + "d" * 32, "a-dead-attempt", now - 3600)  # its claim ran out an hour ago
    operator.store.lock(CAROL, "a-dead-lock", now - 3600)
    deployed.send_message(QueueUrl=operator.settings.dead_letter_queue_url, MessageBody="{}")

    status = json.loads(_admin(operator, "status")[1])

    assert [row["key"] for row in status["claims_stuck_in_progress"]] == ["SM" + "d" * 32]
    assert [row["phone"] for row in status["leases_past_expiry"]] == [mask_phone(CAROL)]
    assert [row["key"] for row in status["replies_not_sent"]] == [sid]
    assert status["dead_letters"] == 1
    assert status["incoming_queue"] == {"visible": 0, "in_flight": 0}


def test_player_shows_games_challenges_and_replies_waiting(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    _a_reply_that_could_not_be_sent(twilio)

    bob = json.loads(_admin(operator, "player", BOB)[1])
    alice = json.loads(_admin(operator, "player", ALICE)[1])

    assert bob["nickname"] == "bob"
    assert [row["challenger"] for row in bob["challenged_by"]] == ["alice"]
    assert [row["key"] for row in bob["replies_not_sent"]] == ["SM" + "c" * 32]
    assert [(row["opponent"], row["move"]) for row in alice["waiting_on"]] == [("bob", Move.ROCK.value)]
    assert [row["key"] for row in alice["replies_not_sent"]] == ["SM" + "c" * 32]
    # Her registration's reply went out: it shows among her recent messages, not among bob's.
    assert {row["key"]: row["replies"] for row in alice["recent_messages"]} == {
        "SM" + "c" * 32: "waiting",
        "SM" + "alice".rjust(32, "0"): "delivered",
    }
    assert "SM" + "alice".rjust(32, "0") not in {row["key"] for row in bob["recent_messages"]}


def test_a_player_is_found_by_nickname_and_an_unknown_one_is_an_error(
    operator: Operator, twilio: LocalTwilioApi, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_reply_that_could_not_be_sent(twilio)
    # Both reads at one moment: the ages they print must not straddle a second.
    moment = time.time()
    operator.clock = lambda: moment

    assert _admin(operator, "player", "alice") == _admin(operator, "player", ALICE)
    assert json.loads(_admin(operator, "player", "ALICE")[1])["phone"] == ALICE  # as the game matches names
    capsys.readouterr()

    assert _admin(operator, "player", "carol") == (1, "")
    assert capsys.readouterr().err == "error: no player is called carol\n"
    assert _admin(operator, "player", CAROL) == (1, "")  # never texted: nothing to show
    assert capsys.readouterr().err.startswith(f"error: no player and no message of {CAROL}")
    with pytest.raises(SystemExit) as usage:
        _admin(operator, "player", ALICE.removeprefix("+"))
    assert usage.value.code == 2
    assert f"(+{ALICE.removeprefix('+')} if it starts" in capsys.readouterr().err


def test_a_player_who_never_registered_but_was_texted_is_shown_unregistered(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    _register((ALICE, "alice"))
    assert _text(("SM" + "f" * 32, CAROL, "help")) == {"batchItemFailures": []}

    carol = json.loads(_admin(operator, "player", CAROL)[1])

    assert carol["registered"] is False
    assert [row["key"] for row in carol["recent_messages"]] == ["SM" + "f" * 32]


def test_player_shows_the_reply_budget_its_phone_has_spent(operator: Operator) -> None:
    _register((ALICE, "alice"))  # two replies so far: the opt-in confirmation and her registration's

    alice = json.loads(_admin(operator, "player", ALICE)[1])

    assert alice["reply_budget"] == {"level": 2.0, "notified": False}


# -- leases and erasure -----------------------------------------------------------------------------


def test_unlock_releases_an_expired_lease_and_refuses_a_live_one_without_force(operator: Operator) -> None:
    _register((ALICE, "alice"))
    operator.store.lock(ALICE, "expired", time.time() - 3600)
    assert json.loads(_admin(operator, "--yes", "unlock", ALICE)[1])["result"] == "released"

    operator.store.lock(ALICE, "live", time.time())
    assert _admin(operator, "--yes", "unlock", "alice")[0] == 1
    assert operator.reads.read_player_row(ALICE).lease_id == "live"  # type: ignore[union-attr]

    result = json.loads(_admin(operator, "--yes", "unlock", ALICE, "--force")[1])
    assert result["result"] == "released (it was live)"
    row = operator.reads.read_player_row(ALICE)
    assert row is not None
    assert (row.lease_id, row.player.display_name if row.player else None) == (None, "alice")


def test_unlocking_a_strangers_lease_removes_the_row_it_created(operator: Operator) -> None:
    operator.store.lock(CAROL, "dead", time.time() - 3600)

    _admin(operator, "--yes", "unlock", CAROL)

    assert operator.reads.read_player_row(CAROL) is None


def test_erase_removes_the_number_everywhere_without_texting_it(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    _register((ALICE, "alice"), (BOB, "bob"))
    assert _text(("SM" + "e" * 32, ALICE, "rock bob")) == {"batchItemFailures": []}
    texts_before = len(twilio.sent_messages())

    status, output = _admin(operator, "erase", "--yes", "bob")  # by nickname

    assert status == 0
    assert json.loads(output)["result"] == "processed"
    # Bob is never texted; alice, whose throw waited on him, is told the game is off.
    told = twilio.sent_messages()[texts_before:]
    assert [(message["to"], message["body"]) for message in told] == [(ALICE, replies.opponent_left("bob"))]
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    for table in (TABLES.game_state, TABLES.nickname, TABLES.idempotency):
        assert BOB not in json.dumps(dynamodb.scan(TableName=table)["Items"]), table
    alice = json.loads(_admin(operator, "player", ALICE)[1])
    assert alice["waiting_on"] == []
    # The erasure is among the messages whose replies went to alice (in a scan, its key comes
    # after the contact records: the listing skips those and goes on).
    erasure = json.loads(output)["request"]
    assert (erasure, "delivered") in [(row["key"], row["replies"]) for row in alice["recent_messages"]]


def test_a_destructive_command_asks_first_and_does_nothing_unless_told_yes(
    operator: Operator, twilio: LocalTwilioApi
) -> None:
    _register((ALICE, "alice"))

    status, _ = _admin(operator, "erase", ALICE, answer="n")

    assert status == 1
    assert json.loads(_admin(operator, "player", ALICE)[1])["registered"] is True


# -- how the tool reads the tables ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "misnamed", "step"),
    [
        (["player", ALICE], "game_state_table", "read a player"),
        (["--yes", "outbox", "resend", "SM" + "0" * 32], "idempotency_table", "read a message record"),
        (["status"], "idempotency_table", "scan a table"),
        (["status"], "game_state_table", "scan a table"),
    ],
)
def test_a_table_the_tool_cannot_reach_is_named_by_the_step_that_needed_it(
    deployed: Any, capsys: pytest.CaptureFixture[str], argv: list[str], misnamed: str, step: str
) -> None:
    operator = _connected(**{misnamed: "no-such-table"})  # e.g. settings of another stack

    status, output = _admin(operator, *argv)

    assert (status, output) == (1, "")
    [error] = capsys.readouterr().err.splitlines()
    assert error == (
        f"error: DynamoDB refused to {step}: ResourceNotFoundException: the settings name a resource "
        "that is not there; check --stack and --region"
    )


def test_every_read_the_tool_makes_is_strongly_consistent(deployed: Any, twilio: LocalTwilioApi) -> None:
    """moto answers every read with the latest write; DynamoDB only when asked to. What the tool
    reads decides what it resends and unlocks, and what the operator is told is stuck."""
    sid = _a_reply_that_could_not_be_sent(twilio)
    session = boto3.session.Session()
    reads: list[tuple[str, bool]] = []

    def note(params: dict[str, Any], model: Any, **_: Any) -> None:
        requests = params["RequestItems"].values() if model.name == "BatchGetItem" else [params]
        reads.extend((model.name, bool(request.get("ConsistentRead"))) for request in requests)

    for operation in ("GetItem", "BatchGetItem", "Scan"):
        session.events.register(f"provide-client-params.dynamodb.{operation}", note)
    operator = _connected(session)
    operator.store.lock(CAROL, "a-dead-lock", time.time() - 3600)

    for argv in (
        ["status"],
        ["player", BOB],
        ["ceiling"],
        ["--yes", "unlock", CAROL],
        ["--yes", "outbox", "resend", sid],
    ):
        assert _admin(operator, *argv)[0] == 0, argv

    assert {operation for operation, _ in reads} == {"GetItem", "BatchGetItem", "Scan"}
    assert all(consistent for _, consistent in reads), reads


def test_status_reads_every_page_of_a_table_dynamodb_answers_in_pages(
    deployed: Any, twilio: LocalTwilioApi
) -> None:
    """DynamoDB answers a Scan a page (1 MB) at a time, with the key to go on from. Here every page
    holds one item: the stuck claim, the expired lease and the unsent replies are still all found."""
    sid = _a_reply_that_could_not_be_sent(twilio)
    session = boto3.session.Session()
    pages: list[tuple[str, str]] = []

    def one_item_per_page(params: dict[str, Any], **_: Any) -> None:
        params["Limit"] = 1
        page = (params["TableName"], json.dumps(params.get("ExclusiveStartKey"), sort_keys=True))
        assert page not in pages, f"the scan of {page[0]} asked for a page it had read"
        pages.append(page)

    session.events.register("provide-client-params.dynamodb.Scan", one_item_per_page)
    operator = _connected(session)
    now = time.time()
    operator.store.claim("SM" + "d" * 32, "a-dead-attempt", now - 3600)
    operator.store.lock(CAROL, "a-dead-lock", now - 3600)

    status = json.loads(_admin(operator, "status")[1])

    assert [row["key"] for row in status["claims_stuck_in_progress"]] == ["SM" + "d" * 32]
    assert [row["phone"] for row in status["leases_past_expiry"]] == [mask_phone(CAROL)]
    assert [row["key"] for row in status["replies_not_sent"]] == [sid]
    assert len(pages) > 2, "the two tables came a page at a time"
