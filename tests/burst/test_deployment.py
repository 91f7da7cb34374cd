"""The model reads what it simulates from template.yaml, parameters at their defaults."""

from __future__ import annotations

from pathlib import Path

from bench.burst.deployment import Deployment

TEMPLATE = """
Parameters:
  GameMaximumConcurrency:
    Type: Number
    Default: 40
  ReplyBudgetBurst:
    Type: Number
    Default: 60
  TwilioAccountSid:
    Type: String
Globals:
  Function:
    MemorySize: 512
    Environment:
      Variables:
        SHARED: from-globals
Resources:
  IncomingQueue:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 120
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt DeadLetterQueue.Arn
        maxReceiveCount: 5
  DeadLetterQueue:
    Type: AWS::SQS::Queue
  GameFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: serverless_rps.app.lambda_handler
      Timeout: 15
      Environment:
        Variables:
          GAME_STATE_TABLE: !Ref GameStateTable
          TWILIO_ACCOUNT_SID: !Ref TwilioAccountSid
          REPLY_BUDGET_BURST: !Ref ReplyBudgetBurst
          LOCK_LEASE_SECONDS: "25"
      Events:
        IncomingMessages:
          Type: SQS
          Properties:
            Queue: !GetAtt IncomingQueue.Arn
            BatchSize: 5
            MaximumBatchingWindowInSeconds: 2
            ScalingConfig:
              MaximumConcurrency: !Ref GameMaximumConcurrency
"""


def test_the_event_source_queue_and_function_are_read_with_parameters_at_their_defaults(
    tmp_path: Path,
) -> None:
    template = tmp_path / "template.yaml"
    template.write_text(TEMPLATE)

    deployment = Deployment.from_template(template)

    assert (deployment.batch_size, deployment.batching_window_seconds, deployment.maximum_concurrency) == (
        5,
        2.0,
        40,
    )
    assert (deployment.visibility_timeout_seconds, deployment.max_receive_count) == (120.0, 5)
    assert (deployment.function_timeout_seconds, deployment.memory_mb) == (15.0, 512)


def test_the_engine_reads_the_templates_settings_and_the_model_fills_in_the_rest(tmp_path: Path) -> None:
    template = tmp_path / "template.yaml"
    template.write_text(TEMPLATE)
    deployment = Deployment.from_template(template)

    settings = deployment.game_settings(
        {
            "GAME_STATE_TABLE": "game",
            "NICKNAME_TABLE": "names",
            "IDEMPOTENCY_TABLE": "messages",
            "INCOMING_QUEUE_URL": "https://queue",
            "DEAD_LETTER_QUEUE_URL": "https://dead",
            "TWILIO_ACCOUNT_SID": "AC" + "1" * 32,
            "TWILIO_AUTH_TOKEN": "token",
        },
        {"REPLY_BUDGET_BURST": "1000"},
    )

    assert deployment.environment["SHARED"] == "from-globals"
    assert "TWILIO_ACCOUNT_SID" not in deployment.environment  # a parameter without a default
    assert settings.lock_lease_seconds == 25
    assert settings.reply_budget_burst == 1000
    assert settings.game_state_table == "game"
