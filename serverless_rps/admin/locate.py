"""Where the stack's resources are, and its settings: those of the game function itself, read from
the deployed function (`--stack NAME`) or from the environment, as the function reads them (which
is how the tool works against the local stack). And which AWS region: `--region`, else the
profile's or the environment's, else the one samconfig.toml gives `make deploy`."""

from __future__ import annotations

import tomllib
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import boto3

from serverless_rps.config import ConfigurationError, GameSettings, OperatorSettings

__all__ = [
    "SAMCONFIG",
    "from_environment",
    "from_stack",
    "local_stack_gone",
    "samconfig_region",
    "session",
    "stack_output",
]

GAME_FUNCTION = "GameFunction"
# The SAM CLI's settings for this repository: `make deploy` deploys to its region.
SAMCONFIG = Path(__file__).resolve().parents[2] / "samconfig.toml"
LOCAL_VARIABLES = "set -a; . .local-state/game-function.env; set +a"


def session(region: str | None = None, samconfig: Path = SAMCONFIG) -> boto3.session.Session:
    """A boto3 session in `region`; with none given, boto3's own choice (AWS_DEFAULT_REGION, the
    profile's), and failing that the region `make deploy` uses."""
    chosen = boto3.session.Session(region_name=region)
    if chosen.region_name:
        return chosen
    deployed_to = samconfig_region(samconfig)
    return boto3.session.Session(region_name=deployed_to) if deployed_to else chosen


def samconfig_region(path: Path = SAMCONFIG) -> str | None:
    """The `region` of samconfig.toml's default deploy parameters, if the file says one."""
    try:
        with path.open("rb") as handle:
            config = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    region = config.get("default", {}).get("deploy", {}).get("parameters", {}).get("region")
    return region if isinstance(region, str) and region.strip() else None


def local_stack_gone(url: str) -> str | None:
    """What to do when nothing answers at `url`, if it is the local stack's (this machine's)."""
    parts = urllib.parse.urlsplit(url)
    if parts.hostname not in {"localhost", "127.0.0.1", "::1"}:
        return None
    return (
        f"no local stack is running at {parts.scheme}://{parts.netloc}: start `make play` in another "
        f"terminal, then load its variables again ({LOCAL_VARIABLES})"
    )


def from_environment(env: Mapping[str, str] | None = None) -> GameSettings:
    """The game function's settings from the environment (config.py reads it: `env`, or the
    process's own), once it is known to name a stack that runs."""
    operator = OperatorSettings.from_environment(env)
    _refuse_a_stopped_local_stack(operator.local_state_directory)
    if not operator.names_a_stack:
        raise ConfigurationError(
            "no stack to work on: give --stack NAME for a deployed one, or, while `make play` runs, "
            f"load the local stack's variables first ({LOCAL_VARIABLES})"
        )
    return GameSettings.from_environment(env)


def _refuse_a_stopped_local_stack(state_directory: str | None) -> None:
    """Variables sourced from a local stack's `game-function.env` name its state directory: if no
    stack runs there any more (it was killed), its ports are gone, and saying so beats a botocore
    connection error."""
    # The local stack sits beside this package in every clone (the tool is never deployed); it
    # alone knows what "running" means for it.
    from serverless_rps_local.saved_state import local_stack_running

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
        raise _stack_problem(cloudformation, stack, exc, f"no {GAME_FUNCTION}") from exc
    function = resource["StackResourceDetail"]["PhysicalResourceId"]
    configuration = lambda_client.get_function_configuration(FunctionName=function)
    return GameSettings.from_environment(configuration.get("Environment", {}).get("Variables", {}))


def stack_output(cloudformation: Any, stack: str, name: str) -> str:
    """One of the stack's outputs (`WebhookUrl`, for `verify`)."""
    try:
        [description] = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    except cloudformation.exceptions.ClientError as exc:
        raise _stack_problem(cloudformation, stack, exc, "cannot be described") from exc
    for output in description.get("Outputs", []):
        if output["OutputKey"] == name:
            return str(output["OutputValue"])
    raise ConfigurationError(f"stack {stack} has no output {name}")


def _stack_problem(cloudformation: Any, stack: str, exc: Any, what: str) -> ConfigurationError:
    region = cloudformation.meta.region_name
    if f"Stack with id {stack} does not exist" in exc.response.get("Error", {}).get("Message", ""):
        return ConfigurationError(
            f"no stack {stack} in {region}: check its name (`aws cloudformation list-stacks`) or give "
            "its region with --region"
        )
    return ConfigurationError(f"stack {stack} in {region}: {what} ({exc})")
