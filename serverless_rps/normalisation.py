"""How a typed text is read before any word in it is matched: the one normalisation that
command keywords (`parsing.py`) and free-text revocations (`revocation.py`) share, so that
`ＳＴＯＰ`, `S\u200bTOP` and `STOP` are one word to both. Pure: standard library only."""

from __future__ import annotations

import unicodedata

__all__ = ["normalised", "without_accents"]

# Characters a phone or a paste can put in a word without showing them. Unicode's format
# category (Cf) covers the zero-width space and joiners, U+2060, U+FEFF and the soft hyphen;
# these are the invisible ones outside it.
_INVISIBLE_NON_FORMAT = frozenset(
    {
        "\u034f",  # combining grapheme joiner
        "\u115f",  # Hangul choseong filler
        "\u1160",  # Hangul jungseong filler
        "\u3164",  # Hangul filler
        "\uffa0",  # half-width Hangul filler
    }
)


def _is_invisible(character: str) -> bool:
    code = ord(character)
    return (
        unicodedata.category(character) == "Cf"
        or character in _INVISIBLE_NON_FORMAT
        or 0xFE00 <= code <= 0xFE0F  # variation selectors
        or 0xE0100 <= code <= 0xE01EF  # variation selectors supplement
    )


def normalised(body: str) -> str:
    """NFKC (full-width and compatibility forms to plain ones), without invisible characters."""
    return "".join(
        character for character in unicodedata.normalize("NFKC", body) if not _is_invisible(character)
    )


def without_accents(text: str) -> str:
    """The text without its combining marks: `Álto`, `NO MÁS`, `número` -> `Alto`, `NO MAS`, `numero`.
    Spanish keywords and words are matched as people type them, with accents or without."""
    return "".join(
        character
        for character in unicodedata.normalize("NFD", text)
        if unicodedata.category(character) != "Mn"
    )
