"""Measure what bench/burst/latencies.py's `Compute` holds: the CPU the SDKs spend on one request
on this machine, with nothing behind them (a canned answer instead of DynamoDB or Twilio).

    python -m bench.burst --measure-client-cpu

Not part of a run (it reads the real clock); its figures are written into `Compute` by hand.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any, cast

import boto3
from botocore.awsrequest import AWSResponse

from bench.burst.dynamodb import canned_response
from bench.burst.model import EPOCH
from bench.burst.twilio_messages import SimulatedTwilio
from serverless_rps.game_store.game_state import LEASE_FREE
from serverless_rps.ports import OutboundSms, ReplyId
from serverless_rps.sms_gateway import TwilioSmsGateway
from serverless_rps_local.in_process import REGION

__all__ = ["measure_client_cpu"]

_REPEATS = 2000
_LOCKED_PLAYER: dict[str, Any] = {
    "phone_number": {"S": "+15551110001"},
    "player_id": {"S": "9f0c" * 8},
    "nickname": {"S": "alice"},
    "display_name": {"S": "Alice"},
    "games": {"M": {}},
    "challenges": {"M": {}},
    "wins": {"N": "3"},
    "losses": {"N": "1"},
    "reply_budget": {
        "M": {"level": {"N": "3"}, "updated_at": {"N": "1795300000.1"}, "notified": {"BOOL": False}}
    },
    "user_locked": {"M": {"lock_uuid": {"S": "0" * 32}, "expiration_epoch_timestamp": {"N": "1795300025.1"}}},
}


def measure_client_cpu() -> dict[str, float]:
    """Milliseconds of CPU per request: botocore's for a signed lock (UpdateItem, ALL_NEW), and
    the Twilio SDK's and requests' for one Messages POST."""
    return {
        "botocore, one signed DynamoDB request (ms)": _per_call(_lock_request()),
        "Twilio SDK, one Messages POST (ms)": _per_call(_twilio_post()),
    }


def _per_call(call: Callable[[], object]) -> float:
    for _ in range(100):
        call()
    started = time.process_time()
    for _ in range(_REPEATS):
        call()
    return round((time.process_time() - started) / _REPEATS * 1000, 3)


def _lock_request() -> Callable[[], object]:
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "measure")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "measure")
    client = boto3.client("dynamodb", region_name=REGION)
    body = json.dumps({"Attributes": _LOCKED_PLAYER}).encode()

    def answer(request: Any, **_: Any) -> AWSResponse:
        return canned_response(request.url, 200, body)

    client.meta.events.register_first("before-send.dynamodb", cast(Callable[..., None], answer))
    return lambda: client.update_item(
        TableName="rps-game-state",
        Key={"phone_number": {"S": "+15551110001"}},
        UpdateExpression="SET user_locked = :lock",
        ConditionExpression=LEASE_FREE,
        ExpressionAttributeValues={":lock": _LOCKED_PLAYER["user_locked"], ":now": {"N": "1795300000.1"}},
        ReturnValues="ALL_NEW",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )


def _twilio_post() -> Callable[[], object]:
    canned = json.dumps({"sid": "SM" + "0" * 32, "status": "queued"}).encode()

    class Instant(SimulatedTwilio):
        def create(self, fields: Any) -> tuple[int, dict[str, Any]]:
            return 201, json.loads(canned)

    twilio = Instant(None, None, None, 1.0, EPOCH)  # type: ignore[arg-type]
    with twilio.gateway_http_client():
        gateway = TwilioSmsGateway("AC" + "0" * 32, "measure", status_callback_url="https://x.invalid/status")
    message = OutboundSms(
        "+15551110001", "+15550000000", "You threw rock for a stranger. I'll text you when someone plays you."
    )
    return lambda: gateway.send(message, ReplyId("SM" + "1" * 32, 0))
