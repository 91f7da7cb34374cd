"""`verify`: one signed test SMS through a stack's webhook, followed until its reply is settled.

It checks the whole round trip a player's text makes, with nothing bypassed: the public webhook
URL and its secret path, the signature (computed with the stack's own Twilio auth token, read from
SSM as the functions read it), the queue, the game function, its commit, and Twilio's answer to the
replies. It passes when every reply of the test message is delivered (Twilio accepted it) or
refused for good (as a made-up number is): both mean the pipeline works end to end. A phone's
first text gets several (the opt-in confirmation, then HELP's program help and its commands):
verify waits for all of them and reports each.

    webhook POST ──> 200 ──> SQS ──> game function ──> committed record ──> each reply sent / refused
         │                                                   │
         └── 403: signature (URL or token)                   └── polled here, consistently

The test phone is, by default, a number reserved for fiction (555-01xx); its records are erased
afterwards through the STOP protocol, so a verification leaves no data behind. With `--from` a
real phone (one a trial account has verified) the reply arrives as an SMS, and nothing is erased:
that phone may be a player.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from serverless_rps.admin.locate import local_stack_gone
from serverless_rps.config import ConfigurationError
from serverless_rps.observability import mask_phone

__all__ = [
    "FICTIONAL_PHONE",
    "PATH_SECRET_PLACEHOLDER",
    "Post",
    "Verification",
    "VerificationFailed",
    "post_form",
    "webhook_url",
]

# In the 555-0100..0199 range that the North American Numbering Plan reserves for fiction: it
# reaches nobody. Twilio refuses a reply to it for good, which is a pass.
FICTIONAL_PHONE = "+15555550199"
PATH_SECRET_PLACEHOLDER = "<WebhookPathSecret>"
_POLL_SECONDS = 0.5

# (url, form fields, headers) -> (HTTP status, body)
Post = Callable[[str, Mapping[str, str], Mapping[str, str]], tuple[int, str]]


def post_form(url: str, fields: Mapping[str, str], headers: Mapping[str, str]) -> tuple[int, str]:
    """POST a form the way Twilio does (application/x-www-form-urlencoded)."""
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as refusal:
        return refusal.code, refusal.read().decode(errors="replace")
    except urllib.error.URLError as exc:
        raise ConfigurationError(
            local_stack_gone(url) or f"the webhook at {_without_secret(url)} cannot be reached: {exc.reason}"
        ) from exc


def webhook_url(output: str, path_secret: str | None) -> str:
    """The stack's `WebhookUrl` output shows a placeholder where the NoEcho secret goes."""
    if PATH_SECRET_PLACEHOLDER not in output:
        return output
    if not path_secret:
        raise ConfigurationError(
            "the webhook's path holds the stack's WebhookPathSecret: set WEBHOOK_PATH_SECRET in the "
            "environment (it is not echoed by CloudFormation)"
        )
    return output.replace(PATH_SECRET_PLACEHOLDER, urllib.parse.quote(path_secret, safe=""))


def _without_secret(url: str) -> str:
    """The URL for messages: the last path segment may be the secret."""
    parts = urllib.parse.urlsplit(url)
    head, _, _ = parts.path.rpartition("/")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"{head}/…", "", ""))


@dataclass(frozen=True)
class Verification:
    """What one verification sends, and to where."""

    url: str
    account_sid: str
    auth_token: str
    service_number: str
    phone: str = FICTIONAL_PHONE
    body: str = "help"
    timeout_seconds: float = 120.0

    def run(
        self,
        read_completed: Callable[[str], Any],
        post: Post = post_form,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> dict[str, Any]:
        # Imported here: the operator's other commands, and the functions, never need the validator.
        from twilio.request_validator import RequestValidator

        message_sid = "SM" + uuid.uuid4().hex
        fields = {
            "MessageSid": message_sid,
            "AccountSid": self.account_sid,
            "From": self.phone,
            "To": self.service_number,
            "Body": self.body,
            "NumMedia": "0",
        }
        signature = RequestValidator(self.auth_token).compute_signature(self.url, fields)
        started = clock()
        status, answer = post(self.url, fields, {"X-Twilio-Signature": signature})
        if status != 200:
            raise VerificationFailed(_refusal(status, answer, self.url))
        accepted = clock() - started

        while True:
            record = read_completed(message_sid)
            if record is not None and not record.undelivered():
                break
            if clock() - started > self.timeout_seconds:
                where = "committed, replies not yet sent" if record is not None else "not yet processed"
                raise VerificationFailed(
                    f"the webhook accepted {message_sid}, but after {self.timeout_seconds:.0f} s it is "
                    f"{where}: `status` and the game function's log say why (docs/operations.md)"
                )
            sleep(_POLL_SECONDS)
        outcomes = [record.delivered[index] for index in sorted(record.delivered)]
        return {
            "webhook": f"{_without_secret(self.url)} answered 200 in {accepted:.2f} s",
            "message_sid": message_sid,
            "from": mask_phone(self.phone),
            "round_trip_seconds": round(clock() - started, 2),
            "verdict": "the pipeline works end to end",
            "replies": [
                {"reply": number, "outcome": _outcome(outcome)} for number, outcome in enumerate(outcomes, 1)
            ],
        }


class VerificationFailed(Exception):
    """The round trip stopped somewhere; the message says where."""


def _outcome(stored: str) -> str:
    if stored.startswith("refused:"):
        code = stored.removeprefix("refused:")
        return f"refused for good by Twilio (error {code}), as expected for a made-up number"
    return f"accepted by Twilio ({stored})"


def _refusal(status: int, answer: str, url: str) -> str:
    where = _without_secret(url)
    if status == 403:
        return (
            f"{where} answered 403: the signature did not match. The webhook checks it against the URL "
            "it rebuilds (or PublicWebhookUrl) and the token in SSM: check both (docs/deployment.md)"
        )
    if status == 404:
        return f"{where} answered 404: no route there. Is WEBHOOK_PATH_SECRET the stack's WebhookPathSecret?"
    return f"{where} answered {status}: {answer.strip()[:200]}"
