"""The operator's `proof NUMBER` and `proof-key`, against the game function run through its handler
on moto (the proof key in moto's SSM, as deployed): the trail an opt-out leaves, what each exit
status means, the key's creation and rotation, and an older key parameter (docs/operations.md,
"The proof of an opt-out")."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from typing import Any

import boto3
import pytest

from serverless_rps import app, replies
from serverless_rps.admin import cli, locate
from serverless_rps.admin.operations import Operator
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import ALICE, BOB, PROOF_TABLE, REGION
from tests.protocol.test_lambda_handler import PROOF_KEY_PARAMETER, LambdaContext, _event, deployed

__all__ = ["deployed"]

CONFIRMATION = replies.opt_out_confirmation(replies.Program())
SIDS = iter(f"SM{n:032x}" for n in range(1000, 2000))


def _text(sender: str, body: str) -> None:
    assert app.lambda_handler(_event((next(SIDS), sender, body)), LambdaContext()) == {
        "batchItemFailures": []
    }


def _new_cold_start() -> None:
    """The functions' environments recycled (a deployment, or forced after a key rotation)."""
    app._cold_start.cache_clear()


def _admin(*argv: str, connect: bool = True) -> tuple[int, str]:
    out = io.StringIO()

    def connected(_: Any) -> Operator:
        assert connect, "the command connected to the stack"
        return Operator.connect(locate.from_environment())

    status = cli.main(["--json", *argv], connect=connected, out=out, ask=lambda _: "")
    return status, out.getvalue()


def _ssm() -> Any:
    return boto3.client("ssm", region_name=REGION)


@pytest.fixture
def stack(deployed: Any, twilio: LocalTwilioApi) -> LocalTwilioApi:
    return twilio


def test_proof_shows_when_a_stop_arrived_how_it_was_read_its_erasure_and_whether_the_number_texted_since(
    stack: LocalTwilioApi,
) -> None:
    _text(ALICE, "nick alice")
    _text(ALICE, "Stop.")

    status, output = _admin("proof", ALICE)

    assert status == 0
    shown = json.loads(output)
    assert (shown["number"], shown["opt_outs"], shown["texted_since_the_last"]) == (ALICE, 1, "no")
    [row] = shown["trail"]
    assert (row["rule"], row["wording"], row["language"]) == ("keyword-as-typed", "keyword", "en")
    [confirmation] = [m for m in stack.sent_messages() if m["body"] == CONFIRMATION]
    assert row["confirmation"] == f"sent, {confirmation['sid']}"
    assert row["received"].endswith(" UTC")
    assert row["erased"].endswith(" UTC")
    assert row["key"] == f"{PROOF_KEY_PARAMETER}:1"

    _text(ALICE, "START")

    again = json.loads(_admin("proof", ALICE)[1])
    assert again["texted_since_the_last"].startswith("yes, ")
    assert again["texted_since_the_last"].endswith(" (opt-in keyword)")


def test_proof_as_a_table_names_each_opt_out_in_a_row(stack: LocalTwilioApi) -> None:
    _text(ALICE, "STOP")
    _text(ALICE, "nick alice")
    _text(ALICE, "STOP")
    out = io.StringIO()

    status = cli.main(
        ["proof", "+1 555 111-0001"], connect=lambda _: Operator.connect(locate.from_environment()), out=out
    )

    assert status == 0
    lines = out.getvalue().splitlines()
    assert lines[:3] == [f"number: {ALICE}", "opt_outs: 2", "texted_since_the_last: no"]
    rows = [line for line in lines if "keyword" in line]
    assert len(rows) == 2
    assert "none from the bot: Twilio's keyword handling answered it" in rows[0]
    assert "(other text)" in rows[0], "nick alice came after the first"


def test_a_number_with_no_proof_fails_in_one_line(
    stack: LocalTwilioApi, capsys: pytest.CaptureFixture[str]
) -> None:
    _text(BOB, "nick bob")

    assert _admin("proof", BOB) == (1, "")
    error = capsys.readouterr().err
    assert error.startswith(f"error: no opt-out of {BOB} is on record")
    assert error.count("\n") == 1


@pytest.mark.parametrize("number", ["5551110001", "alice", "+0123", "+1 555 CALL NOW"])
def test_a_malformed_number_is_refused_in_one_line_before_anything_is_read(
    capsys: pytest.CaptureFixture[str], number: str
) -> None:
    assert _admin("proof", number, connect=False) == (2, "")
    error = capsys.readouterr().err
    assert error.startswith("error: ")
    assert "E.164" in error
    assert error.count("\n") == 1


def test_a_stack_that_keeps_no_proof_says_so(
    stack: LocalTwilioApi, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROOF_RETENTION_DAYS", "0")
    _new_cold_start()
    _text(ALICE, "STOP")

    assert _admin("proof", ALICE) == (1, "")
    assert "keeps no proof of opt-outs" in capsys.readouterr().err
    assert boto3.client("dynamodb", region_name=REGION).scan(TableName=PROOF_TABLE)["Items"] == []


# -- the key ---------------------------------------------------------------------------------------


def test_proof_key_makes_32_random_bytes_as_a_secure_string_and_never_prints_them(aws: None) -> None:
    status, output = _admin("--yes", "proof-key", "--name", "/rps/new-proof-key", connect=False)

    assert status == 0
    assert json.loads(output) == {"parameter": "/rps/new-proof-key", "version": 1, "result": "created"}
    parameter = _ssm().get_parameter(Name="/rps/new-proof-key", WithDecryption=True)["Parameter"]
    assert parameter["Type"] == "SecureString"
    assert len(bytes.fromhex(parameter["Value"])) == 32
    assert parameter["Value"] not in output
    again = _admin("--yes", "proof-key", "--name", "/rps/other-proof-key", connect=False)[1]
    other = _ssm().get_parameter(Name="/rps/other-proof-key", WithDecryption=True)["Parameter"]["Value"]
    assert other != parameter["Value"], "random, not a fixed key"
    assert json.loads(again)["version"] == 1


def test_proof_key_refuses_to_replace_a_key_without_rotate(
    aws: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _admin("--yes", "proof-key", "--name", "/rps/new-proof-key", connect=False)
    first = _ssm().get_parameter(Name="/rps/new-proof-key", WithDecryption=True)["Parameter"]["Value"]

    assert _admin("--yes", "proof-key", "--name", "/rps/new-proof-key", connect=False) == (1, "")

    assert "already exists: nothing changed (--rotate puts a new version of it)" in capsys.readouterr().err
    assert _ssm().get_parameter(Name="/rps/new-proof-key", WithDecryption=True)["Parameter"]["Value"] == first


def test_proof_key_asks_first_and_without_a_terminal_or_yes_changes_nothing(
    aws: None, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_terminal(question: str) -> str:
        raise cli.NoTerminal

    status = cli.main(["proof-key", "--name", "/rps/new-proof-key"], out=io.StringIO(), ask=no_terminal)
    declined = cli.main(["proof-key", "--name", "/rps/new-proof-key"], out=io.StringIO(), ask=lambda _: "n")

    assert (status, declined) == (2, 1)
    assert _ssm().describe_parameters()["Parameters"] == []
    assert "nothing changed" in capsys.readouterr().err


def test_a_rotated_key_keys_new_proofs_and_the_old_ones_stay_checkable_and_answered(
    stack: LocalTwilioApi,
) -> None:
    _text(ALICE, "STOP")  # under version 1 of the stack's key (its PROOF_KEY_PARAMETER)

    status, output = _admin("--yes", "proof-key", "--rotate", connect=False)
    assert status == 0
    assert json.loads(output)["version"] == 2
    _new_cold_start()  # the functions' environments are recycled: they read the key again
    _text(ALICE, "nick alice")  # a text after the first opt-out, seen under version 1
    _text(ALICE, "Stop.")  # keyed under version 2

    shown = json.loads(_admin("proof", ALICE)[1])
    assert [row["key"] for row in shown["trail"]] == [f"{PROOF_KEY_PARAMETER}:1", f"{PROOF_KEY_PARAMETER}:2"]
    assert shown["trail"][0]["texted_since"].endswith("(other text)")
    assert shown["texted_since_the_last"] == "no"
    numbers = {
        item["number"]["S"]
        for item in boto3.client("dynamodb", region_name=REGION).scan(TableName=PROOF_TABLE)["Items"]
    }
    assert len(numbers) == 2, "one keyed hash per key version, the number under neither"


def test_an_older_key_parameter_is_tried_when_named(
    stack: LocalTwilioApi, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _text(ALICE, "STOP")
    # The key moved to a new parameter (a new stack, or a fresh start): its proofs are under the old one.
    _admin("--yes", "proof-key", "--name", "/rps/proof-key-2026", connect=False)
    monkeypatch.setenv("PROOF_KEY_PARAMETER", "/rps/proof-key-2026")
    _new_cold_start()

    assert _admin("proof", ALICE) == (1, "")
    capsys.readouterr()
    status, output = _admin("proof", ALICE, "--key-parameter", PROOF_KEY_PARAMETER)

    assert status == 0
    assert [row["key"] for row in json.loads(output)["trail"]] == [f"{PROOF_KEY_PARAMETER}:1"]
    assert _admin("proof", ALICE, "--key-parameter", "/rps/no-such-proof-key")[0] == 1
    assert "cannot be read (ParameterNotFound)" in capsys.readouterr().err


def test_an_operators_resend_of_a_confirmation_settles_its_proof(stack: LocalTwilioApi) -> None:
    _text(ALICE, "nick alice")
    # The confirmation's send is refused for now (Twilio took nothing); SQS's message never returns.
    stack.fail_next(3, status=429)
    sid = next(SIDS)
    assert app.lambda_handler(_event((sid, ALICE, "Stop.")), LambdaContext())["batchItemFailures"]
    assert json.loads(_admin("proof", ALICE)[1])["trail"][0]["confirmation"].startswith("pending")

    assert _admin("--yes", "outbox", "resend", sid)[0] == 0

    assert json.loads(_admin("proof", ALICE)[1])["trail"][0]["confirmation"].startswith("sent, SM")


def test_an_operators_erasure_is_shown_as_a_deletion_request(stack: LocalTwilioApi) -> None:
    _text(ALICE, "nick alice")
    assert _admin("--yes", "erase", ALICE)[0] == 0

    [row] = json.loads(_admin("proof", ALICE)[1])["trail"]

    assert (row["rule"], row["wording"], row["language"]) == ("erase-request", "deletion request", None)
    assert row["confirmation"] == "none: a deletion request, nothing to confirm by text"


def test_the_operators_settings_may_override_the_proof_table(stack: LocalTwilioApi) -> None:
    """`--stack` reads the deployed function's variables: the tool uses its proof table and key."""
    _text(ALICE, "STOP")
    settings = replace(locate.from_environment(), proof_table="rps-no-such-proof")
    operator = Operator.connect(settings)

    with pytest.raises(Exception, match="read a number's proof"):
        operator.proof(ALICE)
