"""Where the stack's resources are, and its settings: those of the game function itself, read from
the deployed function (`--stack NAME`) or from the environment, as the function reads them (which
is how the tool works against the local stack)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from serverless_rps.config import ConfigurationError, GameSettings

__all__ = ["from_environment", "from_stack", "stack_output"]

GAME_FUNCTION = "GameFunction"


def from_environment(env: Mapping[str, str] | None = None) -> GameSettings:
    env = os.environ if env is None else env
    _refuse_a_stopped_local_stack(env)
    return GameSettings.from_environment(env)


def _refuse_a_stopped_local_stack(env: Mapping[str, str]) -> None:
    """Variables sourced from a local stack's `game-function.env` name its state directory: if no
    stack runs there any more (it was killed), its ports are gone, and saying so beats a botocore
    connection error."""
    # The local stack sits beside this package in every clone (the tool is never deployed); it
    # alone knows what "running" means for it.
    from serverless_rps_local.saved_state import STATE_DIRECTORY_VARIABLE, local_stack_running

    state_directory = env.get(STATE_DIRECTORY_VARIABLE)
    if not state_directory:
        return
    if not local_stack_running(Path(state_directory)):
        raise ConfigurationError(
            f"no local stack is running: these variables come from one that stopped ({state_directory}); "
            "start make play in another terminal"
        )


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
