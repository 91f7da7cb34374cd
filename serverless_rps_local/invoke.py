"""Run a function's real handler on event files against the local stack, like `sam local invoke -e`.

Only what a single invocation needs is started: moto (with the saved state loaded), the local
Twilio API, and one execution environment of the function. The state is saved afterwards, so
the next invocation (or `play`) carries on from it. Nothing polls the queue: a message the webhook
enqueues stays there for the next `play`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serverless_rps_local import dev_account
from serverless_rps_local.lambda_runtime import Invocation
from serverless_rps_local.stack import GAME_FUNCTION, WEBHOOK_FUNCTION, LocalStack, StackOptions

__all__ = ["FUNCTION_ALIASES", "InvocationReport", "invoke_event_files"]

FUNCTION_ALIASES = {"game": GAME_FUNCTION, "webhook": WEBHOOK_FUNCTION}


@dataclass(frozen=True)
class InvocationReport:
    function: str
    event_path: Path
    invocation: Invocation
    sms_sent: list[dict[str, Any]]
    queue_depths: dict[str, int]

    def lines(self) -> list[str]:
        invocation = self.invocation
        start = "cold" if invocation.cold_start else "warm"
        milliseconds = invocation.duration_seconds * 1000
        lines = [f"== {self.function} on {self.event_path} ({start} start, {milliseconds:.0f} ms)"]
        if invocation.error is not None:
            lines.append("Error: " + json.dumps(invocation.error, indent=2))
        else:
            lines.append("Response: " + json.dumps(invocation.response, indent=2))
        lines.append(f"SMS sent: {len(self.sms_sent)}")
        lines.extend(f"  to {message['to']}: {message['body']}" for message in self.sms_sent)
        lines.extend(f"{name}: {depth} message(s)" for name, depth in self.queue_depths.items())
        return lines


def invoke_event_files(
    function: str, event_paths: Sequence[Path], state_directory: Path, template_path: Path | None = None
) -> list[InvocationReport]:
    """Invoke `function` (logical id, or `game` / `webhook`) once per file, in order."""
    logical_id = FUNCTION_ALIASES.get(function.lower(), function)
    events = [json.loads(path.read_text(encoding="utf-8")) for path in event_paths]
    options = StackOptions(
        state_directory=state_directory,
        workers=1,
        serve_http=False,
        poll_queue=False,
        warm=False,
        # The webhook event in events/ is signed for this URL with the local auth token.
        public_webhook_url=dev_account.EVENTS_WEBHOOK_URL,
    )
    if template_path is not None:
        options.template_path = template_path
    reports = []
    with LocalStack(options) as stack:
        if logical_id not in stack.functions:
            raise KeyError(f"no function {function!r} in the template; try one of {sorted(stack.functions)}")
        for path, event in zip(event_paths, events, strict=True):
            already_sent = len(stack.twilio.sent_messages())
            invocation = stack.function(logical_id).invoke(event)
            reports.append(
                InvocationReport(
                    function=logical_id,
                    event_path=path,
                    invocation=invocation,
                    sms_sent=stack.twilio.sent_messages(already_sent),
                    queue_depths={
                        "Incoming queue": stack.queue_depth("IncomingQueue"),
                        "Dead-letter queue": stack.queue_depth("DeadLetterQueue"),
                    },
                )
            )
    return reports
