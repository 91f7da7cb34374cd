"""What the operator's tool prints, as an operator reads it: results as aligned tables and lines
(`-` for nothing, lists joined), `--json` for scripts, `campaign` from the deployed function's own
program, `verify` from the command line through to its report, and its questions on a terminal."""

from __future__ import annotations

import builtins
import copy
import io
import json
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from moto import mock_aws
from twilio.request_validator import RequestValidator

from serverless_rps import replies_es
from serverless_rps.admin import campaign, cli
from serverless_rps.admin.verify import FICTIONAL_PHONE
from serverless_rps.config import TwilioCredentials
from serverless_rps.ports import CompletedRecord, OutboundSms
from serverless_rps.replies import Program
from tests.unit.test_admin_cli import _STACK
from tests.unit.test_verify import _Webhook, local_webhook

__all__ = ["local_webhook"]

BOT = "+15550000000"
TOKEN = "0123456789abcdef0123456789abcdef"


@dataclass
class _Reads:
    settled: bool = True
    polled: list[str] = field(default_factory=list)

    def read_completed(self, message_sid: str) -> CompletedRecord | None:
        self.polled.append(message_sid)
        outbox = (OutboundSms(FICTIONAL_PHONE, BOT, "welcome"),)
        return CompletedRecord(f"sms#{message_sid}", outbox, {0: "refused:21211"}) if self.settled else None


@dataclass
class _Settings:
    twilio: TwilioCredentials


class _Operator:
    """Stands for Operator: answers `status` with what the test sets, and records erasures."""

    def __init__(
        self, result: Any = None, *, token_parameter: str | None = None, settled: bool = True
    ) -> None:
        self.result = result
        self.erased: list[str] = []
        self.reads = _Reads(settled)
        self.settings = _Settings(
            TwilioCredentials("AC" + "1" * 32, token_parameter, None if token_parameter else TOKEN, None)
        )

    def status(self) -> Any:
        return self.result

    def erase(self, phone: str) -> dict[str, str]:
        self.erased.append(phone)
        return {"result": "erased"}


def _main(*argv: str, operator: Any = None) -> tuple[int, str]:
    out = io.StringIO()
    status = cli.main(list(argv), connect=lambda _: operator, out=out, ask=lambda _: "")
    return status, out.getvalue()


# -- results as an operator reads them ------------------------------------------------------------


def test_a_result_prints_as_lines_then_its_tables_with_a_dash_for_nothing_and_lists_joined() -> None:
    result = {
        "incoming_queue": {"visible": 0, "in_flight": 2},
        "dead_letters": 3,
        "oldest": None,
        "tables": ["games", "nicknames"],
        "locked": [],
        "stuck": [
            {"key": "sms#1", "to": ["+*******0001", "+*******0002"], "since": None},
            {"key": "sms#22", "to": [], "since": "5m"},
        ],
    }

    status, output = _main("status", operator=_Operator(result))

    assert status == 0
    assert output == (
        "incoming_queue: visible 0, in_flight 2\n"
        "dead_letters: 3\n"
        "oldest: -\n"
        "tables: games, nicknames\n"
        "locked: none\n"
        "stuck:\n"
        "key     to                         since\n"
        "sms#1   +*******0001,+*******0002  -\n"
        "sms#22                             5m\n"
        "\n"
    )


def test_two_tables_in_a_result_print_one_after_the_other() -> None:
    result = {"total": 2, "first": [{"a": 1}], "second": [{"b": 2}]}
    assert _main("status", operator=_Operator(result)) == (0, "total: 2\nfirst:\na\n1\n\nsecond:\nb\n2\n\n")


def test_a_list_prints_as_one_table_and_an_empty_one_says_so() -> None:
    rows = [{"id": "a", "tries": 1}, {"id": "bcd", "error": "throttled"}]
    assert _main("status", operator=_Operator(rows)) == (
        0,
        "id   tries  error\na    1      -\nbcd  -      throttled\n",
    )
    assert _main("status", operator=_Operator([])) == (0, "(none)\n")
    assert _main("status", operator=_Operator(7)) == (0, "7\n")


# -- campaign -------------------------------------------------------------------------------------


def test_campaign_prints_the_form_field_by_field_and_as_json_for_scripts() -> None:
    status, output = _main("campaign")

    assert status == 0
    lines = output.splitlines()
    assert lines[:2] == ["program: SMS Rock-Paper-Scissors", "support contact: help@example.com"]
    assert "embedded links: no" in lines
    keywords = lines[lines.index("keywords:") + 1 :]
    assert keywords[0].split() == ["kind", "keywords", "reply"]
    assert keywords[1].startswith("opt-in             START, UNSTOP, YES  ")

    status, output = _main("--json", "campaign")
    assert status == 0
    assert output.endswith("}\n")
    assert json.loads(output) == campaign.registration(Program())


def test_campaign_with_stack_words_the_form_with_the_deployed_functions_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("PROGRAM_NAME", "Not The Deployed One")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")  # --region wins
    stack = copy.deepcopy(_STACK)
    variables = stack["Resources"]["GameFunction"]["Properties"]["Environment"]["Variables"]
    variables |= {"PROGRAM_NAME": "Pebble Duel", "SUPPORT_CONTACT": "duel@example.org"}
    with mock_aws():
        iam = boto3.client("iam", region_name="us-east-1")
        iam.create_role(RoleName="rps-game", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17"}))
        cloudformation = boto3.client("cloudformation", region_name="us-east-1")
        cloudformation.create_stack(StackName="rps", TemplateBody=json.dumps(stack))

        status, output = _main("--json", "campaign", "--stack", "rps", "--region", "us-east-1")

    assert status == 0
    assert json.loads(output) == campaign.registration(Program("Pebble Duel", "duel@example.org"))


@pytest.mark.parametrize(
    "argv", [["campaign", "--verbose"], ["--verbose", "campaign"]], ids=["after", "before"]
)
def test_campaign_verbose_shows_the_traceback_behind_its_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    monkeypatch.setenv("PROGRAM_NAME", "x" * 200)

    assert _main(*argv) == (1, "")

    stderr = capsys.readouterr().err
    assert stderr.startswith("Traceback (most recent call last):")
    assert "ConfigurationError: PROGRAM_NAME or SUPPORT_CONTACT" in stderr
    assert stderr.splitlines()[-1].startswith("error: PROGRAM_NAME or SUPPORT_CONTACT: ")


# -- questions on a terminal ----------------------------------------------------------------------


def test_a_change_asks_on_the_terminal_and_ctrl_d_is_no(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[str] = []

    def input_then_ctrl_d(question: str) -> str:
        asked.append(question)
        raise EOFError

    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr(builtins, "input", input_then_ctrl_d)
    out = io.StringIO()

    status = cli.main(["dlq", "redrive", "--all"], connect=lambda _: _Operator(), out=out)

    assert (status, out.getvalue()) == (1, "")
    assert asked == ["Move every dead letter to the incoming queue. Go on? [y/N] "]
    assert capsys.readouterr() == ("", "\nnothing changed\n"), "the answer's line ends; stdout stays clean"


# -- verify from the command line ------------------------------------------------------------------


def test_verify_posts_to_the_url_given_and_erases_the_made_up_test_phone_afterwards(
    local_webhook: tuple[str, type[_Webhook]],
) -> None:
    url, handler = local_webhook
    operator = _Operator()

    status, output = _main("--json", "verify", "--to", BOT, "--url", url, operator=operator)

    assert status == 0
    report = json.loads(output)
    assert (report["verdict"], report["test_phone_erased"]) == ("the pipeline works end to end", "erased")
    assert operator.erased == [FICTIONAL_PHONE]
    [(method, path, _, signature, form)] = handler.received
    assert (method, path, form["From"], form["To"], form["Body"]) == (
        "POST",
        "/sms/s3cret",
        FICTIONAL_PHONE,
        BOT,
        "help",
    )
    assert RequestValidator(TOKEN).validate(url, form, signature)
    assert operator.reads.polled == [form["MessageSid"]]


def test_verify_from_a_real_phone_erases_nothing(
    local_webhook: tuple[str, type[_Webhook]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = local_webhook
    monkeypatch.setenv("WEBHOOK_URL", url)
    operator = _Operator()

    status, output = _main("--json", "verify", "--to", BOT, "--from", "+15551230000", operator=operator)

    assert status == 0
    assert "test_phone_erased" not in json.loads(output)
    assert operator.erased == []
    assert handler.received[0][4]["From"] == "+15551230000"


def test_verify_gives_up_after_the_timeout_it_was_given(
    local_webhook: tuple[str, type[_Webhook]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = local_webhook

    status, _ = _main(
        "verify", "--to", BOT, "--url", url, "--timeout", "1s", operator=_Operator(settled=False)
    )

    assert status == 1
    assert "but after 1 s it is not yet processed" in capsys.readouterr().err


def test_verify_with_stack_finds_the_webhook_and_signs_with_the_token_in_ssm(
    local_webhook: tuple[str, type[_Webhook]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = local_webhook
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("WEBHOOK_PATH_SECRET", "s3cret")
    monkeypatch.delenv("WEBHOOK_URL", raising=False)
    template = {
        "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}},
        "Outputs": {"WebhookUrl": {"Value": url.replace("s3cret", "<WebhookPathSecret>")}},
    }
    with mock_aws():
        cloudformation = boto3.client("cloudformation", region_name="us-west-2")
        cloudformation.create_stack(StackName="rps", TemplateBody=json.dumps(template))
        ssm = boto3.client("ssm", region_name="us-west-2")
        ssm.put_parameter(Name="/rps/token", Value="token-from-ssm", Type="SecureString")
        operator = _Operator(token_parameter="/rps/token")

        status, _ = _main("verify", "--to", BOT, "--stack", "rps", "--region", "us-west-2", operator=operator)

    assert status == 0
    [(_, path, _, signature, form)] = handler.received
    assert path == "/sms/s3cret"
    assert RequestValidator("token-from-ssm").validate(url, form, signature)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["--url", "http://127.0.0.1:9/sms"],
            "error: verify needs the game's Twilio number: --to +1... (or TWILIO_PHONE_NUMBER)\n",
        ),
        (["--to", BOT], "error: verify needs the webhook URL: --stack NAME, --url or WEBHOOK_URL\n"),
    ],
)
def test_verify_without_a_number_or_a_url_says_which_setting_is_missing(
    argv: list[str], says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("TWILIO_PHONE_NUMBER", "WEBHOOK_URL"):
        monkeypatch.delenv(name, raising=False)

    assert _main("verify", *argv, operator=_Operator()) == (1, "")
    assert capsys.readouterr().err == says


def test_campaign_words_the_registration_form_as_the_carriers_read_it() -> None:
    form = campaign.registration(Program("Pebble Duel", "duel@example.org"))

    samples_and_keywords = {"sample messages", "sample messages (Spanish)", "keywords"}
    assert {key: value for key, value in form.items() if key not in samples_and_keywords} == {
        "program": "Pebble Duel",
        "support contact": "duel@example.org",
        "use case description": "Pebble Duel is a rock-paper-scissors game played by SMS. A player texts the"
        " number to join and play; the bot answers each text (nickname, throws, scores, help) and tells a"
        " player when someone they play answers or challenges them. No marketing, no links, no third-party"
        " content.",
        "message flow (how a player opts in)": "The player opts in by texting the game's number first (any"
        " text, e.g. HELP or NICK alice), having found the number where the operator publishes it. The bot"
        " never texts a number that has not texted it. The first reply a number gets is the opt-in"
        " confirmation (the first sample), and START after an opt-out gets it again.",
        "message frequency": "depends on play: one reply per text, plus challenges and results",
        "embedded links": "no",
        "embedded phone numbers": "no",
        "age-gated content": "no",
        "opt-out note": "Twilio answers the exact opt-out keywords itself (its default text, or the Advanced"
        " Opt-Out text you set); the bot sends the opt-out reply above, once, for an opt-out Twilio may not"
        " have answered (a keyword typed with punctuation or full-width letters, or a request to stop in"
        " other words). HELP gets the help reply, then a second SMS listing the game's commands. Twilio's"
        " default keywords are English only: the bot reads the Spanish ones above (as typed, accents or none,"
        " and Spanish requests to stop in other words) and sends their replies itself, in Spanish; add them"
        " to the Messaging Service's Advanced Opt-Out, with these Spanish replies, for Twilio to answer and"
        " block them too. A player who texts in Spanish is answered in Spanish from then on (IDIOMA en or"
        " LANG en switches back).",
    }
    samples = campaign.sample_messages(Program("Pebble Duel", "duel@example.org"))
    assert form["sample messages"] == [{"sample": n, "message": text} for n, text in enumerate(samples, 1)]
    assert form["sample messages"][0]["sample"] == 1
    spanish = campaign.sample_messages(Program("Pebble Duel", "duel@example.org"), replies_es)
    assert form["sample messages (Spanish)"] == [
        {"sample": n, "message": text} for n, text in enumerate(spanish, 1)
    ]
    assert spanish[0].startswith("¡Bienvenido a Pebble Duel!")
    assert [(row["kind"], row["keywords"]) for row in form["keywords"]] == [
        ("opt-in", "START, UNSTOP, YES"),
        ("opt-out", "CANCEL, END, OPTOUT, QUIT, REVOKE, STOP, STOPALL, UNSUBSCRIBE"),
        ("help", "HELP, INFO"),
        ("opt-in (Spanish)", "ALTA"),
        ("opt-out (Spanish)", "ALTO, BAJA, CANCELAR, DETENER, NO MAS, PARA, PARAR"),
        ("help (Spanish)", "AYUDA"),
    ]


@pytest.mark.parametrize("found_by", ["stack", "environment"])
def test_the_tool_connects_to_the_deployed_game_its_told_of(
    monkeypatch: pytest.MonkeyPatch, found_by: str
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")  # --region wins, for every client
    variables = _STACK["Resources"]["GameFunction"]["Properties"]["Environment"]["Variables"]
    with mock_aws():
        boto3.client("iam", region_name="us-east-1").create_role(
            RoleName="rps-game", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17"})
        )
        boto3.client("cloudformation", region_name="us-east-1").create_stack(
            StackName="rps", TemplateBody=json.dumps(_STACK)
        )
        boto3.client("ssm", region_name="us-east-1").put_parameter(
            Name=variables["TWILIO_AUTH_TOKEN_PARAMETER"], Value=TOKEN, Type="SecureString"
        )
        sqs = boto3.client("sqs", region_name="us-east-1")
        dead_letters = sqs.create_queue(QueueName="rps-dlq")["QueueUrl"]
        assert dead_letters == variables["DEAD_LETTER_QUEUE_URL"]
        parked = sqs.send_message(QueueUrl=dead_letters, MessageBody="{}")["MessageId"]
        if found_by == "stack":
            argv = ["--stack", "rps", "--region", "us-east-1"]
        else:
            argv = ["--region", "us-east-1"]
            for name, value in variables.items():
                monkeypatch.setenv(name, value)
        out = io.StringIO()

        status = cli.main(["--json", "dlq", "list", *argv], out=out)

    assert status == 0
    assert [row["id"] for row in json.loads(out.getvalue())] == [parked]


# -- confirmations --------------------------------------------------------------------------------


class _Changing:
    """Stands for Operator where only the confirmation is under test: records the changes made."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, Any]] = []

    def redrive(self, ids: list[str] | None) -> list[dict[str, Any]]:
        self.changes.append(("redrive", ids))
        return [{"id": "moved"}]

    def resend(self, keys: list[str]) -> list[dict[str, Any]]:
        self.changes.append(("resend", keys))
        return [{"key": "sent"}]


@pytest.mark.parametrize(
    ("argv", "question", "change"),
    [
        (["dlq", "redrive", "--all"], "Move every dead letter to the incoming queue.", ("redrive", None)),
        (
            ["dlq", "redrive", "a", "b"],
            "Move 2 dead letter(s) to the incoming queue.",
            ("redrive", ["a", "b"]),
        ),
        (["outbox", "resend", "SM1"], "Send the missing replies of 1 message(s).", ("resend", ["SM1"])),
    ],
)
@pytest.mark.parametrize("yes", ["y", " Y ", "yes", "YES"])
def test_a_change_is_made_once_the_operator_says_yes_in_any_case(
    argv: list[str], question: str, change: tuple[str, Any], yes: str
) -> None:
    operator, asked = _Changing(), []

    def ask(text: str) -> str:
        asked.append(text)
        return yes

    assert cli.main(argv, connect=lambda _: operator, out=io.StringIO(), ask=ask) == 0  # type: ignore[arg-type,return-value]
    assert asked == [f"{question} Go on? [y/N] "]
    assert operator.changes == [change]


@pytest.mark.parametrize("argv", [["dlq", "redrive", "--all"], ["outbox", "resend", "SM1"]])
def test_anything_but_yes_changes_nothing(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    operator = _Changing()

    status = cli.main(argv, connect=lambda _: operator, out=io.StringIO(), ask=lambda _: "n")  # type: ignore[arg-type,return-value]

    assert (status, operator.changes) == (1, [])
    assert capsys.readouterr().err == "nothing changed\n"


def test_without_a_terminal_a_change_says_how_to_go_ahead(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    operator = _Changing()

    assert cli.main(["dlq", "redrive", "--all"], connect=lambda _: operator, out=io.StringIO()) == 2  # type: ignore[arg-type,return-value]
    assert capsys.readouterr().err == (
        "error: dlq changes things and asks first, and there is no terminal to ask on: nothing changed; give"
        " --yes to go ahead without asking\n"
    )
    assert operator.changes == []
