"""The soak's verdict: every promise (docs/promises.md) checked against what was recorded.

Pure: it reads a `SoakRecord` (final tables, every SMS the local Twilio API accepted, the workers'
event logs, what the harness sent) and returns violations and figures. tests/chaos also feeds it
made-up records with a planted fault, to show it can fail.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from serverless_rps import replies
from serverless_rps.catalogue import CATALOGUES, Catalogue
from serverless_rps.game import is_shared_key
from serverless_rps.parsing import OptOut, parse
from serverless_rps.ports import ERASED
from serverless_rps.rules import Move, Outcome
from serverless_rps.rules import play as play_outcome
from serverless_rps.twilio_errors import REFUSED_FOR_GOOD

__all__ = ["Inbound", "SoakRecord", "Verdict", "check"]


@dataclass(frozen=True)
class Inbound:
    sid: str
    phone: str
    body: str
    kind: str
    posted_at: float
    accepted: bool = True


@dataclass
class SoakRecord:
    inbound: dict[str, Inbound]
    poison_bodies: list[str]
    # messageId -> {"status", "outbox": [(to, from, body)], "delivered": {index: outcome}}
    idempotency: dict[str, dict[str, Any]]
    # phone -> the raw DynamoDB item of the GameState table
    players: dict[str, dict[str, Any]]
    # lowercase nickname -> phone
    nicknames: dict[str, str]
    # every SMS the local Twilio API accepted: sid, to, from, body, at (monotonic)
    sms: list[dict[str, Any]]
    worker_events: list[dict[str, Any]]
    dead_letters: list[dict[str, Any]]
    stable_phones: set[str]
    lock_lease_seconds: float
    checked_at_epoch: float
    # The idempotency table as it was when the queue had drained, before the very late duplicates.
    idempotency_at_drain: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The SMS accepted while (and after) very late duplicates of completed messages were posted.
    sms_after_very_late_duplicates: list[dict[str, Any]] = field(default_factory=list)
    harness_events: dict[str, int] = field(default_factory=dict)
    liveness_delays: list[float] = field(default_factory=list)
    liveness_bound_seconds: float = 0.0
    liveness_missing: list[str] = field(default_factory=list)
    # The most duplicate SMS allowed, as a share of the SMS accepted (the long soak's 0.1%); None:
    # only the bound the run's own window openings set.
    duplicate_share_limit: float | None = None


@dataclass
class Verdict:
    violations: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.violations


def _common_prefix(first: str, second: str) -> str:
    length = 0
    while length < min(len(first), len(second)) and first[length] == second[length]:
        length += 1
    return first[:length]


def _all_prefix(texts: list[str]) -> str:
    prefix = texts[0]
    for text in texts[1:]:
        prefix = _common_prefix(prefix, text)
    return prefix


def _headlines(say: Catalogue) -> dict[Outcome, str]:
    """What every result of an outcome begins with, whatever the moves and names."""
    return {
        outcome: _all_prefix(
            [
                say.result(outcome, mine, theirs, name)
                for mine, theirs in itertools.product(Move, Move)
                for name in ("aaa", "bbb")
                if play_outcome(mine, theirs) is outcome
            ]
        )
        for outcome in Outcome
    }


# In either language: a player's replies are in theirs (a soak player who texts a Spanish command
# reads Spanish from then on), so each mark is looked for as both catalogues write it.
_HEADLINES = [_headlines(say) for say in CATALOGUES.values()]
_WAITING_PREFIXES = tuple(
    _all_prefix([say.throw_waiting(name, move) for move in Move for name in ("aaa", "bbb")])
    for say in CATALOGUES.values()
)
_CHALLENGED_MARKS = tuple(say.challenged("zzz").split("zzz", 1)[1][:30] for say in CATALOGUES.values())


# A game played through the lobby (a throw with no nickname) names the stranger first, then reads
# as any result.
_LOBBY_PREFIXES = tuple(
    say.lobby_result(Outcome.TIE, Move.ROCK, Move.ROCK, "zzz").split("zzz", 1)[0]
    for say in CATALOGUES.values()
)


def _is_lobby_result(body: str) -> bool:
    return body.startswith(_LOBBY_PREFIXES)


def _result_outcome(body: str) -> Outcome | None:
    lobby = next((prefix for prefix in _LOBBY_PREFIXES if body.startswith(prefix)), None)
    if lobby is not None:
        # Nicknames hold no ". ", so the result begins after the first one.
        body = body[len(lobby) :].split(". ", 1)[-1]
    for headlines in _HEADLINES:
        for outcome, headline in headlines.items():
            if headline and body.startswith(headline):
                return outcome
    return None


def check(record: SoakRecord) -> Verdict:
    verdict = Verdict()
    # The MessageSid of every message on the dead-letter queue (None for poison).
    dead_sids = {_sid_of(message.get("body", "")) for message in record.dead_letters}
    _check_messages(record, dead_sids, verdict)
    _check_deliveries_and_duplicates(record, verdict)
    _check_drained(record, dead_sids, verdict)
    _check_exactly_once(record, verdict)
    _check_locks_and_nicknames(record, verdict)
    _check_fencing(record, verdict)
    _check_poison(record, verdict)
    _check_liveness(record, verdict)
    return verdict


def _check_messages(record: SoakRecord, dead_sids: set[str | None], verdict: Verdict) -> None:
    lost: list[str] = []
    dead_lettered: list[str] = []
    for sid, inbound in record.inbound.items():
        if not inbound.accepted:
            continue
        status = record.idempotency.get(sid, {}).get("status")
        if status == "COMPLETED":
            continue
        (dead_lettered if sid in dead_sids else lost).append(sid)
    for sid in lost:
        verdict.violations.append(
            f"message {sid} was accepted by the webhook but never completed (not in the DLQ)"
        )
    in_progress = [key for key, item in record.idempotency.items() if item["status"] != "COMPLETED"]
    for key in in_progress:
        if key not in dead_sids:
            verdict.violations.append(
                f"idempotency record {key} is still {record.idempotency[key]['status']}"
            )
    verdict.figures["messages (distinct MessageSids)"] = len(record.inbound)
    verdict.figures["messages completed"] = sum(
        1 for sid in record.inbound if record.idempotency.get(sid, {}).get("status") == "COMPLETED"
    )
    verdict.figures["non-poison messages dead-lettered after maxReceiveCount"] = len(dead_lettered)


def _sid_of(body: str) -> str | None:
    import json

    try:
        fields = json.loads(body)
    except (TypeError, ValueError):
        return None
    return fields.get("MessageSid") if isinstance(fields, dict) else None


def _check_deliveries_and_duplicates(record: SoakRecord, verdict: Verdict) -> None:
    by_sid = {sms["sid"]: sms for sms in record.sms}
    recorded: dict[str, tuple[str, int]] = {}
    refused = 0
    opted_out = {
        inbound.phone for inbound in record.inbound.values() if isinstance(parse(inbound.body), OptOut)
    }
    for key, item in record.idempotency.items():
        if item["status"] != "COMPLETED":
            continue
        for index, (to, _, body) in enumerate(item["outbox"]):
            outcome = item["delivered"].get(index)
            if outcome is None:
                verdict.violations.append(f"reply {index} of {key} was committed but never recorded as sent")
            elif outcome == ERASED:
                # Erased by an opt-out before it was sent: only a phone that texted STOP. The
                # erasure blanks the entry's number too; when no log of the commit kept it (its
                # worker died right after), the reply was to a phone of the message: its sender or
                # another of its recipients, one of whom must have opted out.
                phones = {to} if to != ERASED else _phones_of(record, key, item)
                if not phones & opted_out:
                    verdict.violations.append(
                        f"reply {index} of {key} was erased, but "
                        f"{', '.join(sorted(phone[-4:] for phone in phones))} never opted out"
                    )
            elif outcome.startswith("refused:"):
                refused += 1
                code = outcome.split(":", 1)[1]
                if not code.isdigit() or int(code) not in REFUSED_FOR_GOOD:
                    verdict.violations.append(
                        f"reply {index} of {key} refused with a non-permanent code {code}"
                    )
            else:
                sms = by_sid.get(outcome)
                if sms is None or sms["to"] != to or sms["body"] != body:
                    verdict.violations.append(
                        f"reply {index} of {key} is recorded as {outcome}, not an accepted SMS"
                    )
                if outcome in recorded:
                    # Looking before re-sending took another reply's SMS for this one: one of the
                    # two was never sent.
                    verdict.violations.append(
                        f"reply {index} of {key} and reply {recorded[outcome][1]} of {recorded[outcome][0]} "
                        f"are both recorded as {outcome}: one of them was never sent"
                    )
                recorded[outcome] = (key, index)

    sent_events = {event["sid"]: event for event in record.worker_events if event["e"] == "sent"}
    # Each POST an attempt began, so that an SMS whose worker never got Twilio's answer still names it.
    began: dict[tuple[str, str, str], list[tuple[float, int]]] = defaultdict(list)
    for event in record.worker_events:
        if event["e"] == "sending":
            began[(event["key"], event["to"], event["body"])].append((event["started"], event["pid"]))
    # When each attempt read Twilio's Messages list to a recipient, before re-sending (by pid, key, to).
    looks: dict[tuple[int, str, str], list[float]] = defaultdict(list)
    for event in record.worker_events:
        if event["e"] == "looked":
            looks[(event["pid"], event["key"], event["to"])].append(event["started"])
    recorded_at: dict[str, float] = {}
    decisions: dict[tuple[int, str], list[float]] = defaultdict(list)
    for event in record.worker_events:
        if event["e"] == "recorded" and event.get("ok"):
            recorded_at.setdefault(event["outcome"], event["t"])
        elif event["e"] == "claim" or (event["e"] == "lease" and event.get("ok")):
            # What an attempt sends is decided on the record as read at its claim, or, for a
            # copy that had to wait for the outbox, as read when it took the outbox lease.
            decisions[(event["pid"], event["key"])].append(event["t"])
    outbox_entries: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for key, item in record.idempotency.items():
        for index, (to, _, body) in enumerate(item.get("outbox", [])):
            outbox_entries[(to, body)].append((key, index))

    # Every accepted SMS belongs to one outbox entry: by its worker's log, by the final record, or
    # (the worker never got Twilio's answer) by its recipient and text.
    sends: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for sms in record.sms:
        entry: tuple[str, int] | None = recorded.get(sms["sid"])
        sent = sent_events.get(sms["sid"])
        candidates = outbox_entries.get((sms["to"], sms["body"]), [])
        if entry is None and sent is not None:
            entry = next(((key, index) for key, index in candidates if key == sent["key"]), None)
        if entry is None and candidates:
            entry = candidates[0]
        if entry is None:
            verdict.violations.append(f"SMS {sms['sid']} to {sms['to'][-4:]} is in no committed outbox")
            continue
        pid = sent["pid"] if sent is not None else _began_by(began, entry[0], sms)
        decided = None
        if pid is not None:
            until = sent["t"] if sent is not None else sms["at"]
            times = [t for t in decisions.get((pid, entry[0]), []) if t <= until]
            decided = max(times) if times else None
        sends[entry].append(
            {
                **sms,
                "decided": decided,
                "pid": pid,
                "recorded_at": recorded_at.get(sms["sid"], math.inf),
            }
        )

    explanations: Counter[str] = Counter()
    in_the_window = _left_in_the_window(record, sent_events, decisions)
    duplicates, bound = 0, 0
    for entry, entry_sends in sends.items():
        entry_sends.sort(key=lambda send: send["at"])
        # The bound: a reply goes out once more only for a send of it left in the window, never
        # more often. Counted per reply, so that windows elsewhere excuse no duplicate here.
        opened = sum(1 for send in entry_sends if send["sid"] in in_the_window)
        duplicates += len(entry_sends) - 1
        bound += opened
        if len(entry_sends) - 1 > opened:
            verdict.violations.append(
                f"reply {entry[1]} of {entry[0]} went out {len(entry_sends)} times with {opened} "
                "send(s) left in the window (accepted, and unrecorded by its sender when another "
                f"attempt could send it): {len(entry_sends) - 1 - opened} duplicate(s) from elsewhere"
            )
        for earlier, later in itertools.pairwise(entry_sends):
            # A second send is allowed only if, when its sender decided to send, the earlier send
            # was still inside the window: accepted by Twilio but not yet recorded.
            # Whether the second sender read Twilio's list before its send, and when it last did.
            looked = [t for t in looks.get((later["pid"], entry[0], later["to"]), []) if t <= later["at"]]
            if looked and earlier["at"] > max(looked):
                explanations["the earlier send reached Twilio after the resender read the Messages list"] += 1
            elif looked:
                explanations["the Messages list showed the earlier send; the resender did not match it"] += 1
            elif later["decided"] is None:
                explanations[
                    "Twilio accepted it; the worker never got the answer (killed, or response stalled)"
                ] += 1
            elif earlier["recorded_at"] == math.inf:
                explanations[
                    "the earlier send was never recorded (worker killed or failed after Twilio's answer)"
                ] += 1
            elif later["decided"] < earlier["recorded_at"]:
                explanations[
                    "the earlier send was recorded only after the second sender read the record"
                ] += 1
            else:
                verdict.violations.append(
                    f"reply {entry[1]} of {entry[0]} was sent again ({later['sid']}) after "
                    f"{earlier['sid']} was "
                    "recorded: a re-send outside the documented window"
                )
    verdict.figures["SMS accepted by the local Twilio API"] = len(record.sms)
    verdict.figures["replies refused for good (recorded, not retried)"] = refused
    verdict.figures["duplicate SMS observed"] = sum(explanations.values())
    for explanation, count in explanations.items():
        verdict.figures[f"  duplicates: {explanation}"] = count
    verdict.figures["sends left in the duplicate window (the most duplicates there may be)"] = bound
    limit = record.duplicate_share_limit
    if limit is not None and duplicates > limit * len(record.sms):
        verdict.violations.append(
            f"{duplicates} duplicate SMS of {len(record.sms)} accepted ({duplicates / len(record.sms):.2%}): "
            f"more than {limit:.1%}"
        )
    for sms in record.sms:
        if not replies.is_single_segment(sms["body"]):
            verdict.violations.append(f"SMS {sms['sid']} does not fit one GSM-7 segment: {sms['body']!r}")
    for sms in record.sms_after_very_late_duplicates:
        entries = outbox_entries.get((sms["to"], sms["body"]), [])
        owners = [f"reply {index} of {key}" for key, index in entries]
        verdict.violations.append(
            f"a very late duplicate made SMS {sms['sid']} to ...{sms['to'][-4:]} {sms['body'][:40]!r} "
            f"({' or '.join(owners) or 'in no outbox'}); a completed message must make none"
        )


def _left_in_the_window(
    record: SoakRecord,
    sent_events: dict[str, dict[str, Any]],
    decisions: dict[tuple[int, str], list[float]],
) -> set[str]:
    """The SIDs of the accepted SMS that stood in the duplicate window, between Twilio accepting a
    reply and our recording it, long enough for another attempt to send it again:

    - no worker got Twilio's answer (killed mid-request, or the answer was lost);
    - its sender never recorded it, and sent nothing more for that message in that attempt: it was
      killed right after, or its write failed (a sender that goes on to send again did neither);
    - its sender recorded it only after another attempt had taken that outbox over (a stall, or a
      slow write, past the lease).

    Only such a send may go out again, and at most once more: the copy that sends it again holds
    the outbox and records it before letting go, or is itself left in the window."""
    recorded_by: dict[tuple[int, str], float] = {}
    leased: dict[str, list[tuple[int, float]]] = defaultdict(list)
    # An attempt is a worker's events from one claim to its next: (pid, attempt, key) -> last SID sent.
    attempts: Counter[int] = Counter()
    last_sent: dict[tuple[int, int, str], str] = {}
    for event in sorted(record.worker_events, key=lambda event: (event["pid"], event["t"])):
        if event["e"] == "claim":
            attempts[event["pid"]] += 1
        elif event["e"] == "sent":
            last_sent[(event["pid"], attempts[event["pid"]], event["key"])] = event["sid"]
        elif event["e"] == "recorded" and event.get("ok"):
            recorded_by.setdefault((event["pid"], event["outcome"]), event["t"])
        elif event["e"] == "lease" and event.get("ok"):
            leased[event["key"]].append((event["pid"], event["t"]))
    ended_with = set(last_sent.values())
    left: set[str] = set()
    for sms in record.sms:
        sent = sent_events.get(sms["sid"])
        if sent is None:
            left.add(sms["sid"])
            continue
        pid, key = sent["pid"], sent["key"]
        recorded = recorded_by.get((pid, sms["sid"]))
        if recorded is None:
            if sms["sid"] in ended_with:
                left.add(sms["sid"])
            continue
        decided = max((t for t in decisions.get((pid, key), []) if t <= sent["t"]), default=-math.inf)
        if any(other != pid and decided < t < recorded for other, t in leased[key]):
            left.add(sms["sid"])
    return left


def _check_drained(record: SoakRecord, dead_sids: set[str | None], verdict: Verdict) -> None:
    """With the queue empty, nothing is left to send a committed reply: it must be sent already."""
    for key, item in record.idempotency_at_drain.items():
        if item["status"] != "COMPLETED":
            continue
        for index in range(len(item["outbox"])):
            if index not in item["delivered"]:
                where = "its message is on the dead-letter queue" if key in dead_sids else "no copy is queued"
                verdict.violations.append(
                    f"reply {index} of {key} was committed but still unsent when the queue drained ({where})"
                )


def _number(item: dict[str, Any], name: str) -> int:
    return int(float(item.get(name, {}).get("N", "0")))


def _check_exactly_once(record: SoakRecord, verdict: Verdict) -> None:
    results: dict[str, Counter[Outcome]] = defaultdict(Counter)
    waiting: Counter[frozenset[str]] = Counter()
    resolved: Counter[frozenset[str]] = Counter()
    lobby_games = 0
    for item in record.idempotency.values():
        if item["status"] != "COMPLETED":
            continue
        outcomes = [(to, _result_outcome(body)) for to, _, body in item["outbox"]]
        scored = [(to, outcome) for to, outcome in outcomes if outcome is not None]
        for to, outcome in scored:
            results[to][outcome] += 1
        phones = frozenset(to for to, _, _ in item["outbox"])
        bodies = [body for _, _, body in item["outbox"]]
        if len(scored) == 2 and len(phones) == 2:
            # A lobby game pairs whoever waited: no named throw waited for it, so it is checked
            # through the players' scores only (each result once), not against a pair's throws.
            if any(_is_lobby_result(body) for body in bodies):
                lobby_games += 1
            else:
                resolved[phones] += 1
        if any(body.startswith(_WAITING_PREFIXES) for body in bodies) and any(
            mark in body for body in bodies for mark in _CHALLENGED_MARKS
        ):
            waiting[phones] += 1
    stable = record.stable_phones
    for phone in stable:
        player = record.players.get(phone)
        if player is None or "player_id" not in player:
            continue
        expected = results.get(phone, Counter())
        found = (_number(player, "wins"), _number(player, "losses"), _number(player, "ties"))
        wanted = (expected[Outcome.WIN], expected[Outcome.LOSS], expected[Outcome.TIE])
        if found != wanted:
            verdict.violations.append(
                f"player {phone[-4:]} has wins/losses/ties {found} but was sent results {wanted}"
            )
    games_resolved = 0
    for pair in set(waiting) | set(resolved):
        if not pair <= stable:
            continue
        first, second = sorted(pair)
        pending = int(_has_game(record.players.get(first), second)) + int(
            _has_game(record.players.get(second), first)
        )
        games_resolved += resolved[pair]
        if waiting[pair] != resolved[pair] + pending:
            verdict.violations.append(
                f"pair {first[-4:]}/{second[-4:]}: {waiting[pair]} throws waited, "
                f"{resolved[pair]} games resolved, "
                f"{pending} still pending"
            )
    verdict.figures["games resolved (all players)"] = sum(resolved.values())
    verdict.figures["games played through the lobby"] = lobby_games
    verdict.figures["games resolved between stable players (checked exactly once)"] = games_resolved


def _has_game(item: dict[str, Any] | None, opponent: str) -> bool:
    return bool(item) and opponent in item.get("games", {}).get("M", {})  # type: ignore[union-attr]


def _check_locks_and_nicknames(record: SoakRecord, verdict: Verdict) -> None:
    left, bare = 0, 0
    for phone, item in record.players.items():
        lock = item.get("user_locked")
        if lock is not None:
            expires = float(lock["M"]["expiration_epoch_timestamp"]["N"])
            if expires > record.checked_at_epoch:
                verdict.violations.append(f"player {phone[-4:]} is still locked at the end")
            left += 1
        if "player_id" not in item:
            # The leaderboard and the lobby are shared records, not rows a killed worker left for a
            # phone with no player.
            bare += 0 if is_shared_key(phone) else 1
            continue
        nickname = item["nickname"]["S"]
        if record.nicknames.get(nickname) != phone:
            verdict.violations.append(
                f"player {phone[-4:]} is {nickname!r} but the nickname row says otherwise"
            )
    for nickname, phone in record.nicknames.items():
        owner = record.players.get(phone)
        if owner is None or owner.get("nickname", {}).get("S") != nickname:
            verdict.violations.append(f"nickname {nickname!r} points at {phone[-4:]}, who is not called that")
    verdict.figures["expired locks left by killed workers (taken over on next use)"] = left
    verdict.figures["bare rows left by killed workers (a lock on a phone with no player)"] = bare
    verdict.figures["players at the end"] = sum(1 for item in record.players.values() if "player_id" in item)
    # A player who texted the Spanish junk throw reads Spanish: the figure says the soak's checks
    # ran over Spanish replies too.
    verdict.figures["players texted in Spanish at the end"] = sum(
        1
        for item in record.players.values()
        if "player_id" in item and item.get("language", {}).get("S") == "es"
    )


def _check_fencing(record: SoakRecord, verdict: Verdict) -> None:
    """Promise 5, read off the workers' own requests. Each commit is judged by the leases its
    attempt holds when it commits: the latest lock of each record it writes (an attempt that met a
    stale read gives its leases back and locks again, with fresh leases). A commit that DynamoDB
    accepted must have been sent with a `:now` before the expiry of each of those; and a writer
    stalled past a lease it still holds (by the wall clock the engine uses) must have had its
    commit refused."""
    by_pid: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in record.worker_events:
        by_pid[event["pid"]].append(event)
    fenced, slow_clock = 0, 0
    for events in by_pid.values():
        events.sort(key=lambda event: event["t"])
        held: dict[str, float] = {}  # phone (or shared record) -> expiry of the lease held on it
        stale: set[str] = set()  # held leases that a stall outlived
        for event in events:
            if event["e"] == "claim":
                held, stale = {}, set()
            elif event["e"] == "lock" and event.get("ok") and event.get("expires"):
                phone = event.get("phone", f"lock {len(held)}")
                held[phone] = float(event["expires"]["N"])
                stale.discard(phone)
            elif event["e"] == "release" and event.get("ok"):
                held.pop(event["phone"], None)
                stale.discard(event["phone"])
            elif event["e"] == "woke" and event.get("point") == "after_lock" and held:
                outlived = {phone for phone, expires in held.items() if event["wall"] > expires}
                if outlived:
                    stale |= outlived
                else:
                    slow_clock += 1  # the wall clock moved less than the stall: nothing expired
            elif event["e"] == "commit":
                _judge_commit(event, held, stale, verdict)
                if not event["ok"] and stale & set(_written(event, held)):
                    fenced += 1
                held, stale = {}, set()
    verdict.figures["stale writers fenced (stalled past the lease, commit refused)"] = fenced
    if slow_clock:
        verdict.figures["stalls during which the wall clock did not pass the lease"] = slow_clock


def _written(event: dict[str, Any], held: dict[str, float]) -> list[str]:
    """The records a commit writes under a lease: named by the commit's log, else (older logs)
    every record its attempt holds."""
    phones = event.get("fenced_phones")
    return list(phones) if phones is not None else list(held)


def _judge_commit(event: dict[str, Any], held: dict[str, float], stale: set[str], verdict: Verdict) -> None:
    if not event["ok"]:
        return
    written = _written(event, held)
    unheld = sorted(phone[-4:] for phone in written if phone not in held)
    if unheld:
        verdict.violations.append(
            f"worker {event['pid']} committed {event['key']} writing {', '.join(unheld)} with no lease held"
        )
    sent_at = max((float(value) for value in event.get("fenced_at") or []), default=None)
    expiries = [held[phone] for phone in written if phone in held]
    if sent_at is not None and expiries and sent_at >= min(expiries):
        verdict.violations.append(
            f"worker {event['pid']} committed {event['key']} at {sent_at:.3f}, "
            f"after its lock expired at {min(expiries):.3f}"
        )
    elif stale & set(written):
        verdict.violations.append(
            f"worker {event['pid']} stalled past its lease, then committed {event['key']}"
        )


def _phones_of(record: SoakRecord, key: str, item: dict[str, Any]) -> set[str]:
    """The phones a message concerns: its sender and the recipients its outbox still names."""
    inbound = record.inbound.get(key)
    phones = {to for to, _, _ in item["outbox"] if to != ERASED}
    return phones | ({inbound.phone} if inbound is not None else set())


def _began_by(
    began: dict[tuple[str, str, str], list[tuple[float, int]]], key: str, sms: dict[str, Any]
) -> int | None:
    """The attempt whose POST Twilio accepted as `sms`, when its worker never logged the answer:
    the last to begin sending that text of that record before Twilio took it."""
    starts = [
        (started, pid)
        for started, pid in began.get((key, sms["to"], sms["body"]), [])
        if started <= sms["at"]
    ]
    return max(starts)[1] if starts else None


def _check_poison(record: SoakRecord, verdict: Verdict) -> None:
    parked = Counter(
        message.get("body") for message in record.dead_letters if "reason" in message.get("attributes", {})
    )
    missing = 0
    for body in record.poison_bodies:
        stored = body if body else "<empty>"
        if parked[stored] <= 0:
            missing += 1
            verdict.violations.append(f"poison message {stored[:40]!r} is not on the dead-letter queue")
        else:
            parked[stored] -= 1
    verdict.figures["poison messages sent / found on the DLQ with a reason"] = (
        f"{len(record.poison_bodies)} / {len(record.poison_bodies) - missing}"
    )


def _check_liveness(record: SoakRecord, verdict: Verdict) -> None:
    for phone in record.liveness_missing:
        verdict.violations.append(f"player {phone[-4:]} got no answer in the liveness round")
    for delay in record.liveness_delays:
        if delay > record.liveness_bound_seconds:
            verdict.violations.append(
                f"a locked player waited {delay:.1f} s, more than "
                f"{record.liveness_bound_seconds:.0f} s, to play again"
            )
    if record.liveness_delays:
        verdict.figures["liveness round: players, worst wait s"] = (
            f"{len(record.liveness_delays)}, {max(record.liveness_delays):.1f}"
        )


def reply_delays(record: SoakRecord) -> list[float]:
    """From the first POST of each message to the first of its replies Twilio accepted."""
    accepted_at = {sms["sid"]: sms["at"] for sms in record.sms}
    by_key: dict[str, list[float]] = defaultdict(list)
    for key, item in record.idempotency.items():
        for outcome in item.get("delivered", {}).values():
            if outcome in accepted_at:
                by_key[key].append(accepted_at[outcome])
    for event in record.worker_events:
        if event["e"] == "sent" and event["sid"] in accepted_at:
            by_key[event["key"]].append(accepted_at[event["sid"]])
    delays = []
    for sid, inbound in record.inbound.items():
        if by_key.get(sid):
            delays.append(min(by_key[sid]) - inbound.posted_at)
    return delays


def describe_delays(delays: list[float]) -> str:
    if not delays:
        return "-"
    ordered = sorted(delays)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"median {statistics.median(ordered):.2f} s, p99 {p99:.2f} s, worst {ordered[-1]:.2f} s"
