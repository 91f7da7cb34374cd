"""The idempotency record as the commit leaves it (docs/protocol.md, "Idempotency"): what a
redelivery, the outbox lease and an operator reading the table rely on."""

from __future__ import annotations

import time
from typing import Any

import pytest

from serverless_rps.game import reply_only
from serverless_rps.ports import Claim, CompletedRecord, OutboundSms
from tests.conftest import ALICE, BOB, BOT_NUMBER, CAROL, COMPLETED_SECONDS, LEASE_SECONDS, TABLES, Game
from tests.protocol.crashes import Crash

SID = "SM" + "c" * 32


def _committed(game: Game, *recipients: str) -> CompletedRecord:
    """A committed outbox with one reply to each recipient, nothing sent yet: the sender's copy."""
    claim = game.store.claim(SID, "sender", time.time())
    assert isinstance(claim, Claim)
    outbox = [OutboundSms(phone, BOT_NUMBER, f"reply {n}") for n, phone in enumerate(recipients)]
    return game.store.commit(claim, [], reply_only(recipients[0], "reply 0"), outbox, {}, time.time())


def _stored(game: Game) -> dict[str, Any]:
    [record] = [item for item in game.items(TABLES.idempotency) if item["messageId"]["S"] == SID]
    return record


def _pending_replies(game: Game, phone: str) -> list[str]:
    key = game.store.contact_id(phone)
    [contact] = [item for item in game.items(TABLES.idempotency) if item["messageId"]["S"] == key]
    pending: list[str] = contact.get("pending_replies", {}).get("SS", [])
    return pending


def test_the_commit_leaves_a_completed_record_holding_its_outbox_and_the_senders_lease(game: Game) -> None:
    now = time.time()  # the clock is frozen: the claim and the commit happen now
    _committed(game, ALICE, BOB)

    record = _stored(game)
    numbers = {name: float(record.pop(name)["N"]) for name in ("completed_at", "TTLEpochTimestamp")}
    lease = record.pop("outbox_lease")["M"]
    assert numbers == {"completed_at": now, "TTLEpochTimestamp": int(now + COMPLETED_SECONDS)}
    assert lease["owner"] == {"S": "sender"}
    assert float(lease["expires_at"]["N"]) == now + LEASE_SECONDS
    assert record == {
        "messageId": {"S": SID},
        "status": {"S": "COMPLETED"},
        "attempt_id": {"S": "sender"},
        "outbox": {
            "L": [
                {"M": {"to": {"S": ALICE}, "from": {"S": BOT_NUMBER}, "body": {"S": "reply 0"}}},
                {"M": {"to": {"S": BOB}, "from": {"S": BOT_NUMBER}, "body": {"S": "reply 1"}}},
            ]
        },
        "delivered": {"M": {}},
        "delivery_status": {"M": {}},  # for Twilio's status callbacks (game_store/delivery_status.py)
    }


def test_the_delivery_after_which_nothing_is_left_closes_the_record_though_it_was_not_the_last(
    game: Game,
) -> None:
    """Carol opts out while alice's reply is being sent: her reply is erased. The sender's copy
    still lists it, but once alice's is recorded nothing is left to send, and the record is closed
    then: no number or text of the outbox stays behind, even if the sender dies next."""
    sender = _committed(game, ALICE, CAROL)
    game.store.outboxes.erase_number(CAROL)

    game.store.outboxes.record_delivery(sender, 0, "SM0")

    record = _stored(game)
    assert "outbox" not in record
    assert record["recipients"]["SS"] == [game.store.contact_id(ALICE)]
    assert SID not in _pending_replies(game, ALICE)


def test_a_redelivery_finishing_an_outbox_a_stop_already_closed_leaves_it_as_the_stop_did(
    game: Game,
) -> None:
    """Carol's reply is erased while the outbox is sent; the sender records bob's, after which
    nothing is left, and dies before closing the record. A redelivery reads it, then bob opts out:
    his STOP closes the record, naming only alice as a recipient. The redelivery's close, from its
    older copy, must not write bob back into the record."""
    sender = _committed(game, ALICE, BOB, CAROL)
    game.store.outboxes.erase_number(CAROL)
    game.store.outboxes.record_delivery(sender, 0, "SM0")

    def die_before_closing(params: dict[str, Any], **_: Any) -> None:
        if params.get("ConditionExpression") == "attribute_exists(outbox)":
            raise Crash("the sender died before closing the record")

    events = game.dynamodb.meta.events
    events.register("provide-client-params.dynamodb.UpdateItem", die_before_closing)
    try:
        with pytest.raises(Crash):
            game.store.outboxes.record_delivery(sender, 1, "SM1")
    finally:
        events.unregister("provide-client-params.dynamodb.UpdateItem", die_before_closing)
    redelivery = game.store.claim(SID, "redelivery", time.time())
    assert isinstance(redelivery, CompletedRecord)
    assert redelivery.outbox, "the outbox is still there"
    assert not redelivery.undelivered(), "with nothing left to send"

    game.store.outboxes.erase_number(BOB)
    game.store.outboxes.finish(redelivery)  # no error: the STOP closed it first

    record = _stored(game)
    assert "outbox" not in record
    assert record["recipients"]["SS"] == [game.store.contact_id(ALICE)]
    assert SID not in _pending_replies(game, ALICE)
    # Which reply went to whom stays known without the numbers: alice's recent SIDs are hers only.
    assert record["sent_to"]["M"] == {"0": {"S": game.store.contact_id(ALICE)}}


def test_a_stop_that_erases_every_reply_of_an_outbox_closes_it_with_no_recipient_left(game: Game) -> None:
    """Bob's own reply was still waiting when he opted out: nothing is left to send, and nobody
    remains whose pending replies a redelivery would have to tidy."""
    _committed(game, BOB)

    game.store.outboxes.erase_number(BOB)

    record = _stored(game)
    assert "outbox" not in record
    assert "recipients" not in record
    assert record["delivered"]["M"] == {"0": {"S": "erased"}}
    assert record["outbox_size"]["N"] == "1"


def test_once_its_replies_are_delivered_a_message_is_off_every_recipients_pending_replies(game: Game) -> None:
    """A recipient's contact record lists the outboxes that may still hold a reply to them, for
    their STOP to erase; a message whose replies all went out leaves no such entry behind."""
    sender = _committed(game, ALICE, BOB)
    assert SID in _pending_replies(game, ALICE)
    assert SID in _pending_replies(game, BOB)

    game.store.outboxes.record_delivery(sender, 0, "SM0")
    game.store.outboxes.record_delivery(sender, 1, "SM1")

    assert SID not in _pending_replies(game, ALICE)
    assert SID not in _pending_replies(game, BOB)
