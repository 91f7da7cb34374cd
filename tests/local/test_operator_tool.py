"""The operator's tool against the local stack, as docs/operations.md walks through it: the stack
leaves the game function's variables in its state directory; a stuck outbox and a dead letter are
found with `status` and repaired with `outbox resend` and `dlq redrive`."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from serverless_rps import replies
from serverless_rps.admin.verify import FICTIONAL_PHONE
from serverless_rps_local import dev_account
from serverless_rps_local.in_process import sqs_event, sqs_record
from serverless_rps_local.stack import GAME_FUNCTION, OPERATOR_ENVIRONMENT, LocalStack, StackOptions

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
PHONE = dev_account.FIRST_PHONE_NUMBERS[0]
# The tool runs with nothing of the test's environment but these: PATH, and the recorder of the
# AWS calls the shipped code makes when `make test` runs (tests/iam/recording.py).
_PASSED_ON = ("PATH", "PYTHONPATH", "RPS_AWS_CALLS")


def _variables(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if line)
    return {name: shlex.split(value)[0] if value else "" for name, value in pairs}


def _run_admin(variables: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "serverless_rps.admin", *argv],
        cwd=REPO,
        env={**{name: os.environ[name] for name in _PASSED_ON if name in os.environ}, **variables},
        stdin=subprocess.DEVNULL,  # as from cron or CI: no terminal
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _admin(variables: dict[str, str], *argv: str) -> Any:
    result = _run_admin(variables, "--json", *argv)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_stuck_outbox_and_a_dead_letter_are_found_and_repaired(tmp_path: Path) -> None:
    options = StackOptions(state_directory=tmp_path, serve_http=False, poll_queue=False, warm=False)
    with LocalStack(options) as stack:
        variables = _variables(tmp_path / OPERATOR_ENVIRONMENT)
        # A `help` whose reply Twilio refuses; say its SQS message then expired: nothing retries it.
        stack.twilio.fail_next(3, status=500)
        event = sqs_event([sqs_record(PHONE, "help", sid="SM" + "a" * 32)])
        assert stack.function(GAME_FUNCTION).invoke(event).response["batchItemFailures"]
        body = json.dumps(
            {"MessageSid": "SM" + "b" * 32, "From": PHONE, "To": "+15550000000", "Body": "score"}
        )
        stack.aws("sqs").send_message(QueueUrl=variables["DEAD_LETTER_QUEUE_URL"], MessageBody=body)

        status = _admin(variables, "status")
        assert [row["key"] for row in status["replies_not_sent"]] == ["SM" + "a" * 32]
        # A new phone's `help`: the opt-in confirmation first, then the help texts, none sent.
        [waiting] = status["replies_not_sent"]
        assert waiting["not_sent"] == waiting["replies"] > 1
        assert status["dead_letters"] == 1

        stack.twilio.clear()
        # Without a terminal nothing is asked, and nothing changes without --yes.
        for change in (["outbox", "resend", "--all"], ["dlq", "redrive", "--all"]):
            refused = _run_admin(variables, *change)
            assert (refused.returncode, refused.stdout) == (2, "")
            assert refused.stderr.endswith("nothing changed; give --yes to go ahead without asking\n")
            assert "Traceback" not in refused.stderr
        assert _admin(variables, "status")["dead_letters"] == 1
        assert stack.twilio.sent_messages() == []
        # The options every command takes go after it too, as scripts write them.
        assert _admin(variables, "outbox", "resend", "--all", "--yes")[0]["result"] == "resent"
        assert [message["to"] for message in stack.twilio.sent_messages()] == [PHONE] * waiting["not_sent"]
        [moved] = _admin(variables, "dlq", "redrive", "--all", "--yes")
        incoming = stack.aws("sqs").receive_message(QueueUrl=variables["INCOMING_QUEUE_URL"])["Messages"]
        assert [message["Body"] for message in incoming] == [body]
        after = _admin(variables, "status")
        assert (after["replies_not_sent"], after["dead_letters"]) == ([], 0)
        assert moved["new_id"] == incoming[0]["MessageId"]

    assert not (tmp_path / OPERATOR_ENVIRONMENT).exists(), "its ports are gone with the stack"
    # Variables loaded before the stack stopped now name ports nothing listens on.
    gone = _run_admin({**variables, "AWS_MAX_ATTEMPTS": "1"}, "status")
    assert (gone.returncode, gone.stdout) == (1, "")
    assert gone.stderr.startswith(
        "error: no local stack is running: these variables come from one that stopped"
    )
    assert len(gone.stderr.splitlines()) == 1


def _admin_fails(variables: dict[str, str], *argv: str) -> str:
    result = _run_admin(variables, *argv)
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stderr


def test_verify_sends_a_signed_text_through_the_webhook_and_follows_it_to_its_reply(tmp_path: Path) -> None:
    options = StackOptions(state_directory=tmp_path, warm=False)
    with LocalStack(options) as stack:
        variables = _variables(tmp_path / OPERATOR_ENVIRONMENT)
        assert variables["WEBHOOK_URL"].startswith(stack.page_url)

        result = _admin(variables, "verify", "--timeout", "60s")

        assert result["verdict"] == "the pipeline works end to end"
        # A new phone's help: the opt-in confirmation, the program's help, the commands; each followed
        # until Twilio had it, and each reported.
        sent = stack.twilio.sent_messages()
        program = replies.Program()
        assert [(message["to"], message["from"], message["body"]) for message in sent] == [
            (FICTIONAL_PHONE, dev_account.SERVICE_NUMBER, body)
            for body in (
                replies.opt_in_confirmation(program),
                replies.program_help(program),
                replies.help_overview(),
            )
        ]
        assert [reply["reply"] for reply in result["replies"]] == [1, 2, 3]
        assert [reply["outcome"] for reply in result["replies"]] == [
            f"accepted by Twilio ({message['sid']})" for message in sent
        ]
        # The made-up phone leaves nothing behind: its records went through the STOP protocol.
        assert result["test_phone_erased"] == "processed"
        assert _admin(variables, "player", FICTIONAL_PHONE)["registered"] is False

        # A URL without the secret path segment: the HTTP API has no route there, and verify says so.
        wrong = {**variables, "WEBHOOK_URL": variables["WEBHOOK_URL"].rsplit("/", 1)[0] + "/not-the-secret"}
        assert "answered 404" in _admin_fails(wrong, "verify", "--timeout", "10s")
        # A token that is not the stack's: the webhook refuses the signature.
        forged = {**variables, "TWILIO_AUTH_TOKEN": "not-the-token", "TWILIO_AUTH_TOKEN_PARAMETER": ""}
        assert "answered 403" in _admin_fails(forged, "verify", "--timeout", "10s")
        assert len(stack.twilio.sent_messages()) == 3, "nothing refused reached the game"


def test_the_local_stack_makes_its_own_proof_key_keeps_it_and_proves_an_opt_out_with_it(
    tmp_path: Path,
) -> None:
    """No key to create by hand locally: the stack puts one in moto's SSM under the template's
    parameter name, keeps it in its state directory, and the game function proves an opt-out
    with it; `proof` reads it back, after a restart too."""
    options = StackOptions(state_directory=tmp_path, serve_http=False, poll_queue=False, warm=False)
    with LocalStack(options) as stack:
        variables = _variables(tmp_path / OPERATOR_ENVIRONMENT)
        game = stack.function(GAME_FUNCTION)
        for sid, body in (("SM" + "c" * 32, "nick alice"), ("SM" + "d" * 32, "Stop.")):
            assert game.invoke(sqs_event([sqs_record(PHONE, body, sid=sid)])).response == {
                "batchItemFailures": []
            }
        parameter = variables["PROOF_KEY_PARAMETER"]
        kept = json.loads((tmp_path / "proof-key.json").read_text())["key"]
        stored = stack.aws("ssm").get_parameter(Name=parameter, WithDecryption=True)["Parameter"]["Value"]
        assert stored == kept
        assert len(bytes.fromhex(kept)) == 32

        [opt_out] = _admin(variables, "proof", PHONE)["trail"]
        assert (opt_out["rule"], opt_out["key"]) == ("keyword-as-typed", f"{parameter}:1")
        assert opt_out["confirmation"].startswith("sent, SM")

    with LocalStack(options):
        again = _variables(tmp_path / OPERATOR_ENVIRONMENT)
        assert _admin(again, "proof", PHONE)["trail"] == [opt_out], "the saved proof, under the kept key"
