"""Which contact records a commit writes (game_store/contacts.py, `contact_changes`).

A phone's reply budget lives on its player record while it has one and on its contact record
while it has none; every recipient of a reply gets the record among its pending replies. The
commit hands over what it locked in lock order, but which contacts change must not depend on it.
"""

from __future__ import annotations

from serverless_rps.game import Decision
from serverless_rps.game_store.contacts import contact_changes
from serverless_rps.model import LOBBY_SHARDS, Lobby
from serverless_rps.ports import LockedPlayer, OutboundSms
from serverless_rps.reply_budget import ReplyBudget

STRANGER = "+15554440004"
BUDGET = ReplyBudget(level=3.0, updated_at=100.0)


def test_a_strangers_budget_goes_on_its_contact_record_whatever_is_locked_before_it() -> None:
    lobby = LockedPlayer(LOBBY_SHARDS[0], "attempt", 130.0, None, None, Lobby())
    stranger = LockedPlayer(STRANGER, "attempt", 130.0, None, None)
    reply = OutboundSms(STRANGER, "+15550100000", "Welcome")

    for locked in ([lobby, stranger], [stranger, lobby]):
        changes = contact_changes(locked, Decision(), [reply], {STRANGER: BUDGET})

        assert set(changes) == {STRANGER}, "the lobby is no phone: it has no contact record"
        assert changes[STRANGER].budget == BUDGET
        assert changes[STRANGER].pending
