"""Failures are visible (promise 15): every unexpected exception is logged once at ERROR with its
type, message and stack before the message is retried; configuration errors are named as such.
Expected retries (a lock held elsewhere, throttling) stay at WARNING.

Through the deployed entry point (`lambda_handler`, wired by environment variables) on moto and
the local Twilio API, reading the JSON lines exactly as CloudWatch would receive them.
"""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest

from serverless_rps import app, game, observability
from serverless_rps.exceptions import LockContended, SmsTemporarilyFailed, StoreUnavailable
from serverless_rps.ports import CompletedRecord, OutboundSms
from serverless_rps.twilio_errors import TWILIO_ERRORS, TwilioFailure, classify
from serverless_rps_local.twilio_api import LocalTwilioApi
from tests.conftest import ALICE, BOB, TABLES, Game, opted_out, transient_failure
from tests.protocol.test_lambda_handler import LambdaContext, _event, deployed
from tests.protocol.test_store_edges import refusing

__all__ = ["deployed"]


@contextmanager
def json_log_lines() -> Iterator[list[dict[str, Any]]]:
    """The game's log lines written inside the block, parsed as CloudWatch would receive them
    (the list is filled in when the block ends)."""
    written = io.StringIO()
    handler = logging.StreamHandler(written)
    handler.setFormatter(observability.logger.registered_formatter)
    observability.logger.addHandler(handler)
    lines: list[dict[str, Any]] = []
    try:
        yield lines
    finally:
        observability.logger.removeHandler(handler)
        lines += [json.loads(line) for line in written.getvalue().splitlines() if line.startswith("{")]


def _run(event: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with json_log_lines() as lines:
        response = app.lambda_handler(event, LambdaContext())
    return response, lines


def _errors(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["level"] == "ERROR"]


def test_a_missing_table_is_logged_once_as_a_configuration_error(
    deployed: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IDEMPOTENCY_TABLE", "rps-no-such-table")  # a stack wired to a table that is not there
    app._cold_start.cache_clear()
    response, lines = _run(_event(("SM" + "1" * 32, ALICE, "help")))

    assert response == {"batchItemFailures": [{"itemIdentifier": "sqs-SM" + "1" * 32}]}
    [error] = _errors(lines)
    assert error["message"].startswith("configuration error")
    assert "ResourceNotFoundException" in error["reason"]


def test_a_bug_is_logged_once_at_error_with_its_type_and_stack(
    deployed: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any, **__: Any) -> Any:
        raise KeyError("games")

    monkeypatch.setattr(game, "show_score", broken)
    response, lines = _run(_event(("SM" + "2" * 32, ALICE, "score")))

    assert response == {"batchItemFailures": [{"itemIdentifier": "sqs-SM" + "2" * 32}]}
    [error] = _errors(lines)
    assert error["error_type"] == "KeyError"
    assert "games" in error["reason"]
    assert "Traceback" in error["exception"], "the stack is in the log line"


def test_a_lock_held_elsewhere_is_a_warning_not_an_error(deployed: Any, dynamodb: Any) -> None:
    _run(_event(("SM" + "3" * 32, ALICE, "nick alice")))
    dynamodb.update_item(
        TableName=TABLES.game_state,
        Key={"phone_number": {"S": ALICE}},
        UpdateExpression="SET user_locked = :lock",
        ExpressionAttributeValues={
            ":lock": {"M": {"lock_uuid": {"S": "other"}, "expiration_epoch_timestamp": {"N": "99999999999"}}}
        },
    )
    response, lines = _run(_event(("SM" + "4" * 32, ALICE, "score")))

    assert response["batchItemFailures"]
    assert _errors(lines) == []
    assert any(line["level"] == "WARNING" and "retried" in line["message"] for line in lines)


def test_twilio_refusing_our_credentials_is_a_configuration_error_and_keeps_the_reply(
    deployed: Any, twilio: LocalTwilioApi
) -> None:
    twilio.fail_next(status=401, code=20003)
    response, lines = _run(_event(("SM" + "5" * 32, BOB, "help")))

    assert response["batchItemFailures"], "retried, not recorded as refused"
    [error] = _errors(lines)
    assert error["message"].startswith("configuration error")
    assert "20003" in error["reason"]

    response, _ = _run(_event(("SM" + "5" * 32, BOB, "help")))  # fixed: the redelivery sends it
    assert response == {"batchItemFailures": []}
    # All three replies, once each: the opt-in confirmation (a new phone) and the two help texts.
    sent = twilio.sent_messages()
    assert [message["to"] for message in sent] == [BOB] * 3
    assert len({message["body"] for message in sent}) == 3


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [
        (400, 21610, TwilioFailure.REFUSED),
        (400, 21265, TwilioFailure.REFUSED),
        (400, 21266, TwilioFailure.REFUSED),
        (400, 21660, TwilioFailure.CONFIGURATION),
        (401, 20003, TwilioFailure.CONFIGURATION),
        (429, 20429, TwilioFailure.TRANSIENT),
        (503, 20503, TwilioFailure.TRANSIENT),
        (400, 99999, TwilioFailure.TRANSIENT),  # unknown: kept and retried, never dropped
        (401, None, TwilioFailure.CONFIGURATION),  # credentials refused, whoever answered
        (403, None, TwilioFailure.CONFIGURATION),
    ],
)
def test_twilio_codes_are_classified_as_twilios_documentation_says(
    status: int, code: int | None, expected: TwilioFailure
) -> None:
    assert classify(code, status) is expected


def test_every_classified_code_is_a_twilio_code_of_its_family() -> None:
    # 2xxxx: REST API errors; 3xxxx: delivery errors; 14xxx: messaging rate limits.
    assert all(10000 <= code < 40000 for code in TWILIO_ERRORS)
    assert {kind for kind in TWILIO_ERRORS.values()} == set(TwilioFailure)


def test_a_reply_twilio_refuses_for_good_is_a_warning_with_its_code_and_the_masked_number(
    game: Game,
) -> None:
    game.sms.fail_next(opted_out())
    with json_log_lines() as lines:
        game.text(ALICE, "help")

    [refused] = [line for line in lines if line["level"] == "WARNING"]
    assert (refused["message"], refused["code"], refused["to"]) == (
        "Twilio refused a reply for good",
        21610,
        "+*******0001",
    )


def _a_claim_left_after_a_contended_lock(game: Game, stack: ExitStack) -> Callable[[], object]:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.store.lock(BOB, "another-invocation", time.time())
    stack.enter_context(refusing(game, "DeleteItem", "throttled"))
    stack.enter_context(pytest.raises(LockContended))
    return lambda: game.text(ALICE, "rock bob")


def _an_outbox_left_after_a_failed_send(game: Game, stack: ExitStack) -> Callable[[], object]:
    def fail_then_refuse_the_release(message: OutboundSms, reply: object = None) -> str:
        stack.enter_context(refusing(game, "UpdateItem", "throttled"))
        raise transient_failure()

    game.sms.send = fail_then_refuse_the_release  # type: ignore[method-assign]
    stack.enter_context(pytest.raises(SmsTemporarilyFailed))
    return lambda: game.text(ALICE, "help")


def _a_sent_outbox_left_unfinished(game: Game, stack: ExitStack) -> Callable[[], object]:
    game.text(ALICE, "help", sid="SM" + "6" * 32)

    def refused(record: CompletedRecord) -> None:
        raise StoreUnavailable("could not drop a sent outbox: ThrottlingException", retry_after=1)

    game.store.outboxes.finish = refused  # type: ignore[method-assign]
    return lambda: game.text(ALICE, "help", sid="SM" + "6" * 32)  # Twilio posted it twice


@pytest.mark.parametrize(
    ("left", "action", "error"),
    [
        (
            _a_claim_left_after_a_contended_lock,
            "abandon the claim",
            "StoreUnavailable('could not abandon the claim: ThrottlingException')",
        ),
        (
            _an_outbox_left_after_a_failed_send,
            "release the outbox",
            "StoreUnavailable('could not release the outbox: ThrottlingException')",
        ),
        (
            _a_sent_outbox_left_unfinished,
            "finish a sent outbox",
            "StoreUnavailable('could not drop a sent outbox: ThrottlingException')",
        ),
    ],
    ids=["claim", "outbox lease", "sent outbox"],
)
def test_a_clean_up_that_fails_is_a_warning_naming_what_is_left_to_expire(
    game: Game, left: Callable[[Game, ExitStack], Callable[[], object]], action: str, error: str
) -> None:
    with json_log_lines() as lines, ExitStack() as stack:
        left(game, stack)()

    [warning] = [line for line in lines if line["message"] == "clean-up failed; relying on expiry"]
    assert (warning["level"], warning["action"], warning["error"]) == ("WARNING", action, error)
