"""DynamoDB for the engine's clients: moto's, with its real conditional and transactional semantics,
reached in virtual time, with throttling and transaction conflicts injected at chosen rates.

Every HTTP attempt of a DynamoDB request (the SDK's retries included) passes `before-send`:

    engine ── request ──► [botocore's CPU + half the latency] ── take a turn ──► moto applies it
           ◄─ response ── [the other half] ◄──────────────────────────────────┘   (or a fault)

The request takes effect at its actor's turn, in the order of virtual time among every actor's
requests; an injected fault answers instead, and moto never sees that attempt. Throttling
(ProvisionedThroughputExceededException, ThrottlingException) is retried by botocore itself, with
its own backoff (the SDK's sleep runs in virtual time, `virtual_sdk_sleep`); a cancelled
transaction (TransactionConflict) is not, and reaches the engine, which retries the message.

moto is reached through its own botocore hook, called here at the request's turn; the session's
copy of that hook is taken away, so no request reaches moto twice or out of turn.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

import botocore.endpoint
from botocore.awsrequest import AWSResponse, HTTPHeaders
from moto.core.models import DEFAULT_ACCOUNT_ID, botocore_stubber
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType

from bench.burst.latencies import Latencies
from bench.burst.observations import InvocationContext, Observations
from bench.burst.virtual_time import current_actor
from bench.capacity import consumed_units, item_size, touched_items
from serverless_rps_local.in_process import REGION

__all__ = ["Faults", "SimulatedDynamoDb", "canned_response", "stored_items", "virtual_sdk_sleep"]

_THROTTLES = ("ProvisionedThroughputExceededException", "ThrottlingException")
_PARAMS = "burst.params"


@dataclass(frozen=True)
class Faults:
    """Shares of DynamoDB attempts answered with a fault instead of moto's answer."""

    throttle_rate: float = 0.002  # of every attempt: half each of the two throttling errors
    conflict_rate: float = 0.002  # of transactions: cancelled, one item in TransactionConflict


class SimulatedDynamoDb:
    def __init__(
        self, latencies: Latencies, faults: Faults, chance: random.Random, observations: Observations
    ) -> None:
        self._latencies = latencies
        self._faults = faults
        self._chance = chance
        self._observations = observations

    def attach(self, events: Any) -> None:
        """Serve every DynamoDB client the session `events` belongs to will make."""
        events.unregister("before-send", botocore_stubber)
        events.register("before-parameter-build.dynamodb", _remember_params)
        events.register_first("before-send.dynamodb", self._before_send)
        events.register("after-call.dynamodb", self._after_call)

    def _before_send(self, request: Any, event_name: str, **_: Any) -> Any:
        actor = current_actor()
        if actor is None:  # the model's own requests (setting up, checking): straight to moto
            return botocore_stubber(event_name=event_name, request=request)
        operation = event_name.rsplit(".", 1)[-1]
        params = _in_flight.params
        self._observations.attempts[operation] += 1
        latency = self._latencies.dynamodb(operation)
        return actor.round_trip(latency, lambda: self._answer(event_name, operation, params, request))

    def _answer(self, event_name: str, operation: str, params: dict[str, Any], request: Any) -> Any:
        """At the request's turn: a fault, or moto's answer (the request takes effect now)."""
        fault = self._fault(operation, params, request)
        if fault is not None:
            self._observations.faults[fault[0]] += 1
            return fault[1]
        _in_flight.sizes_before = _sizes(operation, params)
        return botocore_stubber(event_name=event_name, request=request)

    def _fault(self, operation: str, params: dict[str, Any], request: Any) -> tuple[str, AWSResponse] | None:
        roll = self._chance.random()
        if roll < self._faults.throttle_rate:
            code = _THROTTLES[0] if roll < self._faults.throttle_rate / 2 else _THROTTLES[1]
            return code, _error(request, code, "injected throttling")
        if operation == "TransactWriteItems" and self._chance.random() < self._faults.conflict_rate:
            items = params["TransactItems"]
            conflicted = self._chance.randrange(len(items))
            reasons = [
                {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}
                if index == conflicted
                else {"Code": "None"}
                for index in range(len(items))
            ]
            codes = ", ".join(reason["Code"] for reason in reasons)
            return "TransactionConflict", _error(
                request,
                "TransactionCanceledException",
                f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
                CancellationReasons=reasons,
            )
        return None

    def _after_call(self, parsed: Any, model: Any, context: dict[str, Any], **_: Any) -> None:
        actor = current_actor()
        if actor is None:
            return
        operation, params = model.name, context[_PARAMS]
        before: list[int] | None = getattr(_in_flight, "sizes_before", None)
        _in_flight.sizes_before = None
        if before is not None:
            after = before if "Error" in parsed else _sizes(operation, params)
            consistent = operation != "GetItem" or bool(params.get("ConsistentRead"))
            self._observations.units(
                *consumed_units(operation, list(zip(before, after, strict=True)), consistent=consistent)
            )
        invocation: InvocationContext = actor.context
        self._observations.dynamodb_call(invocation, actor.now, operation, params, parsed)


# The request in hand on this thread (an actor makes one at a time): its parameters, and the sizes
# of the items it touches as they were when it took effect.
_in_flight = threading.local()


def _remember_params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    context[_PARAMS] = params
    _in_flight.params = params


def _backend() -> Any:
    return dynamodb_backends[DEFAULT_ACCOUNT_ID][REGION]


def _sizes(operation: str, params: dict[str, Any]) -> list[int]:
    """The size of each item the request touches, as moto holds it now."""
    sizes = []
    for table, key in touched_items(operation, params):
        (value,) = key.values()
        item = _backend().get_table(table).get_item(DynamoType(value))
        sizes.append(item_size(item.to_json()["Attributes"]) if item is not None else 0)
    return sizes


def stored_items(table: str) -> list[dict[str, Any]]:
    """Every item of a table as moto holds it, in DynamoDB's JSON (for the end-of-run checks)."""
    return [item.to_json()["Attributes"] for item in _backend().get_table(table).all_items()]


def _error(request: Any, code: str, message: str, **fields: Any) -> AWSResponse:
    body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message, **fields})
    return canned_response(request.url, 400, body.encode())


def canned_response(url: str, status: int, body: bytes) -> AWSResponse:
    """An HTTP response of DynamoDB's JSON protocol, made here instead of by the service."""
    headers = HTTPHeaders.from_dict(
        {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "burst"}
    )
    return AWSResponse(url, status, headers, _Body(body))


class _Body:
    def __init__(self, content: bytes) -> None:
        self._content = content

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._content


@contextmanager
def virtual_sdk_sleep() -> Iterator[None]:
    """botocore's retry backoff sleeps in the calling actor's virtual time, not in real time."""

    class VirtualTime:
        def __getattr__(self, name: str) -> Any:
            return getattr(time, name)

        @staticmethod
        def sleep(seconds: float) -> None:
            actor = current_actor()
            if actor is None:
                time.sleep(seconds)
            else:
                actor.pass_time(seconds)

    with mock.patch.object(botocore.endpoint, "time", VirtualTime()):
        yield
