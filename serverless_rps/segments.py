"""How many SMS segments Twilio bills for a body. Pure: standard library only.

Twilio sends a body in GSM-7 when every character is in the GSM 03.38 alphabet (its basic table,
one septet each, or its extension table, two septets each: an escape and the character), else in
UCS-2. One segment holds 160 septets of GSM-7 or 70 UTF-16 code units of UCS-2; a longer body is
split into parts of 153 and 67, each billed as a segment
(https://www.twilio.com/docs/glossary/what-sms-character-limit,
https://www.twilio.com/docs/glossary/what-is-ucs-2-character-encoding).

A single character outside the alphabet makes the whole body UCS-2. Spanish keeps é, É, ñ, Ñ, ü, Ü,
¿ and ¡ in the basic table, but not á, í, ó, ú (nor Á, Í, Ó, Ú): one of those turns a 160-character
reply into three segments. Twilio's Smart Encoding (a Messaging Service option) would not save it:
its list of replaced characters holds quotes, dashes, spaces and full-width forms, and no accented
letter (https://www.twilio.com/docs/messaging/services/smart-encoding-char-list). So every reply is
written in the basic table only (tests/unit/test_replies.py), and Smart Encoding never rewrites one
(outbox.LookBeforeResending matches a sent body to ours exactly).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GSM7_BASIC", "GSM7_EXTENDED", "SEGMENT_LIMIT", "SegmentCount", "count_segments"]

# GSM 03.38's basic table, as Twilio encodes it (the escape itself left out).
GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
# Its extension table: each costs two septets (the escape, then the character).
GSM7_EXTENDED = frozenset("^{}\\[~]|€\f")

# One segment's capacity in GSM-7 septets; UCS-2's is 70 code units. Split bodies hold 153 and 67.
SEGMENT_LIMIT = 160
_UCS2_LIMIT = 70
_GSM7_PART = 153
_UCS2_PART = 67


@dataclass(frozen=True)
class SegmentCount:
    """How a body travels: its encoding and how many SMS segments Twilio bills for it."""

    encoding: str
    segments: int


def count_segments(body: str) -> SegmentCount:
    """GSM-7 bodies fit 160 septets in one segment (153 per part when split); UCS-2 fits 70 (67)."""
    if all(character in GSM7_BASIC or character in GSM7_EXTENDED for character in body):
        septets = sum(2 if character in GSM7_EXTENDED else 1 for character in body)
        return SegmentCount("GSM-7", 1 if septets <= SEGMENT_LIMIT else -(-septets // _GSM7_PART))
    units = len(body.encode("utf-16-le")) // 2
    return SegmentCount("UCS-2", 1 if units <= _UCS2_LIMIT else -(-units // _UCS2_PART))
