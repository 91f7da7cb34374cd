"""Concurrent delivery against one DynamoDB server (moto's, or DynamoDB Local with DYNAMODB=local),
each invocation on its own thread with its own clients: the original design dead-lettered both
throws in 47 of 50 trials when two players threw at each other at the same moment (promise 6);
duplicates delivered at once must act once (1)."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import boto3
import pytest

from serverless_rps import replies
from serverless_rps.exceptions import RetryLater
from serverless_rps.game import lobby_shard
from serverless_rps.parsing import nickname_skeleton
from serverless_rps.processing import InboundSms, MessageProcessor
from serverless_rps.rules import Move, Outcome
from serverless_rps_local.moto_rollback import light_transaction_rollback
from serverless_rps_local.serialized_moto import SerializedMotoServer
from tests.conftest import (
    BOT_NUMBER,
    REGION,
    TABLES,
    FakeSms,
    create_tables,
    delete_tables,
    neighbours,
    new_processor,
    new_store,
)

# Slow: threads against one server, 30 trials.
pytestmark = pytest.mark.slow

TRIALS = 30
# SQS would redeliver a failed message after its shortened visibility timeout; here, at once.
MAX_DELIVERIES = 20


@pytest.fixture(scope="module")
def server_endpoint(dynamodb_endpoint: str | None) -> Iterator[str]:
    """The DynamoDB server this module's concurrent invocations share: DynamoDB Local, or moto's.

    moto's serves one request at a time so that each is atomic, as on DynamoDB (serialized_moto
    says why); invocations interleave between requests. DynamoDB Local serves them concurrently,
    and two transactions on one item may then cancel each other (TransactionConflict).
    """
    moto = None
    rollback = ExitStack()
    if dynamodb_endpoint is None:
        # Served one request at a time, moto may roll a cancelled transaction back item by item
        # (moto_rollback.py): a whole-table copy per transaction made the module's cost grow
        # with every trial's players.
        rollback.enter_context(light_transaction_rollback())
        moto = SerializedMotoServer()
        moto.start()
        endpoint = moto.endpoint_url
    else:
        endpoint = dynamodb_endpoint
    client = boto3.client(
        "dynamodb",
        region_name=REGION,
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    create_tables(client)
    yield endpoint
    if moto is not None:
        moto.stop()
    else:
        delete_tables(client)
    rollback.close()


def _invocation(endpoint: str, sms: FakeSms) -> MessageProcessor:
    """A fresh 'Lambda instance': its own session and client, as a separate container would have."""
    session = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
    )
    return new_processor(
        new_store(session.client("dynamodb", endpoint_url=endpoint)), sms, lock_wait_seconds=0.5
    )


def _deliver_until_done(processor: MessageProcessor, message: InboundSms, deliveries: list[int]) -> None:
    for delivery in range(1, MAX_DELIVERIES + 1):
        try:
            processor.process(message)
        except RetryLater:
            time.sleep(0.01)
            continue
        deliveries.append(delivery)
        return
    raise AssertionError(f"{message.body!r} was never processed in {MAX_DELIVERIES} deliveries")


def _at_once(*calls: Callable[[], None]) -> None:
    barrier = threading.Barrier(len(calls))
    errors: list[BaseException] = []

    def run(call: Callable[[], None]) -> None:
        barrier.wait()
        try:
            call()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors


def _message(sender: str, body: str, sid: str, transport: str = "") -> InboundSms:
    return InboundSms(sid, sender, BOT_NUMBER, body, transport_id=transport or sid)


def test_two_players_throwing_at_each_other_at_the_same_moment_both_get_one_result(
    server_endpoint: str,
) -> None:
    sms = FakeSms()
    deliveries: list[int] = []
    for trial in range(TRIALS):
        alice, bob = f"+1555{trial:03d}0001", f"+1555{trial:03d}0002"
        setup = _invocation(server_endpoint, sms)
        setup.process(_message(alice, f"nick alice{trial}", f"SMa{trial:031d}"))
        setup.process(_message(bob, f"nick bob{trial}", f"SMb{trial:031d}"))
        first, second = _invocation(server_endpoint, sms), _invocation(server_endpoint, sms)
        _at_once(
            functools.partial(
                _deliver_until_done,
                first,
                _message(alice, f"rock bob{trial}", f"SMc{trial:031d}"),
                deliveries,
            ),
            functools.partial(
                _deliver_until_done,
                second,
                _message(bob, f"paper alice{trial}", f"SMd{trial:031d}"),
                deliveries,
            ),
        )
        alice_results = [body for body in (m.body for m in sms.sent if m.to == alice) if "beat" in body]
        bob_results = [body for body in (m.body for m in sms.sent if m.to == bob) if "beat" in body]
        assert alice_results == [replies.result(Outcome.LOSS, Move.ROCK, Move.PAPER, f"bob{trial}")]
        assert bob_results == [replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, f"alice{trial}")]
    print(
        f"\n{TRIALS} trials: deliveries needed per throw: max {max(deliveries)}, "
        f"retried {sum(1 for d in deliveries if d > 1)} of {len(deliveries)} throws"
    )


def test_the_same_sms_delivered_four_times_at_once_acts_once(server_endpoint: str) -> None:
    sms = FakeSms()
    phone = "+15559990001"
    deliveries: list[int] = []
    invocations = [_invocation(server_endpoint, sms) for _ in range(4)]
    _at_once(
        *[
            (
                lambda invocation=invocation, copy=copy: _deliver_until_done(
                    invocation, _message(phone, "nick dupont", "SM" + "d" * 32, f"sqs-{copy}"), deliveries
                )
            )
            for copy, invocation in enumerate(invocations)
        ]
    )
    assert [m.body for m in sms.sent if m.to == phone] == [
        replies.opt_in_confirmation(replies.Program()),
        replies.nick_registered("dupont"),
    ]


def test_two_phones_claiming_one_nickname_at_once_get_one_winner(server_endpoint: str) -> None:
    sms = FakeSms()
    first, second = "+15558880001", "+15558880002"
    deliveries: list[int] = []
    a, b = _invocation(server_endpoint, sms), _invocation(server_endpoint, sms)
    _at_once(
        lambda: _deliver_until_done(a, _message(first, "nick Highlander", "SM" + "e" * 32), deliveries),
        lambda: _deliver_until_done(b, _message(second, "nick HIGHLANDER", "SM" + "f" * 32), deliveries),
    )
    replies_sent = sorted(m.body for m in sms.sent)
    assert len(replies_sent) == 4  # each phone's opt-in confirmation, then its answer
    assert replies_sent.count(replies.opt_in_confirmation(replies.Program())) == 2
    assert sum(body.startswith("Welcome,") for body in replies_sent) == 1
    assert sum("taken" in body for body in replies_sent) == 1
    client: Any = boto3.client(
        "dynamodb",
        region_name=REGION,
        endpoint_url=server_endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    owner = client.get_item(
        TableName=TABLES.nickname, Key={"nickname": {"S": nickname_skeleton("highlander")}}
    )["Item"]
    winner = client.get_item(TableName=TABLES.game_state, Key={"phone_number": owner["phone_number"]})["Item"]
    assert winner["nickname"]["S"] == nickname_skeleton("highlander")


def _lobby_throws_at_once(
    server_endpoint: str, players: list[str], sid_letter: str
) -> tuple[FakeSms, dict[str, list[str]], list[str]]:
    """Every player registers, then all throw rock to the lobby at once, each delivered until
    done. Returns what was sent, whom each was told they played, and who was told they wait.
    `sid_letter` keeps these SMS ids and nicknames apart from another test's on the module's one
    server (the players are named `<letter>lobby<index>`)."""
    sms = FakeSms()
    setup = _invocation(server_endpoint, sms)
    for index, phone in enumerate(players):
        setup.process(_message(phone, f"nick {sid_letter}lobby{index}", f"SM{sid_letter}l{index:030d}"))
    deliveries: list[int] = []
    _at_once(
        *[
            functools.partial(
                _deliver_until_done,
                _invocation(server_endpoint, sms),
                _message(phone, "throw rock", f"SM{sid_letter}m{index:030d}"),
                deliveries,
            )
            for index, phone in enumerate(players)
        ]
    )
    opponents: dict[str, list[str]] = {}
    for message in sms.sent:
        if message.body.startswith("A stranger played you: "):
            name = message.body.removeprefix("A stranger played you: ").split(".")[0]
            opponents.setdefault(message.to, []).append(name)
    waiting = [m.to for m in sms.sent if m.body == replies.lobby_waiting(Move.ROCK)]
    print(f"\n{len(players)} lobby throws at once: deliveries needed per throw: max {max(deliveries)}")
    return sms, opponents, waiting


def test_many_lobby_throws_at_once_from_every_room_each_play_at_most_once_and_only_each_other(
    server_endpoint: str,
) -> None:
    """Phones of many rooms (lobby shards): each throw waits in its own room or plays whoever waits
    there; nobody is played twice, by themselves, or without being told."""
    players = [f"+1555777{index:04d}" for index in range(8)]
    assert len({lobby_shard(phone) for phone in players}) > 4
    _, opponents, waiting = _lobby_throws_at_once(server_endpoint, players, "a")
    names = {phone: f"alobby{index}" for index, phone in enumerate(players)}
    phone_named = {name: phone for phone, name in names.items()}
    assert all(len(played) == 1 for played in opponents.values()), "nobody matched twice"
    for phone, (other,) in opponents.items():
        assert opponents[phone_named[other]] == [names[phone]], "pairs are mutual"
        assert lobby_shard(phone_named[other]) == lobby_shard(phone), "strangers meet in a room"
    assert sorted(waiting) == sorted(set(waiting)), "nobody waits twice"
    assert len(set(waiting) | set(opponents)) == len(players), "every throw waits or plays"


def test_many_lobby_throws_at_once_pair_each_player_exactly_once_and_never_with_themselves(
    server_endpoint: str,
) -> None:
    """Phones of one room: as one lobby did, every throw pairs or waits for the next."""
    # A room none of the other lobby test's phones (on the module's one server) waits in.
    players = neighbours("+15558880000", 8)
    assert lobby_shard("+15558880000") not in {lobby_shard(f"+1555777{index:04d}") for index in range(8)}
    _, opponents, waiting = _lobby_throws_at_once(server_endpoint, players, "b")
    # Each player waited first (alone in the lobby) or played the one waiting: 8 = 4 pairs.
    assert sorted(opponents) == sorted(players), "nobody lost, nobody left waiting"
    assert all(len(names) == 1 for names in opponents.values()), "nobody matched twice"
    names = {phone: f"blobby{index}" for index, phone in enumerate(players)}
    assert all(names[phone] not in opponents[phone] for phone in players), "nobody played themselves"
    phone_named = {name: phone for phone, name in names.items()}
    for phone, (other,) in opponents.items():
        assert opponents[phone_named[other]] == [names[phone]], "pairs are mutual"
    assert len(waiting) == 4
