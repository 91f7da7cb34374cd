"""The recorder keeps the calls the shipped code makes, with what they name and the frames that
made them, and leaves out a test's own calls."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from serverless_rps.admin.verify import Verification, VerificationFailed
from serverless_rps.message_queue import DeadLetterQueue, IncomingQueue
from serverless_rps_local.in_process import REGION, TABLES, create_tables
from tests.conftest import ALICE, FakeSms, Game
from tests.iam.recording import ENVIRONMENT_VARIABLE, CallRecorder, read_calls

INJECT = Path(__file__).resolve().parent / "inject"


@pytest.fixture
def recorded(tmp_path: Path) -> Any:
    with mock_aws():
        session = boto3.session.Session(region_name=REGION)
        CallRecorder(tmp_path).attach(session.events)
        yield session, tmp_path


def test_a_call_of_the_shipped_code_is_kept_with_its_frames_and_a_tests_own_is_not(recorded: Any) -> None:
    session, directory = recorded
    sqs = session.client("sqs")
    url = sqs.create_queue(QueueName="rps-dlq")["QueueUrl"]  # the test's own call

    DeadLetterQueue(sqs, url).park("{}", "body is not JSON", "m-1")

    [call] = read_calls(directory)
    assert call == {
        "service": "sqs",
        "operation": "SendMessage",
        "named": {"QueueUrl": url},
        "stack": ["serverless_rps.message_queue:DeadLetterQueue.park"],
    }


def test_each_item_of_a_transaction_is_kept_with_its_table_and_key(recorded: Any) -> None:
    session, directory = recorded
    dynamodb = session.client("dynamodb")
    create_tables(dynamodb)

    Game(dynamodb, FakeSms()).text(ALICE, "nick alice")

    [commit] = [call for call in read_calls(directory) if call["operation"] == "TransactWriteItems"]
    items = commit["named"]["TransactItems"]
    assert {table for _, table, _ in items} == {TABLES.game_state, TABLES.nickname, TABLES.idempotency}
    assert ["Put", TABLES.nickname, []] in items  # the name, put with its owner
    assert ["Update", TABLES.idempotency, ["messageId"]] in items  # the claim, completed by its key
    # From the test's call into the processor down to the store's commit.
    assert commit["stack"][0].startswith("serverless_rps.processing:")
    assert commit["stack"][-1].startswith("serverless_rps.game_store.")


def test_a_call_made_again_from_the_same_place_is_written_once(recorded: Any) -> None:
    session, directory = recorded
    sqs = session.client("sqs")
    url = sqs.create_queue(QueueName="rps-dlq")["QueueUrl"]

    for message in ("m-1", "m-2", "m-3"):
        DeadLetterQueue(sqs, url).park("{}", "body is not JSON", message)

    [written] = directory.glob("calls-*.jsonl")
    assert len(written.read_text().splitlines()) == 1


def test_the_named_parameters_of_batches_and_transactions_are_kept() -> None:
    from tests.iam.recording import named_resources

    assert named_resources(
        {
            "TransactItems": [
                {"Put": {"TableName": "players", "Item": {"phone_number": {"S": ALICE}}}},
                {"ConditionCheck": {"TableName": "claims", "Key": {"messageId": {"S": "SM1"}}}},
            ],
            "ClientRequestToken": "token",
        }
    ) == {"TransactItems": [["Put", "players", []], ["ConditionCheck", "claims", ["messageId"]]]}
    assert named_resources({"RequestItems": {"players": {"Keys": [{"phone_number": {"S": ALICE}}]}}}) == {
        "RequestItems": {"players": ["phone_number"]}
    }


def test_a_process_started_with_the_inject_directory_on_its_path_records_its_calls(tmp_path: Path) -> None:
    program = """
import boto3
from moto import mock_aws
from serverless_rps.message_queue import IncomingQueue
with mock_aws():
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="rps-incoming")["QueueUrl"]
    IncomingQueue(sqs, url).enqueue({"From": "+15551110001", "To": "+15550000000", "Body": "help"})
"""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(INJECT), os.environ.get("PYTHONPATH", "")]),
        ENVIRONMENT_VARIABLE: str(tmp_path),
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }

    subprocess.run([sys.executable, "-c", program], env=environment, check=True, timeout=120)

    [call] = read_calls(tmp_path)
    assert (call["operation"], call["stack"]) == (
        "SendMessage",
        ["serverless_rps.message_queue:IncomingQueue.enqueue"],
    )


def test_the_frames_stop_where_a_test_stands_in_between_two_pieces_of_shipped_code(recorded: Any) -> None:
    # `verify` posts to the webhook over HTTP; here a test's stand-in enqueues in its place, as the
    # webhook would: the enqueue is the webhook's in production, not the operator's tool's.
    session, directory = recorded
    sqs = session.client("sqs")
    url = sqs.create_queue(QueueName="rps-incoming")["QueueUrl"]

    def webhook(address: str, fields: Mapping[str, str], headers: Mapping[str, str]) -> tuple[int, str]:
        IncomingQueue(sqs, url).enqueue(fields)
        return 500, "the stand-in answers no further"

    verification = Verification(
        url="https://api.example.com/sms/secret",
        account_sid="AC" + "0" * 32,
        auth_token="token",
        service_number="+15550000000",
    )
    with pytest.raises(VerificationFailed):
        verification.run(lambda key: None, post=webhook)

    [call] = read_calls(directory)
    assert call["stack"] == ["serverless_rps.message_queue:IncomingQueue.enqueue"]
