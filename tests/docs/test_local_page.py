"""docs/local.md shows what the local stack does: the webhook's path as `play` prints it, and every
text the scripted `demo` plays."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serverless_rps_local.cli import DEMO_SCRIPT
from serverless_rps_local.stack import WEBHOOK_FUNCTION
from serverless_rps_local.template import StackTemplate

# Slow: starts the local stack and plays the demo.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "local.md").read_text(encoding="utf-8")
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
]


def section(title: str) -> str:
    start = PAGE.index(f"\n## {title}")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start : end if end != -1 else None]


def test_the_webhook_url_shown_has_the_routes_path_with_its_secret_segment() -> None:
    routes = StackTemplate.load(ROOT / "template.yaml").function(WEBHOOK_FUNCTION).http_routes
    [route] = [route for route in routes if not route.path.endswith("/status")]  # inbound texts
    [shown] = re.findall(r"Webhook \(signed POSTs\):\s+http://127\.0\.0\.1:\d+(\S+)", PAGE)

    # The secret segment is made afresh at every start: the same route, any segment.
    assert shown.split("/")[:-1] == route.path.split("/")[:-1]
    assert len(shown.split("/")[-1]) >= 16


def test_the_demo_section_names_every_text_the_demo_plays_and_how_many() -> None:
    demo = section("Headless: `demo`")
    named = set(re.findall(r"`([^`]+)`", demo))

    assert [text for _, text in DEMO_SCRIPT if text not in named] == []
    assert NUMBER_WORDS[len(DEMO_SCRIPT)] in demo
