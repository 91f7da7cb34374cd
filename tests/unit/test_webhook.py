"""The webhook: only requests Twilio signed reach the queue, and nothing a caller sends crashes it.
Its refusals, one check at a time, are in test_webhook_refusals.py.

Requests are built as API Gateway HTTP API (payload 2.0) events and signed with twilio's own
RequestValidator; the queue is moto's SQS.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode
from xml.etree import ElementTree

import boto3
import pytest
from twilio.request_validator import RequestValidator

from serverless_rps import webhook
from serverless_rps.message_queue import IncomingQueue
from serverless_rps.observability import logger
from tests.protocol.test_failure_visibility import json_log_lines

TOKEN = "0123456789abcdef0123456789abcdef"
ACCOUNT_SID = "AC" + "a" * 32
DOMAIN = "abc123defg.execute-api.us-east-1.amazonaws.com"
API_URL = f"https://{DOMAIN}/sms"
PLAYER = "+15551234567"
BOT = "+15550000000"


def twilio_parameters(**overrides: str) -> dict[str, str]:
    parameters = {
        "ToCountry": "US",
        "SmsMessageSid": "SM" + "0" * 31 + "1",
        "NumMedia": "0",
        "SmsSid": "SM" + "0" * 31 + "1",
        "SmsStatus": "received",
        "Body": "rock",
        "To": BOT,
        "NumSegments": "1",
        "MessageSid": "SM" + "0" * 31 + "1",
        "AccountSid": ACCOUNT_SID,
        "From": PLAYER,
        "ApiVersion": "2010-04-01",
    }
    parameters.update(overrides)
    return parameters


def sign(parameters: dict[str, str], url: str = API_URL, token: str = TOKEN) -> str:
    return str(RequestValidator(token).compute_signature(url, parameters))


def http_event(
    body: str,
    *,
    signature: str | None = None,
    encode: bool = True,
    method: str = "POST",
    raw_path: str = "/sms",
    raw_query: str = "",
    stage: str = "$default",
) -> dict[str, Any]:
    """An API Gateway HTTP API event as Lambda receives it (payload format 2.0)."""
    headers = {
        "content-type": "application/x-www-form-urlencoded",
        "host": DOMAIN,
        "user-agent": "TwilioProxy/1.1",
        "x-forwarded-proto": "https",
    }
    if signature is not None:
        headers["x-twilio-signature"] = signature
    return {
        "version": "2.0",
        "routeKey": "POST /sms",
        "rawPath": raw_path,
        "rawQueryString": raw_query,
        "headers": headers,
        "requestContext": {
            "domainName": DOMAIN,
            "domainPrefix": DOMAIN.split(".")[0],
            "http": {"method": method, "path": raw_path, "protocol": "HTTP/1.1", "sourceIp": "54.0.0.1"},
            "stage": stage,
        },
        "body": base64.b64encode(body.encode()).decode() if encode else body,
        "isBase64Encoded": encode,
    }


def signed_event(parameters: dict[str, str], url: str = API_URL, **options: Any) -> dict[str, Any]:
    return http_event(urlencode(parameters), signature=sign(parameters, url), **options)


@pytest.fixture
def sqs(aws: None) -> Any:
    return boto3.client("sqs", region_name="us-east-1")


@pytest.fixture
def queue_url(sqs: Any) -> str:
    return str(sqs.create_queue(QueueName="incoming")["QueueUrl"])


@pytest.fixture
def ingress(sqs: Any, queue_url: str) -> webhook.Ingress:
    return webhook.Ingress(RequestValidator(TOKEN), IncomingQueue(sqs, queue_url))


PLAIN = {"Content-Type": "text/plain; charset=utf-8"}
BAD_SID = "MessageSid missing or malformed"


def queued(sqs: Any, queue_url: str) -> list[dict[str, str]]:
    response = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
    return [json.loads(message["Body"]) for message in response.get("Messages", [])]


# --- signed requests are enqueued and answered with TwiML ---------------------------------------


def _game_fields(parameters: dict[str, str]) -> dict[str, str]:
    return {
        name: parameters[name]
        for name in ("MessageSid", "From", "To", "Body", "OptOutType")
        if name in parameters
    }


def test_a_signed_sms_is_enqueued_with_only_the_fields_the_game_uses(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    parameters = {**twilio_parameters(), "FromCity": "SPRINGFIELD", "FromZip": "12345", "FromState": "IL"}

    response = webhook.handle(signed_event(parameters), ingress)

    assert response["statusCode"] == 200
    [enqueued] = queued(sqs, queue_url)
    assert enqueued == _game_fields(parameters)
    assert set(enqueued) == {"MessageSid", "From", "To", "Body"}


def test_twilios_opt_out_type_is_forwarded_to_the_game(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    parameters = {**twilio_parameters(), "Body": "BAJA", "OptOutType": "STOP"}

    assert webhook.handle(signed_event(parameters), ingress)["statusCode"] == 200
    [enqueued] = queued(sqs, queue_url)
    assert enqueued["OptOutType"] == "STOP"


def test_a_refused_request_logs_its_path_without_host_query_or_secret_segment() -> None:
    event = {
        "rawPath": "/prod/sms/s3cr3t-segment-abcdefgh",
        "rawQueryString": "token=x",
        "requestContext": {"domainName": "abc.execute-api.us-east-1.amazonaws.com"},
    }
    assert webhook.logged_path(event) == "/prod/sms/<secret>"
    assert webhook.logged_path({"rawPath": "/other/path"}) == "/other/path"


def test_a_logged_path_is_at_most_200_characters() -> None:
    long = "/" + "a" * 300
    assert webhook.logged_path({"rawPath": long}) == long[:200]


def test_an_event_without_a_path_is_checked_as_a_request_to_the_hosts_root(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    """Not API Gateway's payload 2.0 (which always has rawPath): answered, never a crash."""
    parameters = twilio_parameters()
    pathless = {k: v for k, v in signed_event(parameters, f"https://{DOMAIN}/").items() if k != "rawPath"}
    assert webhook.handle(pathless, ingress)["statusCode"] == 200
    assert [message["MessageSid"] for message in queued(sqs, queue_url)] == [parameters["MessageSid"]]
    signed_for_the_webhook = {k: v for k, v in signed_event(parameters).items() if k != "rawPath"}
    assert webhook.handle(signed_for_the_webhook, ingress)["statusCode"] == 403


def test_a_signed_sms_is_answered_at_once_with_an_empty_twiml_response(ingress: webhook.Ingress) -> None:
    response = webhook.handle(signed_event(twilio_parameters()), ingress)

    assert response["statusCode"] == 200
    assert response["headers"]["Content-Type"] == "text/xml"
    assert response["body"].startswith('<?xml version="1.0" encoding="UTF-8"?>')
    document = ElementTree.fromstring(response["body"])
    assert document.tag == "Response"
    assert list(document) == []
    assert not (document.text or "").strip()


def test_a_plain_body_is_accepted_as_well_as_a_base64_one(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    plain = twilio_parameters(Body="paper", MessageSid="SM" + "a" * 32)
    encoded = twilio_parameters(Body="scissors", MessageSid="SM" + "b" * 32)

    assert webhook.handle(signed_event(plain, encode=False), ingress)["statusCode"] == 200
    assert webhook.handle(signed_event(encoded, encode=True), ingress)["statusCode"] == 200

    assert sorted(message["Body"] for message in queued(sqs, queue_url)) == ["paper", "scissors"]


def test_an_empty_text_is_accepted_because_the_game_answers_it(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    response = webhook.handle(signed_event(twilio_parameters(Body="")), ingress)

    assert response["statusCode"] == 200
    assert queued(sqs, queue_url)[0]["Body"] == ""


def test_emoji_other_scripts_and_a_long_text_arrive_on_the_queue_unchanged(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    body = ("rock 🪨 камень 石 " * 100)[:1600]
    parameters = twilio_parameters(Body=body, MessageSid="MM" + "c" * 32, NumMedia="1")

    assert webhook.handle(signed_event(parameters), ingress)["statusCode"] == 200
    assert queued(sqs, queue_url) == [_game_fields(parameters)]


def test_the_largest_sms_twilio_sends_fits_under_the_size_limit(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    media = {
        f"MediaUrl{index}": f"https://api.twilio.com/2010-04-01/Accounts/{ACCOUNT_SID}/Messages/"
        f"MM{'d' * 32}/Media/ME{index:032d}"
        for index in range(10)
    }
    parameters = twilio_parameters(Body="石" * 1600, MessageSid="MM" + "d" * 32, NumMedia="10", **media)

    assert webhook.handle(signed_event(parameters), ingress)["statusCode"] == 200
    assert queued(sqs, queue_url) == [_game_fields(parameters)]


def test_the_same_message_sid_posted_twice_is_accepted_both_times_for_the_game_to_deduplicate(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    parameters = twilio_parameters()

    first = webhook.handle(signed_event(parameters), ingress)
    second = webhook.handle(signed_event(parameters), ingress)

    assert first["statusCode"] == second["statusCode"] == 200
    assert [message["MessageSid"] for message in queued(sqs, queue_url)] == [parameters["MessageSid"]] * 2


def test_an_enqueued_sms_is_logged_with_its_sid_the_masked_sender_and_the_queues_id(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    with json_log_lines() as lines:
        webhook.handle(signed_event(twilio_parameters()), ingress)

    [line] = [line for line in lines if line["message"] == "inbound SMS enqueued"]
    [queued_message] = sqs.receive_message(QueueUrl=queue_url)["Messages"]
    assert (line["message_sid"], line["from"], line["queue_message_id"]) == (
        twilio_parameters()["MessageSid"],
        "+*******4567",
        queued_message["MessageId"],
    )


# --- the Lambda entry point: settings once per cold start, never a crash -------------------------


@dataclass(frozen=True)
class FakeLambdaContext:
    function_name: str = "serverless-rps-webhook"
    memory_limit_in_mb: int = 256
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:serverless-rps-webhook"
    aws_request_id: str = "c6af9ac6-7b61-11e6-9a41-93e812345678"


@pytest.fixture
def cold_start() -> Iterator[None]:
    webhook.load_ingress.cache_clear()
    yield
    webhook.load_ingress.cache_clear()


@pytest.fixture
def deployed_environment(monkeypatch: pytest.MonkeyPatch, sqs: Any, queue_url: str, cold_start: None) -> Any:
    ssm = boto3.client("ssm", region_name="us-east-1")
    ssm.put_parameter(Name="/serverless-rps/twilio-auth-token", Value=TOKEN, Type="SecureString")
    monkeypatch.setenv("INCOMING_QUEUE_URL", queue_url)
    monkeypatch.setenv("TWILIO_ACCOUNT_SID", ACCOUNT_SID)
    monkeypatch.setenv("TWILIO_AUTH_TOKEN_PARAMETER", "/serverless-rps/twilio-auth-token")
    monkeypatch.delenv("TWILIO_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("PUBLIC_WEBHOOK_URL", raising=False)
    return ssm


def test_the_handler_reads_the_token_from_ssm_once_per_cold_start(
    deployed_environment: Any, sqs: Any, queue_url: str
) -> None:
    parameters = twilio_parameters()
    assert webhook.lambda_handler(signed_event(parameters), FakeLambdaContext())["statusCode"] == 200

    rotated = "r" * 32
    deployed_environment.put_parameter(
        Name="/serverless-rps/twilio-auth-token", Value=rotated, Type="SecureString", Overwrite=True
    )
    # Still the same execution environment: the old token is what it knows.
    assert webhook.lambda_handler(signed_event(parameters), FakeLambdaContext())["statusCode"] == 200
    signed_with_rotated = http_event(urlencode(parameters), signature=sign(parameters, token=rotated))
    assert webhook.lambda_handler(signed_with_rotated, FakeLambdaContext())["statusCode"] == 403

    webhook.load_ingress.cache_clear()  # a new cold start picks the rotated token up
    assert webhook.lambda_handler(signed_with_rotated, FakeLambdaContext())["statusCode"] == 200
    assert len(queued(sqs, queue_url)) == 3


def test_the_handler_checks_against_public_webhook_url_when_it_is_set(
    deployed_environment: Any, monkeypatch: pytest.MonkeyPatch, sqs: Any, queue_url: str
) -> None:
    public = "https://sms.example.org/rps"
    monkeypatch.setenv("PUBLIC_WEBHOOK_URL", public)
    parameters = twilio_parameters()

    assert (
        webhook.lambda_handler(signed_event(parameters, url=public), FakeLambdaContext())["statusCode"] == 200
    )
    assert webhook.lambda_handler(signed_event(parameters), FakeLambdaContext())["statusCode"] == 403
    assert len(queued(sqs, queue_url)) == 1


def test_the_handler_answers_500_without_crashing_when_its_settings_are_missing(
    monkeypatch: pytest.MonkeyPatch, cold_start: None
) -> None:
    for name in (
        "INCOMING_QUEUE_URL",
        "TWILIO_AUTH_TOKEN_PARAMETER",
        "TWILIO_AUTH_TOKEN",
        "TWILIO_ACCOUNT_SID",
    ):
        monkeypatch.delenv(name, raising=False)

    response = webhook.lambda_handler(signed_event(twilio_parameters()), FakeLambdaContext())

    assert response["statusCode"] == 500


def test_the_handler_answers_500_without_crashing_when_the_token_parameter_is_missing(
    monkeypatch: pytest.MonkeyPatch, sqs: Any, queue_url: str, cold_start: None
) -> None:
    monkeypatch.setenv("INCOMING_QUEUE_URL", queue_url)
    monkeypatch.setenv("TWILIO_ACCOUNT_SID", ACCOUNT_SID)
    monkeypatch.setenv("TWILIO_AUTH_TOKEN_PARAMETER", "/no/such/parameter")

    response = webhook.lambda_handler(signed_event(twilio_parameters()), FakeLambdaContext())

    assert response["statusCode"] == 500
    assert queued(sqs, queue_url) == []


@pytest.mark.parametrize(
    "event",
    [
        {},
        {"body": 5, "requestContext": {"http": {"method": "POST"}}},
        {"requestContext": None, "headers": None},
        {"requestContext": {"http": {"method": "POST"}}, "headers": "not a mapping", "body": "a=b"},
        {"requestContext": {"http": {"method": "POST"}}, "body": None, "isBase64Encoded": True},
        {**http_event(""), "headers": {"X-Twilio-Signature": ["a", "list"]}},
        [],
        None,
    ],
    ids=[
        "empty",
        "number-body",
        "null-context",
        "string-headers",
        "null-body",
        "list-signature",
        "list",
        "none",
    ],
)
def test_the_handler_never_crashes_whatever_the_event(event: Any, deployed_environment: Any) -> None:
    response = webhook.lambda_handler(event, FakeLambdaContext())

    assert response["statusCode"] in {400, 403, 405, 413, 500}
    assert len(response["body"]) < 100


def test_logs_hold_neither_a_full_phone_number_nor_the_token(
    deployed_environment: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", output)
    parameters = twilio_parameters()

    webhook.lambda_handler(signed_event(parameters), FakeLambdaContext())
    webhook.lambda_handler(signed_event(twilio_parameters(MessageSid="bad")), FakeLambdaContext())
    webhook.lambda_handler(http_event(urlencode(parameters)), FakeLambdaContext())

    logged = output.getvalue()
    assert "inbound SMS enqueued" in logged
    assert PLAYER[-4:] in logged
    assert PLAYER not in logged
    assert PLAYER[1:] not in logged
    assert TOKEN not in logged
