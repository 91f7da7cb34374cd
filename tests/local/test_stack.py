"""The whole local stack with the real handlers: phones text the signed webhook, the event source
drives the game function, replies come back through the local Twilio API."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from serverless_rps import replies
from serverless_rps.config import DEFAULT_DAILY_SMS_CEILING, GameSettings
from serverless_rps_local import dev_account
from serverless_rps_local.saved_state import StateDirectory, StateInUse
from serverless_rps_local.simulator import inbound_parameters
from serverless_rps_local.stack import LocalStack, StackOptions

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

REPLY_TIMEOUT = 60
PROGRAM = replies.Program()  # the template's ProgramName and SupportContact defaults
WELCOME = replies.opt_in_confirmation(PROGRAM)  # the first reply a phone ever gets, and START's


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    options = StackOptions(workers=2, log_directory=tmp_path_factory.mktemp("logs"))
    with LocalStack(options) as running:
        yield running


def _new_player(stack: LocalStack) -> tuple[str, str]:
    """A phone of its own and a nickname no other test uses, so tests can share one stack."""
    assert stack.simulator is not None
    return stack.simulator.add_phone(), "p" + secrets.token_hex(4)


def _text_and_wait(
    stack: LocalStack, phone: str, body: str, replies_to: dict[str, int] | None = None
) -> None:
    """Text, then wait for the expected number of replies per phone (default: one to the sender)."""
    assert stack.simulator is not None
    expected = replies_to if replies_to is not None else {phone: 1}
    start = len(stack.simulator.conversation())
    stack.simulator.text(phone, body)

    def arrived(entries: list[dict[str, Any]]) -> bool:
        fresh = entries[start:]
        return all(
            sum(1 for entry in fresh if entry["direction"] == "outbound" and entry["phone"] == number)
            >= count
            for number, count in expected.items()
        )

    stack.simulator.wait_for(arrived, REPLY_TIMEOUT)
    stack.wait_until_idle(REPLY_TIMEOUT)


def _replies(stack: LocalStack, phone: str) -> list[str]:
    assert stack.simulator is not None
    return [
        entry["body"]
        for entry in stack.simulator.conversation(phone=phone)
        if entry["direction"] == "outbound"
    ]


def test_a_text_from_a_simulated_phone_gets_a_reply(stack: LocalStack) -> None:
    phone, _ = _new_player(stack)

    _text_and_wait(stack, phone, "help", replies_to={phone: 3})

    welcome, program_help, commands = _replies(stack, phone)
    assert welcome == WELCOME
    assert program_help == replies.program_help(PROGRAM)
    assert "NICK" in commands.upper()


def test_two_phones_play_a_game_and_both_learn_the_result_and_both_moves(stack: LocalStack) -> None:
    alice, alice_name = _new_player(stack)
    bob, bob_name = _new_player(stack)

    _text_and_wait(stack, alice, f"nick {alice_name}")
    _text_and_wait(stack, bob, f"nick {bob_name}")
    _text_and_wait(stack, alice, f"throw rock {bob_name}", replies_to={alice: 1, bob: 1})
    _text_and_wait(stack, bob, f"paper {alice_name}", replies_to={alice: 1, bob: 1})

    for phone in (alice, bob):
        result = _replies(stack, phone)[-1].lower()
        assert "rock" in result
        assert "paper" in result


def test_a_post_without_a_valid_signature_is_refused_and_enqueues_nothing(stack: LocalStack) -> None:
    assert stack.simulator is not None
    stack.wait_until_idle(REPLY_TIMEOUT)
    parameters = inbound_parameters(
        "SM" + secrets.token_hex(16),
        dev_account.ACCOUNT_SID,
        "+15550109999",
        dev_account.SERVICE_NUMBER,
        "help",
    )

    forged = requests.post(
        stack.simulator.webhook_url, data=parameters, headers={"X-Twilio-Signature": "Zm9yZ2Vk"}, timeout=30
    )

    assert forged.status_code == 403
    assert stack.queue_depth("IncomingQueue") == 0


def test_stop_opts_the_phone_out_at_twilio_and_start_opts_it_back_in(stack: LocalStack) -> None:
    assert stack.simulator is not None
    phone, name = _new_player(stack)
    _text_and_wait(stack, phone, f"nick {name}", replies_to={phone: 2})  # the welcome, then the nick

    stack.simulator.text(phone, "STOP")
    stack.wait_until_idle(REPLY_TIMEOUT)
    opted_out_after_stop = phone in stack.twilio.opted_out()
    replies_after_stop = len(_replies(stack, phone))
    _text_and_wait(stack, phone, "START")

    assert opted_out_after_stop
    assert replies_after_stop == 2  # Twilio answered STOP; the bot sent nothing
    assert phone not in stack.twilio.opted_out()
    assert _replies(stack, phone)[2:] == [WELCOME]  # START is answered with the opt-in confirmation


def test_a_poison_message_is_parked_on_the_dead_letter_queue_and_shown_with_its_reason(
    stack: LocalStack,
) -> None:
    assert stack.panel is not None
    assert stack.resources is not None
    poison = "not JSON " + secrets.token_hex(4)
    stack.aws("sqs").send_message(QueueUrl=stack.resources.queue_url("IncomingQueue"), MessageBody=poison)

    stack.wait_until_idle(REPLY_TIMEOUT)

    [parked] = [
        message for message in stack.panel.snapshot()["dead_letters"]["messages"] if message["body"] == poison
    ]
    assert parked["reason"]
    assert "maxReceiveCount" not in parked["reason"]


def test_a_lock_in_the_game_state_table_shows_in_the_panel(stack: LocalStack) -> None:
    assert stack.panel is not None
    table = stack.template.table("GameStateTable").name
    expires = int(time.time()) + 25
    stack.aws("dynamodb").put_item(
        TableName=table,
        Item={
            "phone_number": {"S": "+15550108888"},
            "user_locked": {
                "M": {"lock_uuid": {"S": "lock-1"}, "expiration_epoch_timestamp": {"N": str(expires)}}
            },
        },
    )

    locks = stack.panel.snapshot()["locks"]

    assert {"player": "+15550108888", "lock_id": "lock-1", "expires_at": expires, "expired": False} in locks


def test_the_functions_run_with_the_templates_environment_and_local_endpoints(stack: LocalStack) -> None:
    assert stack.resources is not None
    game = stack.function("GameFunction").environment
    webhook = stack.function("WebhookFunction").environment

    assert game["GAME_STATE_TABLE"] == stack.template.table("GameStateTable").name
    assert game["INCOMING_QUEUE_URL"] == stack.resources.queue_url("IncomingQueue")
    assert game["AWS_ENDPOINT_URL"] == stack.resources.endpoint_url
    assert game["TWILIO_API_URL"] == stack.twilio.base_url
    assert "TWILIO_AUTH_TOKEN" not in game
    parameter = stack.aws("ssm").get_parameter(Name=game["TWILIO_AUTH_TOKEN_PARAMETER"], WithDecryption=True)
    assert (parameter["Parameter"]["Type"], parameter["Parameter"]["Value"]) == (
        "SecureString",
        dev_account.AUTH_TOKEN,
    )
    assert stack.simulator is not None
    assert webhook["PUBLIC_WEBHOOK_URL"] == stack.simulator.webhook_url


def test_the_page_adds_phones_the_templates_country_list_serves_under_its_daily_ceiling(
    stack: LocalStack,
) -> None:
    """`make play` reads template.yaml's defaults: the game serves NANP, and every phone the page
    adds (and the development account's) is a +1 number, so the simulator is answered."""
    assert stack.simulator is not None
    settings = GameSettings.from_environment(stack.function("GameFunction").environment)
    added = [stack.simulator.add_phone() for _ in range(3)]

    assert settings.served_countries.calling_codes == ("1",)
    assert settings.daily_sms_ceiling == DEFAULT_DAILY_SMS_CEILING
    assert all(settings.served_countries.serves(phone) for phone in added)
    assert all(settings.served_countries.serves(phone) for phone in dev_account.FIRST_PHONE_NUMBERS)


def test_game_state_queued_messages_and_sent_sms_are_kept_between_runs(tmp_path: Path) -> None:
    phone = dev_account.FIRST_PHONE_NUMBERS[0]
    with LocalStack(StackOptions(state_directory=tmp_path, workers=1)) as first:
        _text_and_wait(first, phone, "nick keeper", replies_to={phone: 2})
        assert first.event_source is not None
        assert first.resources is not None
        first.event_source.stop()
        first.aws("sqs").send_message(QueueUrl=first.resources.queue_url("IncomingQueue"), MessageBody="{}")

    with LocalStack(
        StackOptions(state_directory=tmp_path, serve_http=False, poll_queue=False, warm=False)
    ) as second:
        player = second.aws("dynamodb").get_item(
            TableName=second.template.table("GameStateTable").name, Key={"phone_number": {"S": phone}}
        )
        sent = [(message["to"], message["body"]) for message in second.twilio.sent_messages()]
        queued = second.queue_depth("IncomingQueue")

    assert "Item" in player
    assert sent == [(phone, WELCOME), (phone, replies.nick_registered("keeper"))]
    assert queued == 1
    assert (tmp_path / "simulator.json").exists()


def test_two_stacks_cannot_share_a_state_directory(tmp_path: Path) -> None:
    holder = StateDirectory(tmp_path)
    holder.lock()
    try:
        with pytest.raises(StateInUse):
            StateDirectory(tmp_path).lock()
    finally:
        holder.unlock()
