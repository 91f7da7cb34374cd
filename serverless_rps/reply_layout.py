"""How the replies that list names fit one segment, whatever the language: lists shortened with a
count of the rest, and the leaderboard's lines that fit. Pure: standard library only.

The catalogues (replies.py in English, replies_es.py in Spanish) give the words; this module
gives the room. A nickname is at most 15 characters, so the first name of a list and the first
line of the board always fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from serverless_rps.segments import SEGMENT_LIMIT

__all__ = ["leader_lines", "name_lists"]


def name_lists(
    parts: Sequence[tuple[str, Sequence[str]]], budget: int, more: Callable[[int], str], separator: str = ". "
) -> str:
    """`Label: name, name +N more` for each non-empty list, sharing `budget` characters evenly;
    each list shows what fits and counts the rest with `more(N)` (its leading space included)."""
    shown = [(label, list(names)) for label, names in parts if names]
    rendered = [_shortened(label, names, budget // len(shown) - 2, more) for label, names in shown]
    return separator.join(rendered) + "."


def _shortened(label: str, names: list[str], budget: int, more: Callable[[int], str]) -> str:
    # The first name always shows (a nickname is at most 15 characters, far under any budget here).
    shown = names[:1]
    for index, name in enumerate(names[1:], start=2):
        remaining = len(names) - index
        candidate = f"{label}: {', '.join([*shown, name])}"
        suffix = more(remaining) if remaining else ""
        if len(candidate + suffix) > budget:
            break
        shown.append(name)
    hidden = len(names) - len(shown)
    return f"{label}: {', '.join(shown)}" + (more(hidden) if hidden else "")


def leader_lines(heading: str, leaders: Sequence[tuple[str, int]], limit: int = SEGMENT_LIMIT) -> list[str]:
    """The board's lines (`1. alice 12`), best first, that fit `limit` characters after `heading`
    (the first always does: a nickname is at most 15 characters)."""
    lines: list[str] = []
    for rank, (name, wins) in enumerate(leaders, start=1):
        line = f"{rank}. {name} {wins}"
        if len(heading + ", ".join([*lines, line])) > limit:
            break
        lines.append(line)
    return lines
