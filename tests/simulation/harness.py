"""The process-wide plumbing a simulated run needs: AWS clients whose every call passes through a
gate, and a Twilio that answers in-process at the bottom of the real Twilio client.

* DynamoDB and SQS: botocore event hooks on the clients the engine uses. `before-call` parks the
  calling invocation at its gate (and can answer with a throttling error instead of calling moto);
  `after-call` tells the world what happened (a lock taken, a commit, an outbox lease).
* SQS: gated the same way, then acknowledged at the hook. Its one call on the record path
  (ChangeMessageVisibility, a quicker redelivery) carries no game state; the scheduler plays the
  queue itself (which delivery runs when, redeliveries, duplicates).
* Twilio: the real `TwilioSmsGateway`, the real Twilio SDK and `requests`, with a transport adapter
  mounted on the SDK's session in place of the network. A gateway constructor that accepted an
  HTTP client would let us mount it without patching the class name during construction.

Calls made by the scheduler's own thread (setting up, checking) have no invocation and pass
through.

moto runs for the harness's whole life. Between runs the DynamoDB backend's tables are put back
from a deep copy taken after the scenario's setup, and the checks read items from the backend:
both reach into moto's internals (`_backend`), because going through its HTTP layer costs more
than the run itself.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Protocol
from unittest import mock
from urllib.parse import parse_qs

import boto3
import botocore
import requests
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.exceptions import ReadTimeoutError
from moto import mock_aws
from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from serverless_rps import sms_gateway
from serverless_rps.observability import logger
from serverless_rps.sms_gateway import RedirectingHttpClient, TwilioSmsGateway
from tests.conftest import create_tables
from tests.simulation.scheduler import Invocation, current_invocation

__all__ = ["Harness", "SimulatedResponse", "Snapshot", "Stage"]

REGION = "us-east-1"
# Signing is meaningless to moto and costs a third of each call; validation stays on.
_CLIENT_CONFIG = Config(signature_version=botocore.UNSIGNED, retries={"max_attempts": 1, "mode": "standard"})
_PARAMS = "simulation.params"
_VERDICT = "simulation.verdict"
Snapshot = dict[str, Any]  # table name -> moto's table object, deep-copied


class SimulatedResponse(Exception):
    """Raised by a stage to answer a Twilio request with this status and JSON body."""

    def __init__(self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None):
        super().__init__(status)
        self.status = status
        self.payload = payload
        self.headers = dict(headers or {})


class Stage(Protocol):
    """What the hooks report to: the world of the run in progress."""

    def before_aws_call(self, invocation: Invocation, service: str, operation: str, params: Any) -> str:
        """Park at the gate; returns the verdict (GO, "throttled", "lost")."""

    def after_aws_call(self, invocation: Invocation, operation: str, params: Any, parsed: Any) -> None:
        """A call that reached moto succeeded."""

    def send_sms(self, invocation: Invocation, to: str, from_: str, body: str) -> str:
        """Twilio's side of a send: returns the new message SID, or raises SimulatedResponse."""


class Harness:
    """Built once per exploration (clients are slow to make); each run points `stage` at itself."""

    def __init__(self) -> None:
        self.stage: Stage | None = None
        self.dynamodb = boto3.client("dynamodb", region_name=REGION, config=_CLIENT_CONFIG)
        self.sqs = boto3.client("sqs", region_name=REGION, config=_CLIENT_CONFIG)
        for client, service in ((self.dynamodb, "dynamodb"), (self.sqs, "sqs")):
            events = client.meta.events
            events.register(f"before-parameter-build.{service}", _remember_params)
            events.register(f"before-call.{service}", self._before_call)
            events.register(f"after-call.{service}", self._after_call)
        self.sms = _simulated_twilio_gateway(self)
        self.empty: Snapshot = {}
        self._log_level = logger.log_level
        self._mock = mock_aws()

    def __enter__(self) -> Harness:
        # The engine logs every step at INFO; millions of lines would drown the report.
        logger.setLevel("CRITICAL")
        self._mock.start()
        create_tables(self.dynamodb)
        self.empty = self.snapshot()
        return self

    def __exit__(self, *_: object) -> None:
        self._mock.stop()
        logger.setLevel(self._log_level)

    def snapshot(self) -> Snapshot:
        return copy.deepcopy(dict(_backend().tables))

    def restore(self, snapshot: Snapshot) -> None:
        tables = _backend().tables
        tables.clear()
        tables.update(copy.deepcopy(snapshot))

    def items(self, table: str) -> list[dict[str, Any]]:
        """The table's items in DynamoDB's JSON form, read straight from moto."""
        return [item.to_json()["Attributes"] for item in _backend().tables[table].all_items()]

    def _before_call(self, model: Any, context: dict[str, Any], **_: Any) -> Any:
        invocation = current_invocation()
        if invocation is None or self.stage is None:
            return None
        service = model.service_model.service_name
        verdict = self.stage.before_aws_call(invocation, service, model.name, context.get(_PARAMS, {}))
        context[_VERDICT] = verdict
        if verdict == "throttled":
            return _answer(
                400, {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "throttled"}}
            )
        if service == "sqs":
            return _answer(200, {})
        return None

    def _after_call(
        self, http_response: Any, parsed: Any, model: Any, context: dict[str, Any], **_: Any
    ) -> None:
        invocation = current_invocation()
        if invocation is None or self.stage is None or _VERDICT not in context:
            return
        if context[_VERDICT] == "throttled" or model.service_model.service_name != "dynamodb":
            return
        if http_response.status_code < 300:
            self.stage.after_aws_call(invocation, model.name, context.get(_PARAMS, {}), parsed)
        if context[_VERDICT] == "lost":
            # The request took effect; its response never arrived.
            raise ReadTimeoutError(endpoint_url=f"https://{model.service_model.endpoint_prefix}.simulated")


def _remember_params(params: Any, context: dict[str, Any], **_: Any) -> None:
    context[_PARAMS] = params


def _backend() -> Any:
    return dynamodb_backends[DEFAULT_ACCOUNT_ID][REGION]


def _answer(status: int, parsed: dict[str, Any]) -> tuple[AWSResponse, dict[str, Any]]:
    """A response made at the hook: botocore skips the request and uses this instead."""
    return AWSResponse("https://simulated", status, {}, None), {
        **parsed,
        "ResponseMetadata": {"HTTPStatusCode": status},
    }


class _TwilioTransport(BaseAdapter):
    """Twilio's REST API as seen from `requests`: creating a message is a gated call."""

    def __init__(self, harness: Harness) -> None:
        super().__init__()
        self._harness = harness

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        invocation = current_invocation()
        stage = self._harness.stage
        if invocation is None or stage is None:
            raise RuntimeError("an SMS was sent outside a simulated invocation")
        body = request.body.decode() if isinstance(request.body, bytes) else str(request.body or "")
        fields = {name: values[0] for name, values in parse_qs(body).items()}
        try:
            sid = stage.send_sms(invocation, fields["To"], fields["From"], fields["Body"])
        except SimulatedResponse as answer:
            return _response(request, answer.status, answer.payload, answer.headers)
        payload = {
            "sid": sid,
            "status": "queued",
            "to": fields["To"],
            "from": fields["From"],
            "body": fields["Body"],
        }
        return _response(request, 201, payload, {})

    def close(self) -> None:
        pass


def _response(
    request: requests.PreparedRequest, status: int, payload: Mapping[str, Any], headers: Mapping[str, str]
) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps(payload).encode()
    response.headers = CaseInsensitiveDict({"Content-Type": "application/json", **headers})
    response.encoding = "utf-8"
    response.url = request.url or ""
    response.request = request
    return response


def _simulated_twilio_gateway(harness: Harness) -> TwilioSmsGateway:
    class SimulatedHttpClient(RedirectingHttpClient):
        def __init__(self, base_url: str | None = None, timeout: float = 5.0) -> None:
            super().__init__(base_url, timeout)
            assert self.session is not None
            self.session.trust_env = False  # no proxy or .netrc lookups: nothing leaves the process
            self.session.mount("https://", _TwilioTransport(harness))

    with mock.patch.object(sms_gateway, "RedirectingHttpClient", SimulatedHttpClient):
        return TwilioSmsGateway("AC" + "5" * 32, "simulated-auth-token")
