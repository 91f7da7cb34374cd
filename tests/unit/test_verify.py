"""`verify` as an operator meets it: the text it sends is the one Twilio would send, signed so the
real webhook takes it; what it reports, word for word, when the round trip works and when it
stops; and its POST over HTTP, answered or refused."""

from __future__ import annotations

import http.server
import json
import re
import socket
import threading
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlencode

import boto3
import pytest
from twilio.request_validator import RequestValidator

from serverless_rps import webhook
from serverless_rps.admin.verify import FICTIONAL_PHONE, Verification, VerificationFailed, post_form
from serverless_rps.config import ConfigurationError
from serverless_rps.message_queue import IncomingQueue
from serverless_rps.ports import CompletedRecord, OutboundSms
from tests.unit.test_webhook import API_URL, BOT, TOKEN, http_event

ACCOUNT_SID = "AC" + "b" * 32
SECRET_URL = "https://api.example.com/sms/s3cret"


def _verification(url: str = SECRET_URL, **options: Any) -> Verification:
    return Verification(url=url, account_sid=ACCOUNT_SID, auth_token=TOKEN, service_number=BOT, **options)


def _settled(message_sid: str) -> CompletedRecord:
    outbox = (OutboundSms(FICTIONAL_PHONE, BOT, "welcome"),)
    return CompletedRecord(f"sms#{message_sid}", outbox, {0: "refused:21211"})


def test_verify_sends_the_form_twilio_sends_signed_for_the_webhook_and_reports_the_round_trip() -> None:
    posted: list[tuple[str, dict[str, str], dict[str, str]]] = []
    polled: list[str] = []

    def post(url: str, fields: Mapping[str, str], headers: Mapping[str, str]) -> tuple[int, str]:
        posted.append((url, dict(fields), dict(headers)))
        return 200, "<Response/>"

    def read_completed(message_sid: str) -> CompletedRecord:
        polled.append(message_sid)
        return _settled(message_sid)

    ticks = iter([10.0, 10.25, 12.3456])
    result = _verification().run(read_completed, post=post, clock=lambda: next(ticks), sleep=lambda _: None)

    [(url, fields, headers)] = posted
    message_sid = fields["MessageSid"]
    assert url == SECRET_URL
    assert re.fullmatch(r"SM[0-9a-f]{32}", message_sid), "a MessageSid as Twilio's look"
    assert fields == {
        "MessageSid": message_sid,
        "AccountSid": ACCOUNT_SID,
        "From": FICTIONAL_PHONE,
        "To": BOT,
        "Body": "help",
        "NumMedia": "0",
    }
    assert RequestValidator(TOKEN).validate(SECRET_URL, fields, headers["X-Twilio-Signature"])
    assert polled == [message_sid]
    assert result == {
        "webhook": "https://api.example.com/sms/… answered 200 in 0.25 s",
        "message_sid": message_sid,
        "from": "+*******0199",
        "round_trip_seconds": 2.35,
        "verdict": "the pipeline works end to end",
        "replies": [
            {
                "reply": 1,
                "outcome": "refused for good by Twilio (error 21211), as expected for a made-up number",
            }
        ],
    }


def test_the_real_webhook_accepts_verifys_text_and_queues_it_as_the_players(aws: None) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    queue_url = sqs.create_queue(QueueName="incoming")["QueueUrl"]
    ingress = webhook.Ingress(RequestValidator(TOKEN), IncomingQueue(sqs, queue_url))
    answers: list[int] = []

    def through_the_webhook(
        url: str, fields: Mapping[str, str], headers: Mapping[str, str]
    ) -> tuple[int, str]:
        assert url == API_URL
        response = webhook.handle(
            http_event(urlencode(fields), signature=headers["X-Twilio-Signature"]), ingress
        )
        answers.append(response["statusCode"])
        return response["statusCode"], response["body"]

    result = _verification(API_URL).run(_settled, post=through_the_webhook, sleep=lambda _: None)

    assert answers == [200]
    [message] = sqs.receive_message(QueueUrl=queue_url)["Messages"]
    assert json.loads(message["Body"]) == {
        "MessageSid": result["message_sid"],
        "From": FICTIONAL_PHONE,
        "To": BOT,
        "Body": "help",
    }


@pytest.mark.parametrize(
    ("status", "answer", "says"),
    [
        (
            403,
            "invalid or missing X-Twilio-Signature",
            "https://api.example.com/sms/… answered 403: the signature did not match. The webhook checks it"
            " against the URL it rebuilds (or PublicWebhookUrl) and the token in SSM: check both"
            " (docs/deployment.md)",
        ),
        (
            404,
            "Not Found",
            "https://api.example.com/sms/… answered 404: no route there. Is WEBHOOK_PATH_SECRET the stack's"
            " WebhookPathSecret?",
        ),
        (500, "  " + "e" * 250 + "\n", "https://api.example.com/sms/… answered 500: " + "e" * 200),
    ],
)
def test_a_webhook_that_refuses_the_text_is_named_with_why_and_never_its_secret(
    status: int, answer: str, says: str
) -> None:
    with pytest.raises(VerificationFailed) as failure:
        _verification().run(
            lambda _: pytest.fail("nothing to poll"), post=lambda url, fields, headers: (status, answer)
        )
    assert str(failure.value) == says


def _timed_out(record: CompletedRecord | None) -> tuple[str, list[float], int]:
    """Run verify with a clock that reaches its 30 s timeout exactly, then passes it."""
    ticks = iter([0.0, 0.5, 30.0, 30.5])
    sleeps: list[float] = []
    polls: list[str] = []

    def read_completed(message_sid: str) -> CompletedRecord | None:
        polls.append(message_sid)
        return record

    with pytest.raises(VerificationFailed) as failure:
        _verification(timeout_seconds=30).run(
            read_completed,
            post=lambda url, fields, headers: (200, ""),
            clock=lambda: next(ticks),
            sleep=sleeps.append,
        )
    return str(failure.value), sleeps, len(polls)


def test_verify_waits_its_whole_timeout_then_says_the_text_was_never_processed() -> None:
    message, sleeps, polls = _timed_out(None)
    sid = re.search(r"SM[0-9a-f]{32}", message)
    assert sid is not None
    assert message == (
        f"the webhook accepted {sid[0]}, but after 30 s it is not yet processed: `status` and the game"
        " function's log say why (docs/operations.md)"
    )
    assert (polls, sleeps) == (2, [0.5]), "still polled at 30 s exactly, every half second"


def test_verify_says_a_committed_text_whose_replies_are_unsent_is_stuck_at_sending() -> None:
    outbox = (OutboundSms(FICTIONAL_PHONE, BOT, "welcome"),)
    message, _, _ = _timed_out(CompletedRecord("sms#x", outbox, {}))
    assert "after 30 s it is committed, replies not yet sent: `status`" in message


class _Webhook(http.server.BaseHTTPRequestHandler):
    """Answers every POST with the status and bytes the test sets, and keeps what it was sent."""

    status = 200
    answer = b""
    received: ClassVar[list[tuple[str, str, str, str | None, dict[str, str]]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        signature = self.headers["X-Twilio-Signature"]
        form = dict(parse_qsl(body))
        self.received.append((self.command, self.path, self.headers["Content-Type"], signature, form))
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(self.answer)))
        self.end_headers()
        self.wfile.write(self.answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def local_webhook() -> Iterator[tuple[str, type[_Webhook]]]:
    handler = type("Webhook", (_Webhook,), {"received": []})
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/sms/s3cret", handler
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("status", [200, 403])
def test_verify_posts_a_form_as_twilio_does_and_reads_any_answer(
    local_webhook: tuple[str, type[_Webhook]], status: int
) -> None:
    url, handler = local_webhook
    handler.status, handler.answer = status, b"<Response/>\xff"

    answer = post_form(url, {"Body": "help me", "From": "+15555550199"}, {"X-Twilio-Signature": "sig"})

    assert answer == (status, "<Response/>\ufffd"), "a byte that is not UTF-8 is shown, not a crash"
    assert handler.received == [
        (
            "POST",
            "/sms/s3cret",
            "application/x-www-form-urlencoded",
            "sig",
            {"Body": "help me", "From": "+15555550199"},
        )
    ]


def test_verify_never_waits_forever_on_a_webhook_that_does_not_answer(
    local_webhook: tuple[str, type[_Webhook]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = local_webhook
    opened = urllib.request.urlopen
    timeouts: list[object] = []

    def urlopen(request: Any, *args: Any, **options: Any) -> Any:
        timeouts.append(options.get("timeout", args[1] if len(args) > 1 else None))
        return opened(request, *args, **options)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    post_form(url, {"Body": "help"}, {})
    [timeout] = timeouts
    assert isinstance(timeout, int | float), "a bound, not a hang"
    assert 0 < timeout <= 60


def test_a_webhook_nothing_answers_at_is_named_without_its_secret() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.2", 0))
        port = probe.getsockname()[1]

    with pytest.raises(ConfigurationError) as failure:
        post_form(f"http://127.0.0.2:{port}/sms/s3cret", {"Body": "help"}, {})

    assert str(failure.value).startswith(f"the webhook at http://127.0.0.2:{port}/sms/… cannot be reached: ")
