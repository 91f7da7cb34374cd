"""Writes events/: ready events for `python -m serverless_rps invoke` and `sam local invoke -e`.

    python -m serverless_rps_local.event_files      # rewrites events/*.json

The files are generated so that their checksums, signature and ids stay right; a test checks that
the files on disk are what this module writes. Run them in name order: each SQS event builds on the
state the previous ones left (alice and bob register, alice throws, bob answers...).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from twilio.request_validator import RequestValidator

from serverless_rps_local import dev_account
from serverless_rps_local.api_gateway import http_api_event
from serverless_rps_local.aws import ACCOUNT_ID, REGION
from serverless_rps_local.simulator import inbound_parameters

__all__ = ["ALICE", "BOB", "event_files", "write_event_files"]

ALICE, BOB = dev_account.FIRST_PHONE_NUMBERS
_QUEUE_ARN = f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:IncomingQueue"
_SENT_AT_MILLIS = 1_795_000_000_000  # a fixed time, so the files do not change when regenerated


def _message_sid(number: int) -> str:
    return f"SM{number:032x}"


def _inbound_body(number: int, sender: str, text: str) -> str:
    return json.dumps(
        {
            "AccountSid": dev_account.ACCOUNT_SID,
            "Body": text,
            "From": sender,
            "MessageSid": _message_sid(number),
            "NumMedia": "0",
            "NumSegments": "1",
            "To": dev_account.SERVICE_NUMBER,
        },
        sort_keys=True,
    )


def _record(message_id: str, body: str) -> dict[str, Any]:
    return {
        "messageId": message_id,
        "receiptHandle": f"local-receipt-handle-{message_id}",
        "body": body,
        "attributes": {
            "ApproximateReceiveCount": "1",
            "SentTimestamp": str(_SENT_AT_MILLIS),
            "SenderId": "AIDALOCALWEBHOOKFUNCTION",
            "ApproximateFirstReceiveTimestamp": str(_SENT_AT_MILLIS + 20),
        },
        "messageAttributes": {},
        "md5OfBody": hashlib.md5(body.encode("utf-8")).hexdigest(),  # SQS's checksum of the body
        "eventSource": "aws:sqs",
        "eventSourceARN": _QUEUE_ARN,
        "awsRegion": REGION,
    }


def _sqs_event(*texts: tuple[int, str, str]) -> dict[str, Any]:
    return {
        "Records": [
            _record(f"00000000-0000-4000-8000-{number:012d}", _inbound_body(number, sender, text))
            for number, sender, text in texts
        ]
    }


def _duplicate_and_poison() -> dict[str, Any]:
    body = _inbound_body(20, ALICE, "score")
    return {
        "Records": [
            _record("00000000-0000-4000-8000-000000000020", body),
            # Twilio posted the same SMS twice: same MessageSid, another SQS message.
            _record("00000000-0000-4000-8000-000000000021", body),
            _record("00000000-0000-4000-8000-000000000022", "this is not JSON {"),
        ]
    }


def _signed_webhook_post() -> dict[str, Any]:
    parameters = inbound_parameters(
        _message_sid(30), dev_account.ACCOUNT_SID, ALICE, dev_account.SERVICE_NUMBER, "help"
    )
    url = urlsplit(dev_account.EVENTS_WEBHOOK_URL)
    signature = RequestValidator(dev_account.AUTH_TOKEN).compute_signature(
        dev_account.EVENTS_WEBHOOK_URL, parameters
    )
    return http_api_event(
        method="POST",
        path=url.path,
        headers={
            "content-type": "application/x-www-form-urlencoded",
            "host": url.netloc,
            "user-agent": "TwilioProxy/1.1",
            "x-twilio-signature": signature,
        },
        body=urlencode(parameters).encode("utf-8"),
        domain_name=url.netloc,
        source_ip="54.172.60.1",
        route_key=f"POST {url.path}",
        request_id="LocalRequest0001",
        epoch_millis=_SENT_AT_MILLIS,
    )


def event_files() -> dict[str, dict[str, Any]]:
    """File name -> event, in the order to invoke them."""
    return {
        "sqs-01-help.json": _sqs_event((1, ALICE, "help")),
        "sqs-02-nick.json": _sqs_event((2, ALICE, "nick alice"), (3, BOB, "nick bob")),
        "sqs-03-throw-waiting.json": _sqs_event((4, ALICE, "throw rock bob")),
        "sqs-04-throw-resolving.json": _sqs_event((5, BOB, "paper alice")),
        "sqs-05-games.json": _sqs_event((6, ALICE, "games")),
        "sqs-06-score.json": _sqs_event((7, ALICE, "score"), (8, BOB, "score")),
        "sqs-07-stop.json": _sqs_event((9, BOB, "STOP")),
        "sqs-08-start.json": _sqs_event((10, BOB, "START")),
        "sqs-09-duplicate-and-poison.json": _duplicate_and_poison(),
        "webhook-signed-post.json": _signed_webhook_post(),
    }


def write_event_files(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, event in event_files().items():
        path = directory / name
        path.write_text(json.dumps(event, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_event_files(Path(__file__).resolve().parents[1] / "events"):
        print(written_path)
