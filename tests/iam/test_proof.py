"""The proof on synthetic inputs: a small template, an operator's policy and a handful of recorded
calls that pass it, then one change at a time that must fail it by the action it names."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from serverless_rps_local.template import load_cloudformation_yaml
from tests.iam.deployment import DeployedStack
from tests.iam.proof import check, operator_policies, report

TEMPLATE = """\
Parameters:
  TwilioAuthTokenParameterName:
    Type: String
    Default: /rps/token
Resources:
  GameStateTable:
    Type: AWS::DynamoDB::Table
    Properties:
      KeySchema: [{AttributeName: phone_number, KeyType: HASH}]
  IdempotencyTable:
    Type: AWS::DynamoDB::Table
    Properties:
      KeySchema: [{AttributeName: messageId, KeyType: HASH}]
  IncomingQueue:
    Type: AWS::SQS::Queue
  GameFunction:
    Type: AWS::Serverless::Function
    Properties:
      Role: !GetAtt GameFunctionRole.Arn
  GameFunctionRole:
    Type: AWS::IAM::Role
    Properties:
      Policies:
        - PolicyName: game
          PolicyDocument:
            Statement:
              - Sid: PlayersAndClaims
                Effect: Allow
                Action:
                  - dynamodb:GetItem
                  - dynamodb:PutItem
                Resource: !GetAtt GameStateTable.Arn
              - Sid: CompleteClaims
                Effect: Allow
                Action: dynamodb:UpdateItem
                Resource: !GetAtt IdempotencyTable.Arn
              - Sid: ConsumeIncomingQueue
                Effect: Allow
                Action:
                  - sqs:ReceiveMessage
                  - sqs:DeleteMessage
                  - sqs:GetQueueAttributes  # not called by the code: the event source mapping reads it
                Resource: !GetAtt IncomingQueue.Arn
  WebhookFunction:
    Type: AWS::Serverless::Function
    Properties:
      Role: !GetAtt WebhookFunctionRole.Arn
  WebhookFunctionRole:
    Type: AWS::IAM::Role
    Properties:
      Policies:
        - PolicyName: webhook
          PolicyDocument:
            Statement:
              - Sid: EnqueueInboundSms
                Effect: Allow
                Action: sqs:SendMessage
                Resource: !GetAtt IncomingQueue.Arn
Outputs:
  GameStateTableName:
    Value: !Ref GameStateTable
  IdempotencyTableName:
    Value: !Ref IdempotencyTable
"""

OPERATIONS = """\
## The read-only policy

```json
{"Version": "2012-10-17", "Statement": [
  {"Sid": "ScanPlayers", "Effect": "Allow", "Action": "dynamodb:Scan",
   "Resource": "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${GameStateTableName}"}
]}
```

## The read-write policy

```json
{"Version": "2012-10-17", "Statement": [
  {"Sid": "ScanPlayers", "Effect": "Allow", "Action": "dynamodb:Scan",
   "Resource": "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${GameStateTableName}"},
  {"Sid": "EraseAPlayer", "Effect": "Allow", "Action": "dynamodb:PutItem",
   "Resource": "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${GameStateTableName}"}
]}
```
"""


def unused(statement: str, action: str, resource: str) -> str:
    """The finding of an action of the game function's role that no recorded call uses."""
    return (
        f"GameFunctionRole statement {statement}: {action} on {resource} is used by no recorded call of the "
        "game function or the event source mapping: remove it, or say on its line in template.yaml who "
        "performs it (# not called by the code: ...)"
    )


# The beginning of the finding of the commit's Put of a player.
PUT_PLAYER_NEEDED = (
    "game function: dynamodb:PutItem on table GameStateTable, needed by the Put of TransactWriteItems "
    "from serverless_rps/game_store/store.py:DynamoGameStore.commit"
)

HANDLER = "serverless_rps.app:lambda_handler"
PROCESS = "serverless_rps.processing:MessageProcessor.process"
COMMIT = "serverless_rps.game_store.store:DynamoGameStore.commit"


def call(service: str, operation: str, named: dict[str, Any], *stack: str) -> dict[str, Any]:
    return {"service": service, "operation": operation, "named": named, "stack": list(stack)}


def commit(*items: list[Any], stack: tuple[str, ...] = (HANDLER, PROCESS, COMMIT)) -> dict[str, Any]:
    return call("dynamodb", "TransactWriteItems", {"TransactItems": list(items)}, *stack)


PUT_PLAYER = ["Put", "rps-game-state", []]
COMPLETE_CLAIM = ["Update", "rps-idempotency", ["messageId"]]
QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/rps-incoming"

CALLS = [
    commit(PUT_PLAYER, COMPLETE_CLAIM),
    call(
        "dynamodb",
        "GetItem",
        {"TableName": "rps-game-state", "Key": ["phone_number"]},
        HANDLER,
        PROCESS,
        "serverless_rps.game_store.game_state:GameStateRows.get_player",
    ),
    call(
        "sqs",
        "ReceiveMessage",
        {"QueueUrl": QUEUE},
        "serverless_rps_local.event_source:SqsEventSource._receive",
    ),
    call(
        "sqs",
        "DeleteMessageBatch",
        {"QueueUrl": QUEUE},
        "serverless_rps_local.event_source:SqsEventSource._delete",
    ),
    call(
        "sqs",
        "SendMessage",
        {"QueueUrl": QUEUE},
        "serverless_rps.webhook:lambda_handler",
        "serverless_rps.message_queue:IncomingQueue.enqueue",
    ),
    call(
        "dynamodb",
        "Scan",
        {"TableName": "rps-game-state"},
        "serverless_rps.admin.cli:main",
        "serverless_rps.admin.cli:_run",
        "serverless_rps.admin.operations:Operator.status",
        "serverless_rps.admin.store_reads:StoreReads._scan",
    ),
    commit(
        PUT_PLAYER,
        stack=("serverless_rps.admin.operations:Operator.erase", PROCESS, COMMIT),
    ),
]


def findings(
    calls: list[dict[str, Any]] = CALLS, template: str = TEMPLATE, operations: str = OPERATIONS
) -> list[str]:
    stack = DeployedStack(load_cloudformation_yaml(template))
    return check(copy.deepcopy(calls), stack, operator_policies(operations, stack), template)


def test_calls_that_the_policies_allow_exactly_pass() -> None:
    assert findings() == []


def test_a_removed_statement_fails_by_the_action_and_the_call_that_needs_it() -> None:
    without = TEMPLATE.replace("                  - dynamodb:PutItem\n", "")

    assert findings(template=without) == [f"{PUT_PLAYER_NEEDED}, is not allowed by GameFunctionRole"]


def test_an_added_call_fails_by_the_item_action_of_the_transaction_it_adds() -> None:
    check_the_claim = ["ConditionCheck", "rps-idempotency", ["messageId"]]

    assert findings([*CALLS, commit(PUT_PLAYER, check_the_claim, COMPLETE_CLAIM)]) == [
        "game function: dynamodb:ConditionCheckItem on table IdempotencyTable, needed by the "
        "ConditionCheck of TransactWriteItems from "
        "serverless_rps/game_store/store.py:DynamoGameStore.commit, is not allowed by GameFunctionRole"
    ]


def test_an_action_no_call_uses_fails_as_standing_privilege() -> None:
    broader = TEMPLATE.replace(
        "                Action: dynamodb:UpdateItem\n",
        "                Action: [dynamodb:UpdateItem, dynamodb:DeleteItem]\n",
    )

    assert findings(template=broader) == [
        unused("CompleteClaims", "dynamodb:DeleteItem", "table IdempotencyTable")
    ]


def test_an_action_used_on_one_of_its_resources_only_fails_for_the_other() -> None:
    broader = TEMPLATE.replace(
        "                Resource: !GetAtt GameStateTable.Arn\n",
        "                Resource: [!GetAtt GameStateTable.Arn, !GetAtt IdempotencyTable.Arn]\n",
    )

    assert findings(template=broader) == [
        unused("PlayersAndClaims", "dynamodb:GetItem", "table IdempotencyTable"),
        unused("PlayersAndClaims", "dynamodb:PutItem", "table IdempotencyTable"),
    ]


def test_an_action_said_to_be_performed_by_the_service_is_kept_without_a_call() -> None:
    uncommented = TEMPLATE.replace("  # not called by the code: the event source mapping reads it", "")

    assert findings() == []
    assert findings(template=uncommented) == [
        unused("ConsumeIncomingQueue", "sqs:GetQueueAttributes", "queue IncomingQueue")
    ]


def test_an_action_said_not_to_be_called_that_the_code_calls_fails() -> None:
    reads = call(
        "sqs",
        "GetQueueAttributes",
        {"QueueUrl": QUEUE},
        HANDLER,
        "serverless_rps.message_queue:IncomingQueue.depth",
    )

    [finding] = findings([*CALLS, reads])

    assert finding.startswith(
        "GameFunctionRole statement ConsumeIncomingQueue: sqs:GetQueueAttributes is marked as not called by "
        "the code (template.yaml line "
    )
    assert finding.endswith(
        "but GetQueueAttributes from serverless_rps/message_queue.py:IncomingQueue.depth calls it"
    )


def test_an_explicit_deny_fails_a_call_that_an_allow_would_let_through() -> None:
    denied = TEMPLATE.replace(
        "              - Sid: CompleteClaims\n",
        "              - Sid: NoPlayerWrites\n"
        "                Effect: Deny\n"
        "                Action: dynamodb:PutItem\n"
        "                Resource: '*'\n"
        "              - Sid: CompleteClaims\n",
    )

    assert findings(template=denied) == [
        # The allow it overrides is then used by nothing.
        unused("PlayersAndClaims", "dynamodb:PutItem", "table GameStateTable"),
        f"{PUT_PLAYER_NEEDED}, is denied by NoPlayerWrites of GameFunctionRole",
    ]


def test_a_call_of_shared_code_belongs_to_whoever_runs_that_code_under_an_entry_point() -> None:
    # The processor called by a test directly, as the game function and the operator's erase run it.
    direct = commit(COMPLETE_CLAIM, stack=(PROCESS, COMMIT))

    assert findings([*CALLS, direct]) == [
        "game function, operator's tool: dynamodb:UpdateItem on table IdempotencyTable, needed by the Update "
        "of TransactWriteItems from serverless_rps/game_store/store.py:DynamoGameStore.commit (reached from "
        "serverless_rps.processing:MessageProcessor.process), is not allowed by the operator's read-write "
        "policy"
    ]


def test_a_call_whose_principal_no_test_shows_fails() -> None:
    orphan = call(
        "dynamodb",
        "GetItem",
        {"TableName": "rps-game-state", "Key": ["phone_number"]},
        "serverless_rps.reconciliation:Reconciler.look",
    )

    assert findings([*CALLS, orphan]) == [
        "GetItem from serverless_rps/reconciliation.py:Reconciler.look (reached from "
        "serverless_rps.reconciliation:Reconciler.look): no test runs "
        "serverless_rps.reconciliation:Reconciler.look below an entry point (serverless_rps/app.py, "
        "webhook.py, status_callbacks.py, admin/), so no principal is known to make this call"
    ]


def test_a_resource_name_the_mapping_does_not_know_fails_with_its_call() -> None:
    elsewhere = call(
        "dynamodb",
        "GetItem",
        {"TableName": "someone-elses-table", "Key": ["phone_number"]},
        HANDLER,
        "serverless_rps.game_store.game_state:GameStateRows.get_player",
    )

    [finding] = findings([*CALLS, elsewhere])

    assert finding.startswith(
        "GetItem from serverless_rps/game_store/game_state.py:GameStateRows.get_player: no table of the "
        "template is named like 'someone-elses-table'"
    )


def test_a_key_that_is_not_the_mapped_tables_fails() -> None:
    misnamed = call(
        "dynamodb",
        "GetItem",
        {"TableName": "rps-game-state", "Key": ["messageId"]},
        HANDLER,
        "serverless_rps.game_store.messages:MessageRecords.read",
    )

    [finding] = findings([*CALLS, misnamed])

    assert (
        "mapped to GameStateTable, keyed on ['phone_number'], but the call's key is ['messageId']" in finding
    )


def test_a_read_only_command_needs_the_read_only_policy_and_a_change_the_read_write_one() -> None:
    status = call(
        "dynamodb",
        "GetItem",
        {"TableName": "rps-game-state", "Key": ["phone_number"]},
        "serverless_rps.admin.operations:Operator.player",
        "serverless_rps.admin.store_reads:StoreReads.read_player_row",
    )

    assert findings([*CALLS, status]) == [
        "operator's tool: dynamodb:GetItem on table GameStateTable, needed by GetItem from "
        "serverless_rps/admin/store_reads.py:StoreReads.read_player_row, is not allowed by the operator's "
        "read-only policy",
        "operator's tool: dynamodb:GetItem on table GameStateTable, needed by GetItem from "
        "serverless_rps/admin/store_reads.py:StoreReads.read_player_row, is not allowed by the operator's "
        "read-write policy",
    ]


def test_an_operator_function_no_command_is_said_to_run_fails() -> None:
    unclassified = call(
        "dynamodb",
        "Scan",
        {"TableName": "rps-game-state"},
        "serverless_rps.admin.operations:Operator.audit",
        "serverless_rps.admin.store_reads:StoreReads._scan",
    )

    assert findings([*CALLS, unclassified]) == [
        "the operator's tool: Scan from serverless_rps/admin/store_reads.py:StoreReads._scan, reached from "
        "serverless_rps.admin.operations:Operator.audit: say in tests/iam/principals.py OPERATOR_FUNCTIONS "
        "which commands run it"
    ]


@pytest.mark.parametrize(
    ("operation", "action"),
    [("DeleteMessageBatch", "sqs:DeleteMessage"), ("ReceiveMessage", "sqs:ReceiveMessage")],
)
def test_the_event_source_mapping_polls_with_the_game_functions_role(operation: str, action: str) -> None:
    without = TEMPLATE.replace(f"                  - {action}\n", "")

    assert (
        f"event source mapping: {action} on queue IncomingQueue, needed by {operation} from "
        "serverless_rps_local/event_source.py:SqsEventSource."
    ) in "\n".join(findings(template=without))


def test_the_report_lists_each_policys_requests_and_statements() -> None:
    stack = DeployedStack(load_cloudformation_yaml(TEMPLATE))

    text = report(CALLS, stack, operator_policies(OPERATIONS, stack), TEMPLATE)

    commit_site = "serverless_rps/game_store/store.py:DynamoGameStore.commit"
    assert "GameFunctionRole (the game function or the event source mapping)" in text
    assert f"    dynamodb:PutItem on table GameStateTable: {commit_site}\n" in text
    assert f"    PlayersAndClaims: dynamodb:PutItem, used by {commit_site}\n" in text
    assert (
        "    ConsumeIncomingQueue: sqs:GetQueueAttributes, "
        "not called by the code: the event source mapping reads it\n"
    ) in text


def test_a_call_on_a_resource_a_test_made_missing_counts_only_beside_the_same_call_on_the_real_one() -> None:
    get_player = "serverless_rps.game_store.game_state:GameStateRows.get_player"
    holder = "serverless_rps.game_store.nicknames:NicknameRows.holder"
    beside = call(
        "dynamodb", "GetItem", {"TableName": "no-such-table", "Key": ["phone_number"]}, HANDLER, get_player
    )
    alone = call("dynamodb", "GetItem", {"TableName": "no-such-table", "Key": ["nickname"]}, HANDLER, holder)

    assert findings([*CALLS, beside]) == []
    assert findings([*CALLS, alone]) == [
        "GetItem from serverless_rps/game_store/nicknames.py:NicknameRows.holder is recorded only on a "
        "resource its test made missing (no-such-table): no test shows it on the stack's own"
    ]


def test_shared_code_is_learned_through_a_chain_of_calls_that_reach_an_entry_point() -> None:
    # A test calls the store directly, another the processor that calls the same store method:
    # the processor runs in the game function and the operator's erase, so the store method does.
    restore = "serverless_rps.game_store.store:DynamoGameStore.restore_number"
    write = "serverless_rps.game_store.erasure:NumberErasure.restore_number"
    named = {"TableName": "rps-idempotency", "Key": ["messageId"]}
    through_the_processor = call("dynamodb", "UpdateItem", named, PROCESS, restore, write)
    direct = call("dynamodb", "UpdateItem", named, restore, write)

    assert findings([*CALLS, through_the_processor, direct]) == [
        "game function, operator's tool: dynamodb:UpdateItem on table IdempotencyTable, needed by UpdateItem "
        "from serverless_rps/game_store/erasure.py:NumberErasure.restore_number "
        f"(reached from {learned_from}), is not allowed by the operator's read-write policy"
        for learned_from in (restore, PROCESS)
    ]
