"""The webhook's refusals, each as its whole answer: what a caller gets, and why, when a check
fails (the checks and their order are in webhook.py's docstring), with the URL the signature
covers. Nothing refused is enqueued.

Built and signed as test_webhook.py builds its requests, with its fixtures.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import boto3
import pytest
from botocore.config import Config
from twilio.request_validator import RequestValidator

from serverless_rps import webhook
from serverless_rps.message_queue import IncomingQueue
from tests.protocol.test_failure_visibility import json_log_lines
from tests.unit.test_webhook import (
    API_URL,
    BAD_SID,
    DOMAIN,
    PLAIN,
    TOKEN,
    http_event,
    ingress,
    queue_url,
    queued,
    sign,
    signed_event,
    sqs,
    twilio_parameters,
)

__all__ = ["ingress", "queue_url", "sqs"]


# --- anything not signed by Twilio for this URL gets 403 and enqueues nothing --------------------


def _unsigned() -> dict[str, Any]:
    return http_event(urlencode(twilio_parameters()))


def _bad_signature() -> dict[str, Any]:
    return http_event(urlencode(twilio_parameters()), signature="bm90IGEgc2lnbmF0dXJlIGF0IGFsbA==")


def _empty_signature() -> dict[str, Any]:
    return http_event(urlencode(twilio_parameters()), signature="")


def _signed_for_another_url() -> dict[str, Any]:
    return signed_event(twilio_parameters(), url="https://attacker.example.com/sms")


def _signed_for_another_path() -> dict[str, Any]:
    return signed_event(twilio_parameters(), url=f"https://{DOMAIN}/other")


def _signed_with_another_token() -> dict[str, Any]:
    parameters = twilio_parameters()
    return http_event(urlencode(parameters), signature=sign(parameters, token="f" * 32))


def _tampered_body() -> dict[str, Any]:
    parameters = twilio_parameters(Body="rock")
    return http_event(urlencode({**parameters, "Body": "paper"}), signature=sign(parameters))


def _tampered_sender() -> dict[str, Any]:
    parameters = twilio_parameters()
    return http_event(urlencode({**parameters, "From": "+15559999999"}), signature=sign(parameters))


def _added_parameter() -> dict[str, Any]:
    parameters = twilio_parameters()
    return http_event(urlencode({**parameters, "Extra": "1"}), signature=sign(parameters))


def _unsigned_and_malformed() -> dict[str, Any]:
    return http_event(urlencode({"Body": "rock"}))


@pytest.mark.parametrize(
    "make_event",
    [
        _unsigned,
        _bad_signature,
        _empty_signature,
        _signed_for_another_url,
        _signed_for_another_path,
        _signed_with_another_token,
        _tampered_body,
        _tampered_sender,
        _added_parameter,
        _unsigned_and_malformed,
    ],
)
def test_a_request_twilio_did_not_sign_for_this_url_is_refused_and_nothing_is_enqueued(
    make_event: Any, ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    response = webhook.handle(make_event(), ingress)

    assert response == {"statusCode": 403, "headers": PLAIN, "body": "invalid or missing X-Twilio-Signature"}
    assert queued(sqs, queue_url) == []


# --- the URL the signature covers ----------------------------------------------------------------


def test_the_signed_url_is_rebuilt_from_the_domain_and_raw_path() -> None:
    assert webhook.signed_url(http_event(""), None) == API_URL


def test_the_rebuilt_url_keeps_a_named_stage_prefix_and_the_query_string() -> None:
    event = http_event("", raw_path="/prod/sms", raw_query="game=1&x=a%20b", stage="prod")

    assert webhook.signed_url(event, None) == f"https://{DOMAIN}/prod/sms?game=1&x=a%20b"


def test_a_request_signed_for_a_stage_url_with_a_query_is_accepted(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    parameters = twilio_parameters()
    url = f"https://{DOMAIN}/prod/sms?source=twilio"
    event = signed_event(parameters, url=url, raw_path="/prod/sms", raw_query="source=twilio", stage="prod")

    assert webhook.handle(event, ingress)["statusCode"] == 200
    assert len(queued(sqs, queue_url)) == 1


def test_a_configured_public_url_is_what_the_signature_must_cover(
    sqs: Any, queue_url: str, ingress: webhook.Ingress
) -> None:
    public = "https://rps.example.com/twilio/sms"
    behind_custom_domain = webhook.Ingress(ingress.validator, ingress.queue, public_webhook_url=public)
    parameters = twilio_parameters()

    signed_for_public_url = webhook.handle(signed_event(parameters, url=public), behind_custom_domain)
    signed_for_api_url = webhook.handle(signed_event(parameters, url=API_URL), behind_custom_domain)

    assert signed_for_public_url["statusCode"] == 200
    assert signed_for_api_url["statusCode"] == 403
    assert len(queued(sqs, queue_url)) == 1


def test_a_signature_computed_with_the_default_port_in_the_url_is_accepted(ingress: webhook.Ingress) -> None:
    parameters = twilio_parameters()
    event = http_event(urlencode(parameters), signature=sign(parameters, url=f"https://{DOMAIN}:443/sms"))

    assert webhook.handle(event, ingress)["statusCode"] == 200


def test_the_host_twilio_signed_is_api_gateways_domain_then_the_host_header() -> None:
    behind_a_proxy = http_event("")
    behind_a_proxy["headers"]["host"] = "proxy.internal"
    assert webhook.signed_url(behind_a_proxy, None) == API_URL
    without_domain = {**behind_a_proxy, "requestContext": {"http": {"method": "POST"}}}
    assert webhook.signed_url(without_domain, None) == "https://proxy.internal/sms"
    upper_case_header = {**without_domain, "headers": {"Host": "Proxy.Internal"}}
    assert webhook.signed_url(upper_case_header, None) == "https://Proxy.Internal/sms"


# --- signed but malformed: 400 with a reason, nothing enqueued -----------------------------------


@pytest.mark.parametrize(
    ("parameters", "reason"),
    [
        ({k: v for k, v in twilio_parameters().items() if k != "MessageSid"}, BAD_SID),
        (twilio_parameters(MessageSid="SM123"), BAD_SID),
        (twilio_parameters(MessageSid="XX" + "0" * 32), BAD_SID),
        (twilio_parameters(MessageSid="SM" + "g" * 32), BAD_SID),
        (twilio_parameters(MessageSid="SM" + "0" * 32 + "0"), BAD_SID),
        ({k: v for k, v in twilio_parameters().items() if k != "From"}, "From missing or malformed"),
        (twilio_parameters(From=" "), "From missing or malformed"),
        (twilio_parameters(From="+1" * 40), "From missing or malformed"),
        ({k: v for k, v in twilio_parameters().items() if k != "To"}, "To missing or malformed"),
        ({k: v for k, v in twilio_parameters().items() if k != "Body"}, "Body missing"),
    ],
    ids=[
        "no-sid",
        "short-sid",
        "wrong-prefix",
        "not-hex",
        "long-sid",
        "no-from",
        "blank-from",
        "long-from",
        "no-to",
        "no-body",
    ],
)
def test_a_signed_request_with_a_missing_or_malformed_field_gets_400_and_a_reason(
    parameters: dict[str, str], reason: str, ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    response = webhook.handle(signed_event(parameters), ingress)

    assert response == {"statusCode": 400, "headers": PLAIN, "body": reason}
    assert queued(sqs, queue_url) == []


@pytest.mark.parametrize(
    ("sender", "status"),
    [("7", 200), ("+" + "1" * 63, 200), ("+" + "1" * 64, 400)],
    ids=["one-character", "64-characters", "65-characters"],
)
def test_a_sender_of_one_to_64_characters_is_accepted(
    sender: str, status: int, ingress: webhook.Ingress
) -> None:
    assert webhook.handle(signed_event(twilio_parameters(From=sender)), ingress)["statusCode"] == status


def test_an_empty_body_signed_for_this_url_is_answered_400_not_taken_for_unsigned(
    ingress: webhook.Ingress,
) -> None:
    event = {**http_event("", signature=sign({})), "body": None}
    assert webhook.handle(event, ingress) == {"statusCode": 400, "headers": PLAIN, "body": BAD_SID}


def test_a_signed_request_that_repeats_a_parameter_gets_400(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    parameters = twilio_parameters()
    body = urlencode(parameters) + "&Body=paper"
    signature = str(
        RequestValidator(TOKEN).compute_signature(API_URL, _MultiDict(parameters, extra=("Body", "paper")))
    )

    response = webhook.handle(http_event(body, signature=signature), ingress)

    assert response == {"statusCode": 400, "headers": PLAIN, "body": "parameter Body appears more than once"}
    assert queued(sqs, queue_url) == []


def test_a_repeated_parameters_name_is_cut_to_40_characters_in_the_reason(ingress: webhook.Ingress) -> None:
    name = "N" * 50
    parameters = {**twilio_parameters(), name: "1"}
    body = urlencode(parameters) + f"&{name}=2"
    signature = str(
        RequestValidator(TOKEN).compute_signature(API_URL, _MultiDict(parameters, extra=(name, "2")))
    )

    response = webhook.handle(http_event(body, signature=signature), ingress)

    assert response["body"] == f"parameter {'N' * 40} appears more than once"


class _MultiDict(dict[str, list[str]]):
    """Form parameters with a repeated key, signed the way Twilio's validator reads them."""

    def __init__(self, parameters: dict[str, str], extra: tuple[str, str]) -> None:
        super().__init__({name: [value] for name, value in parameters.items()})
        self[extra[0]].append(extra[1])

    def getlist(self, name: str) -> list[str]:
        return self[name]


def test_stray_separators_in_the_form_are_skipped_as_twilios_validator_skips_them(
    ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    parameters = twilio_parameters()
    event = http_event(urlencode(parameters).replace("&", "&&", 1), signature=sign(parameters))
    assert webhook.handle(event, ingress)["statusCode"] == 200
    assert len(queued(sqs, queue_url)) == 1


# --- a body that cannot be read, or is too large, and a method other than POST -------------------


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ({**http_event("x"), "body": "%%%not base64%%%"}, "body is not valid base64"),
        # Characters outside base64's alphabet are refused, not skipped over.
        ({**http_event("x"), "body": "Qm9k eT1y b2Nr"}, "body is not valid base64"),
        (http_event("Body=%FF%FE&From=%2B1555", encode=True), "body is not form-encoded UTF-8"),
        (http_event("&".join(f"p{index}=1" for index in range(101))), "body is not form-encoded UTF-8"),
        ({**http_event("x"), "body": {"Body": "rock"}}, "body is not form-encoded text"),
    ],
    ids=["bad-base64", "spaces-in-base64", "bad-utf8", "too-many-fields", "not-text"],
)
def test_a_body_that_cannot_be_read_is_treated_as_unsigned(
    event: dict[str, Any], reason: str, ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    response = webhook.handle(event, ingress)

    expected = f"invalid or missing X-Twilio-Signature: {reason}"
    assert response == {"statusCode": 403, "headers": PLAIN, "body": expected}
    assert queued(sqs, queue_url) == []


@pytest.mark.parametrize("encode", [True, False], ids=["base64", "plain"])
def test_an_oversize_body_is_refused_with_413(
    encode: bool, ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    parameters = twilio_parameters(Body="x" * (32 * 1024 + 1))

    response = webhook.handle(signed_event(parameters, encode=encode), ingress)

    assert response == {"statusCode": 413, "headers": PLAIN, "body": "body too large"}
    assert queued(sqs, queue_url) == []


def test_a_body_longer_than_the_largest_encoded_sms_is_refused_before_it_is_decoded(
    ingress: webhook.Ingress,
) -> None:
    """Base64 of MAX_BODY_BYTES is 43,692 characters: one more is too large, whatever it holds."""
    event = {**http_event("x"), "body": "A" * 43_693}
    assert webhook.handle(event, ingress) == {"statusCode": 413, "headers": PLAIN, "body": "body too large"}


@pytest.mark.parametrize("encode", [True, False], ids=["base64", "plain"])
def test_a_body_of_32_kib_exactly_is_accepted(encode: bool, ingress: webhook.Ingress) -> None:
    """Room for Twilio's largest SMS, 1,600 three-byte characters percent-encoded, and the rest."""
    parameters = twilio_parameters(Body="")
    parameters["Body"] = "x" * (32 * 1024 - len(urlencode(parameters)))
    assert len(urlencode(parameters)) == 32 * 1024

    assert webhook.handle(signed_event(parameters, encode=encode), ingress)["statusCode"] == 200


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "HEAD"])
def test_methods_other_than_post_get_405(
    method: str, ingress: webhook.Ingress, sqs: Any, queue_url: str
) -> None:
    response = webhook.handle(signed_event(twilio_parameters(), method=method), ingress)

    assert response == {"statusCode": 405, "headers": PLAIN, "body": "only POST is accepted"}
    assert queued(sqs, queue_url) == []


# --- a queue that cannot take the message: 500, for Twilio to retry ------------------------------


def _missing_queue(sqs: Any, queue_url: str) -> IncomingQueue:
    return IncomingQueue(sqs, queue_url.rsplit("/", 1)[0] + "/no-such-queue")


def _unreachable_queue(sqs: Any, queue_url: str) -> IncomingQueue:
    nowhere = boto3.client(
        "sqs",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:9",  # the discard port: nothing listens
        config=Config(retries={"max_attempts": 1}, connect_timeout=1),
    )
    return IncomingQueue(nowhere, queue_url)


@pytest.mark.parametrize(
    ("queue", "logged", "cause"),
    [
        (_missing_queue, "configuration error: could not enqueue the inbound SMS", "NonExistentQueue"),
        (_unreachable_queue, "could not enqueue the inbound SMS", "EndpointConnectionError"),
    ],
    ids=["missing", "unreachable"],
)
def test_a_queue_that_cannot_take_the_message_gives_500_so_twilio_retries_and_logs_why(
    sqs: Any, queue_url: str, queue: Any, logged: str, cause: str
) -> None:
    failing = webhook.Ingress(RequestValidator(TOKEN), queue(sqs, queue_url))

    with json_log_lines() as lines:
        response = webhook.handle(signed_event(twilio_parameters()), failing)

    assert response == {
        "statusCode": 500,
        "headers": PLAIN,
        "body": "could not accept the message now, try again",
    }
    [line] = [line for line in lines if line["level"] == "ERROR"]
    assert line["message"] == logged
    assert (line["message_sid"], line["from"]) == (twilio_parameters()["MessageSid"], "+*******4567")
    assert cause in line["exception"]
