"""The webhook's status route, before any write: what it reads of a status callback, what it
refuses, and which URL it checks the signature against."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from twilio.request_validator import RequestValidator

from serverless_rps import webhook
from serverless_rps.game_store.delivery_status import DeliveryStatus, StatusOutcome
from serverless_rps.ports import ReplyId
from serverless_rps.status_callbacks import read_status_callback
from tests.unit.test_webhook import DOMAIN, TOKEN, http_event, sign

KEY = "SM" + "1" * 32
SID = "SM" + "2" * 32
PATH = "/sms/the-secret-segment/status"
QUERY = urlencode({"key": KEY, "index": 1})
NO_IDENTITY = "key or index missing or malformed in the query string"


def form(**overrides: str) -> list[tuple[str, str]]:
    return list(
        {"MessageSid": SID, "MessageStatus": "undelivered", "ErrorCode": "30007", **overrides}.items()
    )


def test_a_callback_names_its_reply_by_the_query_and_its_send_by_the_form() -> None:
    callback = read_status_callback(QUERY, form(), now=5.0)
    assert callback == read_status_callback(QUERY, form(), now=5.0)
    assert not isinstance(callback, str)
    assert callback.reply == ReplyId(KEY, 1)
    assert callback.status == DeliveryStatus(SID, "undelivered", 30007, 5.0)


@pytest.mark.parametrize(
    ("query", "fields", "reason"),
    [
        ("", form(), "key or index missing or malformed in the query string"),
        (
            urlencode({"key": KEY, "index": "one"}),
            form(),
            "key or index missing or malformed in the query string",
        ),
        (QUERY + "&index=2", form(), "query parameter index appears more than once"),
        (QUERY, form(MessageSid="nope"), "MessageSid missing or malformed"),
        (QUERY, form(MessageStatus=""), "MessageStatus missing or malformed"),
        (QUERY, form(ErrorCode="30007; drop table"), "ErrorCode malformed"),
    ],
)
def test_a_malformed_callback_is_refused_with_the_first_thing_wrong(
    query: str, fields: list[tuple[str, str]], reason: str
) -> None:
    assert read_status_callback(query, fields, now=0.0) == reason


class RecordingStatuses:
    """Stands in for the store: records what the route asks it to write."""

    def __init__(self, outcome: StatusOutcome = StatusOutcome.RECORDED) -> None:
        self.written: list[tuple[str, int, DeliveryStatus]] = []
        self.outcome = outcome

    def record(self, key: str, index: int, status: DeliveryStatus) -> StatusOutcome:
        self.written.append((key, index, status))
        return self.outcome


def status_event(parameters: dict[str, str], url: str) -> dict[str, Any]:
    return http_event(urlencode(parameters), signature=sign(parameters, url), raw_path=PATH, raw_query=QUERY)


def ingress(statuses: Any, public_url: str | None = None) -> webhook.Ingress:
    no_queue: Any = None  # the status route never enqueues
    return webhook.Ingress(
        RequestValidator(TOKEN), no_queue, public_webhook_url=public_url, statuses=statuses
    )


def test_behind_a_custom_domain_the_status_route_is_the_public_url_plus_status() -> None:
    statuses = RecordingStatuses()
    public = "https://sms.example.com/sms/the-secret-segment"
    parameters = dict(form())

    signed_for_public = status_event(parameters, f"{public}/status?{QUERY}")
    signed_for_api = status_event(parameters, f"https://{DOMAIN}{PATH}?{QUERY}")

    assert webhook.handle(signed_for_public, ingress(statuses, public))["statusCode"] == 200
    assert webhook.handle(signed_for_api, ingress(statuses, public))["statusCode"] == 403
    assert len(statuses.written) == 1


def test_a_status_twilio_has_that_we_do_not_keep_is_acknowledged_and_not_written() -> None:
    statuses = RecordingStatuses()
    parameters = dict(form(MessageStatus="read", ErrorCode=""))
    event = status_event(parameters, f"https://{DOMAIN}{PATH}?{QUERY}")
    assert webhook.handle(event, ingress(statuses))["statusCode"] == 200
    assert statuses.written == []


def test_without_its_table_the_status_route_answers_500_and_says_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    event = status_event(dict(form()), f"https://{DOMAIN}{PATH}?{QUERY}")
    assert webhook.handle(event, ingress(None))["statusCode"] == 500
    assert "IDEMPOTENCY_TABLE is not set" in caplog.text


def test_the_logged_path_keeps_the_status_route_and_hides_the_secret() -> None:
    assert webhook.logged_path({"rawPath": PATH}) == "/sms/<secret>/status"
