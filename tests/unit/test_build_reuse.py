"""`make build` downloads the functions' dependencies once per requirements.txt: a rebuild with the
same requirements reuses them (samconfig.toml's `cached = true` cannot, for a makefile build), and
a changed requirements.txt downloads again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_build_function import BUILD, _build_module

build = _build_module()


class FakePip:
    """pip as build_function calls it: a resolution of one package, and its installation."""

    def __init__(self) -> None:
        self.downloads = 0

    def __call__(self, *arguments: str) -> str:
        if "--dry-run" in arguments:
            return json.dumps({"install": [{"metadata": {"name": "boto3", "version": "1.0"}}]})
        self.downloads += 1
        target = Path(arguments[arguments.index("--target") + 1])
        (target / "boto3").mkdir(parents=True)
        (target / "boto3" / "__init__.py").write_text(f"DOWNLOAD = {self.downloads}\n")
        return ""


@pytest.fixture
def function_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of function-code/ as sam build makes one, with the game's modules beside it."""
    here = tmp_path / "function-code"
    here.mkdir()
    shutil.copy(BUILD, here / "build_function.py")
    (here / "requirements.txt").write_text("boto3>=1.35\n")
    (here / "serverless_rps").mkdir()
    (here / "serverless_rps" / "app.py").write_text("")
    monkeypatch.setattr(build, "HERE", here)
    monkeypatch.setattr(build, "compile_bytecode", lambda artifacts: 0)
    return here


def a_build(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch, pip: FakePip, cache: Path) -> Path:
    monkeypatch.setattr(build, "pip", pip)
    monkeypatch.setenv(build.DEPENDENCY_CACHE_VARIABLE, str(cache))
    artifacts = tmp_path / "artifacts" / name
    build.main(artifacts)
    return artifacts


def test_a_rebuild_with_the_same_requirements_downloads_nothing(
    function_code: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pip, cache = FakePip(), tmp_path / "cache"

    first = a_build(tmp_path, "GameFunction", monkeypatch, pip, cache)
    second = a_build(tmp_path, "WebhookFunction", monkeypatch, pip, cache)
    again = a_build(tmp_path, "GameFunction-again", monkeypatch, pip, cache)

    assert pip.downloads == 1
    for artifacts in (first, second, again):
        assert (artifacts / "boto3" / "__init__.py").read_text() == "DOWNLOAD = 1\n"
        assert (artifacts / "serverless_rps" / "app.py").exists()


def test_a_changed_requirements_txt_downloads_again_and_drops_the_old_copy(
    function_code: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pip, cache = FakePip(), tmp_path / "cache"
    a_build(tmp_path, "before", monkeypatch, pip, cache)

    (function_code / "requirements.txt").write_text("boto3>=1.36\n")
    after = a_build(tmp_path, "after", monkeypatch, pip, cache)

    assert pip.downloads == 2
    assert (after / "boto3" / "__init__.py").read_text() == "DOWNLOAD = 2\n"
    assert len([kept for kept in cache.iterdir() if kept.is_dir()]) == 1


def test_without_a_cache_every_build_downloads(
    function_code: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pip: Any = FakePip()
    monkeypatch.setattr(build, "pip", pip)
    monkeypatch.delenv(build.DEPENDENCY_CACHE_VARIABLE, raising=False)

    build.main(tmp_path / "one")
    build.main(tmp_path / "two")

    assert pip.downloads == 2
