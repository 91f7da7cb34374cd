"""template.yaml keeps the contract's timing relations and least privilege, and it builds.

The first tests read the template as data. The last ones run the real tools: cfn-lint,
`sam validate --lint` and `sam build`, then import both handlers from the built artifact, so a
wrong Handler or CodeUri fails here rather than in a deployment. The SAM CLI lives in its own
virtual environment (scripts/sam-venv.sh); without it these tests skip locally and fail in CI.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from serverless_rps import observability
from serverless_rps.app import POSTPONE_WITHIN_SECONDS
from serverless_rps.config import DEFAULT_METRICS_NAMESPACE, GameSettings
from serverless_rps_local.template import load_cloudformation_yaml

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "template.yaml"
SAM = REPO / ".venv-sam" / "bin" / "sam"
# Inside the ignored .aws-sam/: SAM reuses the dependencies it downloaded while requirements.txt
# is unchanged, which turns a 35 s build into a few seconds.
BUILD_DIR = REPO / ".aws-sam" / "test-build" / "build"

# The lock lease must outlast the function timeout by this much: clocks of two Lambda hosts differ.
CLOCK_SKEW_MARGIN_SECONDS = 5
MIN_MAX_RECEIVE_COUNT = 5
SQS_CONSUMER_ACTIONS = {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    loaded = load_cloudformation_yaml(TEMPLATE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def properties(template: dict[str, Any], logical_id: str) -> dict[str, Any]:
    return dict(template["Resources"][logical_id]["Properties"])


def function_setting(template: dict[str, Any], function: str, name: str) -> Any:
    """A function property, falling back to Globals as SAM does."""
    own = properties(template, function)
    return own[name] if name in own else template["Globals"]["Function"][name]


def environment(template: dict[str, Any], function: str) -> dict[str, Any]:
    return dict(properties(template, function)["Environment"]["Variables"])


def number(value: Any, template: dict[str, Any] | None = None) -> int:
    """A number written in the template, or a parameter's default (`!Ref BatchSize`)."""
    if isinstance(value, dict) and set(value) == {"Ref"} and template is not None:
        value = template["Parameters"][value["Ref"]]["Default"]
    assert isinstance(value, int | str), f"{value!r} must be a literal the test can read"
    return int(value)


def statements(template: dict[str, Any], role: str) -> list[dict[str, Any]]:
    """Every statement of a role's inline policies, both branches of an !If included."""
    found: list[dict[str, Any]] = []
    for policy in properties(template, role)["Policies"]:
        for statement in policy["PolicyDocument"]["Statement"]:
            branches = statement["Fn::If"][1:] if "Fn::If" in statement else [statement]
            found.extend(branch for branch in branches if branch != {"Ref": "AWS::NoValue"})
    return found


def actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


def resources(statement: dict[str, Any]) -> list[Any]:
    resource = statement["Resource"]
    return resource if isinstance(resource, list) else [resource]


def allowed(template: dict[str, Any], role: str, action: str) -> list[Any]:
    return [
        resource
        for statement in statements(template, role)
        if action in actions(statement)
        for resource in resources(statement)
    ]


def game_timeout(template: dict[str, Any]) -> int:
    return number(function_setting(template, "GameFunction", "Timeout"))


# --- the timing relations of docs/promises.md -------------------------------------------------------


def test_the_queue_hides_a_message_for_at_least_six_function_timeouts(template: dict[str, Any]) -> None:
    visibility = number(properties(template, "IncomingQueue")["VisibilityTimeout"])

    assert visibility >= 6 * game_timeout(template)


def test_the_lock_lease_outlasts_the_function_timeout_plus_clock_skew(template: dict[str, Any]) -> None:
    lease = number(environment(template, "GameFunction")["LOCK_LEASE_SECONDS"])

    assert lease >= game_timeout(template) + CLOCK_SKEW_MARGIN_SECONDS


def test_an_in_progress_claim_expires_no_sooner_than_the_function_timeout(template: dict[str, Any]) -> None:
    expiry = number(environment(template, "GameFunction")["IN_PROGRESS_EXPIRY_SECONDS"])

    assert expiry >= game_timeout(template)


def test_a_completed_record_outlives_a_message_kept_by_the_queue_and_then_the_dead_letter_queue(
    template: dict[str, Any],
) -> None:
    completed = number(environment(template, "GameFunction")["COMPLETED_RECORD_SECONDS"])
    queue_retention = number(properties(template, "IncomingQueue")["MessageRetentionPeriod"])
    dead_letter_retention = number(properties(template, "DeadLetterQueue")["MessageRetentionPeriod"])

    # A message that failed only for now may go back to the queue as a new one (its retention
    # starting again) within POSTPONE_WITHIN_SECONDS of arriving: its copy lives that much longer.
    assert completed >= POSTPONE_WITHIN_SECONDS + queue_retention + dead_letter_retention


def test_the_dead_letter_queue_keeps_messages_at_least_as_long_as_the_queue(template: dict[str, Any]) -> None:
    queue_retention = number(properties(template, "IncomingQueue")["MessageRetentionPeriod"])
    dead_letter_retention = number(properties(template, "DeadLetterQueue")["MessageRetentionPeriod"])

    assert dead_letter_retention >= queue_retention


def test_a_message_is_received_at_least_five_times_before_it_is_dead_lettered(
    template: dict[str, Any],
) -> None:
    redrive = properties(template, "IncomingQueue")["RedrivePolicy"]

    assert redrive["deadLetterTargetArn"] == {"Fn::GetAtt": ["DeadLetterQueue", "Arn"]}
    assert number(redrive["maxReceiveCount"], template) >= MIN_MAX_RECEIVE_COUNT
    # The game function postpones a message before its last receive: it must know the count.
    assert environment(template, "GameFunction")["MAX_RECEIVE_COUNT"] == redrive["maxReceiveCount"]


def test_the_game_function_is_told_its_own_timeout(template: dict[str, Any]) -> None:
    assert number(environment(template, "GameFunction")["FUNCTION_TIMEOUT_SECONDS"]) == game_timeout(template)


def test_the_game_function_environment_passes_the_settings_own_checks(template: dict[str, Any]) -> None:
    # References to resources (table names, the account SID) become placeholders; references to
    # parameters with a default take it; the other numbers are the template's.
    parameters = template.get("Parameters", {})

    def value_of(name: str, value: Any) -> str:
        if isinstance(value, str):
            return value
        referenced = parameters.get(value.get("Ref", "")) if isinstance(value, dict) else None
        if referenced is not None and "Default" in referenced:
            return str(referenced["Default"])
        return f"<{name}>"

    variables = {name: value_of(name, value) for name, value in environment(template, "GameFunction").items()}

    settings = GameSettings.from_environment(variables)
    assert (settings.reply_budget_burst, settings.reply_budget_per_hour) == (60, 180)

    assert settings.function_timeout_seconds == game_timeout(template)
    assert settings.completed_record_seconds == number(variables["COMPLETED_RECORD_SECONDS"])


# --- who sends the replies -------------------------------------------------------------------------

MESSAGING_SERVICE = "MG" + "0123456789abcdef" * 2


def accepted_by_cloudformation(parameter: dict[str, Any], value: str) -> bool:
    """CloudFormation refuses a value its parameter's AllowedPattern does not match as a whole
    (cfn-lint and `sam validate` check no parameter values, so the test reads the pattern)."""
    return re.fullmatch(parameter["AllowedPattern"], value) is not None


def sender_of(template: dict[str, Any], value: str) -> str | None:
    """The Messaging Service the game function sends through with the parameter set to `value`."""
    assert environment(template, "GameFunction")["TWILIO_MESSAGING_SERVICE_SID"] == {
        "Ref": "TwilioMessagingServiceSid"
    }
    variables = {**game_environment(template, "rps"), "TWILIO_MESSAGING_SERVICE_SID": value}
    return GameSettings.from_environment(variables).messaging_service_sid


def test_replies_leave_from_the_number_texted_unless_a_messaging_service_is_given(
    template: dict[str, Any],
) -> None:
    parameter = template["Parameters"]["TwilioMessagingServiceSid"]

    assert parameter["Default"] == "", "a deployment without a service needs no value"
    assert accepted_by_cloudformation(parameter, "")
    assert sender_of(template, "") is None, "empty: From the number the player texted"
    assert accepted_by_cloudformation(parameter, MESSAGING_SERVICE)
    assert sender_of(template, MESSAGING_SERVICE) == MESSAGING_SERVICE


@pytest.mark.parametrize(
    "value",
    ["+15550100000", "PN" + "0" * 32, "MG" + "0" * 31, "MG" + "A" * 32, f"{MESSAGING_SERVICE},+15550100000"],
)
def test_anything_but_one_messaging_service_sid_is_refused_before_the_stack_changes(
    template: dict[str, Any], value: str
) -> None:
    assert not accepted_by_cloudformation(template["Parameters"]["TwilioMessagingServiceSid"], value)


def test_the_template_names_the_one_sender_it_chose(template: dict[str, Any]) -> None:
    condition = template["Conditions"]["SendsThroughMessagingService"]
    chosen = template["Outputs"]["ReplySender"]["Value"]["Fn::If"]

    assert condition == {"Fn::Not": [{"Fn::Equals": [{"Ref": "TwilioMessagingServiceSid"}, ""]}]}
    assert chosen[0] == "SendsThroughMessagingService"
    assert chosen[1] == {"Fn::Sub": "Messaging Service ${TwilioMessagingServiceSid}"}
    assert chosen[2] == "the number the player texted"


# --- the game function's queue, the tables ----------------------------------------------------------


def test_the_game_function_reports_partial_batch_failures_from_the_incoming_queue(
    template: dict[str, Any],
) -> None:
    events = properties(template, "GameFunction")["Events"]
    (sqs_event,) = [event["Properties"] for event in events.values() if event["Type"] == "SQS"]

    assert sqs_event["Queue"] == {"Fn::GetAtt": ["IncomingQueue", "Arn"]}
    assert sqs_event["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert 1 <= number(sqs_event["BatchSize"], template) <= 10
    assert number(sqs_event["MaximumBatchingWindowInSeconds"], template) <= 1
    assert number(sqs_event["ScalingConfig"]["MaximumConcurrency"], template) >= 2


def test_idempotency_records_expire_through_ttl_on_their_epoch_attribute(template: dict[str, Any]) -> None:
    table = properties(template, "IdempotencyTable")

    assert table["TimeToLiveSpecification"] == {"AttributeName": "TTLEpochTimestamp", "Enabled": True}
    assert table["KeySchema"] == [{"AttributeName": "messageId", "KeyType": "HASH"}]


@pytest.mark.parametrize(
    ("table", "key", "recoverable"),
    [
        ("GameStateTable", "phone_number", True),
        ("NicknameTable", "nickname", True),
        ("IdempotencyTable", "messageId", False),
    ],
)
def test_tables_are_on_demand_keyed_as_the_code_expects_and_player_data_is_recoverable(
    template: dict[str, Any], table: str, key: str, recoverable: bool
) -> None:
    table_properties = properties(template, table)

    assert table_properties["BillingMode"] == "PAY_PER_REQUEST"
    assert table_properties["KeySchema"] == [{"AttributeName": key, "KeyType": "HASH"}]
    assert table_properties["AttributeDefinitions"] == [{"AttributeName": key, "AttributeType": "S"}]
    recovery = table_properties.get("PointInTimeRecoverySpecification", {})
    assert recovery.get("PointInTimeRecoveryEnabled", False) is recoverable


def test_every_queue_keeps_its_messages_encrypted_at_rest(template: dict[str, Any]) -> None:
    # The queues hold players' numbers and texts. checkov's queue check reads only KmsMasterKeyId
    # and is skipped on them (docs/deployment.md, "Security scan"): this test stands in for it.
    queues = {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::SQS::Queue"
    }
    unencrypted = [
        name
        for name, queue in queues.items()
        if queue.get("SqsManagedSseEnabled") is not True and "KmsMasterKeyId" not in queue
    ]

    assert queues
    assert unencrypted == []


# --- the functions ------------------------------------------------------------------------------


def test_the_handlers_are_the_two_entry_points_of_the_package(template: dict[str, Any]) -> None:
    assert properties(template, "GameFunction")["Handler"] == "serverless_rps.app.lambda_handler"
    assert properties(template, "WebhookFunction")["Handler"] == "serverless_rps.webhook.lambda_handler"


def test_the_runtime_is_the_python_the_tests_run_on(template: dict[str, Any]) -> None:
    expected = f"python{sys.version_info.major}.{sys.version_info.minor}"

    assert function_setting(template, "GameFunction", "Runtime") == expected
    assert function_setting(template, "WebhookFunction", "Runtime") == expected


def test_the_code_folder_holds_the_package_its_requirements_and_its_build(template: dict[str, Any]) -> None:
    code = REPO / function_setting(template, "GameFunction", "CodeUri")

    assert function_setting(template, "WebhookFunction", "CodeUri") == function_setting(
        template, "GameFunction", "CodeUri"
    )
    assert sorted(entry.name for entry in code.iterdir() if entry.name != "__pycache__") == [
        "Makefile",
        "build_function.py",
        "requirements.txt",
        "serverless_rps",
    ]
    assert (code / "serverless_rps").resolve() == REPO / "serverless_rps"
    assert (code / "requirements.txt").resolve() == REPO / "requirements.txt"


@pytest.mark.parametrize("function", ["GameFunction", "WebhookFunction"])
def test_each_function_traces_and_logs_json_to_its_own_group_with_a_retention(
    template: dict[str, Any], function: str
) -> None:
    logging_config = function_setting(template, function, "LoggingConfig")
    log_group = logging_config["LogGroup"]["Ref"]

    assert function_setting(template, function, "Tracing") == "Active"
    assert logging_config["LogFormat"] == "JSON"
    assert "RetentionInDays" in properties(template, log_group)


@pytest.mark.parametrize("function", ["GameFunction", "WebhookFunction"])
def test_the_auth_token_reaches_a_function_only_as_the_name_of_an_ssm_parameter(
    template: dict[str, Any], function: str
) -> None:
    variables = environment(template, function)

    assert "TWILIO_AUTH_TOKEN" not in variables
    assert variables["TWILIO_AUTH_TOKEN_PARAMETER"] == {"Ref": "TwilioAuthTokenParameterName"}
    assert not any(
        "Token" in name and "ParameterName" not in name and "Kms" not in name
        for name in template["Parameters"]
    )


def test_the_webhook_gets_its_queue_account_token_name_and_optional_public_url(
    template: dict[str, Any],
) -> None:
    variables = environment(template, "WebhookFunction")

    assert variables["INCOMING_QUEUE_URL"] == {"Ref": "IncomingQueue"}
    assert variables["TWILIO_ACCOUNT_SID"] == {"Ref": "TwilioAccountSid"}
    assert variables["PUBLIC_WEBHOOK_URL"] == {"Ref": "PublicWebhookUrl"}
    assert template["Parameters"]["PublicWebhookUrl"]["Default"] == ""
    # The status route records on the idempotency records, and counts in the game's namespace.
    assert variables["IDEMPOTENCY_TABLE"] == {"Ref": "IdempotencyTable"}
    assert (
        variables["POWERTOOLS_METRICS_NAMESPACE"]
        == environment(template, "GameFunction")["POWERTOOLS_METRICS_NAMESPACE"]
    )


def test_every_reply_names_the_status_route_as_its_status_callback(template: dict[str, Any]) -> None:
    condition, public, own = environment(template, "GameFunction")["STATUS_CALLBACK_URL"]["Fn::If"]
    route = properties(template, "WebhookStatusRoute")

    assert route["RouteKey"] == {"Fn::Sub": "POST /sms/${WebhookPathSecret}/status"}
    assert route["Target"] == properties(template, "WebhookRoute")["Target"]
    assert template["Conditions"][condition] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "PublicWebhookUrl"}, ""]}]
    }
    assert public == {"Fn::Sub": "${PublicWebhookUrl}/status"}
    assert own["Fn::Sub"].startswith("https://${WebhookApi}.execute-api.")
    assert own["Fn::Sub"].endswith("/sms/${WebhookPathSecret}/status")


def test_snapstart_is_the_operators_choice_and_both_functions_run_a_published_version(
    template: dict[str, Any],
) -> None:
    parameter = template["Parameters"]["SnapStart"]
    function_globals = template["Globals"]["Function"]

    assert parameter["Default"] == "None"
    assert parameter["AllowedValues"] == ["None", "PublishedVersions"]
    assert function_globals["SnapStart"] == {"ApplyOn": {"Ref": "SnapStart"}}
    # SAM points the SQS event source at the alias; the webhook's integration names it itself.
    assert function_globals["AutoPublishAlias"] == "live"


def test_the_webhook_is_one_post_route_of_the_http_api_behind_a_secret_path(template: dict[str, Any]) -> None:
    route = properties(template, "WebhookRoute")
    integration = properties(template, "WebhookIntegration")
    permission = properties(template, "WebhookInvokePermission")

    # A secret segment: forged traffic to any other path never reaches the function (API Gateway 404).
    assert route["ApiId"] == {"Ref": "WebhookApi"}
    assert route["RouteKey"] == {"Fn::Sub": "POST /sms/${WebhookPathSecret}"}
    assert route["Target"] == {"Fn::Sub": "integrations/${WebhookIntegration}"}
    # The alias, not $LATEST: SnapStart applies to published versions only.
    assert integration["IntegrationUri"] == {"Ref": "WebhookFunction.Alias"}
    assert integration["PayloadFormatVersion"] == "2.0"
    assert permission["FunctionName"] == {"Ref": "WebhookFunction.Alias"}
    assert "${WebhookApi}" in permission["SourceArn"]["Fn::Sub"]
    assert "Events" not in properties(template, "WebhookFunction"), "no second, public route"
    secret = template["Parameters"]["WebhookPathSecret"]
    assert secret["NoEcho"] is True
    assert "Default" not in secret, "the secret is the operator's, never the repository's"
    assert secret["MinLength"] >= 16
    assert template["Resources"]["WebhookApi"]["Type"] == "AWS::Serverless::HttpApi"


# --- least privilege ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "role"), [("GameFunction", "GameFunctionRole"), ("WebhookFunction", "WebhookFunctionRole")]
)
def test_each_function_has_a_role_of_its_own_so_sam_attaches_no_wildcard_managed_policies(
    template: dict[str, Any], function: str, role: str
) -> None:
    assert properties(template, function)["Role"] == {"Fn::GetAtt": [role, "Arn"]}
    assert "Policies" not in properties(template, function)
    assert "ManagedPolicyArns" not in properties(template, role)


@pytest.mark.parametrize("role", ["GameFunctionRole", "WebhookFunctionRole"])
def test_only_x_ray_which_cannot_name_a_resource_is_granted_on_every_resource(
    template: dict[str, Any], role: str
) -> None:
    for statement in statements(template, role):
        assert statement["Effect"] == "Allow"
        if any(resource == "*" or "*" in str(resource) for resource in resources(statement)):
            assert all(action.startswith("xray:") for action in actions(statement)), statement


def test_the_game_function_touches_only_its_three_tables_its_queues_and_its_token(
    template: dict[str, Any],
) -> None:
    tables = [
        {"Fn::GetAtt": [table, "Arn"]} for table in ("GameStateTable", "NicknameTable", "IdempotencyTable")
    ]
    role = "GameFunctionRole"
    all_actions = set().union(*(actions(statement) for statement in statements(template, role)))

    # The item actions the store's requests and the commit's items need (a transaction is no IAM
    # action of its own); tests/iam proves each is used on each table it is granted on.
    dynamodb = {action for action in all_actions if action.startswith("dynamodb:")}
    assert dynamodb == {
        f"dynamodb:{action}" for action in ("GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem")
    }
    for action in dynamodb:
        assert all(resource in tables for resource in allowed(template, role, action)), action
    for action in (*SQS_CONSUMER_ACTIONS, "sqs:ChangeMessageVisibility"):
        assert allowed(template, role, action) == [{"Fn::GetAtt": ["IncomingQueue", "Arn"]}]
    # Poison to the dead-letter queue; a message that failed only for now back to the queue.
    assert allowed(template, role, "sqs:SendMessage") == [
        {"Fn::GetAtt": ["IncomingQueue", "Arn"]},
        {"Fn::GetAtt": ["DeadLetterQueue", "Arn"]},
    ]
    (token,) = allowed(template, role, "ssm:GetParameter")
    assert "${TwilioAuthTokenParameterName}" in token["Fn::Sub"]
    assert not {action for action in all_actions if action.endswith(("Scan", "Query", "DeleteQueue", "*"))}


def test_the_webhook_may_only_enqueue_record_a_status_read_its_token_and_write_its_logs_and_traces(
    template: dict[str, Any],
) -> None:
    role = "WebhookFunctionRole"
    all_actions = set().union(*(actions(statement) for statement in statements(template, role)))

    assert all_actions == {
        "sqs:SendMessage",
        "dynamodb:UpdateItem",
        "ssm:GetParameter",
        "kms:Decrypt",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
    }
    assert allowed(template, role, "sqs:SendMessage") == [{"Fn::GetAtt": ["IncomingQueue", "Arn"]}]
    assert allowed(template, role, "dynamodb:UpdateItem") == [{"Fn::GetAtt": ["IdempotencyTable", "Arn"]}]
    assert allowed(template, role, "logs:PutLogEvents") == [
        {"Fn::GetAtt": ["WebhookFunctionLogGroup", "Arn"]}
    ]


@pytest.mark.parametrize("role", ["GameFunctionRole", "WebhookFunctionRole"])
def test_kms_decrypt_is_granted_only_for_a_customer_managed_key_and_only_through_ssm(
    template: dict[str, Any], role: str
) -> None:
    (conditional,) = [
        statement["Fn::If"]
        for policy in properties(template, role)["Policies"]
        for statement in policy["PolicyDocument"]["Statement"]
        if "Fn::If" in statement
    ]
    condition, granted, otherwise = conditional

    assert condition == "UsesCustomerManagedKey"
    assert otherwise == {"Ref": "AWS::NoValue"}
    assert granted["Resource"] == {"Ref": "TwilioAuthTokenKmsKeyArn"}
    assert granted["Condition"]["StringEquals"]["kms:ViaService"] == {
        "Fn::Sub": "ssm.${AWS::Region}.amazonaws.com"
    }


# --- alarms and outputs ---------------------------------------------------------------------------


def alarms(template: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        resource["Properties"]
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
    ]


def watching(template: dict[str, Any], metric: str, dimension_value: Any) -> list[dict[str, Any]]:
    return [
        alarm
        for alarm in alarms(template)
        if alarm.get("MetricName") == metric
        and any(dimension["Value"] == dimension_value for dimension in alarm["Dimensions"])
    ]


def test_any_message_on_the_dead_letter_queue_raises_an_alarm(template: dict[str, Any]) -> None:
    (alarm,) = watching(
        template, "ApproximateNumberOfMessagesVisible", {"Fn::GetAtt": ["DeadLetterQueue", "QueueName"]}
    )

    assert alarm["Threshold"] == 0
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold"


@pytest.mark.parametrize("function", ["GameFunction", "WebhookFunction"])
def test_function_errors_raise_an_alarm(template: dict[str, Any], function: str) -> None:
    (alarm,) = watching(template, "Errors", {"Ref": function})

    assert alarm["Namespace"] == "AWS/Lambda"
    assert alarm["Threshold"] == 0


def test_an_old_message_in_the_incoming_queue_raises_an_alarm_after_its_retries_could_have_run(
    template: dict[str, Any],
) -> None:
    (alarm,) = watching(
        template, "ApproximateAgeOfOldestMessage", {"Fn::GetAtt": ["IncomingQueue", "QueueName"]}
    )
    retention = number(properties(template, "IncomingQueue")["MessageRetentionPeriod"])

    assert 0 < alarm["Threshold"] < retention


def test_every_alarm_notifies_the_alarm_topic(template: dict[str, Any]) -> None:
    assert len(alarms(template)) >= 4
    for alarm in alarms(template):
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_outputs_give_the_webhook_url_and_the_resource_names(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]

    assert outputs["WebhookUrl"]["Value"]["Fn::Sub"].startswith("https://${WebhookApi}.execute-api.")
    assert outputs["WebhookUrl"]["Value"]["Fn::Sub"].endswith("/sms/<WebhookPathSecret>"), "never the secret"
    for name in (
        "GameStateTableName",
        "NicknameTableName",
        "IdempotencyTableName",
        "IncomingQueueUrl",
        "IncomingQueueName",
        "DeadLetterQueueUrl",
        "DeadLetterQueueName",
        "DeadLetterQueueArn",
    ):
        assert name in outputs


# --- the security scan (make scan) -----------------------------------------------------------------


def checkov_skips(template: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(resource, check id, reason) for each check that a resource's Metadata tells checkov to skip."""
    return [
        (logical_id, skip["id"], skip.get("comment", ""))
        for logical_id, resource in template["Resources"].items()
        for skip in (resource.get("Metadata") or {}).get("checkov", {}).get("skip", [])
    ]


def test_every_check_the_scan_skips_says_why_and_docs_deployment_lists_it(template: dict[str, Any]) -> None:
    deployment = (REPO / "docs" / "deployment.md").read_text(encoding="utf-8")
    section = deployment.split("\n## Security scan\n", 1)[1].split("\n## ", 1)[0]
    listed = [line for line in section.splitlines() if line.startswith("| CKV_")]

    assert checkov_skips(template)
    for resource, check, reason in checkov_skips(template):
        assert len(reason.split()) >= 10, f"{resource} skips {check} without saying why"
        rows = [row for row in listed if row.startswith(f"| {check}:") and resource in row.split(" | ")[1]]
        assert rows, f"docs/deployment.md, Security scan, does not list {check} on {resource}"


# --- the real tools -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sam() -> Path:
    if not SAM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{SAM} is missing: CI must run scripts/sam-venv.sh (make test does)")
        pytest.skip("the SAM CLI is not installed: run bash scripts/sam-venv.sh")
    return SAM


def run_sam(sam: Path, *arguments: str, timeout: float) -> subprocess.CompletedProcess[str]:
    # `sam build` looks for python3.13 on PATH; put the interpreter running the tests first, ahead
    # of any pyenv shim that exists but refuses to run.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return subprocess.run(
        [str(sam), *arguments],
        cwd=REPO,
        env={**os.environ, "PATH": path, "SAM_CLI_TELEMETRY": "0"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_cfn_lint_finds_nothing_in_the_template() -> None:
    result = subprocess.run(
        # cfn-lint has no `python -m` entry; call its console script's function with this Python.
        [
            sys.executable,
            "-c",
            "import sys; from cfnlint.runner import main; sys.exit(main())",
            str(TEMPLATE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr


def test_sam_validate_with_lint_accepts_the_template(sam: Path) -> None:
    result = run_sam(sam, "validate", "--lint", "--template-file", str(TEMPLATE), timeout=300)

    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def built(sam: Path) -> dict[str, Any]:
    shutil.rmtree(BUILD_DIR, ignore_errors=True)
    result = run_sam(
        sam, "build", "--template-file", str(TEMPLATE), "--build-dir", str(BUILD_DIR), "--cached", timeout=900
    )
    assert result.returncode == 0, result.stdout + result.stderr
    built_template = load_cloudformation_yaml((BUILD_DIR / "template.yaml").read_text(encoding="utf-8"))
    assert isinstance(built_template, dict)
    return built_template


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("function", ["GameFunction", "WebhookFunction"])
def test_sam_build_makes_an_artifact_from_which_the_handler_imports(
    built: dict[str, Any], function: str
) -> None:
    function_properties = built["Resources"][function]["Properties"]
    artifact = BUILD_DIR / function_properties["CodeUri"]
    module, attribute = function_properties["Handler"].rsplit(".", 1)
    # -I -S: only the standard library and the artifact, no site-packages, no environment
    # settings; importing must need no environment variables. The artifact's arm64 extension
    # modules do not load on an x86 host; their packages fall back to pure Python. -B: write no
    # bytecode into the artifact.
    check = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(artifact)!r})\n"
        f"handler = getattr(importlib.import_module({module!r}), {attribute!r})\n"
        "assert callable(handler)\n"
        f"assert importlib.import_module({module!r}).__file__.startswith({str(artifact)!r})\n"
        "import boto3, twilio, aws_lambda_powertools\n"
    )

    result = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", check],
        cwd=artifact,
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("function", ["GameFunction", "WebhookFunction"])
def test_the_built_artifact_holds_no_tests_docs_or_virtual_environments(
    built: dict[str, Any], function: str
) -> None:
    artifact = BUILD_DIR / built["Resources"][function]["Properties"]["CodeUri"]
    top_level = {entry.name for entry in artifact.iterdir()}

    assert "serverless_rps" in top_level
    assert not top_level & {
        "tests",
        "docs",
        ".venv",
        ".venv-sam",
        "scripts",
        "template.yaml",
        "Makefile",
        "build_function.py",
        ".git",
        "bench",
        "serverless_rps_local",
        # twilio's async HTTP client and what only it needs: no function imports them.
        "aiohttp",
        "aiohttp_retry",
        "yarl",
        "multidict",
    }
    assert not (artifact / "serverless_rps" / "__main__.py").exists()
    assert not (artifact / "serverless_rps" / "admin").exists(), "the operator's tool runs on a laptop"
    shipped = artifact / "serverless_rps"
    source = REPO / "serverless_rps"
    # Every module of the package and its sub-packages (game_store/) but admin/ and __main__.py.
    modules = {module.relative_to(source) for module in source.rglob("*.py")}
    assert {module.relative_to(shipped) for module in shipped.rglob("*.py")} == {
        module for module in modules if module.parts[0] != "admin" and module != Path("__main__.py")
    }


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_built_artifact_carries_bytecode_for_what_a_cold_start_imports(built: dict[str, Any]) -> None:
    artifact = BUILD_DIR / built["Resources"]["GameFunction"]["Properties"]["CodeUri"]

    def compiled(module: Path) -> bool:
        cache = module.parent / "__pycache__"
        return any(cache.glob(f"{module.stem}.cpython-313*.pyc"))

    for module in (
        "serverless_rps/app.py",
        "serverless_rps/game_store/__init__.py",
        "serverless_rps/game_store/store.py",
        "twilio/base/version.py",
    ):
        assert compiled(artifact / module), module
    # The Twilio bindings no function loads ship as source only.
    assert not compiled(artifact / "twilio" / "rest" / "video" / "v1" / "room" / "__init__.py")


def test_every_error_line_of_the_game_function_raises_an_alarm(template: dict[str, Any]) -> None:
    metric_filter = properties(template, "GameFunctionErrorLogMetric")
    alarm = properties(template, "GameFunctionErrorLinesAlarm")
    [transformation] = metric_filter["MetricTransformations"]

    assert metric_filter["LogGroupName"] == {"Ref": "GameFunctionLogGroup"}
    assert metric_filter["FilterPattern"] == '{ $.level = "ERROR" }'
    assert (alarm["Namespace"], alarm["MetricName"]) == (
        transformation["MetricNamespace"],
        transformation["MetricName"],
    )
    assert alarm["Threshold"] == 0


def test_carrier_filtering_raises_an_alarm(template: dict[str, Any]) -> None:
    [alarm] = watching(template, "DeliveryErrors", "30007")
    assert {"Name": "error_code", "Value": "30007"} in alarm["Dimensions"]
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_replies_that_expire_in_twilios_queue_raise_an_alarm(template: dict[str, Any]) -> None:
    """The game replies faster than the sender may send: ValidityPeriod ran out (30036), or the
    sender's queue overflowed (30001, 21611). Counted by both functions under one name."""
    alarm = properties(template, "RepliesExpiredAlarm")
    assert (alarm["MetricName"], alarm["Threshold"]) == ("RepliesExpired", 1)
    assert alarm["Namespace"] == {"Fn::Sub": "ServerlessRps/${AWS::StackName}"}
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_every_reply_may_wait_in_twilios_queue_only_the_configured_validity_period(
    template: dict[str, Any],
) -> None:
    parameter = template["Parameters"]["ReplyValiditySeconds"]
    assert environment(template, "GameFunction")["REPLY_VALIDITY_SECONDS"] == {"Ref": "ReplyValiditySeconds"}
    assert (parameter["Default"], parameter["MinValue"], parameter["MaxValue"]) == (600, 1, 36000)


def test_a_high_rate_of_undelivered_replies_raises_an_alarm(template: dict[str, Any]) -> None:
    alarm = properties(template, "UndeliveredRateAlarm")
    watched = {
        query["MetricStat"]["Metric"]["MetricName"] for query in alarm["Metrics"] if "MetricStat" in query
    }
    [rate] = [query for query in alarm["Metrics"] if query.get("ReturnData")]

    assert watched == {"RepliesDelivered", "RepliesUndelivered", "RepliesFailed"}
    assert "undelivered" in rate["Expression"]
    assert "failed" in rate["Expression"]
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_a_burst_of_refused_webhook_requests_raises_an_alarm(template: dict[str, Any]) -> None:
    alarm = properties(template, "WebhookClientErrorsAlarm")
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/ApiGateway", "4xx")
    assert {"Name": "ApiId", "Value": {"Ref": "WebhookApi"}} in alarm["Dimensions"]


def test_only_the_operators_tool_scans_a_table() -> None:
    # Which actions the game role grants, and that each is used, is proven over the whole suite's
    # calls by tests/iam (`make test`); that the functions never scan is plain in the source.
    # The operator's scans live in admin/store_reads.py, which the build leaves out.
    package = REPO / "serverless_rps"
    for module in package.rglob("*.py"):
        if module.relative_to(package).parts[0] == "admin":
            continue
        assert not re.search(r"\.scan\(", module.read_text()), f"{module.name} scans a table"


# --- metrics: what the code writes is what the dashboard and the alarms read ------------------------


def in_stack(value: Any, stack: str) -> str:
    """A namespace or name as CloudFormation resolves it in a stack called `stack`."""
    if isinstance(value, dict) and isinstance(value.get("Fn::Sub"), str):
        return str(value["Fn::Sub"]).replace("${AWS::StackName}", stack)
    assert isinstance(value, str), f"{value!r}: a string or an !Sub of the stack's name"
    return value


def game_environment(template: dict[str, Any], stack: str) -> dict[str, str]:
    """The game function's variables in a stack: an !Sub of the stack's name resolved, a
    parameter with a default at its default, any other reference a placeholder."""
    parameters = template.get("Parameters", {})
    variables = {}
    for name, value in environment(template, "GameFunction").items():
        referenced = parameters.get(value.get("Ref", "")) if isinstance(value, dict) else None
        if referenced is not None and "Default" in referenced:
            variables[name] = str(referenced["Default"])
        elif isinstance(value, str) or isinstance(value.get("Fn::Sub"), str):
            variables[name] = in_stack(value, stack)
        else:
            variables[name] = f"<{name}>"
    return variables


def names_this_stack(template: dict[str, Any], value: Any) -> bool:
    """A Ref or GetAtt of one of the template's own resources: a name no other stack has."""
    if not isinstance(value, dict):
        return False
    target = value.get("Ref") or (value.get("Fn::GetAtt") or [None])[0]
    return target in template["Resources"]


def test_no_alarm_can_be_fired_by_another_stack_in_the_same_account(template: dict[str, Any]) -> None:
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != "AWS::CloudWatch::Alarm":
            continue
        alarm = resource["Properties"]
        # An alarm on one metric, or on an expression of several (each its own MetricStat).
        watched = (
            [alarm]
            if "Namespace" in alarm
            else [query["MetricStat"]["Metric"] for query in alarm["Metrics"] if "MetricStat" in query]
        )
        for metric in watched:
            namespace = metric["Namespace"]
            if isinstance(namespace, str) and namespace.startswith("AWS/"):
                dimensions = metric.get("Dimensions", [])
                assert any(names_this_stack(template, d["Value"]) for d in dimensions), logical_id
            else:
                assert in_stack(namespace, "prod") != in_stack(namespace, "staging"), logical_id
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] == "AWS::Logs::MetricFilter":
            for transformation in resource["Properties"]["MetricTransformations"]:
                namespace = transformation["MetricNamespace"]
                assert in_stack(namespace, "prod") != in_stack(namespace, "staging"), logical_id


# What the package writes: every `count("...")` and `milliseconds("...")`, and `count_message`.
_WRITTEN = re.compile(r"\b(?:count|milliseconds)\(\s*\"(\w+)\"")
_SEARCH = re.compile(r"SEARCH\('\{([^}]*)\} MetricName=\"(\w+)\"'")


def written_metrics(namespace: str) -> set[tuple[str, str, frozenset[str]]]:
    """(namespace, metric, dimension names) of every EMF line the code writes, with the
    game function's metrics sent where its settings say (as bootstrap does at cold start)."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in (REPO / "serverless_rps").rglob("*.py"))
    names = set(_WRITTEN.findall(source))
    assert {"Records", "RepliesSent", "ReplyDelay"} <= names
    observability.send_metrics_to(namespace)
    output = io.StringIO()
    try:
        observability.metrics.clear_metrics()
        for name in names:
            observability.count(name)
        lines = [observability.metrics.serialize_metric_set()]
        with contextlib.redirect_stdout(output):
            observability.count_message("Throw", "processed")
            # The webhook's status route: a final status, and a failure's error code.
            for status in observability.DELIVERY_METRICS:
                observability.count_delivery(status, 30007)
        lines += [json.loads(line) for line in output.getvalue().splitlines()]
    finally:
        observability.metrics.clear_metrics()
        observability.send_metrics_to(DEFAULT_METRICS_NAMESPACE)
    return {
        (directive["Namespace"], metric["Name"], frozenset(dimension))
        for line in lines
        for directive in line["_aws"]["CloudWatchMetrics"]
        for metric in directive["Metrics"]
        for dimension in directive["Dimensions"]
    }


def dashboard_metrics(template: dict[str, Any], stack: str) -> list[tuple[str, str, dict[str, str]]]:
    """(namespace, metric, dimensions) of every line the dashboard draws, CloudWatch's "." and
    "..." shorthands spelled out, and SEARCH expressions read as the metrics they find."""
    body, substitutions = properties(template, "OperationsDashboard")["DashboardBody"]["Fn::Sub"]
    known = {name: in_stack(value, stack) for name, value in substitutions.items()}
    widgets = json.loads(re.sub(r"\$\{([^}]+)\}", lambda match: known.get(match[1], f"<{match[1]}>"), body))
    drawn = []
    for widget in widgets["widgets"]:
        previous: list[str] = []
        for row in widget["properties"].get("metrics", []):
            values = [value for value in row if not isinstance(value, dict)]
            if not values:
                [options] = row
                search = _SEARCH.match(options["expression"])
                assert search, options["expression"]
                namespace, *dimensions = search[1].split(",")
                drawn.append((namespace, search[2], {name: "*" for name in dimensions}))
                continue
            values = (
                previous
                if values == ["..."]
                else [previous[i] if value == "." else value for i, value in enumerate(values)]
            )
            previous = values
            namespace, metric, *pairs = values
            drawn.append((namespace, metric, dict(zip(pairs[::2], pairs[1::2], strict=True))))
    return drawn


def test_every_metric_the_dashboard_draws_is_one_the_game_function_writes_where_it_looks(
    template: dict[str, Any],
) -> None:
    stack = "my-stack"
    namespace = GameSettings.from_environment(game_environment(template, stack)).metrics_namespace
    written = written_metrics(namespace)
    ours = [line for line in dashboard_metrics(template, stack) if not line[0].startswith("AWS/")]

    assert namespace == f"ServerlessRps/{stack}"
    assert len(ours) >= 8, "the game function's own metrics are on the dashboard"
    for line_namespace, metric, dimensions in ours:
        assert (line_namespace, metric, frozenset(dimensions)) in written, (
            line_namespace,
            metric,
            dimensions,
        )
        assert dimensions.get("service", "*") in ("*", observability.SERVICE)
