"""tests/conftest.py runs the files that hold long tests first on xdist's processes (make test); a
file renamed or deleted would drop out of that order without a word, so the order must name files
that exist."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import LONGEST_FIRST

ROOT = Path(__file__).resolve().parents[2]


def test_the_longest_first_order_names_only_test_files_that_exist() -> None:
    not_test_files = [
        path
        for path in LONGEST_FIRST
        if not ((ROOT / path).is_file() and path.startswith("tests/") and Path(path).name.startswith("test_"))
    ]
    assert not_test_files == []


def test_the_longest_first_order_names_each_file_once() -> None:
    assert sorted({path for path in LONGEST_FIRST if LONGEST_FIRST.count(path) > 1}) == []
