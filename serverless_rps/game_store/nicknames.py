"""Nickname rows: who owns a name.

Format (Nickname table, key ``nickname``, the name's look-alike skeleton): ``display_name``,
``phone_number``. Uniqueness is the table's: a name is claimed by a conditional write in the
commit, so two players claiming one name at once cannot both get it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from serverless_rps.exceptions import StaleRead
from serverless_rps.game import Decision, NicknameHolder, Player
from serverless_rps.game_store.errors import translated
from serverless_rps.game_store.tables import TableNames, TransactItem
from serverless_rps.ports import LockedPlayer

__all__ = ["NicknameRows", "nickname_moved"]


def nickname_moved() -> StaleRead:
    """What a refused nickname item means: the decision read a nickname that has changed hands."""
    return StaleRead("a nickname changed hands after it was read")


class NicknameRows:
    def __init__(self, dynamodb_client: Any, tables: TableNames) -> None:
        self._dynamodb = dynamodb_client
        self._tables = tables

    def holder(self, nickname: str) -> NicknameHolder | None:
        """Whose the name is, and their spelling of it (a look-alike shares the row)."""
        with translated("look up a nickname"):
            response = self._dynamodb.get_item(
                TableName=self._tables.nickname, Key={"nickname": {"S": nickname}}, ConsistentRead=True
            )
        item = response.get("Item")
        return NicknameHolder(item["phone_number"]["S"], item["display_name"]["S"]) if item else None

    def writes(self, locked: Sequence[LockedPlayer], decision: Decision) -> list[TransactItem]:
        """The commit's nickname items: the name claimed, then the name given up."""
        items = []
        if decision.claim_nickname is not None:
            items.append(self._claim(decision.claim_nickname))
        if decision.release_nickname is not None:
            items.append(self._release(decision.release_nickname, _holder(locked, decision)))
        return items

    def _claim(self, player: Player) -> TransactItem:
        # Uniqueness ignoring case and look-alikes: the key is the name's skeleton; the row may be rewritten
        # only by its owner (to change the display case).
        request = {
            "Put": {
                "TableName": self._tables.nickname,
                "Item": {
                    "nickname": {"S": player.nickname},
                    "display_name": {"S": player.display_name},
                    "phone_number": {"S": player.phone},
                },
                "ConditionExpression": "attribute_not_exists(nickname) OR phone_number = :me",
                "ExpressionAttributeValues": {":me": {"S": player.phone}},
            }
        }
        return TransactItem(request, if_refused=nickname_moved)

    def _release(self, nickname: str, owner: str) -> TransactItem:
        request = {
            "Delete": {
                "TableName": self._tables.nickname,
                "Key": {"nickname": {"S": nickname}},
                "ConditionExpression": "phone_number = :me",
                "ExpressionAttributeValues": {":me": {"S": owner}},
            }
        }
        return TransactItem(request, if_refused=nickname_moved)


def _holder(locked: Sequence[LockedPlayer], decision: Decision) -> str:
    """The phone giving up a nickname: the one locked player that held it."""
    for held in locked:
        if held.player is not None and held.player.nickname == decision.release_nickname:
            return held.phone
    raise ValueError("a nickname can be released only by its locked owner")
