"""Item formats: how the store's values are written as DynamoDB attribute values, and read back.

Here: the game-state rows (players, the leaderboard, the lobby, the lease) and what every record
shares (numbers, the reply budget, which a player row or a contact record holds). A message
record's own formats sit with it, in messages.py.

Every attribute name and shape is a documented table format (docs/protocol.md, "Table formats"),
pinned by tests/protocol/test_item_formats.py: the next version of the code reads what this one
wrote. Encoded by hand, so that each attribute is visible where it is written.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from serverless_rps.game import (
    LEADERBOARD_SHARDS,
    LOBBY_SHARDS,
    Challenge,
    LastOpponent,
    Leaderboard,
    Lobby,
    LobbyEntry,
    PendingThrow,
    Player,
    Ranking,
    SharedRecord,
    shared_record,
)
from serverless_rps.reply_budget import ReplyBudget
from serverless_rps.rules import Move

__all__ = [
    "BATCH_GET_LIMIT",
    "budget_from",
    "budget_value",
    "lock_value",
    "number",
    "player_from_item",
    "player_to_item",
    "shared_from_item",
    "shared_to_item",
]

# BatchGetItem takes at most 100 keys; a player has at most 20 + 50 counterparts (game.Limits).
BATCH_GET_LIMIT = 100


def number(value: float) -> dict[str, str]:
    return {"N": str(Decimal(str(round(value, 3))))}


def lock_value(lock_id: str, expires_at: float) -> dict[str, Any]:
    return {"M": {"lock_uuid": {"S": lock_id}, "expiration_epoch_timestamp": number(expires_at)}}


def budget_value(budget: ReplyBudget) -> dict[str, Any]:
    return {
        "M": {
            "level": number(budget.level),
            "updated_at": number(budget.updated_at),
            "notified": {"BOOL": budget.notified},
        }
    }


def budget_from(item: dict[str, Any]) -> ReplyBudget | None:
    stored = item.get("reply_budget", {}).get("M")
    if stored is None:
        return None
    return ReplyBudget(
        level=float(stored["level"]["N"]),
        updated_at=float(stored["updated_at"]["N"]),
        notified=bool(stored["notified"]["BOOL"]),
    )


def shared_to_item(key: str, record: SharedRecord) -> dict[str, Any]:
    if isinstance(record, Lobby):
        waiting = record.waiting
        item: dict[str, Any] = {"phone_number": {"S": key}}
        if waiting is not None:
            item["waiting"] = {
                "M": {
                    "phone_number": {"S": waiting.phone},
                    "player_id": {"S": waiting.player_id},
                    "display_name": {"S": waiting.display_name},
                    "move": {"S": waiting.move.value},
                    "expires_epoch_timestamp": number(waiting.expires_at),
                    "since": number(waiting.since),
                }
            }
        return item
    return {
        "phone_number": {"S": key},
        "rankings": {
            "L": [
                {
                    "M": {
                        "player_id": {"S": entry.player_id},
                        "display_name": {"S": entry.display_name},
                        "wins": number(entry.wins),
                        "losses": number(entry.losses),
                        "since": number(entry.since),
                    }
                }
                for entry in record.rankings
            ]
        },
    }


def shared_from_item(key: str, item: dict[str, Any]) -> SharedRecord:
    if key in LOBBY_SHARDS:
        waiting = item.get("waiting", {}).get("M")
        if waiting is None:
            return Lobby()
        return Lobby(
            LobbyEntry(
                waiting["phone_number"]["S"],
                waiting["player_id"]["S"],
                waiting["display_name"]["S"],
                Move(waiting["move"]["S"]),
                float(waiting["expires_epoch_timestamp"]["N"]),
                float(waiting["since"]["N"]),
            )
        )
    if key not in LEADERBOARD_SHARDS:
        return shared_record(key)  # raises for an unknown key
    return Leaderboard(
        tuple(
            Ranking(
                entry["M"]["player_id"]["S"],
                entry["M"]["display_name"]["S"],
                int(Decimal(entry["M"]["wins"]["N"])),
                int(Decimal(entry["M"]["losses"]["N"])),
                float(entry["M"]["since"]["N"]),
            )
            for entry in item.get("rankings", {}).get("L", [])
        )
    )


def player_to_item(player: Player) -> dict[str, Any]:
    return {
        "phone_number": {"S": player.phone},
        "player_id": {"S": player.player_id},
        "nickname": {"S": player.nickname},
        "display_name": {"S": player.display_name},
        "games": {
            "M": {
                phone: {
                    "M": {
                        "move": {"S": entry.move.value},
                        "opponent_player_id": {"S": entry.opponent_player_id},
                        "expires_epoch_timestamp": number(entry.expires_at),
                    }
                }
                for phone, entry in player.games.items()
            }
        },
        "challenges": {
            "M": {
                phone: {
                    "M": {
                        "challenger_player_id": {"S": entry.challenger_player_id},
                        "expires_epoch_timestamp": number(entry.expires_at),
                    }
                }
                for phone, entry in player.challenges.items()
            }
        },
        "wins": number(player.wins),
        "losses": number(player.losses),
        "ties": number(player.ties),
        "streak": number(player.streak),
        **({"ranked": {"BOOL": True}} if player.ranked else {}),
        **({"in_lobby": {"BOOL": True}} if player.in_lobby else {}),
        **(
            {
                "last_opponent": {
                    "M": {
                        "nickname": {"S": player.last_opponent.nickname},
                        "display_name": {"S": player.last_opponent.display_name},
                        "player_id": {"S": player.last_opponent.player_id},
                    }
                }
            }
            if player.last_opponent is not None
            else {}
        ),
    }


def player_from_item(item: dict[str, Any]) -> Player | None:
    if "player_id" not in item:
        return None  # a bare row created by a lock on a phone that has no player
    games = {
        phone: PendingThrow(
            Move(entry["M"]["move"]["S"]),
            entry["M"]["opponent_player_id"]["S"],
            float(entry["M"]["expires_epoch_timestamp"]["N"]),
        )
        for phone, entry in item.get("games", {}).get("M", {}).items()
    }
    challenges = {
        phone: Challenge(
            entry["M"]["challenger_player_id"]["S"], float(entry["M"]["expires_epoch_timestamp"]["N"])
        )
        for phone, entry in item.get("challenges", {}).get("M", {}).items()
    }
    last = item.get("last_opponent", {}).get("M")
    return Player(
        phone=item["phone_number"]["S"],
        player_id=item["player_id"]["S"],
        nickname=item["nickname"]["S"],
        display_name=item["display_name"]["S"],
        games=games,
        challenges=challenges,
        wins=int(Decimal(item.get("wins", {}).get("N", "0"))),
        losses=int(Decimal(item.get("losses", {}).get("N", "0"))),
        ties=int(Decimal(item.get("ties", {}).get("N", "0"))),
        streak=int(Decimal(item.get("streak", {}).get("N", "0"))),
        ranked=bool(item.get("ranked", {}).get("BOOL", False)),
        in_lobby=bool(item.get("in_lobby", {}).get("BOOL", False)),
        last_opponent=(
            LastOpponent(last["nickname"]["S"], last["display_name"]["S"], last["player_id"]["S"])
            if last is not None
            else None
        ),
    )
