"""The operator's side of the proof of opt-outs (docs/operations.md, "The proof of an opt-out").

* `proof NUMBER` reads the number's trail: the store computes the number's keyed hash under every
  version of the proof key (and of any older parameter given with --key-parameter) and reads each
  partition of the proof table; `trail` turns the items into what an operator reads.
* `proof-key` makes the key: 32 random bytes, hex, put as an SSM SecureString (`put_key`), or a new
  version of it (rotation).

Nothing here holds or prints the key. The number is the operator's input; the table holds only
its keyed hash.
"""

from __future__ import annotations

import datetime
import re
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from serverless_rps.admin.errors import Refused
from serverless_rps.game_store.proofs import OPT_OUT_PREFIX
from serverless_rps.opt_out_proof import (
    BY_TWILIO,
    DELETION_REQUEST,
    NOTHING_TO_SEND,
    PENDING,
    PROOF_KEY_BYTES,
    SENT,
    UNKNOWN,
    WITHHELD_BY_BUDGET,
)
from serverless_rps.ports import DROPPED_LATE, ERASED

__all__ = ["DEFAULT_KEY_PARAMETER", "parse_number", "put_key", "trail"]

# template.yaml's ProofKeyParameterName default.
DEFAULT_KEY_PARAMETER = "/serverless-rps/proof-key"

_E164 = re.compile(r"^\+[1-9]\d{6,14}$")

_FATES = {
    PENDING: "pending: not settled yet (the message's redelivery settles it)",
    BY_TWILIO: "none from the bot: Twilio's keyword handling answered it",
    WITHHELD_BY_BUDGET: "withheld by the reply budget",
    NOTHING_TO_SEND: "none: a deletion request, nothing to confirm by text",
    DROPPED_LATE: "dropped: it could not leave within five minutes of the text",
    ERASED: "not sent: a later opt-out of the number came first",
    UNKNOWN: "unknown: the attempt died between marking it and Twilio's answer (Twilio's log says)",
}


def parse_number(text: str) -> str:
    """A phone in E.164 (`+15551234567`; spaces, dashes, dots and brackets dropped). ValueError
    with one line saying what is wrong: a proof is found by the number exactly as stored."""
    digits = re.sub(r"[\s().-]", "", text.strip())
    if _E164.match(digits):
        return digits
    if digits.isdigit():
        return _refuse(f"{text!r} is not in E.164: write it with + and its country code (+{digits}?)")
    return _refuse(f"{text!r} is not a phone number in E.164 (e.g. +15551234567)")


def _refuse(message: str) -> str:
    raise ValueError(message)


def _moment(value: Mapping[str, Any] | None) -> str | None:
    if value is None:
        return None
    seconds = float(value["N"])
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    return str(value["S"]) if value is not None else None


def _fate(item: Mapping[str, Any]) -> str:
    fate = _text(item, "confirmation") or PENDING
    if fate == SENT:
        return f"sent, {_text(item, 'confirmation_sid') or 'SID unknown'}"
    if fate == "refused:21610":
        return "refused by Twilio (21610): Twilio had blocked the number and sent its own confirmation"
    if fate.startswith("refused:"):
        return f"refused by Twilio ({fate.removeprefix('refused:')})"
    return _FATES.get(fate, fate)


def trail(phone: str, items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The number's opt-outs, oldest first: when each text arrived, how it was read, when the
    number was erased, the confirmation's fate, and whether the number texted after it (its own
    record says so, or a later opt-out by text does). Refused when there is none."""
    opt_outs = sorted(
        (item for item in items if str(item["event"]["S"]).startswith(OPT_OUT_PREFIX)),
        key=lambda item: (float(item["received_at"]["N"]), str(item["event"]["S"])),
    )
    if not opt_outs:
        raise Refused(
            f"no opt-out of {phone} is on record under the proof keys given (never opted out, kept "
            "no longer than the retention, or keyed under another key: --key-parameter)"
        )
    rows = []
    for position, item in enumerate(opt_outs):
        rows.append(
            {
                "received": _moment(item["received_at"]),
                "rule": _text(item, "rule"),
                "wording": _text(item, "wording"),
                "language": _text(item, "language"),
                "erased": _moment(item["erased_at"]),
                "confirmation": _fate(item),
                "texted_since": _texted_since(item, opt_outs[position + 1 :]),
                "key": _text(item, "key"),
            }
        )
    return {
        "number": phone,
        "opt_outs": len(rows),
        "texted_since_the_last": rows[-1]["texted_since"],
        "trail": rows,
    }


def _texted_since(item: Mapping[str, Any], later: list[Mapping[str, Any]]) -> str:
    again = item.get("texted_again_at")
    if again is not None:
        return f"yes, {_moment(again)} ({_text(item, 'texted_again_with') or 'a text'})"
    by_text = next((other for other in later if _text(other, "wording") != DELETION_REQUEST), None)
    if by_text is not None:
        return f"yes, {_moment(by_text['received_at'])} (opt-out)"
    return "no"


def put_key(ssm: Any, name: str, *, rotate: bool, kms_key_id: str | None = None) -> dict[str, Any]:
    """A new proof key: PROOF_KEY_BYTES random bytes from the operating system, hex, as an SSM
    SecureString (`kms_key_id`: under that KMS key, else aws/ssm). Without `rotate` only where
    there is none yet; with it, a new version over the old one, which SSM keeps (the last 100),
    so that proofs keyed under it stay checkable."""
    request: dict[str, Any] = {
        "Name": name,
        "Value": secrets.token_hex(PROOF_KEY_BYTES),
        "Type": "SecureString",
        "Description": "serverless-rps: the key of the opt-out proofs' keyed hash (docs/operations.md)",
        "Overwrite": rotate,
    }
    if kms_key_id:
        request["KeyId"] = kms_key_id
    try:
        version = int(ssm.put_parameter(**request)["Version"])
    except ssm.exceptions.ParameterAlreadyExists:
        raise Refused(
            f"the proof key {name} already exists: nothing changed (--rotate puts a new version of it)"
        ) from None
    if version == 1:
        result = "created"
    else:
        result = (
            f"rotated: version {version} keys new proofs; versions 1 to {version - 1} stay readable for "
            "`proof`. Recycle both functions' environments to use it (docs/operations.md)"
        )
    return {"parameter": name, "version": version, "result": result}
