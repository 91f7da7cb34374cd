"""Proof records: a keyed trail of every opt-out, in a table of its own, kept for years.

Format (proof table, partition key ``number`` = HMAC-SHA-256 of the E.164 number under the proof
key, hex; sort key ``event``), two kinds of item, neither holding a number or a text:

* an opt-out, ``event = opt-out#<received at, epoch ms, 13 digits>#<message key>``: ``key`` (which
  proof key made ``number``), ``received_at``, ``erased_at``, ``rule``, ``wording``, ``language``,
  ``confirmation`` (its fate: ``pending`` until the outbox settles it), ``confirmation_sid`` and
  ``confirmation_at`` once settled, ``texted_again_at`` and ``texted_again_with`` once the number
  texts again, and ``TTLEpochTimestamp`` (the retention, four years by default);
* the number's status, ``event = status``: ``latest`` (the event of its latest opt-out),
  ``awaiting_text`` (true until the number texts again), ``key`` and ``TTLEpochTimestamp``: the one
  item read by a fixed key, so that a returning number is recognised in the read that already
  fetches its contact record (one BatchGetItem, no request more).

Every write is part of a commit (store.py): the opt-out record and the status with the erasure;
"texted again" with the first message of the number after it. Only the confirmation's fate is
written after the commit (`settle`), by the outbox once it knows it, conditioned on the fate
still being open, so that it is idempotent and never goes back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from botocore.exceptions import ClientError

from serverless_rps.game_store.contacts import Contact, ContactRecords, contact_from_item
from serverless_rps.game_store.errors import is_condition_failure, translated
from serverless_rps.game_store.items import BATCH_GET_LIMIT, number
from serverless_rps.game_store.tables import TransactItem
from serverless_rps.opt_out_proof import PENDING, UNKNOWN, Fate, ProofKeys, ProofOfMessage, ProofRef

__all__ = ["OPT_OUT_PREFIX", "STATUS", "ProofRecords", "ProofSettings", "opt_out_event"]

OPT_OUT_PREFIX = "opt-out#"
STATUS = "status"
_TTL = "TTLEpochTimestamp"


def opt_out_event(received_at: float, key: str) -> str:
    """An opt-out record's sort key: by arrival, then by message, so that a number's trail reads in
    the order its texts came and no later opt-out overwrites an earlier one."""
    return f"{OPT_OUT_PREFIX}{round(received_at * 1000):013d}#{key}"


class ProofSettings:
    """Where proof records go, under which keys, and for how long."""

    def __init__(self, table: str, keys: Callable[[], ProofKeys], retention_seconds: float) -> None:
        if retention_seconds <= 0:
            raise ValueError("a proof kept for no time is no proof: leave the proof settings out instead")
        self.table = table
        self.keys = keys
        self.retention_seconds = retention_seconds


class ProofRecords:
    def __init__(self, dynamodb_client: Any, settings: ProofSettings, idempotency_table: str) -> None:
        self._dynamodb = dynamodb_client
        self._settings = settings
        self._idempotency = idempotency_table

    @property
    def table(self) -> str:
        return self._settings.table

    def keys(self) -> ProofKeys:
        """The proof keys, read on first use (bootstrap.py: once per cold start)."""
        return self._settings.keys()

    # -- reads ---------------------------------------------------------------------------------

    def stranger(self, contacts: ContactRecords, phone: str) -> tuple[Contact, tuple[ProofRef, ...]]:
        """A phone with no player record: its contact record, and the opt-outs of it still waiting
        for it to text again (under any key version), in one BatchGetItem."""
        contact_id = contacts.contact_id(phone)
        # Newest first, and within one request's 100 keys (SSM keeps 100 versions: the oldest
        # one's opt-outs then go without "texted since"; `proof` still reads them).
        by_id = {key.number_id(phone): key for key in self.keys().all[: BATCH_GET_LIMIT - 1]}
        request: dict[str, Any] = {
            self._idempotency: {
                "Keys": [{"messageId": {"S": contact_id}}],
                "ProjectionExpression": "reply_budget, opted_in_at",
                "ConsistentRead": True,
            },
            self.table: {
                "Keys": [{"number": {"S": number_id}, "event": {"S": STATUS}} for number_id in by_id],
                "ConsistentRead": True,
            },
        }
        found: dict[str, list[dict[str, Any]]] = {self._idempotency: [], self.table: []}
        with translated("read a contact and its proof"):
            while request:
                response = self._dynamodb.batch_get_item(RequestItems=request)
                for table, items in response["Responses"].items():
                    found.setdefault(table, []).extend(items)
                request = response.get("UnprocessedKeys") or {}
        contact = contact_from_item(found[self._idempotency][0] if found[self._idempotency] else {})
        waiting = tuple(
            sorted(
                (
                    ProofRef(item["number"]["S"], item["latest"]["S"])
                    for item in found[self.table]
                    if item.get("awaiting_text", {}).get("BOOL") and "latest" in item
                ),
                key=lambda ref: (ref.number, ref.event),
            )
        )
        return contact, waiting

    def trail(self, phone: str, keys: Sequence[ProofKeys] = ()) -> list[dict[str, Any]]:
        """Every proof item of the number under every key given (the configured ones by default),
        as stored: the operator's `proof` reads them (admin/)."""
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        for versions in keys or (self.keys(),):
            for key in versions.all:
                number_id = key.number_id(phone)
                if number_id in seen:
                    continue
                seen.add(number_id)
                items += self._query(number_id)
        return items

    def _query(self, number_id: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        request: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "#number = :number",
            "ExpressionAttributeNames": {"#number": "number"},
            "ExpressionAttributeValues": {":number": {"S": number_id}},
            "ConsistentRead": True,
        }
        with translated("read a number's proof"):
            while True:
                response = self._dynamodb.query(**request)
                items += response.get("Items", [])
                if "LastEvaluatedKey" not in response:
                    return items
                request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    # -- the commit's items --------------------------------------------------------------------

    def writes(
        self,
        proof: ProofOfMessage,
        waiting: Sequence[ProofRef],
        key: str,
        now: float,
        confirmation_index: int | None,
    ) -> tuple[list[TransactItem], ProofRef | None]:
        """The commit's items: "texted again" on the opt-outs that waited for the number's next text
        (when this message is a text from it), and, for an opt-out, its record and the number's
        new status. None of them has a condition: nothing here can refuse a commit. Returns the
        items, and where the opt-out record is when its confirmation's fate is still to come."""
        items: list[TransactItem] = []
        ttl = number(int(now + self._settings.retention_seconds))
        new_status: str | None = None
        ref: ProofRef | None = None
        if proof.opt_out is not None:
            current = self.keys().current
            new_status = current.number_id(proof.sender)
            event = opt_out_event(proof.received_at, key)
            items += [self._opt_out(proof, current.label, new_status, event, now, ttl)]
            items += [self._status(new_status, current.label, event, ttl)]
            if proof.confirmation == PENDING:
                ref = ProofRef(new_status, event, confirmation_index)
        if proof.texted_with is not None:
            for opened in waiting:
                items.append(self._texted_again(opened, proof, ttl))
                if opened.number != new_status:  # a new status replaces it in the same commit
                    items.append(self._status_answered(opened.number, ttl))
        return items, ref

    def _opt_out(
        self, proof: ProofOfMessage, label: str, number_id: str, event: str, now: float, ttl: dict[str, str]
    ) -> TransactItem:
        reading = proof.opt_out
        assert reading is not None
        assert proof.confirmation is not None
        item: dict[str, Any] = {
            "number": {"S": number_id},
            "event": {"S": event},
            "key": {"S": label},
            "received_at": number(proof.received_at),
            "erased_at": number(now),
            "rule": {"S": reading.rule},
            "wording": {"S": reading.wording},
            "confirmation": {"S": proof.confirmation},
            _TTL: ttl,
        }
        if reading.language is not None:
            item["language"] = {"S": reading.language}
        return TransactItem({"Put": {"TableName": self.table, "Item": item}}, if_refused=None)

    def _status(self, number_id: str, label: str, event: str, ttl: dict[str, str]) -> TransactItem:
        item = {
            "number": {"S": number_id},
            "event": {"S": STATUS},
            "latest": {"S": event},
            "awaiting_text": {"BOOL": True},
            "key": {"S": label},
            _TTL: ttl,
        }
        return TransactItem({"Put": {"TableName": self.table, "Item": item}}, if_refused=None)

    def _texted_again(self, opened: ProofRef, proof: ProofOfMessage, ttl: dict[str, str]) -> TransactItem:
        # The first text after the opt-out: a later one never moves it (if_not_exists). A record the
        # TTL took meanwhile comes back as a stub holding these and expires in turn.
        assert proof.texted_with is not None
        request = {
            "Update": {
                "TableName": self.table,
                "Key": {"number": {"S": opened.number}, "event": {"S": opened.event}},
                "UpdateExpression": (
                    "SET texted_again_at = if_not_exists(texted_again_at, :at),"
                    " texted_again_with = if_not_exists(texted_again_with, :with),"
                    f" {_TTL} = if_not_exists({_TTL}, :ttl)"
                ),
                "ExpressionAttributeValues": {
                    ":at": number(proof.received_at),
                    ":with": {"S": proof.texted_with},
                    ":ttl": ttl,
                },
            }
        }
        return TransactItem(request, if_refused=None)

    def _status_answered(self, number_id: str, ttl: dict[str, str]) -> TransactItem:
        request = {
            "Update": {
                "TableName": self.table,
                "Key": {"number": {"S": number_id}, "event": {"S": STATUS}},
                "UpdateExpression": f"SET {_TTL} = if_not_exists({_TTL}, :ttl) REMOVE awaiting_text",
                "ExpressionAttributeValues": {":ttl": ttl},
            }
        }
        return TransactItem(request, if_refused=None)

    # -- after the commit ------------------------------------------------------------------------

    def settle(self, ref: ProofRef, fate: Fate, now: float) -> None:
        """The confirmation's fate, once the outbox knows it. Only an open fate (pending, or unknown
        when the attempt died before Twilio answered) is replaced: settling again changes nothing."""
        values: dict[str, Any] = {
            ":fate": {"S": fate.fate},
            ":at": number(now),
            ":pending": {"S": PENDING},
            ":unknown": {"S": UNKNOWN},
        }
        expression = "SET #confirmation = :fate, confirmation_at = :at"
        if fate.sid is not None:
            expression += ", confirmation_sid = :sid"
            values[":sid"] = {"S": fate.sid}
        with translated("settle an opt-out's proof"):
            try:
                self._dynamodb.update_item(
                    TableName=self.table,
                    Key={"number": {"S": ref.number}, "event": {"S": ref.event}},
                    UpdateExpression=expression,
                    ConditionExpression="attribute_exists(#event) AND #confirmation IN (:pending, :unknown)",
                    ExpressionAttributeNames={"#event": "event", "#confirmation": "confirmation"},
                    ExpressionAttributeValues=values,
                )
            except ClientError as exc:
                if not is_condition_failure(exc):
                    raise
                # Settled already (a redelivery settles again), or gone with its TTL: nothing to do.
