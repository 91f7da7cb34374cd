"""find_chromium: CHROMIUM when it names an executable file, else the first known name on PATH."""

from __future__ import annotations

from pathlib import Path

import pytest

from serverless_rps_local.browser import find_chromium, no_chromium_reason

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow


def _program(path: Path, executable: bool = True) -> Path:
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)
    return path


def test_the_chromium_variable_wins_when_it_names_an_executable(tmp_path: Path) -> None:
    chosen = _program(tmp_path / "my-chrome")
    on_path = tmp_path / "bin"
    on_path.mkdir()
    _program(on_path / "chromium")

    assert find_chromium({"CHROMIUM": str(chosen), "PATH": str(on_path)}) == str(chosen)


def test_a_chromium_variable_naming_a_non_executable_finds_nothing(tmp_path: Path) -> None:
    # Not another browser instead: the variable is a mistake to fix, and setup.sh says so.
    not_executable = _program(tmp_path / "chrome.txt", executable=False)
    on_path = tmp_path / "bin"
    on_path.mkdir()
    _program(on_path / "chromium")

    assert find_chromium({"CHROMIUM": str(not_executable), "PATH": str(on_path)}) is None
    assert find_chromium({"CHROMIUM": str(tmp_path / "missing"), "PATH": str(on_path)}) is None
    assert no_chromium_reason({"CHROMIUM": str(not_executable)}) == (
        f"CHROMIUM={not_executable} is not an executable file"
    )


def test_path_is_searched_in_setup_shs_order(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    _program(first / "google-chrome")
    _program(second / "chromium-browser")
    _program(second / "google-chrome-stable")
    path = f"{first}:{second}"

    # chromium-browser comes before google-chrome in the name order, whatever the directory order.
    assert find_chromium({"PATH": path}) == str(second / "chromium-browser")
    (second / "chromium-browser").unlink()
    assert find_chromium({"PATH": path}) == str(first / "google-chrome")
    _program(first / "chromium", executable=False)
    assert find_chromium({"PATH": path}) == str(first / "google-chrome")


def test_nothing_found_is_none(tmp_path: Path) -> None:
    assert find_chromium({"PATH": str(tmp_path)}) is None
    assert find_chromium({"CHROMIUM": "", "PATH": str(tmp_path)}) is None
    assert "apt-get install chromium" in no_chromium_reason({"PATH": str(tmp_path)})
