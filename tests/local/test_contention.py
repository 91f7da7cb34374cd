"""bench/contention.py end to end, small: two worker processes running the game function on
DynamoDB Local, 10 ms waited before each request. What is checked is the benchmark's accounting
(every text processed exactly once, every reply where the game sends it), never a timing."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest

from bench.contention import (
    PROCESSED,
    ChallengeWorkload,
    LobbyWorkload,
    Registered,
    Slice,
    Workload,
    account,
    play,
    register,
    summarize,
)
from serverless_rps import replies
from serverless_rps.model import LOBBY_SHARDS
from serverless_rps.rules import Move
from serverless_rps_local.dynamodb_local import DynamoDbLocal
from serverless_rps_local.in_process import REGION, TABLES

# Slow: worker processes and DynamoDB Local, some 30 s on two cores.
pytestmark = pytest.mark.slow

LATENCY_SECONDS = 0.010
WORKERS = 2


@dataclass
class SmallRun:
    dynamodb: Any
    registered: Registered
    lobby: Slice
    challenges: Slice


@pytest.fixture(scope="module")
def small_run() -> Iterator[SmallRun]:
    server = DynamoDbLocal()
    endpoint = server.start()
    try:
        dynamodb = boto3.session.Session(region_name=REGION).client(
            "dynamodb", endpoint_url=endpoint, aws_access_key_id="local", aws_secret_access_key="local"
        )
        workloads: list[Workload] = [LobbyWorkload(24), ChallengeWorkload(8)]
        registered = register(dynamodb, endpoint, workloads, WORKERS, LATENCY_SECONDS)
        lobby, challenges = play(dynamodb, endpoint, workloads, registered, WORKERS, LATENCY_SECONDS, 4.0)
        yield SmallRun(dynamodb, registered, lobby, challenges)
    finally:
        server.stop()


def _completed_keys(items: list[dict[str, Any]]) -> set[str]:
    # The table holds contact records too, which have no status.
    return {item["messageId"]["S"] for item in items if item.get("status", {}).get("S") == "COMPLETED"}


def _sids(records: dict[str, dict[str, Any]]) -> set[str]:
    return {json.loads(record["body"])["MessageSid"] for record in records.values()}


def test_every_player_is_registered_once_and_welcomed(small_run: SmallRun) -> None:
    accounting = account(small_run.registered.phase)

    assert accounting.texts == 24 + 2 * 8
    assert accounting.exact
    # The copy each slice starts from holds every registration, completed.
    completed = _completed_keys(small_run.registered.items[TABLES.idempotency])
    assert _sids(small_run.registered.phase.records) <= completed


@pytest.mark.parametrize("workload", ["lobby", "challenges"])
def test_every_text_of_a_slice_is_processed_exactly_once_and_answered(
    small_run: SmallRun, workload: str
) -> None:
    played: Slice = getattr(small_run, workload)
    processed = Counter(
        attempt.message_id for attempt in played.phase.attempts if attempt.outcome == PROCESSED
    )

    assert played.phase.texts  # the players texted
    assert set(processed) == set(played.phase.texts)
    assert set(processed.values()) == {1}
    assert account(played.phase).exact


def test_the_game_recorded_every_text_of_the_last_slice_as_completed(small_run: SmallRun) -> None:
    items = [
        item
        for page in small_run.dynamodb.get_paginator("scan").paginate(
            TableName=TABLES.idempotency, ConsistentRead=True
        )
        for item in page["Items"]
    ]

    assert _sids(small_run.challenges.phase.records) <= _completed_keys(items)


def test_a_lobby_throw_waits_or_plays_someone_who_was_waiting(small_run: SmallRun) -> None:
    waits: Counter[str] = Counter()
    played_as_stranger: Counter[str] = Counter()
    for attempt in small_run.lobby.phase.attempts:
        if attempt.outcome != PROCESSED:
            continue
        text = small_run.lobby.phase.texts[attempt.message_id]
        if len(attempt.replies) == 1:
            assert attempt.replies == ((text.sender, replies.lobby_waiting(Move(text.body))),)
            waits[text.sender] += 1
            continue
        (stranger,) = {to for to, _ in attempt.replies} - {text.sender}
        assert {to for to, _ in attempt.replies} == {text.sender, stranger}
        assert all(body.startswith("A stranger played you: ") for _, body in attempt.replies)
        played_as_stranger[stranger] += 1

    assert waits
    assert played_as_stranger
    # Each stranger played had waited, and was played once per wait: whoever is left waits alone
    # in a room.
    assert all(0 <= waits[phone] - played_as_stranger[phone] <= 1 for phone in waits | played_as_stranger)
    assert sum(waits.values()) - sum(played_as_stranger.values()) <= len(LOBBY_SHARDS)


def test_a_challenge_tells_both_and_its_answer_is_a_result_for_both(small_run: SmallRun) -> None:
    challenges = answers = 0
    for attempt in small_run.challenges.phase.attempts:
        if attempt.outcome != PROCESSED:
            continue
        text = small_run.challenges.phase.texts[attempt.message_id]
        recipients = [to for to, _ in attempt.replies]
        assert len(recipients) == 2
        assert text.sender in recipients
        if text.body.split()[1].startswith("ans"):
            challenges += 1
            assert any(body.startswith("You threw") for _, body in attempt.replies)
        else:
            answers += 1
            assert all(body.startswith(("You won!", "You lost.", "A tie!")) for _, body in attempt.replies)

    assert challenges >= answers > 0


def test_the_figures_count_what_finished_while_the_players_texted(small_run: SmallRun) -> None:
    for played in (small_run.lobby, small_run.challenges):
        end = played.started + played.seconds
        in_window = [a for a in played.phase.attempts if a.outcome == PROCESSED and a.finished <= end]
        results = [
            a for a in in_window if played.workload.is_result(played.phase.texts[a.message_id], a.replies)
        ]

        figures = summarize([played], WORKERS)

        assert figures["messages"] == len(in_window)
        assert figures["results"] == len(results)
        assert figures["accounting"]["texts"] == len(played.phase.texts)
        assert figures["per_message"]["count"] == len(in_window)
