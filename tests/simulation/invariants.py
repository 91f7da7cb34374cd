"""The promises (docs/promises.md) as checks on the tables and on what Twilio accepted.

Checked after every step (in `world`): a text's effect is committed at most once; every player
write is fenced by a live lock of the writer; no lock is taken while another's lease is live; an
SMS leaves only if its text committed it, and a second copy only after a death, failure or stall
between Twilio's acceptance and our record of it; nicknames and players agree after each commit.

Checked at quiescence (`final`): every text committed exactly once and all its replies sent (or
refused for good by Twilio, and recorded so); no claim left in progress and no lock left live;
and the state (players, nicknames, each text's replies) equals what *some* one-at-a-time order of
the texts produces: serializability, which is "exactly-once effect" and "atomic commit" together;
and a phone whose STOP was processed is in no item of any table (erasure).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from serverless_rps.game import is_shared_key
from serverless_rps.game_store import CEILING_PREFIX, CONTACT_PREFIX
from tests.conftest import TABLES

if TYPE_CHECKING:
    from tests.simulation.harness import Harness
    from tests.simulation.world import World

__all__ = ["Outcome", "Tables", "Violation", "consistency", "final", "message_sid", "observe", "outcome"]


@dataclass(frozen=True)
class Violation:
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass(frozen=True)
class Tables:
    players: dict[str, dict[str, Any]]  # phone -> item, for rows that hold a player
    bare_rows: dict[str, dict[str, Any]]  # rows a lock created for a phone with no player
    nicknames: dict[str, dict[str, Any]]
    records: dict[str, dict[str, Any]]  # idempotency key -> item
    contacts: dict[str, dict[str, Any]]  # contact records (keyed hashes), in the same table
    everything: tuple[dict[str, Any], ...]  # every item of every table


@dataclass(frozen=True)
class Outcome:
    """The state with everything an interleaving may legitimately change left out (times, ids)."""

    players: tuple[tuple[Any, ...], ...]
    nicknames: tuple[tuple[str, str, str], ...]
    replies: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    # The shared records (leaderboard lines, the lobby's entry), without ids and times.
    shared: tuple[tuple[Any, ...], ...] = ()

    def describe(self) -> str:
        lines = [f"  player {player}" for player in self.players]
        lines += [f"  nickname {row}" for row in self.nicknames]
        lines += [f"  shared {row}" for row in self.shared]
        lines += [f"  replies to {label}: {list(replies)}" for label, replies in self.replies]
        return "\n".join(lines)


def message_sid(label: str) -> str:
    """The Twilio MessageSid of a scenario's text (well-formed: SM and 32 hex digits)."""
    return "SM" + label.encode().hex().rjust(32, "0")


def observe(harness: Harness) -> Tables:
    scan = harness.items
    rows = scan(TABLES.game_state)
    nicknames = scan(TABLES.nickname)
    idempotency = scan(TABLES.idempotency)
    return Tables(
        players={row["phone_number"]["S"]: row for row in rows if "player_id" in row},
        bare_rows={row["phone_number"]["S"]: row for row in rows if "player_id" not in row},
        nicknames={row["nickname"]["S"]: row for row in nicknames},
        # Message records: not contact records, nor the day's SMS counters (they hold no number).
        records={
            row["messageId"]["S"]: row
            for row in idempotency
            if not row["messageId"]["S"].startswith((CONTACT_PREFIX, CEILING_PREFIX))
        },
        contacts={
            row["messageId"]["S"]: row
            for row in idempotency
            if row["messageId"]["S"].startswith(CONTACT_PREFIX)
        },
        everything=(*rows, *nicknames, *idempotency),
    )


def consistency(tables: Tables) -> list[Violation]:
    """Each nickname row names a player whose record names it back, and vice versa."""
    found = []
    for name, row in tables.nicknames.items():
        owner = tables.players.get(row["phone_number"]["S"])
        if owner is None or owner["nickname"]["S"] != name or owner["display_name"] != row["display_name"]:
            found.append(
                Violation("nickname-mismatch", f"nickname {name} points at {row['phone_number']['S']}")
            )
    for phone, player in tables.players.items():
        row = tables.nicknames.get(player["nickname"]["S"])
        if row is None or row["phone_number"]["S"] != phone:
            found.append(
                Violation("nickname-mismatch", f"{phone} is {player['nickname']['S']}, not in the table")
            )
    return found


def outcome(tables: Tables, labels: list[str], outboxes: dict[str, list[tuple[str, str, str]]]) -> Outcome:
    def live(phone: str, player_id: str) -> bool:
        other = tables.players.get(phone)
        return other is not None and other["player_id"]["S"] == player_id

    players = []
    for phone, item in sorted(tables.players.items()):
        games = tuple(
            sorted(
                (other, entry["M"]["move"]["S"], live(other, entry["M"]["opponent_player_id"]["S"]))
                for other, entry in item.get("games", {}).get("M", {}).items()
            )
        )
        challenges = tuple(
            sorted(
                (other, live(other, entry["M"]["challenger_player_id"]["S"]))
                for other, entry in item.get("challenges", {}).get("M", {}).items()
            )
        )
        score = tuple(int(item[name]["N"]) for name in ("wins", "losses", "ties", "streak"))
        flags = tuple(bool(item.get(name, {}).get("BOOL")) for name in ("ranked", "in_lobby"))
        players.append(
            (phone, item["nickname"]["S"], item["display_name"]["S"], score, games, challenges, flags)
        )
    nicknames = tuple(
        sorted(
            (name, row["display_name"]["S"], row["phone_number"]["S"])
            for name, row in tables.nicknames.items()
        )
    )
    replies = []
    for label in labels:
        # From what was committed: a record drops its outbox once every reply is delivered.
        sent = tuple((to, body) for to, _, body in outboxes.get(message_sid(label), []))
        replies.append((label, sent))
    shared = []
    for key, row in sorted(tables.bare_rows.items()):
        lines = tuple(
            (line["M"]["display_name"]["S"], int(line["M"]["wins"]["N"]), int(line["M"]["losses"]["N"]))
            for line in row.get("rankings", {}).get("L", [])
        )
        waiting = row.get("waiting", {}).get("M")
        entry = (waiting["phone_number"]["S"], waiting["move"]["S"]) if waiting else None
        # An empty shared record is the same state as a missing one: a lock that backed off
        # (a lobby throw that read a stale lobby) leaves the row it created.
        if is_shared_key(key) and (lines or entry):
            shared.append((key, lines, entry))
    return Outcome(tuple(players), nicknames, tuple(replies), tuple(shared))


def final(world: World) -> list[Violation]:
    tables = observe(world.harness)
    ledger = world.ledger
    found = consistency(tables)
    for label in world.scenario.labels:
        key = message_sid(label)
        record = tables.records.get(key)
        if record is None or record["status"]["S"] != "COMPLETED":
            found.append(Violation("not-completed", f"{label}'s claim is {record and record['status']['S']}"))
            continue
        if ledger.commits[key] != 1:
            found.append(Violation("not-committed-once", f"{label} committed {ledger.commits[key]} times"))
        delivered = record.get("delivered", {}).get("M", {})
        if record.get("outbox", {}).get("L"):
            found.append(Violation("outbox-kept", f"{label}'s record still holds its outbox at quiescence"))
        for index, (to, _, _) in enumerate(ledger.outboxes.get(key, [])):
            outcome_ = delivered.get(str(index), {}).get("S")
            if outcome_ is None:
                found.append(Violation("unrecorded-reply", f"reply {index} of {label} was never recorded"))
            elif outcome_ == "erased":
                if to not in world.stopped:
                    found.append(Violation("false-erasure", f"reply {index} of {label} erased; {to} kept"))
            elif outcome_.startswith("refused:"):
                if to not in ledger.refused:
                    found.append(Violation("false-refusal", f"reply {index} of {label} recorded {outcome_}"))
            elif ledger.sends[(key, index)] == 0:
                found.append(
                    Violation("lost-reply", f"reply {index} of {label} recorded as sent, never sent")
                )
    for phone, row in {**tables.players, **tables.bare_rows}.items():
        lock = row.get("user_locked", {}).get("M")
        if lock and float(lock["expiration_epoch_timestamp"]["N"]) > world.now:
            found.append(Violation("lock-left-held", f"{phone} is locked after every text was processed"))
    for key, record in tables.records.items():
        if record["status"]["S"] != "COMPLETED":
            found.append(Violation("claim-left-in-progress", f"record {key} is {record['status']['S']}"))
    for phone in sorted(world.stopped):
        holding = [item for item in tables.everything if phone in json.dumps(item)]
        if holding:
            found.append(Violation("not-erased", f"{phone} opted out and is still in {holding[0]}"))
    observed = outcome(tables, world.scenario.labels, ledger.outboxes)
    world.end_state = (observed, tuple(sorted(ledger.sends.items())))
    if world.expected is not None and not found and observed not in world.expected:
        found.append(Violation("not-serializable", "no one-at-a-time order gives:\n" + observed.describe()))
    return found
