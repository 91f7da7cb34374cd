"""Where the stack's resources are, and its settings: those of the game function itself, read from
the deployed function (`--stack NAME`) or from the environment, as the function reads them (which
is how the tool works against the local stack)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from serverless_rps.config import ConfigurationError, GameSettings

__all__ = ["from_environment", "from_stack", "stack_output"]

GAME_FUNCTION = "GameFunction"


def from_environment(env: Mapping[str, str] | None = None) -> GameSettings:
    return GameSettings.from_environment(os.environ if env is None else env)


def from_stack(cloudformation: Any, lambda_client: Any, stack: str) -> GameSettings:
    """The deployed game function's own variables (tables, queue URLs, the SSM name of the Twilio
    token, timings), found through the stack's GameFunction."""
    try:
        resource = cloudformation.describe_stack_resource(StackName=stack, LogicalResourceId=GAME_FUNCTION)
    except cloudformation.exceptions.ClientError as exc:
        raise ConfigurationError(f"stack {stack}: no {GAME_FUNCTION} ({exc})") from exc
    function = resource["StackResourceDetail"]["PhysicalResourceId"]
    configuration = lambda_client.get_function_configuration(FunctionName=function)
    return GameSettings.from_environment(configuration.get("Environment", {}).get("Variables", {}))


def stack_output(cloudformation: Any, stack: str, name: str) -> str:
    """One of the stack's outputs (`WebhookUrl`, for `verify`)."""
    try:
        [description] = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    except cloudformation.exceptions.ClientError as exc:
        raise ConfigurationError(f"stack {stack}: {exc}") from exc
    for output in description.get("Outputs", []):
        if output["OutputKey"] == name:
            return str(output["OutputValue"])
    raise ConfigurationError(f"stack {stack} has no output {name}")
