"""The proof that an opt-out was honoured, without the number: what a proof record says.

STOP erases the number by design (promise 13), so the tables alone could never show that an
opt-out was honoured. The TCPA's limitation period is four years: the proof record is written in
the same transaction as the erasure (game_store/proofs.py) and says, under a keyed hash of the
number and never the number itself,

* when the text reached us and when the erasure committed;
* how it was read: the rule that matched (`OptOut.rule`), its wording class and its language,
  never its text;
* the confirmation's fate, settled by the outbox once it is known;
* the first text from the number after it (START, or anything else), if any.

The keyed hash is an HMAC-SHA-256 of the E.164 number under a key the operator holds (an SSM
SecureString, docs/operations.md): whoever holds the key can check a given number; the table
alone cannot be turned back into numbers, nor tested against a list of them. The key has versions
(rotation): every record says which key made it, and the reader tries each key it has.

Pure: values and rules only (no I/O, no clock).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from serverless_rps.ports import DROPPED_LATE, ERASED, SENDING

__all__ = [
    "BY_TWILIO",
    "CARRIER_OPT_OUT",
    "DELETION_REQUEST",
    "ERASE_REQUEST_RULE",
    "FREE_TEXT",
    "KEYWORD",
    "NOTHING_TO_SEND",
    "OPT_IN_KEYWORD",
    "OPT_OUT_AGAIN",
    "OTHER_TEXT",
    "PENDING",
    "PROOF_KEY_BYTES",
    "SENT",
    "UNKNOWN",
    "WITHHELD_BY_BUDGET",
    "Fate",
    "OptOutReading",
    "ProofKey",
    "ProofKeys",
    "ProofOfMessage",
    "ProofRef",
    "fate_of",
    "initial_fate",
    "key_from_text",
    "reading_of",
    "texted_with",
]

# A key shorter than this is refused: HMAC-SHA-256's own block of security.
PROOF_KEY_BYTES = 32

# Wording classes: how the opt-out was worded, never the words.
KEYWORD = "keyword"  # an opt-out keyword as typed (STOP, Stop., ALTO): parsing.py
CARRIER_OPT_OUT = "carrier opt-out"  # Twilio's Advanced Opt-Out matched it (OptOutType=STOP)
FREE_TEXT = "free text"  # a revocation in other words: revocation.py's rules
DELETION_REQUEST = "deletion request"  # the operator's `erase`, not a text from the number

_KEYWORD_RULES = frozenset({"keyword", "keyword-as-typed", "spanish-keyword"})
_CARRIER_RULES = frozenset({"advanced-opt-out"})
# The rule an operator's `erase` is recorded under: OptOut.rule would say how its made-up text was
# read (Advanced Opt-Out), which is not what happened.
ERASE_REQUEST_RULE = "erase-request"

# The confirmation's fate, as the proof record says it (`confirmation`).
PENDING = "pending"  # committed, not sent yet: the outbox settles it
SENT = "sent"  # Twilio took it: `confirmation_sid` names it
BY_TWILIO = "by-twilio"  # Twilio's keyword handling answered it: the bot sends none
WITHHELD_BY_BUDGET = "withheld:budget"  # the reply budget kept it back
NOTHING_TO_SEND = "none"  # a deletion request: the number asked nothing by text
UNKNOWN = "unknown"  # the attempt died between marking it and Twilio's answer: Twilio's log says


@dataclass(frozen=True)
class ProofKey:
    """One version of the proof key: its secret and which it is (`label`, kept on each record)."""

    secret: bytes
    label: str

    def number_id(self, phone: str) -> str:
        """The number's keyed hash: HMAC-SHA-256 of the E.164 string, hex."""
        return hmac.new(self.secret, phone.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class ProofKeys:
    """The key new records are written under, and the older versions still kept (rotation): a
    number's records are looked for under each."""

    current: ProofKey
    older: tuple[ProofKey, ...] = ()

    @property
    def all(self) -> tuple[ProofKey, ...]:
        return (self.current, *self.older)


def key_from_text(text: str, label: str) -> ProofKey:
    """A key as the operator stores it: hex, at least PROOF_KEY_BYTES bytes. ValueError otherwise
    (the message never holds the value)."""
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError(f"the proof key {label} is not hexadecimal") from None
    if len(secret) < PROOF_KEY_BYTES:
        raise ValueError(
            f"the proof key {label} has {len(secret)} bytes; it needs at least {PROOF_KEY_BYTES}"
        )
    return ProofKey(secret, label)


@dataclass(frozen=True)
class OptOutReading:
    """How an opt-out was read: never the text, which could hold personal data."""

    rule: str
    wording: str
    language: str | None
    # Whether Twilio may not have answered it, so that the bot owes the one confirmation.
    confirm: bool


def reading_of(rule: str, language: str | None, *, confirm: bool, by_operator: bool = False) -> OptOutReading:
    """The reading of an opt-out: its rule (`OptOut.rule`), the wording class that rule belongs to,
    its language. An operator's erasure is a deletion request, whatever its made-up text says."""
    if by_operator:
        return OptOutReading(ERASE_REQUEST_RULE, DELETION_REQUEST, None, confirm=False)
    if rule in _KEYWORD_RULES:
        wording = KEYWORD
    elif rule in _CARRIER_RULES:
        wording = CARRIER_OPT_OUT
    else:
        wording = FREE_TEXT
    return OptOutReading(rule, wording, language, confirm=confirm)


def initial_fate(reading: OptOutReading, *, confirmation_queued: bool) -> str:
    """The confirmation's fate as the commit knows it."""
    if reading.wording == DELETION_REQUEST:
        return NOTHING_TO_SEND
    if not reading.confirm:
        return BY_TWILIO
    return PENDING if confirmation_queued else WITHHELD_BY_BUDGET


@dataclass(frozen=True)
class Fate:
    """A confirmation's settled fate, and Twilio's SID when it was sent."""

    fate: str
    sid: str | None = None


def fate_of(outcome: str, learnt_sid: str | None = None) -> Fate:
    """The proof's fate from the outbox's record of the confirmation (`delivered.<i>`): a SID,
    `refused:<code>` (21610: Twilio had blocked the number, its own confirmation was the one),
    `dropped:late`, `erased` (a later opt-out came first), or `sending` when the attempt died
    before Twilio's answer: unknown, unless Twilio's status callback named the SID since."""
    if outcome == SENDING:
        return Fate(SENT, learnt_sid) if learnt_sid else Fate(UNKNOWN)
    if outcome.startswith("SM"):
        return Fate(SENT, outcome)
    if outcome in (DROPPED_LATE, ERASED) or outcome.startswith("refused:"):
        return Fate(outcome)
    return Fate(UNKNOWN)


@dataclass(frozen=True)
class ProofRef:
    """Where a proof record is: the number's keyed hash and the record's sort key; and, on a
    message record, which outbox entry is the confirmation whose fate the record waits for."""

    number: str
    event: str
    index: int | None = None


@dataclass(frozen=True)
class ProofOfMessage:
    """What a commit tells the proof records about its message: when the text arrived, how a text
    from the number reads for "texted since" (None: not a text from the number, an operator's
    request), and, for an opt-out, how it was read and the confirmation's fate so far."""

    sender: str
    received_at: float
    texted_with: str | None = None
    opt_out: OptOutReading | None = None
    confirmation: str | None = None

    def replace_confirmation(self, fate: str) -> ProofOfMessage:
        return ProofOfMessage(self.sender, self.received_at, self.texted_with, self.opt_out, fate)


# How the first text after an opt-out is recorded (`texted_again_with`), never its words.
OPT_IN_KEYWORD = "opt-in keyword"
OPT_OUT_AGAIN = "opt-out"
OTHER_TEXT = "other text"


def texted_with(texted_as: str, opt_out_type: str | None) -> str:
    """The class of a text for "texted since": its command's (`CommandSpec.texted_as`: an opt-in
    keyword, another opt-out, anything else), or an opt-in keyword when Twilio's Advanced Opt-Out
    matched one (`OptOutType=START`, which the game does not answer)."""
    return OPT_IN_KEYWORD if opt_out_type == "START" else texted_as


def of_message(
    sender: str,
    received: float,
    *,
    texted_as: str,
    opt_out_type: str | None,
    by_operator: bool,
    reading: OptOutReading | None,
    confirmation_queued: bool,
) -> ProofOfMessage:
    """What the proof records learn from a message: a text from the number (unless the operator
    sent it: admin `erase`), and for an opt-out (`reading`, from its command's row) how it was read
    and its confirmation's fate so far (`confirmation_queued`: it survived the budget and waits in
    the outbox)."""
    texted = None if by_operator else texted_with(texted_as, opt_out_type)
    if reading is None:
        return ProofOfMessage(sender, received, texted)
    if by_operator:
        reading = reading_of(reading.rule, reading.language, confirm=False, by_operator=True)
    fate = initial_fate(reading, confirmation_queued=confirmation_queued)
    return ProofOfMessage(sender, received, texted, reading, fate)
