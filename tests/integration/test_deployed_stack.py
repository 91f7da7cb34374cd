"""Against a deployed stack, found through AWS_SAM_STACK_NAME (SAM's convention); skipped otherwise.

    AWS_SAM_STACK_NAME=serverless-rps AWS_REGION=us-east-1 .venv/bin/python -m pytest tests/integration

The caller's credentials need cloudformation:DescribeStacks, ssm:GetParameter (with decryption)
on the auth-token parameter and sqs:GetQueueAttributes on the two queues. A signed test SMS is
really played: the game replies to TEST_PLAYER_NUMBER, by default Twilio's magic number
+15005550001, which Twilio refuses as invalid at no charge; set it to your own phone to see the
reply arrive.
"""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
import uuid
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest
from twilio.request_validator import RequestValidator

STACK_NAME = os.environ.get("AWS_SAM_STACK_NAME")
PLAYER = os.environ.get("TEST_PLAYER_NUMBER", "+15005550001")

pytestmark = pytest.mark.skipif(not STACK_NAME, reason="set AWS_SAM_STACK_NAME to test a deployed stack")


@pytest.fixture(scope="module")
def stack() -> dict[str, Any]:
    description = boto3.client("cloudformation").describe_stacks(StackName=STACK_NAME)["Stacks"][0]
    return {
        "outputs": {output["OutputKey"]: output["OutputValue"] for output in description["Outputs"]},
        "parameters": {p["ParameterKey"]: p["ParameterValue"] for p in description.get("Parameters", [])},
    }


@pytest.fixture(scope="module")
def webhook_url(stack: dict[str, Any]) -> str:
    # The output carries a placeholder for the secret path segment (NoEcho: CloudFormation never
    # shows it); the operator passes it in WEBHOOK_PATH_SECRET.
    secret = os.environ.get("WEBHOOK_PATH_SECRET", "")
    if not secret and not stack["parameters"].get("PublicWebhookUrl"):
        pytest.skip("set WEBHOOK_PATH_SECRET to the stack's WebhookPathSecret")
    url = stack["parameters"].get("PublicWebhookUrl") or stack["outputs"]["WebhookUrl"]
    return str(url).replace("<WebhookPathSecret>", secret)


@pytest.fixture(scope="module")
def validator(stack: dict[str, Any]) -> RequestValidator:
    name = stack["outputs"]["TwilioAuthTokenParameterName"]
    token = boto3.client("ssm").get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
    return RequestValidator(token)


def inbound_sms(stack: dict[str, Any], body: str = "help") -> dict[str, str]:
    return {
        "MessageSid": "SM" + uuid.uuid4().hex,
        "AccountSid": stack["parameters"]["TwilioAccountSid"],
        "From": PLAYER,
        "To": "+15005550006",
        "Body": body,
        "NumMedia": "0",
    }


def post(url: str, parameters: dict[str, str], signature: str | None = None) -> tuple[int, str, str]:
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if signature is not None:
        headers["X-Twilio-Signature"] = signature
    request = urllib.request.Request(url, data=urlencode(parameters).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


def messages_in(queue_url: str) -> int:
    attributes = boto3.client("sqs").get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return sum(int(value) for value in attributes.values())


def test_the_stack_outputs_the_webhook_url_and_the_resource_names(stack: dict[str, Any]) -> None:
    outputs = stack["outputs"]

    assert outputs["WebhookUrl"].startswith("https://")
    assert outputs["WebhookUrl"].endswith("/sms/<WebhookPathSecret>")
    for name in ("GameStateTableName", "NicknameTableName", "IdempotencyTableName", "DeadLetterQueueUrl"):
        assert outputs[name]


def test_an_unsigned_post_is_refused_with_403(stack: dict[str, Any], webhook_url: str) -> None:
    status, _, _ = post(webhook_url, inbound_sms(stack))

    assert status == 403


def test_an_unsigned_status_callback_is_refused_with_403(webhook_url: str) -> None:
    callback = {"MessageSid": "SM" + "0" * 32, "MessageStatus": "delivered"}
    status, _, _ = post(f"{webhook_url}/status?key={'SM' + '1' * 32}&index=0", callback)

    assert status == 403


def test_a_post_signed_for_another_url_is_refused_with_403(
    stack: dict[str, Any], webhook_url: str, validator: RequestValidator
) -> None:
    parameters = inbound_sms(stack)
    signature = validator.compute_signature("https://attacker.example.com/sms", parameters)

    status, _, _ = post(webhook_url, parameters, signature)

    assert status == 403


def test_a_signed_but_malformed_post_is_refused_with_400(
    stack: dict[str, Any], webhook_url: str, validator: RequestValidator
) -> None:
    parameters = {**inbound_sms(stack), "MessageSid": "not-a-sid"}

    status, _, _ = post(webhook_url, parameters, validator.compute_signature(webhook_url, parameters))

    assert status == 400


def test_a_signed_sms_is_answered_with_empty_twiml_and_played_without_dead_lettering(
    stack: dict[str, Any], webhook_url: str, validator: RequestValidator
) -> None:
    dead_letters_before = messages_in(stack["outputs"]["DeadLetterQueueUrl"])
    parameters = inbound_sms(stack)

    status, content_type, body = post(
        webhook_url, parameters, validator.compute_signature(webhook_url, parameters)
    )

    assert status == 200
    assert content_type.startswith("text/xml")
    assert "<Response" in body
    deadline = time.monotonic() + 90
    while messages_in(stack["outputs"]["IncomingQueueUrl"]) and time.monotonic() < deadline:
        time.sleep(5)
    assert messages_in(stack["outputs"]["IncomingQueueUrl"]) == 0
    assert messages_in(stack["outputs"]["DeadLetterQueueUrl"]) == dead_letters_before
