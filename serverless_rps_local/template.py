"""Reads template.yaml, so the local stack builds the same tables, queues and functions as `sam deploy`.

Only what the local stack needs is read: DynamoDB tables (keys, indexes, TTL), SQS queues (their
attributes and redrive policy), and the functions (handler, code root, timeout, environment, SQS and
HTTP API events), with SAM's `Globals` merged in. CloudFormation's short tags (`!Ref`, `!GetAtt`,
`!Sub`, ...) are read as their long forms; `resolve()` evaluates the few intrinsics an environment
variable or a redrive policy uses, against the names the local stack gave its resources.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "FunctionDefinition",
    "HttpRoute",
    "QueueDefinition",
    "SqsTrigger",
    "StackTemplate",
    "TableDefinition",
    "TemplateError",
    "Unresolvable",
    "load_cloudformation_yaml",
    "resolve",
]


class TemplateError(Exception):
    """template.yaml lacks something the local stack needs, or says it in a way it cannot read."""


class Unresolvable(Exception):
    """An intrinsic function refers to something that has no local value (a parameter without default)."""


class _CloudFormationLoader(yaml.SafeLoader):
    """A YAML loader that reads `!Ref X` as `{"Ref": "X"}` and `!Sub ...` as `{"Fn::Sub": ...}`."""


def _construct_tag(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        assert isinstance(node, yaml.MappingNode)
        value = loader.construct_mapping(node, deep=True)
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{tag_suffix}": value}


_CloudFormationLoader.add_multi_constructor("!", _construct_tag)


def load_cloudformation_yaml(text: str) -> Any:
    """Parse a CloudFormation/SAM YAML document, its short tags read as their long forms."""
    return yaml.load(text, Loader=_CloudFormationLoader)


@dataclass(frozen=True)
class TableDefinition:
    logical_id: str
    name: str
    key_schema: list[dict[str, str]]
    attribute_definitions: list[dict[str, str]]
    global_secondary_indexes: list[dict[str, Any]] = field(default_factory=list)
    local_secondary_indexes: list[dict[str, Any]] = field(default_factory=list)
    ttl_attribute: str | None = None

    @property
    def hash_key(self) -> str:
        return next(key["AttributeName"] for key in self.key_schema if key["KeyType"] == "HASH")


@dataclass(frozen=True)
class QueueDefinition:
    logical_id: str
    name: str
    properties: dict[str, Any]
    dead_letter_target: str | None = None
    max_receive_count: int | None = None

    @property
    def visibility_timeout(self) -> int:
        return int(self.properties.get("VisibilityTimeout", 30))


@dataclass(frozen=True)
class SqsTrigger:
    """An SQS event source mapping: which queue, how many messages per batch, how to report failures."""

    queue_logical_id: str
    batch_size: int
    maximum_batching_window_seconds: float
    report_batch_item_failures: bool
    maximum_concurrency: int | None


@dataclass(frozen=True)
class HttpRoute:
    method: str
    path: str


@dataclass(frozen=True)
class FunctionDefinition:
    logical_id: str
    handler: str
    code_uri: str
    timeout_seconds: float
    memory_mb: int
    environment: dict[str, Any]
    sqs_trigger: SqsTrigger | None = None
    http_routes: list[HttpRoute] = field(default_factory=list)


@dataclass(frozen=True)
class StackTemplate:
    path: Path
    parameters: dict[str, Any]
    tables: dict[str, TableDefinition]
    queues: dict[str, QueueDefinition]
    functions: dict[str, FunctionDefinition]

    @classmethod
    def load(cls, path: Path, stack_name: str = "serverless-rps-local") -> StackTemplate:
        try:
            document = load_cloudformation_yaml(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise TemplateError(f"cannot read {path}: {exc}") from exc
        if not isinstance(document, dict) or not isinstance(document.get("Resources"), dict):
            raise TemplateError(f"{path} has no Resources")
        parameters = {
            name: spec["Default"] if "Default" in spec else _local_value(spec)
            for name, spec in (document.get("Parameters") or {}).items()
        }
        pseudo = {"AWS::StackName": stack_name, "AWS::Region": "us-east-1", "AWS::AccountId": "123456789012"}
        names = _Names(parameters, pseudo)
        resources: dict[str, Any] = document["Resources"]
        function_globals = ((document.get("Globals") or {}).get("Function")) or {}
        tables: dict[str, TableDefinition] = {}
        queues: dict[str, QueueDefinition] = {}
        functions: dict[str, FunctionDefinition] = {}
        for logical_id, resource in resources.items():
            kind = resource.get("Type")
            properties = resource.get("Properties") or {}
            if kind == "AWS::DynamoDB::Table":
                tables[logical_id] = _table(logical_id, properties, names)
            elif kind == "AWS::Serverless::SimpleTable":
                tables[logical_id] = _simple_table(logical_id, properties, names)
            elif kind == "AWS::SQS::Queue":
                queues[logical_id] = _queue(logical_id, properties, names)
            elif kind == "AWS::Serverless::Function":
                functions[logical_id] = _function(logical_id, _merged(function_globals, properties), names)
        for function, route in _explicit_routes(resources, names):
            if function in functions:
                functions[function].http_routes.append(route)
        return cls(path, parameters, tables, queues, functions)

    def table(self, logical_id: str) -> TableDefinition:
        try:
            return self.tables[logical_id]
        except KeyError:
            raise TemplateError(f"{self.path} declares no table {logical_id}") from None

    def queue(self, logical_id: str) -> QueueDefinition:
        try:
            return self.queues[logical_id]
        except KeyError:
            raise TemplateError(f"{self.path} declares no queue {logical_id}") from None

    def function(self, logical_id: str) -> FunctionDefinition:
        try:
            return self.functions[logical_id]
        except KeyError:
            raise TemplateError(f"{self.path} declares no function {logical_id}") from None


@dataclass(frozen=True)
class _Names:
    """Resolves names at load time, before any resource exists: parameters and pseudo parameters."""

    parameters: dict[str, Any]
    pseudo: dict[str, str]

    def name(self, value: Any, fallback: str) -> str:
        if value is None:
            return fallback
        try:
            return str(resolve(value, {**self.pseudo, **self.parameters}, {}))
        except Unresolvable:
            return fallback

    def number(self, value: Any) -> float:
        """A number as written, or a parameter's (`!Ref MaxReceiveCount`: its default)."""
        try:
            return float(resolve(value, {**self.pseudo, **self.parameters}, {}))
        except (Unresolvable, TypeError, ValueError) as exc:
            raise TemplateError(f"{value!r} is not a number this template resolves") from exc


def _table(logical_id: str, properties: dict[str, Any], names: _Names) -> TableDefinition:
    ttl = properties.get("TimeToLiveSpecification") or {}
    return TableDefinition(
        logical_id=logical_id,
        name=names.name(properties.get("TableName"), logical_id),
        key_schema=properties["KeySchema"],
        attribute_definitions=properties["AttributeDefinitions"],
        global_secondary_indexes=properties.get("GlobalSecondaryIndexes") or [],
        local_secondary_indexes=properties.get("LocalSecondaryIndexes") or [],
        ttl_attribute=ttl.get("AttributeName") if _true(ttl.get("Enabled")) else None,
    )


def _simple_table(logical_id: str, properties: dict[str, Any], names: _Names) -> TableDefinition:
    key = properties.get("PrimaryKey") or {"Name": "id", "Type": "String"}
    kind = {"String": "S", "Number": "N", "Binary": "B"}[key.get("Type", "String")]
    return TableDefinition(
        logical_id=logical_id,
        name=names.name(properties.get("TableName"), logical_id),
        key_schema=[{"AttributeName": key["Name"], "KeyType": "HASH"}],
        attribute_definitions=[{"AttributeName": key["Name"], "AttributeType": kind}],
    )


def _queue(logical_id: str, properties: dict[str, Any], names: _Names) -> QueueDefinition:
    redrive = properties.get("RedrivePolicy")
    target: str | None = None
    max_receive_count: int | None = None
    if redrive:
        if isinstance(redrive, str):
            redrive = json.loads(redrive)
        target = _referenced_logical_id(redrive.get("deadLetterTargetArn"))
        max_receive_count = int(names.number(redrive["maxReceiveCount"]))
    return QueueDefinition(
        logical_id=logical_id,
        name=names.name(properties.get("QueueName"), logical_id),
        properties=dict(properties),
        dead_letter_target=target,
        max_receive_count=max_receive_count,
    )


def _explicit_routes(resources: dict[str, Any], names: _Names) -> list[tuple[str, HttpRoute]]:
    """HTTP API routes declared as `AWS::ApiGatewayV2::Route` (a route key with a parameter in it,
    which a SAM event cannot hold), each with the function its integration invokes."""
    routes = []
    for resource in resources.values():
        if resource.get("Type") != "AWS::ApiGatewayV2::Route":
            continue
        properties = resource.get("Properties") or {}
        method, _, path = names.name(properties.get("RouteKey"), "ANY /").partition(" ")
        target = str((properties.get("Target") or {}).get("Fn::Sub", ""))
        integration = resources.get(target.removeprefix("integrations/${").removesuffix("}"), {})
        function = _referenced_logical_id((integration.get("Properties") or {}).get("IntegrationUri"))
        if function is not None:
            routes.append((function, HttpRoute(method=method.upper(), path=path)))
    return routes


def _local_value(spec: dict[str, Any]) -> str | None:
    """A parameter with no default: a secret (NoEcho) gets a fresh random value for this local
    stack, as an operator would make one; anything else stays unset."""
    return secrets.token_urlsafe(24) if _true(spec.get("NoEcho")) else None


def _function(logical_id: str, properties: dict[str, Any], names: _Names) -> FunctionDefinition:
    if "Handler" not in properties:
        raise TemplateError(f"function {logical_id} has no Handler")
    sqs_trigger: SqsTrigger | None = None
    routes: list[HttpRoute] = []
    for event in (properties.get("Events") or {}).values():
        event_properties = event.get("Properties") or {}
        if event.get("Type") == "SQS":
            queue = _referenced_logical_id(event_properties.get("Queue"))
            if queue is None:
                raise TemplateError(f"the SQS event of {logical_id} names no queue of this template")
            scaling = event_properties.get("ScalingConfig") or {}
            sqs_trigger = SqsTrigger(
                queue_logical_id=queue,
                batch_size=int(names.number(event_properties.get("BatchSize", 10))),
                maximum_batching_window_seconds=names.number(
                    event_properties.get("MaximumBatchingWindowInSeconds", 0)
                ),
                report_batch_item_failures="ReportBatchItemFailures"
                in (event_properties.get("FunctionResponseTypes") or []),
                maximum_concurrency=int(names.number(scaling["MaximumConcurrency"]))
                if "MaximumConcurrency" in scaling
                else None,
            )
        elif event.get("Type") == "HttpApi":
            routes.append(
                HttpRoute(
                    method=str(event_properties.get("Method", "ANY")).upper(),
                    path=names.name(event_properties.get("Path"), "/"),
                )
            )
    environment = ((properties.get("Environment") or {}).get("Variables")) or {}
    return FunctionDefinition(
        logical_id=logical_id,
        handler=str(properties["Handler"]),
        code_uri=str(properties.get("CodeUri", "."))
        if not isinstance(properties.get("CodeUri"), dict)
        else ".",
        timeout_seconds=float(properties.get("Timeout", 3)),
        memory_mb=int(properties.get("MemorySize", 128)),
        environment=dict(environment),
        sqs_trigger=sqs_trigger,
        http_routes=routes,
    )


def _merged(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """SAM's Globals: maps merge key by key (Environment.Variables), everything else is replaced."""
    merged = dict(defaults)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


def _referenced_logical_id(value: Any) -> str | None:
    if isinstance(value, dict):
        if "Ref" in value:
            # SAM's `!Ref Function.Alias` (or `.Version`) names the function's published alias;
            # locally there is one version of each function.
            return str(value["Ref"]).removesuffix(".Alias").removesuffix(".Version")
        if "Fn::GetAtt" in value:
            return str(value["Fn::GetAtt"][0])
    return None


def _true(value: Any) -> bool:
    return value is True or str(value).lower() == "true"


_SUB_VARIABLE = re.compile(r"\$\{([^}!][^}]*)\}")


def resolve(value: Any, references: Mapping[str, Any], attributes: Mapping[tuple[str, str], Any]) -> Any:
    """Evaluate `Ref`, `Fn::GetAtt`, `Fn::Sub`, `Fn::Join` and `Fn::Select` against local values.

    `references` maps a logical id, parameter or pseudo parameter to what `Ref` returns;
    `attributes` maps `(logical id, attribute)` to what `Fn::GetAtt` returns.
    """
    if isinstance(value, list):
        return [resolve(item, references, attributes) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) != 1:
        return {key: resolve(item, references, attributes) for key, item in value.items()}
    [(function, argument)] = value.items()
    if function == "Ref":
        if references.get(argument) is None:
            raise Unresolvable(f"!Ref {argument}")
        return references[argument]
    if function == "Fn::GetAtt":
        key = (str(argument[0]), str(argument[1]))
        if key not in attributes:
            raise Unresolvable(f"!GetAtt {'.'.join(key)}")
        return attributes[key]
    if function == "Fn::Sub":
        template, variables = (argument, {}) if isinstance(argument, str) else argument
        local = {
            **references,
            **{name: resolve(item, references, attributes) for name, item in variables.items()},
        }
        return _SUB_VARIABLE.sub(
            lambda match: str(_sub_variable(match.group(1), local, attributes)), template
        )
    if function == "Fn::Join":
        separator, items = argument
        return str(separator).join(str(item) for item in resolve(items, references, attributes))
    if function == "Fn::Select":
        index, items = argument
        return resolve(items, references, attributes)[int(index)]
    if function.startswith("Fn::") or function == "Condition":
        raise Unresolvable(function)
    return {function: resolve(argument, references, attributes)}


def _sub_variable(name: str, references: Mapping[str, Any], attributes: Mapping[tuple[str, str], Any]) -> Any:
    if "." in name and not name.startswith("AWS::"):
        logical_id, attribute = name.split(".", 1)
        return resolve({"Fn::GetAtt": [logical_id, attribute]}, references, attributes)
    return resolve({"Ref": name}, references, attributes)
