"""Who makes each recorded call in production, read from the shipped frames on its stack.

* The operator's tool: any frame of `serverless_rps.admin` (it runs on a laptop, with the
  operator's credentials and the policy docs/operations.md gives them).
* The game function: a frame of `serverless_rps.app`, its handler, and everything it runs.
* The webhook function: a frame of `serverless_rps.webhook` or `serverless_rps.status_callbacks`.
* The event source mapping: the call site is `serverless_rps_local.event_source`, which polls and
  deletes as Lambda's poller does in production, with the game function's role.

A call's frames stop where a test or the local stack stands in between (tests/iam/recording.py).
Many tests call shared code without its entry point (the processor, the store, the queues): such
a call belongs to every principal the recording shows running the same function (its outermost
shipped frame, `MessageProcessor.process` say, seen below `app.lambda_handler` and below the
operator's `erase`), learned through chains of calls. A function no chain leads to from an entry
point has no principal, and the proof fails naming it.

The operator's policy comes in two variants: read-only, for the commands whose help says "(reads
only)", and read-write. `OPERATOR_FUNCTIONS` says, of each function of admin/ that a test reaches
first (after the command line's dispatch), which commands run it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EVENT_SOURCE_MAPPING",
    "GAME_FUNCTION",
    "OPERATOR",
    "OPERATOR_FUNCTIONS",
    "READ_ONLY_COMMANDS",
    "WEBHOOK_FUNCTION",
    "AttributedCall",
    "Principal",
    "attribute",
    "call_site",
]


@dataclass(frozen=True)
class Principal:
    name: str


GAME_FUNCTION = Principal("game function")
EVENT_SOURCE_MAPPING = Principal("event source mapping")  # with the game function's role
WEBHOOK_FUNCTION = Principal("webhook function")
OPERATOR = Principal("operator's tool")

# Outermost first: the operator's tool runs the game's processor (erase), never the other way round.
_ENTRY_POINTS = (
    ("serverless_rps.admin", OPERATOR),
    ("serverless_rps.app", GAME_FUNCTION),
    ("serverless_rps.webhook", WEBHOOK_FUNCTION),
    ("serverless_rps.status_callbacks", WEBHOOK_FUNCTION),
)
_EVENT_SOURCE = "serverless_rps_local.event_source"

# The operator's commands that only read (cli.py's help says "(reads only)"); every other one
# changes something and needs the read-write policy. A command that changes something only with
# an option is two: `ceiling` reads, `ceiling --lift` changes (the option's help says "CHANGES:").
READ_ONLY_COMMANDS = ("status", "player", "dlq list", "outbox pending", "ceiling", "proof", "campaign")

# The command line's own dispatch: the function after these says what a command does.
_DISPATCH = frozenset({"serverless_rps.admin.cli:main", "serverless_rps.admin.cli:_run"})

# Each function of admin/ a test reaches first, and the commands that run it. A function run by
# a read-only command must be allowed by the read-only policy.
_CONNECTING = (
    "status",
    "player",
    "dlq list",
    "dlq redrive",
    "outbox pending",
    "outbox resend",
    "unlock",
    "erase",
    "verify",
    "ceiling",
    "ceiling --lift",
    "proof",
)
OPERATOR_FUNCTIONS: Mapping[str, tuple[str, ...]] = {
    # Every command but campaign connects: the stack's settings (--stack), then the Twilio token.
    "serverless_rps.admin.cli:_connect": _CONNECTING,
    "serverless_rps.admin.operations:Operator.connect": _CONNECTING,
    "serverless_rps.admin.locate:from_stack": (*_CONNECTING, "campaign", "proof-key"),
    "serverless_rps.admin.cli:_campaign": ("campaign",),
    "serverless_rps.admin.operations:Operator.status": ("status",),
    "serverless_rps.admin.operations:Operator.player": ("player",),
    "serverless_rps.admin.operations:Operator.phone_of": ("player", "unlock", "erase"),
    "serverless_rps.admin.operations:Operator.dead_letters": ("dlq list",),
    "serverless_rps.admin.dead_letters:DeadLetterReview.dead_letters": ("dlq list",),
    "serverless_rps.admin.operations:Operator.pending_outboxes": ("outbox pending", "outbox resend"),
    "serverless_rps.admin.store_reads:StoreReads.scan_messages": ("status", "player", "outbox pending"),
    "serverless_rps.admin.store_reads:StoreReads.scan_player_rows": ("status",),
    "serverless_rps.admin.store_reads:StoreReads.read_player_row": ("player", "unlock"),
    "serverless_rps.admin.store_reads:StoreReads.read_completed": ("outbox resend", "verify"),
    "serverless_rps.admin.operations:Operator.redrive": ("dlq redrive",),
    "serverless_rps.admin.dead_letters:DeadLetterReview.redrive": ("dlq redrive",),
    "serverless_rps.admin.operations:Operator.resend": ("outbox resend",),
    "serverless_rps.admin.operations:Operator.unlock": ("unlock",),
    "serverless_rps.admin.operations:Operator.erase": ("erase", "verify"),
    "serverless_rps.admin.operations:Operator.ceiling": ("ceiling", "ceiling --lift"),
    "serverless_rps.admin.operations:Operator.lift_ceiling": ("ceiling --lift",),
    "serverless_rps.admin.cli:_verify": ("verify",),
    "serverless_rps.admin.operations:Operator.proof": ("proof",),
    "serverless_rps.admin.cli:_proof_key": ("proof-key",),
    "serverless_rps.admin.locate:stack_output": ("verify",),
}


@dataclass(frozen=True)
class AttributedCall:
    call: Mapping[str, Any]
    principals: tuple[Principal, ...]  # empty: no principal could be found
    how: str  # "entry point", or the function whose principals were learned
    # The operator's: the function of admin/ that decides which command runs it (several when
    # learned from the operator's calls of the same function).
    operator_functions: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        """Whether a read-only command of the operator's tool makes this call."""
        return any(
            command in READ_ONLY_COMMANDS
            for function in self.operator_functions
            for command in OPERATOR_FUNCTIONS.get(function, ())
        )


def call_site(call: Mapping[str, Any]) -> str:
    """`serverless_rps/game_store/store.py:DynamoGameStore.commit`: where the call was made."""
    module, _, function = call["stack"][-1].partition(":")
    return f"{module.replace('.', '/')}.py:{function}"


def _entry_principal(stack: Sequence[str]) -> Principal | None:
    modules = [frame.partition(":")[0] for frame in stack]
    for prefix, principal in _ENTRY_POINTS:
        if any(module == prefix or module.startswith(prefix + ".") for module in modules):
            return principal
    if modules and modules[-1] == _EVENT_SOURCE:
        return EVENT_SOURCE_MAPPING
    return None


def _operator_function(stack: Sequence[str]) -> str | None:
    return next(
        (frame for frame in stack if frame.startswith("serverless_rps.admin") and frame not in _DISPATCH),
        None,
    )


def attribute(calls: Iterable[Mapping[str, Any]]) -> list[AttributedCall]:
    """Each call with the principals that make it in production.

    A call with no entry point on its stack belongs to the principals of every call, itself
    attributed, whose stack holds its outermost frame: that function runs in those principals, and
    so does all it calls. Learning goes on until nothing more is learned (a store method called by
    a test is learned from the processor, itself learned from the game function's handler)."""
    calls = list(calls)
    direct = [_entry_principal(call["stack"]) for call in calls]
    principals = [{principal} if principal else set() for principal in direct]
    deciding = [
        {function} if principal is OPERATOR and (function := _operator_function(call["stack"])) else set()
        for call, principal in zip(calls, direct, strict=True)
    ]
    learned = True
    while learned:
        runners: dict[str, set[Principal]] = {}
        deciders: dict[str, set[str]] = {}
        for index, call in enumerate(calls):
            for frame in call["stack"]:
                runners.setdefault(frame, set()).update(principals[index])
                deciders.setdefault(frame, set()).update(deciding[index])
        learned = False
        for index, call in enumerate(calls):
            outermost = call["stack"][0]
            if direct[index] is None and not (
                runners[outermost] <= principals[index] and deciders[outermost] <= deciding[index]
            ):
                principals[index] |= runners[outermost]
                deciding[index] |= deciders[outermost]
                learned = True
    return [
        AttributedCall(
            call,
            tuple(sorted(principals[index], key=lambda principal: principal.name)),
            "entry point" if direct[index] else call["stack"][0],
            tuple(sorted(deciding[index])) if OPERATOR in principals[index] else (),
        )
        for index, call in enumerate(calls)
    ]
