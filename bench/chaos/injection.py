"""Faults inside the processes of the local stack, armed by bench/chaos/inject/sitecustomize.py.

In a game worker (once `serverless_rps.app` is imported):

* `build_game_function` is given a boto3 session whose event hooks see every DynamoDB request.
  They kill the process with SIGKILL at chosen points (after the claim, after a lock, before and
  after the commit, after the delivery is recorded), stall it past its lock lease or its claim's
  expiry (a frozen invocation waking up late), and answer requests with throttling or 500s in
  bursts (the SDK retries a few; a long burst reaches the engine).
* `TwilioSmsGateway.send` is wrapped to record every SMS Twilio accepted, and sometimes to kill or
  stall the process right after Twilio accepted one: the documented window for a duplicate SMS.

Every event is appended, one JSON line per `os.write`, to a per-process file, so a line written
before a SIGKILL is never lost. The checker reads these files.

In moto's server process (once moto's DynamoDB is imported): DynamoDB requests are serialised
with a lock of our own (the local stack's server already serves one request at a time, and rolls
transactions back per item so a long soak does not slow down; the lock keeps the soak safe if it
ever stops doing so: moto's threaded server does not make conditional writes atomic).

Nothing here changes the engine's code: it wraps public functions from outside.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["ChaosConfig", "install", "protocol_step"]


class ChaosConfig(dict[str, Any]):
    """Probabilities per event, the leases, and where to write events (see soak.FaultRates)."""

    def rate(self, name: str) -> float:
        return float(self.get("rates", {}).get(name, 0.0))


_config = ChaosConfig()
_chance = random.Random()
_state: dict[str, Any] = {"key": None, "outage": 0}
_log_fd: int | None = None


def install(raw: str) -> None:
    _config.update(json.loads(raw))
    _chance.seed(f"{_config.get('seed', 0)}-{os.getpid()}")
    sys.meta_path.insert(
        0,
        _AfterImport(
            {
                "serverless_rps.app": _arm_game_function,
                "serverless_rps.sms_gateway": _arm_sms_gateway,
                "serverless_rps.outbox": _watch_lookup,
                "moto.dynamodb.responses": _guard_moto,
            }
        ),
    )


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a callback right after a named module has been executed."""

    def __init__(self, callbacks: dict[str, Callable[[ModuleType], None]]) -> None:
        self._callbacks = callbacks

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        callback = self._callbacks.pop(name, None)
        if callback is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        loader: Any = spec.loader
        execute = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            execute(module)
            callback(module)

        loader.exec_module = exec_module
        return spec


# -- the event log ---------------------------------------------------------------------------------


def log(event: str, **fields: Any) -> None:
    global _log_fd
    if _log_fd is None:
        path = os.path.join(_config["event_directory"], f"worker-{os.getpid()}.jsonl")
        _log_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    line = json.dumps({"e": event, "pid": os.getpid(), "t": time.monotonic(), **fields}) + "\n"
    os.write(_log_fd, line.encode())


def _quiet() -> bool:
    """The harness stops the chaos (to drain and check) by creating this file."""
    return os.path.exists(os.path.join(_config["event_directory"], "quiet"))


def _maybe_kill(point: str) -> None:
    if _chance.random() < _config.rate(f"kill_{point}") and not _quiet():
        log("kill", point=point, key=_state["key"])
        os.kill(os.getpid(), signal.SIGKILL)


def _maybe_stall(point: str, past: float) -> None:
    if _chance.random() < _config.rate(f"stall_{point}") and not _quiet():
        seconds = past + _chance.uniform(0.3, 1.5)
        log("stall", point=point, key=_state["key"], seconds=seconds, wall=time.time())
        time.sleep(seconds)
        log("woke", point=point, key=_state["key"], wall=time.time())


# -- the game worker ---------------------------------------------------------------------------------


def _arm_game_function(app: ModuleType) -> None:
    import boto3

    original = app.build_game_function

    def build_game_function(settings: Any, session: Any = None) -> Any:
        session = session or boto3.session.Session()
        events = session.events
        events.register("provide-client-params.dynamodb.*", _remember_params)
        events.register("before-send.dynamodb.*", _before_send)
        events.register("after-call.dynamodb.*", _after_call)
        return original(settings, session)

    app.build_game_function = build_game_function  # type: ignore[attr-defined]
    handle_record = app.GameFunction.handle_record

    def logged_handle_record(self: Any, record: dict[str, Any]) -> None:
        count = int(record.get("attributes", {}).get("ApproximateReceiveCount", "1"))
        log("receive", sqs_id=record["messageId"], count=count)
        handle_record(self, record)

    app.GameFunction.handle_record = logged_handle_record


def _remember_params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    context["chaos_params"] = dict(params)


def protocol_step(operation: str, params: dict[str, Any]) -> str:
    """Which step of the protocol a DynamoDB request is."""
    update = params.get("UpdateExpression", "")
    if operation == "PutItem" and "messageId" in params.get("Item", {}):
        return "claim"
    if operation == "TransactWriteItems":
        return "commit"
    if operation == "UpdateItem" and update.startswith("SET user_locked"):
        return "lock"
    if operation == "UpdateItem" and update.startswith("SET outbox_lease ="):
        return "lease"
    if operation == "UpdateItem" and update.startswith("SET delivered.#index"):
        return "record"
    if (operation == "UpdateItem" and update == "REMOVE user_locked") or (
        operation == "DeleteItem" and "user_locked.lock_uuid = :me" in params.get("ConditionExpression", "")
    ):
        return "release"
    return operation


class _RawBody:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        yield self._body


def _before_send(request: Any, event_name: str, **_: Any) -> Any:
    from botocore.awsrequest import AWSResponse, HTTPHeaders

    operation = event_name.rsplit(".", 1)[-1]
    if operation == "TransactWriteItems":
        _maybe_kill("before_commit")
    if _state["outage"] <= 0 and _chance.random() < _config.rate("dynamodb_outage") and not _quiet():
        _state["outage"] = _chance.randint(1, int(_config.get("max_outage_requests", 12)))
    if _state["outage"] > 0:
        _state["outage"] -= 1
        throttled = _chance.random() < 0.5
        kind = "ThrottlingException" if throttled else "InternalServerError"
        log("fault", service="dynamodb", operation=operation, kind=kind)
        body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{kind}", "message": "injected"})
        return AWSResponse(
            request.url,
            400 if throttled else 500,
            HTTPHeaders.from_dict(
                {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "chaos"}
            ),
            _RawBody(body.encode()),
        )
    return None


def _after_call(
    http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
) -> None:
    params = context.get("chaos_params", {})
    step = protocol_step(model.name, params)
    ok = "Error" not in parsed
    code = parsed.get("Error", {}).get("Code") if not ok else None
    if (
        code in {"ThrottlingException", "InternalServerError"}
        and http_response.headers.get("x-amzn-RequestId") == "chaos"
    ):
        return
    lease = float(_config["lock_lease_seconds"])
    if step == "claim":
        _state["key"] = params["Item"]["messageId"]["S"]
        log("claim", key=_state["key"], ok=ok)
        if ok:
            _maybe_kill("after_claim")
            _maybe_stall("after_claim", float(_config["in_progress_expiry_seconds"]))
    elif step == "lock":
        expires = (
            parsed.get("Attributes", {}).get("user_locked", {}).get("M", {}).get("expiration_epoch_timestamp")
        )
        log("lock", key=_state["key"], phone=params["Key"]["phone_number"]["S"], ok=ok, expires=expires)
        if ok:
            _maybe_kill("after_lock")
            _maybe_stall("after_lock", lease)
    elif step == "commit":
        reasons = [reason.get("Code") for reason in parsed.get("CancellationReasons", [])]
        # The fenced writes: those on a game-state row, conditional on still holding its lease
        # (other items may carry a `:now` too, a contact record's opt-in time for one).
        fenced = [
            (
                (item[kind].get("Key") or item[kind].get("Item") or {}).get("phone_number", {}).get("S", "?"),
                item[kind]["ExpressionAttributeValues"][":now"]["N"],
            )
            for item in params.get("TransactItems", [])
            for kind in item
            # Fenced on a lease: a contact record's `opted_in_at = :now` is no fence.
            if "user_locked" in item[kind].get("ConditionExpression", "")
        ]
        log(
            "commit",
            key=_state["key"],
            ok=ok,
            code=code,
            reasons=reasons,
            fenced_phones=[phone for phone, _ in fenced],
            fenced_at=[now for _, now in fenced],
            wall=time.time(),
        )
        if ok:
            # The record drops its outbox once every reply is delivered: the checker reads it here.
            for item in params.get("TransactItems", []):
                put = item.get("Put", {}).get("Item", {})
                if "outbox" in put:
                    outbox = [
                        (entry["M"]["to"]["S"], entry["M"]["from"]["S"], entry["M"]["body"]["S"])
                        for entry in put["outbox"]["L"]
                    ]
                    log("outbox", key=put["messageId"]["S"], outbox=outbox, source="commit")
        if ok:
            _maybe_kill("after_commit")
    elif step == "lease":
        log("lease", key=params["Key"]["messageId"]["S"], ok=ok)
        stored = parsed.get("Attributes", {}).get("outbox", {}).get("L") if ok else None
        if stored:
            # The outbox as DynamoDB holds it, read by the attempt that will send it: the committing
            # worker may have been killed after DynamoDB applied its commit and before it could
            # log it, and the record drops its outbox once all is sent.
            outbox = [(e["M"]["to"]["S"], e["M"]["from"]["S"], e["M"]["body"]["S"]) for e in stored]
            log("outbox", key=params["Key"]["messageId"]["S"], outbox=outbox, source="lease")
    elif step == "release":
        log("release", key=_state["key"], phone=params["Key"]["phone_number"]["S"], ok=ok)
    elif step == "record":
        index = int(params["ExpressionAttributeNames"]["#index"])
        outcome = params["ExpressionAttributeValues"][":outcome"]["S"]
        log("recorded", key=params["Key"]["messageId"]["S"], index=index, outcome=outcome, ok=ok)
        if ok:
            _maybe_kill("after_record")


def _arm_sms_gateway(module: ModuleType) -> None:
    gateway = module.TwilioSmsGateway
    original = gateway.send

    def send(self: Any, message: Any, reply: Any = None) -> str:
        started = time.monotonic()
        # Before the POST: a worker killed while Twilio takes it still names the attempt that sent.
        log("sending", key=_state["key"], to=message.to, body=message.body, started=started)
        try:
            sid = original(self, message, reply)
        except Exception as exc:
            log(
                "send-failed",
                key=_state["key"],
                to=message.to,
                body=message.body,
                error=type(exc).__name__,
                code=getattr(exc, "code", None),
            )
            raise
        log("sent", key=_state["key"], to=message.to, body=message.body, sid=sid, started=started)
        _maybe_kill("after_send")
        _maybe_stall("after_send", float(_config["lock_lease_seconds"]))
        return str(sid)

    gateway.send = send
    original_sent_to = gateway.sent_to

    def sent_to(self: Any, to: str, limit: int) -> Any:
        # A redelivery looking for replies an earlier attempt may have sent (Twilio's Messages list).
        started = time.monotonic()
        try:
            listed = original_sent_to(self, to, limit)
        except Exception as exc:
            log("look-failed", key=_state["key"], to=to, error=type(exc).__name__, started=started)
            raise
        log("looked", key=_state["key"], to=to, started=started, sids=[sms.sid for sms in listed])
        return listed

    gateway.sent_to = sent_to


def _watch_lookup(module: ModuleType) -> None:
    """Log each reply a redelivery found in Twilio's list and recorded instead of sending it."""
    lookup = module.LookBeforeResending
    already_sent = lookup.already_sent

    def watched(self: Any, index: int) -> str | None:
        sid: str | None = already_sent(self, index)
        if sid is not None:
            log("found", key=_state["key"], index=index, sid=sid)
        return sid

    lookup.already_sent = watched


# -- moto's server -----------------------------------------------------------------------------------


def _guard_moto(_: ModuleType) -> None:
    from moto.dynamodb.responses import DynamoHandler

    lock = threading.Lock()
    call_action = DynamoHandler.call_action

    def serialised(self: Any) -> Any:
        with lock:
            return call_action(self)

    DynamoHandler.call_action = serialised  # type: ignore[method-assign]
    log("moto-guarded")
