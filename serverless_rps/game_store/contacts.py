"""Contact records: what the store keeps about a number, under a keyed hash of it.

Format (idempotency table, ``messageId = contact#<keyed hash of the number>``): ``reply_budget``
(for a phone with no player record), ``opted_in_at`` (when a phone with no player record was sent
the opt-in confirmation; an opt-out removes it), ``pending_replies`` (the keys of records whose
outbox still holds a reply to the number), ``recent_sids`` (the SIDs that records no longer
pending sent to it) and ``TTLEpochTimestamp``. The number itself is never stored there, nor a body.

Every commit that puts a reply to a number in an outbox adds the record's key to that number's
pending replies, in the same transaction; the last delivery takes it out and, in the same update,
adds the SIDs it sent to ``recent_sids``. So an opt-out finds every outbox that may still hold the
number (erasure.NumberErasure.erase_pending_replies), and a look before re-sending knows every
SID another record sent it (reconciliation.py).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from serverless_rps.game import Decision
from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import budget_from, budget_value, number
from serverless_rps.game_store.tables import TableNames, TransactItem
from serverless_rps.observability import logger
from serverless_rps.ports import LockedPlayer, OutboundSms
from serverless_rps.reply_budget import ReplyBudget

__all__ = [
    "CONTACT_PREFIX",
    "Contact",
    "ContactChange",
    "ContactRecords",
    "contact_changes",
    "contact_from_item",
]

CONTACT_PREFIX = "contact#"
# When the phone was sent the opt-in confirmation; an opt-out removes it.
_OPTED_IN = "opted_in_at"


@dataclass(frozen=True)
class Contact:
    """What a contact record says of a phone that has no player record."""

    budget: ReplyBudget | None
    opted_in: bool


def contact_from_item(item: Mapping[str, Any]) -> Contact:
    """A contact record's budget and opt-in, from its item (empty: no record)."""
    return Contact(budget_from(dict(item)), _OPTED_IN in item)


@dataclass
class ContactChange:
    """What one commit changes on one contact record."""

    budget: ReplyBudget | None = None
    budget_cleared: bool = False
    pending: bool = False
    opted_in: bool | None = None  # set (sent the opt-in confirmation) or erased (opted out)


def contact_changes(
    locked: Sequence[LockedPlayer],
    decision: Decision,
    outbox: Sequence[OutboundSms],
    budgets: Mapping[str, ReplyBudget],
) -> dict[str, ContactChange]:
    """The contact records a commit changes. A reply budget lives on the player record while there
    is one, and on the contact record while there is none (a stranger, or a player opting out);
    every recipient of a reply gets the record's key among its pending replies."""
    contacts: dict[str, ContactChange] = {}
    for held in locked:
        if held.shared is not None:
            continue
        after = decision.players.get(held.phone, held.player)
        budget = budgets.get(held.phone, held.budget)
        if after is None and budget is not None and (held.player is not None or held.phone in budgets):
            # No player record (a stranger, or one opting out): the budget lives on as a contact.
            contacts.setdefault(held.phone, ContactChange()).budget = budget
        elif after is not None and held.player is None and held.budget is not None:
            contacts.setdefault(held.phone, ContactChange()).budget_cleared = True  # the record has it
    for sms in outbox:
        contacts.setdefault(sms.to, ContactChange()).pending = True
    for phone, opted_in in decision.opt_in.items():
        contacts.setdefault(phone, ContactChange()).opted_in = opted_in
    return contacts


class ContactRecords:
    def __init__(
        self, dynamodb_client: Any, tables: TableNames, *, contact_key: bytes, completed_record_seconds: float
    ) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables
        self._contact_key = contact_key
        self._completed_lifetime = completed_record_seconds

    def contact_id(self, phone: str) -> str:
        """The contact record's key: a keyed hash, so the table never holds the number itself."""
        digest = hmac.new(self._contact_key, phone.encode(), hashlib.sha256).hexdigest()
        return CONTACT_PREFIX + digest

    def read(self, phone: str) -> Contact:
        """The reply budget and opt-in of a phone that has no player record."""
        with translated("read a contact"):
            response = self._dynamodb.get_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": self.contact_id(phone)}},
                ProjectionExpression="reply_budget, " + _OPTED_IN,
                ConsistentRead=True,
            )
        return contact_from_item(response.get("Item", {}))

    def pending_replies(self, phone: str) -> list[str]:
        """The keys of the records whose outbox may still hold a reply to this number."""
        with translated("read a contact"):
            response = self._dynamodb.get_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": self.contact_id(phone)}},
                ProjectionExpression="pending_replies",
                ConsistentRead=True,
            )
        return sorted(response.get("Item", {}).get("pending_replies", {}).get("SS", []))

    def replies_to(self, phone: str) -> tuple[list[str], set[str]]:
        """The number's pending replies and the SIDs its finished records sent it (`recent_sids`):
        together, every record that may have sent to it (reconciliation.py)."""
        with translated("read a contact"):
            response = self._dynamodb.get_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": self.contact_id(phone)}},
                ProjectionExpression="pending_replies, recent_sids",
                ConsistentRead=True,
            )
        item = response.get("Item", {})
        return sorted(item.get("pending_replies", {}).get("SS", [])), set(
            item.get("recent_sids", {}).get("SS", [])
        )

    def forget_pending(self, contact: str, keys: Sequence[str], sids: Sequence[str] = ()) -> None:
        """Drop records from a contact's pending replies, and in the same update keep the SIDs
        they sent to it (`recent_sids`, which expires with the contact record): what a look
        before re-sending excludes (reconciliation.py). Idempotent: both are sets, so doing it
        again (a redelivery finishing what a dead attempt began) changes nothing. Best effort: a
        key left behind names a record with nothing left to erase, whose delivered SIDs are read
        instead; it goes with the contact record's expiry."""
        values: dict[str, Any] = {":keys": {"SS": list(keys)}}
        expression = "DELETE pending_replies :keys"
        if sids:
            expression += " ADD recent_sids :sids"
            values[":sids"] = {"SS": sorted(set(sids))}
        try:
            self._dynamodb.update_item(
                TableName=self._tables.idempotency,
                Key={"messageId": {"S": contact}},
                UpdateExpression=expression,
                ConditionExpression="attribute_exists(messageId)",
                ExpressionAttributeValues=values,
            )
        except ClientError as exc:
            if not is_condition_failure(exc):
                logger.warning("could not update a contact's pending replies", extra={"error": repr(exc)})
        except BotoCoreError as exc:
            logger.warning("could not update a contact's pending replies", extra={"error": repr(exc)})

    def write(self, phone: str, change: ContactChange, key: str, now: float) -> TransactItem:
        """The commit's item for one contact record. It has no condition: nothing can refuse it."""
        # An Update, not a Put: the last delivery of another message may be taking its key out of
        # `pending_replies` at the same moment, and ADD/DELETE on a set do not overwrite each other.
        actions = ["SET TTLEpochTimestamp = :ttl"]
        values: dict[str, Any] = {":ttl": number(int(now + self._completed_lifetime))}
        removes = []
        if change.budget is not None:
            actions.append("reply_budget = :budget")
            values[":budget"] = budget_value(change.budget)
        elif change.budget_cleared:
            removes.append("reply_budget")
        if change.opted_in is True:
            actions.append(f"{_OPTED_IN} = :now")
            values[":now"] = number(now)
        elif change.opted_in is False:
            removes.append(_OPTED_IN)  # an opt-out: the next reply is an opt-in confirmation again
        expression = ", ".join(actions)
        if change.pending:
            expression += " ADD pending_replies :key"
            values[":key"] = {"SS": [key]}
        if removes:
            expression += " REMOVE " + ", ".join(removes)
        request = {
            "Update": {
                "TableName": self._tables.idempotency,
                "Key": {"messageId": {"S": self.contact_id(phone)}},
                "UpdateExpression": expression,
                "ExpressionAttributeValues": values,
            }
        }
        return TransactItem(request, if_refused=None)
