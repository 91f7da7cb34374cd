"""What template.yaml deploys, as far as the model needs it: the game function's SQS event source
(batch size, batching window, maximum concurrency), the queue it reads (visibility timeout,
maxReceiveCount), the function's timeout and memory, and its environment, which the engine's
settings are read from. Read from the template at each run, so that a change there (a value made a
parameter, a new setting) reaches the model without a change here; a parameter counts at its
default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from serverless_rps.config import GameSettings
from serverless_rps_local.template import Unresolvable, load_cloudformation_yaml, resolve

__all__ = ["GAME_FUNCTION", "TEMPLATE", "Deployment"]

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
GAME_FUNCTION = "GameFunction"
# What Lambda uses when the template says nothing (the SQS event source's and a function's defaults).
_DEFAULT_BATCHING_WINDOW_SECONDS = 0.0
_DEFAULT_TIMEOUT_SECONDS = 3.0
_DEFAULT_MEMORY_MB = 128
_DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30.0
_PSEUDO_PARAMETERS = {
    "AWS::StackName": "burst",
    "AWS::Region": "us-east-1",
    "AWS::URLSuffix": "amazonaws.com",
}


@dataclass(frozen=True)
class Deployment:
    batch_size: int
    batching_window_seconds: float
    # None: no ScalingConfig, so only the account's concurrency bounds the event source.
    maximum_concurrency: int | None
    visibility_timeout_seconds: float
    max_receive_count: int
    function_timeout_seconds: float
    memory_mb: int
    # The game function's environment variables whose values the template itself gives (its own
    # or a parameter's default); the others (table names, queue URLs, secrets) are the model's.
    environment: dict[str, str]

    @classmethod
    def from_template(cls, path: Path = TEMPLATE) -> Deployment:
        document = load_cloudformation_yaml(path.read_text(encoding="utf-8"))
        parameters = {name: spec.get("Default") for name, spec in (document.get("Parameters") or {}).items()}
        references = {**_PSEUDO_PARAMETERS, **{k: v for k, v in parameters.items() if v is not None}}

        def value(raw: Any) -> Any:
            return resolve(raw, references, {})

        resources = document["Resources"]
        function = _with_globals(document, resources[GAME_FUNCTION]["Properties"])
        [source] = [
            event["Properties"] for event in function.get("Events", {}).values() if event.get("Type") == "SQS"
        ]
        queue_id = source["Queue"]["Fn::GetAtt"][0]
        queue = resources[queue_id]["Properties"]
        scaling = source.get("ScalingConfig") or {}
        environment: dict[str, str] = {}
        for name, raw in (function.get("Environment", {}).get("Variables") or {}).items():
            try:
                environment[name] = str(value(raw))
            except Unresolvable:
                continue
        return cls(
            batch_size=int(value(source.get("BatchSize", 10))),
            batching_window_seconds=float(
                value(source.get("MaximumBatchingWindowInSeconds", _DEFAULT_BATCHING_WINDOW_SECONDS))
            ),
            maximum_concurrency=int(value(scaling["MaximumConcurrency"]))
            if "MaximumConcurrency" in scaling
            else None,
            visibility_timeout_seconds=float(
                value(queue.get("VisibilityTimeout", _DEFAULT_VISIBILITY_TIMEOUT_SECONDS))
            ),
            max_receive_count=int(value(queue["RedrivePolicy"]["maxReceiveCount"])),
            function_timeout_seconds=float(value(function.get("Timeout", _DEFAULT_TIMEOUT_SECONDS))),
            memory_mb=int(value(function.get("MemorySize", _DEFAULT_MEMORY_MB))),
            environment=environment,
        )

    def with_concurrency(self, maximum_concurrency: int | None) -> Deployment:
        return replace(self, maximum_concurrency=maximum_concurrency)

    def game_settings(self, local: dict[str, str], overrides: dict[str, str] | None = None) -> GameSettings:
        """The engine's settings as the function reads them: the template's environment, then
        `local` (what a deployment would fill in: table names, queue URLs, the Twilio token), then
        `overrides` (a setting changed for one run)."""
        environment = {**self.environment, **local, **(overrides or {})}
        environment.pop("TWILIO_AUTH_TOKEN_PARAMETER", None)  # the token comes as a plain value here
        return GameSettings.from_environment(environment)


def _with_globals(document: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    """A function's properties over SAM's Globals (maps merge key by key, as SAM merges them)."""
    return _merged((document.get("Globals") or {}).get("Function") or {}, properties)


def _merged(defaults: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    merged = dict(defaults)
    for key, item in overrides.items():
        both_maps = isinstance(item, dict) and isinstance(merged.get(key), dict)
        merged[key] = _merged(merged[key], item) if both_maps else item
    return merged
