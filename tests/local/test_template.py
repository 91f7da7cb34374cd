"""template.yaml is where the local stack learns its tables, queues and functions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from serverless_rps_local.aws import aws_client, provision
from serverless_rps_local.stack import repository_root
from serverless_rps_local.template import StackTemplate, Unresolvable, resolve

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parent / "fixtures" / "template.yaml"


@pytest.fixture(scope="module")
def fixture_template() -> StackTemplate:
    return StackTemplate.load(FIXTURE)


def test_short_cloudformation_tags_are_read_as_their_long_forms(fixture_template: StackTemplate) -> None:
    environment = fixture_template.function("GameFunction").environment

    assert environment["GAME_STATE_TABLE"] == {"Ref": "GameStateTable"}
    assert environment["DEAD_LETTER_QUEUE_URL"] == {"Fn::GetAtt": ["DeadLetterQueue", "QueueUrl"]}


def test_globals_are_merged_into_each_function(fixture_template: StackTemplate) -> None:
    game = fixture_template.function("GameFunction")
    webhook = fixture_template.function("WebhookFunction")

    assert (game.timeout_seconds, webhook.timeout_seconds) == (5, 3)
    assert game.environment["TWILIO_ACCOUNT_SID"] == {"Ref": "TwilioAccountSid"}
    assert "INCOMING_QUEUE_URL" in webhook.environment
    assert "GAME_STATE_TABLE" not in webhook.environment
    assert game.handler == "serverless_rps.app.lambda_handler"


def test_the_sqs_trigger_and_the_http_route_are_read(fixture_template: StackTemplate) -> None:
    trigger = fixture_template.function("GameFunction").sqs_trigger
    [route] = fixture_template.function("WebhookFunction").http_routes

    assert trigger is not None
    assert (trigger.queue_logical_id, trigger.batch_size, trigger.maximum_concurrency) == (
        "IncomingQueue",
        10,
        3,
    )
    assert trigger.report_batch_item_failures
    assert (route.method, route.path) == ("POST", "/sms")


def test_table_names_keys_ttl_and_the_redrive_policy_are_read(fixture_template: StackTemplate) -> None:
    assert fixture_template.table("GameStateTable").name == "serverless-rps-local-game-state"
    assert fixture_template.table("NicknameTable").name == "NicknameTable"
    assert fixture_template.table("GameStateTable").hash_key == "phone_number"
    assert fixture_template.table("IdempotencyTable").ttl_attribute == "TTLEpochTimestamp"
    assert fixture_template.table("NicknameTable").ttl_attribute is None
    incoming = fixture_template.queue("IncomingQueue")
    assert (incoming.dead_letter_target, incoming.max_receive_count, incoming.visibility_timeout) == (
        "DeadLetterQueue",
        5,
        30,
    )


def test_intrinsic_functions_resolve_against_local_values() -> None:
    references = {"Queue": "http://q", "AWS::Region": "us-east-1"}
    attributes = {("Queue", "Arn"): "arn:aws:sqs:us-east-1:1:q"}

    assert resolve({"Fn::Sub": "${AWS::Region}/${Queue}/${Queue.Arn}"}, references, attributes) == (
        "us-east-1/http://q/arn:aws:sqs:us-east-1:1:q"
    )
    assert resolve({"Fn::Join": ["-", [{"Ref": "Queue"}, "x"]]}, references, attributes) == "http://q-x"
    with pytest.raises(Unresolvable):
        resolve({"Ref": "TwilioAccountSid"}, references, attributes)


def test_the_project_template_declares_what_the_local_stack_needs() -> None:
    template = StackTemplate.load(repository_root() / "template.yaml")

    assert {"GameStateTable", "NicknameTable", "IdempotencyTable"} <= set(template.tables)
    assert template.table("IdempotencyTable").ttl_attribute == "TTLEpochTimestamp"
    assert template.queue("IncomingQueue").dead_letter_target == "DeadLetterQueue"
    game_trigger = template.function("GameFunction").sqs_trigger
    assert game_trigger is not None
    assert game_trigger.queue_logical_id == "IncomingQueue"
    assert game_trigger.report_batch_item_failures
    # Inbound texts, and Twilio's status callbacks for our replies.
    assert [route.method for route in template.function("WebhookFunction").http_routes] == ["POST", "POST"]
    for function in template.functions.values():
        module = function.handler.rsplit(".", 1)[0].replace(".", "/")
        assert (repository_root() / function.code_uri / f"{module}.py").exists(), function.handler


def test_provisioning_creates_the_templates_tables_and_queues(
    moto_endpoint: str, fixture_template: StackTemplate
) -> None:
    resources = provision(fixture_template, moto_endpoint)

    dynamodb: Any = aws_client("dynamodb", moto_endpoint)
    sqs: Any = aws_client("sqs", moto_endpoint)
    ttl = dynamodb.describe_time_to_live(TableName="IdempotencyTable")["TimeToLiveDescription"]
    assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", "TTLEpochTimestamp")
    assert resources.table_name("GameStateTable") == "serverless-rps-local-game-state"
    attributes = sqs.get_queue_attributes(
        QueueUrl=resources.queue_url("IncomingQueue"), AttributeNames=["All"]
    )["Attributes"]
    redrive = json.loads(attributes["RedrivePolicy"])
    assert (attributes["VisibilityTimeout"], redrive["maxReceiveCount"]) == ("30", 5)
    assert redrive["deadLetterTargetArn"] == resources.queue_arn("DeadLetterQueue")
    assert resources.references["DeadLetterQueue"] == resources.attributes[("DeadLetterQueue", "QueueUrl")]


def test_the_real_templates_webhook_route_gets_a_secret_segment_made_up_per_local_stack() -> None:
    # template.yaml declares the route as an AWS::ApiGatewayV2::Route whose key holds the NoEcho
    # WebhookPathSecret; locally it is a fresh random value each time the template is loaded.
    real = Path(__file__).resolve().parents[2] / "template.yaml"
    first, second = StackTemplate.load(real), StackTemplate.load(real)
    route, status = first.function("WebhookFunction").http_routes

    assert route.method == status.method == "POST"
    assert re.fullmatch(r"/sms/[A-Za-z0-9_-]{16,}", route.path), route.path
    assert status.path == f"{route.path}/status", "status callbacks: the same secret segment"
    assert second.function("WebhookFunction").http_routes[0].path != route.path
