"""Which numbers the bot answers: the countries it serves, by calling code. Pure: standard library only.

Every reply costs the operator money, and the cost depends on where it goes: SMS pumping texts the
bot from many numbers, premium-rate or international, each answered at the operator's cost. So the
bot serves a list of calling codes (template.yaml's AllowedCountryCodes, `1` by default: the
North American Numbering Plan) and nothing else:

* a text from a number outside the list is not played and not answered (processing.py); only an
  opt-out is processed, because the number may be in the tables from before the list changed, and
  erasure must happen whatever the list says;
* no reply ever goes to a number outside the list, whoever caused it: a challenge to a player who
  registered before the list changed, a goodbye, an opt-out's confirmation.

A number is served when it is a phone number in E.164 (`+`, then at most 15 digits, the first not
0) that starts with one of the listed calling codes; a NANP number (`+1`) has exactly ten digits
after its code. Everything else is not: a number with no `+` (its country cannot be known), a short
code (`12345`), an alphanumeric sender (`ACME`), a channel's address (`whatsapp:+1...`: the bot
answers SMS only), an over-long number.

Calling codes are one to three digits and none is the start of another (ITU-T E.164), so the first
listed code a number starts with is its country's. `1` is the whole of NANP: the US, Canada and
the Caribbean countries that share +1 (Jamaica is +1 876): telling those apart needs their area
codes. Twilio's Messaging Geo Permissions are the second gate: docs/deployment.md says how to
allow the same countries there, so that Twilio itself refuses the rest (error 21408).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NANP", "ServedCountries"]

# The North American Numbering Plan's calling code, and the digits of a number after it.
NANP = "1"
_NANP_DIGITS = 10
# E.164: a `+`, then the calling code and the number, 15 digits at most, never starting with 0.
_E164 = re.compile(r"\+[1-9][0-9]{1,14}")
_CALLING_CODE = re.compile(r"[1-9][0-9]{0,2}")


@dataclass(frozen=True)
class ServedCountries:
    """The calling codes the bot serves, as template.yaml's AllowedCountryCodes lists them."""

    calling_codes: tuple[str, ...] = (NANP,)

    def __post_init__(self) -> None:
        if not self.calling_codes:
            raise ValueError("at least one calling code is needed")
        for code in self.calling_codes:
            if not _CALLING_CODE.fullmatch(code):
                raise ValueError(f"a calling code is 1 to 3 digits, not starting with 0: {code!r}")
        for code in self.calling_codes:
            longer = [other for other in self.calling_codes if other != code and other.startswith(code)]
            if longer:
                raise ValueError(f"no calling code starts with another: {code!r} and {longer[0]!r}")

    @classmethod
    def parse(cls, text: str) -> ServedCountries:
        """`1`, `1,44`: comma-separated calling codes (spaces around them allowed). Raises ValueError."""
        codes = tuple(dict.fromkeys(code.strip().removeprefix("+") for code in text.split(",")))
        return cls(codes)

    def serves(self, address: str) -> bool:
        """Whether the bot plays a text from `address` and sends replies to it."""
        if not _E164.fullmatch(address):
            return False
        digits = address[1:]
        code = next((code for code in self.calling_codes if digits.startswith(code)), None)
        if code is None:
            return False
        return code != NANP or len(digits) == len(NANP) + _NANP_DIGITS
