"""The cold path: what a player waits through after the game has been idle.

Run: `python -m bench.cold_path [--quick] [--earlier OTHER/function-code]`. One sample is a fresh
interpreter that imports the game handler, builds what it needs and answers one `help` (an SQS
event, as Lambda delivers it) from a phone it has never seen, against the local stack (moto's server
for DynamoDB, SQS and SSM; the local Twilio API). It is paired, in the same run and alternating
sample by sample, with the floor: a fresh interpreter that does the same requests with nothing but
boto3 and urllib, the least any Python Lambda could do for that reply. The answer is the ratio of
the medians.

The game handler runs twice per pair, tracing off (`POWERTOOLS_TRACE_DISABLED=true`) and on (the
variables Lambda sets under `Tracing: Active`: the X-Ray SDK loads and patches boto3 and requests;
its segments go by UDP to a daemon address where nothing listens, as cheap as on Lambda).

The floor must make the requests the handler makes, or the comparison means nothing: one more run of
the handler counts its requests (botocore operations and Twilio POSTs), and the benchmark stops if
they differ from the floor's list, `FLOOR_REQUESTS`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from bench.environment import sqs_event, sqs_record
from serverless_rps_local.stack import LocalStack, StackOptions

__all__ = ["FLOOR_REQUESTS", "measure", "render"]

ROOT = Path(__file__).resolve().parents[1]

# What answering a first `help` takes, in order: the Twilio auth token from SSM (once per cold
# start), the claim, the day's SMS count (once every 5 s per environment: the daily ceiling), the
# sender's lease, every version of the proof key (once per cold start, on the first message from a
# phone with no player record), the sender's contact record (a stranger's number may be waiting on
# replies) read with its proof status (an opt-out waiting for its next text) in one BatchGetItem,
# the commit (the SMS counted in it), then each of the three SMS (the opt-in confirmation a new
# phone gets first, HELP's program help and its commands) and its delivery record, and the contact
# record.
FLOOR_REQUESTS = (
    "ssm.GetParameter",
    "dynamodb.PutItem",
    "dynamodb.BatchGetItem",
    "dynamodb.UpdateItem",
    "ssm.GetParameterHistory",
    "dynamodb.BatchGetItem",
    "dynamodb.TransactWriteItems",
    *("twilio.POST", "dynamodb.UpdateItem") * 3,
    "dynamodb.UpdateItem",
)

_CONTEXT = """
class Context:
    function_name = "GameFunction"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:GameFunction"
    memory_limit_in_mb = 256
    aws_request_id = "cold-path"
    log_group_name = "/aws/lambda/GameFunction"
    log_stream_name = "bench"
    def get_remaining_time_in_millis(self):
        return 15000
"""

_GAME = """
import time
started = time.perf_counter()
import serverless_rps.app
answer = serverless_rps.app.lambda_handler(EVENT, Context())
elapsed = time.perf_counter() - started
assert answer == {"batchItemFailures": []}, answer
print(elapsed)
"""

_COUNTING = """
import botocore.client, requests.sessions
requests_made = []
_api_call = botocore.client.BaseClient._make_api_call
def _count_api_call(self, operation, params):
    requests_made.append(f"{self.meta.service_model.endpoint_prefix}.{operation}")
    return _api_call(self, operation, params)
botocore.client.BaseClient._make_api_call = _count_api_call
_send = requests.sessions.Session.send
def _count_send(self, request, **kwargs):
    requests_made.append(f"twilio.{request.method}")
    return _send(self, request, **kwargs)
requests.sessions.Session.send = _count_send
import serverless_rps.app
serverless_rps.app.lambda_handler(EVENT, Context())
print(json.dumps(requests_made))
"""

# The same requests, written the shortest way boto3 and urllib allow. Item shapes are small and
# plausible; what matters is the number, kind and order of round trips and what has to be imported.
_FLOOR = """
import time
started = time.perf_counter()
import base64, hashlib, hmac, json, os, urllib.parse, urllib.request, uuid
import boto3
body = json.loads(EVENT["Records"][0]["body"])
now = int(time.time())
ssm = boto3.client("ssm")
token = ssm.get_parameter(Name=os.environ["TWILIO_AUTH_TOKEN_PARAMETER"], WithDecryption=True)
token = token["Parameter"]["Value"]
dynamodb = boto3.client("dynamodb")
idempotency, players = os.environ["IDEMPOTENCY_TABLE"], os.environ["GAME_STATE_TABLE"]
key = {"S": "sms#" + body["MessageSid"]}
dynamodb.put_item(
    TableName=idempotency,
    Item={"messageId": key, "status": {"S": "IN_PROGRESS"}, "TTLEpochTimestamp": {"N": str(now + 30)}},
    ConditionExpression="attribute_not_exists(messageId)",
)
day = time.strftime("%Y-%m-%d", time.gmtime(now))
counters = [{"messageId": {"S": f"ceiling#{day}#{shard:02d}"}} for shard in range(64)]
lift = {"messageId": {"S": f"ceiling#{day}"}}
dynamodb.batch_get_item(RequestItems={idempotency: {"Keys": [*counters, lift], "ConsistentRead": True}})
dynamodb.update_item(
    TableName=players,
    Key={"phone_number": {"S": body["From"]}},
    UpdateExpression="SET lease = :me, lease_expires = :expiry",
    ConditionExpression="attribute_not_exists(lease) OR lease_expires < :now",
    ExpressionAttributeValues={":me": {"S": "x"}, ":expiry": {"N": str(now + 25)}, ":now": {"N": str(now)}},
    ReturnValues="ALL_NEW",
)
history = ssm.get_parameter_history(Name=os.environ["PROOF_KEY_PARAMETER"], WithDecryption=True)
proof_key = bytes.fromhex(history["Parameters"][-1]["Value"])
number = hmac.new(proof_key, body["From"].encode(), hashlib.sha256).hexdigest()
contact = {"messageId": {"S": "contact#" + body["From"]}}
dynamodb.batch_get_item(
    RequestItems={
        idempotency: {"Keys": [contact], "ConsistentRead": True},
        os.environ["PROOF_TABLE"]: {
            "Keys": [{"number": {"S": number}, "event": {"S": "status"}}], "ConsistentRead": True
        },
    }
)
texts = ["welcome text", "program help text", "commands text"]
outbox = [{"M": {"to": {"S": body["From"]}, "body": {"S": text}}} for text in texts]
dynamodb.transact_write_items(
    TransactItems=[
        {"Put": {"TableName": idempotency, "Item": {"messageId": key, "status": {"S": "COMPLETED"},
                 "outbox": {"L": outbox}}}},
        {"Put": {"TableName": players, "Item": {"phone_number": {"S": body["From"]}}}},
        {"Update": {"TableName": idempotency, "Key": counters[0], "UpdateExpression": "ADD sms :n",
                    "ExpressionAttributeValues": {":n": {"N": "3"}}}},
    ]
)
credentials = (os.environ["TWILIO_ACCOUNT_SID"] + ":" + token).encode()
authorization = "Basic " + base64.b64encode(credentials).decode()
for index, text in enumerate(texts):
    request = urllib.request.Request(
        os.environ["TWILIO_API_URL"] + "/2010-04-01/Accounts/" + os.environ["TWILIO_ACCOUNT_SID"]
        + "/Messages.json",
        data=urllib.parse.urlencode({"To": body["From"], "From": body["To"], "Body": text}).encode(),
        headers={"Authorization": authorization},
    )
    sid = json.loads(urllib.request.urlopen(request, timeout=5).read())["sid"]
    dynamodb.update_item(
        TableName=idempotency, Key={"messageId": key},
        UpdateExpression=f"SET delivered{index} = :sid", ExpressionAttributeValues={":sid": {"S": sid}},
    )
dynamodb.update_item(
    TableName=idempotency, Key={"messageId": {"S": "contact#" + body["From"]}},
    UpdateExpression="SET pending = :none", ExpressionAttributeValues={":none": {"L": []}},
)
print(time.perf_counter() - started)
"""


def _environment(stack: LocalStack, tracing: bool, code: Path = ROOT / "function-code") -> dict[str, str]:
    environment = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    environment.update(stack.functions["GameFunction"].environment)
    environment["PYTHONPATH"] = str(code)
    if tracing:
        for name in ("POWERTOOLS_TRACE_DISABLED", "AWS_SAM_LOCAL"):
            environment.pop(name, None)
        environment["LAMBDA_TASK_ROOT"] = str(code)
        environment["_X_AMZN_TRACE_ID"] = "Root=1-00000000-000000000000000000000000;Parent=0;Sampled=1"
        environment["AWS_XRAY_DAEMON_ADDRESS"] = "127.0.0.1:2000"
    return environment


def _run(script: str, environment: dict[str, str]) -> str:
    event = sqs_event([sqs_record(f"+1555{uuid.uuid4().int % 10**7:07d}", "help")])
    code = f"import json\nEVENT = json.loads({json.dumps(json.dumps(event))})\n{_CONTEXT}\n{script}"
    result = subprocess.run(
        [sys.executable, "-P", "-c", code],
        env=environment,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        raise RuntimeError(f"a cold-path sample failed:\n{result.stderr[-3000:]}")
    return result.stdout.strip().splitlines()[-1]


def measure(repeats: int = 15, earlier: Path | None = None) -> dict[str, Any]:
    """`earlier`: another checkout's function-code/ (or any folder holding a serverless_rps
    package), measured in the same run, so that before and after share the machine's moment."""
    with LocalStack(StackOptions(serve_http=False, poll_queue=False, warm=False)) as stack:
        runs = {
            "floor": (_FLOOR, _environment(stack, tracing=False)),
            "off": (_GAME, _environment(stack, tracing=False)),
            "on": (_GAME, _environment(stack, tracing=True)),
        }
        if earlier is not None:
            runs["earlier off"] = (_GAME, _environment(stack, tracing=False, code=earlier))
            runs["earlier on"] = (_GAME, _environment(stack, tracing=True, code=earlier))
        made = tuple(json.loads(_run(_COUNTING, runs["off"][1])))
        if made != FLOOR_REQUESTS:
            raise RuntimeError(f"the handler's requests changed: {made}; update FLOOR_REQUESTS and _FLOOR")
        for script, environment in runs.values():
            _run(script, environment)  # the first run of each warms the page cache and moto's tables
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(repeats):
            for name, (script, environment) in runs.items():
                samples[name].append(float(_run(script, environment)))
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    return {
        "requests": list(made),
        "repeats": repeats,
        "median_ms": medians,
        "min_ms": {name: min(values) * 1000 for name, values in samples.items()},
        "ratio_tracing_off": medians["off"] / medians["floor"],
        "ratio_tracing_on": medians["on"] / medians["floor"],
    }


def render(data: dict[str, Any]) -> str:
    medians, minimums = data["median_ms"], data["min_ms"]
    labels = {
        "floor": "bare boto3 + urllib (the floor)",
        "off": "game handler, tracing off",
        "on": "game handler, tracing on",
        "earlier off": "earlier game handler (--earlier), tracing off",
        "earlier on": "earlier game handler (--earlier), tracing on",
    }
    rows = [(labels[name], name) for name in medians]
    lines = [
        f"Import, build and answer one `help` in a fresh interpreter ({data['repeats']} pairs; "
        f"requests: {', '.join(data['requests'])}):",
        "",
        "| what | median ms | min ms | ratio to the floor |",
        "|---|---:|---:|---:|",
    ]
    for label, name in rows:
        ratio = medians[name] / medians["floor"]
        lines.append(f"| {label} | {medians[name]:.0f} | {minimums[name]:.0f} | {ratio:.2f} |")
    return "\n".join(lines)


def main() -> None:
    earlier = Path(sys.argv[sys.argv.index("--earlier") + 1]) if "--earlier" in sys.argv else None
    data = measure(repeats=5 if "--quick" in sys.argv else 15, earlier=earlier)
    print(render(data))
    if "--json" in sys.argv:
        print(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
