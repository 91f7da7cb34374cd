"""Run a function's real handler on event files against the local stack, like `sam local invoke -e`.

Only what a single invocation needs is started: moto (with the saved state loaded), the local
Twilio API, and one execution environment of the function. The state is saved afterwards, so
the next invocation (or `play`) carries on from it. Nothing polls the queue: a message the webhook
enqueues stays there for the next `play`.

For the game function each SQS record is explained from what the game left behind, not guessed from
the SMS count: its idempotency record (read before and after the invocation: completed before means
a duplicate), the dead-letter queue (a message parked with the record's id and the game's reason),
and the batch response (a record listed in `batchItemFailures` comes back).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serverless_rps_local import dev_account
from serverless_rps_local.lambda_runtime import Invocation
from serverless_rps_local.stack import GAME_FUNCTION, WEBHOOK_FUNCTION, LocalStack, StackOptions

__all__ = [
    "FUNCTION_ALIASES",
    "EventFileProblem",
    "InvocationReport",
    "RecordOutcome",
    "event_mismatch",
    "invoke_event_files",
    "read_event_file",
]

FUNCTION_ALIASES = {"game": GAME_FUNCTION, "webhook": WEBHOOK_FUNCTION}
# The game's idempotency record states (serverless_rps/game_store/messages.py).
_COMPLETED = "COMPLETED"
_IN_PROGRESS = "IN_PROGRESS"
# What Twilio's refusal codes the game records as `refused:<code>` mean, for the ones a local run meets.
_REFUSAL_MEANINGS = {21610: "the phone opted out with STOP", 21211: "not a valid phone number"}


class EventFileProblem(Exception):
    """An event file that cannot be used: the path and why, for one line (`invoke: <path>: <why>`)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def read_event_file(path: Path) -> dict[str, Any]:
    """The event in `path`; raises EventFileProblem (never a traceback's worth of OSError)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EventFileProblem(path, "no such file") from None
    except IsADirectoryError:
        raise EventFileProblem(path, "is a directory, not an event file") from None
    except PermissionError:
        raise EventFileProblem(path, "permission denied") from None
    except UnicodeDecodeError:
        raise EventFileProblem(path, "not UTF-8 text") from None
    except OSError as error:
        raise EventFileProblem(path, (error.strerror or str(error)).lower()) from None
    try:
        event = json.loads(text)
    except json.JSONDecodeError as error:
        raise EventFileProblem(
            path, f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    if not isinstance(event, dict):
        raise EventFileProblem(path, f"not an event: the JSON is a {type(event).__name__}, not an object")
    return event


def event_mismatch(logical_id: str, event: Mapping[str, Any], path: Path) -> str | None:
    """Why `event` cannot be what the game or the webhook function receives, and which function
    it looks meant for; None when it has the right shape (or the function is another one).

    The game function answers any event without SQS records with an empty batch response: run,
    it would print "SMS sent: 0" as if the event had been played."""
    records = event.get("Records")
    sqs = isinstance(records, list) and bool(records)
    http = any(name in event for name in ("requestContext", "rawPath", "routeKey", "httpMethod"))
    if logical_id == GAME_FUNCTION and not sqs:
        missing = "`Records` is empty" if isinstance(records, list) else "no `Records` list"
        if http:
            return (
                f"no SQS records ({missing}): this is an HTTP request, for the webhook "
                f"(invoke webhook {path}); the game function takes SQS events, e.g. events/sqs-01-help.json"
            )
        return f"no SQS records ({missing}): the game function takes SQS events, e.g. events/sqs-01-help.json"
    if logical_id == WEBHOOK_FUNCTION and not http:
        if sqs:
            return (
                f"not an HTTP request (no `requestContext`): these are SQS records, for the game "
                f"function (invoke game {path}); the webhook takes API Gateway events, "
                "e.g. events/webhook-signed-post.json"
            )
        return (
            "not an HTTP request (no `requestContext`): the webhook takes API Gateway events, "
            "e.g. events/webhook-signed-post.json"
        )
    return None


@dataclass(frozen=True)
class RecordOutcome:
    """What became of one SQS record. `kind`: answered, duplicate, dead-letter, failed or unknown."""

    message_id: str
    kind: str
    explanation: str


@dataclass(frozen=True)
class InvocationReport:
    function: str
    event_path: Path
    invocation: Invocation
    sms_sent: list[dict[str, Any]]
    queue_depths: dict[str, int]
    # One per SQS record, for the game function; empty for other events.
    records: list[RecordOutcome] = field(default_factory=list)

    def lines(self) -> list[str]:
        invocation = self.invocation
        start = "cold" if invocation.cold_start else "warm"
        milliseconds = invocation.duration_seconds * 1000
        lines = [f"== {self.function} on {self.event_path} ({start} start, {milliseconds:.0f} ms)"]
        if invocation.error is not None:
            lines.append("Error: " + json.dumps(invocation.error, indent=2))
        else:
            lines.append("Response: " + json.dumps(invocation.response, indent=2))
        sms_line = f"SMS sent: {len(self.sms_sent)}"
        if len(self.records) == 1:
            # One record: its fate explains the SMS count, unless it is the obvious one.
            (only,) = self.records
            if only.kind != "answered" or not self.sms_sent:
                sms_line += f" — {only.explanation}"
        elif self.records:
            lines.append("Records:")
            lines.extend(
                f"  {number}. {outcome.message_id}: {outcome.explanation}"
                for number, outcome in enumerate(self.records, start=1)
            )
        lines.append(sms_line)
        lines.extend(f"  to {message['to']}: {message['body']}" for message in self.sms_sent)
        lines.extend(f"{name}: {depth} message(s)" for name, depth in self.queue_depths.items())
        return lines


@dataclass(frozen=True)
class _MessageRecord:
    """The game's idempotency record of one inbound SMS, as far as an explanation needs it."""

    status: str
    replies: int
    deliveries: tuple[str, ...]  # Twilio SIDs, `refused:<code>` or `erased`

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> _MessageRecord:
        outbox = item.get("outbox", {}).get("L")
        # Once every reply is delivered the outbox is dropped and only its size kept.
        replies = len(outbox) if outbox is not None else int(item.get("outbox_size", {}).get("N", "0"))
        delivered = item.get("delivered", {}).get("M", {})
        return cls(
            status=item.get("status", {}).get("S", "?"),
            replies=replies,
            deliveries=tuple(value.get("S", "") for value in delivered.values()),
        )


class _GameState:
    """Where the game function keeps what happened to a message: read through the names in its own
    environment, so this looks where the game wrote."""

    def __init__(self, stack: LocalStack, function_environment: Mapping[str, str]) -> None:
        self._stack = stack
        self._table = function_environment["IDEMPOTENCY_TABLE"]
        self._dead_letter_queue = function_environment["DEAD_LETTER_QUEUE_URL"].rstrip("/").rsplit("/", 1)[-1]

    def message_records(self, keys: Sequence[str]) -> dict[str, _MessageRecord]:
        records = {}
        for key in dict.fromkeys(keys):
            item = (
                self._stack.aws("dynamodb")
                .get_item(TableName=self._table, Key={"messageId": {"S": key}}, ConsistentRead=True)
                .get("Item")
            )
            if item is not None:
                records[key] = _MessageRecord.from_item(item)
        return records

    def dead_letters(self) -> Counter[tuple[str, str]]:
        """(source message id, reason) of every message on the dead-letter queue, in flight or not."""
        messages = self._stack.moto.queue_messages().get(self._dead_letter_queue, [])
        return Counter(
            (
                message["message_attributes"].get("source_message_id", {}).get("StringValue", ""),
                message["message_attributes"].get("reason", {}).get("StringValue", ""),
            )
            for message in messages
        )


def _record_keys(event: Mapping[str, Any]) -> list[str]:
    """The idempotency keys of an SQS event's records; none for anything else (nothing to explain)."""
    records = event.get("Records")
    if not isinstance(records, list) or not all(isinstance(record, dict) for record in records):
        return []
    return [_idempotency_key(record) for record in records]


def _idempotency_key(record: Mapping[str, Any]) -> str:
    """The key the game dedupes on: the SMS's MessageSid, else the SQS message id (as
    serverless_rps.processing.InboundSms.idempotency_key; the local stack does not import the game)."""
    try:
        fields = json.loads(record.get("body") or "")
    except ValueError:
        fields = None
    sid = fields.get("MessageSid") if isinstance(fields, dict) else None
    return sid if isinstance(sid, str) and sid.strip() else f"sqs:{record.get('messageId')}"


def _replies(count: int) -> str:
    return "1 reply" if count == 1 else f"{count} replies"


def _refusals(deliveries: Sequence[str]) -> list[str]:
    refusals = []
    for delivery in deliveries:
        if delivery.startswith("refused:"):
            code = delivery.removeprefix("refused:")
            meaning = _REFUSAL_MEANINGS.get(int(code)) if code.isdigit() else None
            refusals.append(f"{code}: {meaning}" if meaning else code)
    return refusals


def _answered(after: _MessageRecord) -> str:
    if after.replies == 0:
        return "processed; the game sends no reply to it"
    explanation = f"answered with {_replies(after.replies)}"
    refusals = _refusals(after.deliveries)
    if refusals:
        explanation += f"; Twilio refused {len(refusals)} of them ({'; '.join(refusals)})"
    return explanation


def _explain_records(
    event: Mapping[str, Any],
    invocation: Invocation,
    before: Mapping[str, _MessageRecord],
    after: Mapping[str, _MessageRecord],
    new_dead_letters: Counter[tuple[str, str]],
) -> list[RecordOutcome]:
    failed = (
        {entry.get("itemIdentifier") for entry in invocation.response.get("batchItemFailures", [])}
        if isinstance(invocation.response, dict)
        else set()
    )
    parked = {source: reason for source, reason in new_dead_letters}
    first_record_with: dict[str, int] = {}
    outcomes = []
    for number, record in enumerate(event.get("Records", []), start=1):
        message_id = str(record.get("messageId"))
        key = _idempotency_key(record)
        earlier = first_record_with.setdefault(key, number)
        now = after.get(key)
        if invocation.error is not None:
            outcome = RecordOutcome(
                message_id,
                "failed",
                "not done: the invocation failed (Error above); SQS would deliver it again",
            )
        elif message_id in parked:
            outcome = RecordOutcome(
                message_id, "dead-letter", f"parked on the dead-letter queue: {parked[message_id]}"
            )
        elif message_id in failed:
            outcome = RecordOutcome(
                message_id,
                "failed",
                "failed (in batchItemFailures): SQS would deliver it again; the function's log says why",
            )
        elif key in before and before[key].status == _COMPLETED and now is not None:
            sent_now = len(now.deliveries) - len(before[key].deliveries)
            rest = f"sent the {_replies(sent_now)} it still owed" if sent_now > 0 else "no reply sent again"
            outcome = RecordOutcome(
                message_id, "duplicate", f"a duplicate of {key}, already answered; {rest}"
            )
        elif earlier != number and now is not None and now.status == _COMPLETED:
            outcome = RecordOutcome(
                message_id,
                "duplicate",
                f"a duplicate of {key} (as record {earlier} above), answered once; no reply sent again",
            )
        elif now is not None and now.status == _COMPLETED:
            outcome = RecordOutcome(message_id, "answered", _answered(now))
        elif now is not None and now.status == _IN_PROGRESS:
            outcome = RecordOutcome(
                message_id, "failed", f"claimed ({key}) but not finished; SQS would deliver it again"
            )
        else:
            outcome = RecordOutcome(message_id, "unknown", f"the game left no record of {key}")
        outcomes.append(outcome)
    return outcomes


def invoke_event_files(
    function: str, event_paths: Sequence[Path], state_directory: Path, template_path: Path | None = None
) -> list[InvocationReport]:
    """Invoke `function` (logical id, or `game` / `webhook`) once per file, in order.

    Raises EventFileProblem, before anything starts, for a file that is missing, not a JSON object,
    or not an event the game or the webhook function receives (event_mismatch).
    """
    logical_id = FUNCTION_ALIASES.get(function.lower(), function)
    events = [read_event_file(path) for path in event_paths]
    for path, event in zip(event_paths, events, strict=True):
        mismatch = event_mismatch(logical_id, event, path)
        if mismatch is not None:
            raise EventFileProblem(path, mismatch)
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
        environment = stack.function(logical_id).environment
        explains = {"IDEMPOTENCY_TABLE", "DEAD_LETTER_QUEUE_URL"} <= environment.keys()
        game = _GameState(stack, environment) if explains else None
        for path, event in zip(event_paths, events, strict=True):
            keys = _record_keys(event) if game is not None else []
            before: dict[str, _MessageRecord] = {}
            dead_letters_before: Counter[tuple[str, str]] = Counter()
            if game is not None and keys:
                before, dead_letters_before = game.message_records(keys), game.dead_letters()
            already_sent = len(stack.twilio.sent_messages())
            invocation = stack.function(logical_id).invoke(event)
            outcomes: list[RecordOutcome] = []
            if game is not None and keys:
                after = game.message_records(keys)
                new_dead_letters = game.dead_letters() - dead_letters_before
                outcomes = _explain_records(event, invocation, before, after, new_dead_letters)
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
                    records=outcomes,
                )
            )
    return reports
