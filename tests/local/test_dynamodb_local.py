"""Choosing the DynamoDB engine, and what a developer sees when DynamoDB Local cannot start.

Starting DynamoDB Local itself is exercised by every test under `make test-dynamodb-local`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from serverless_rps_local import dynamodb_local
from serverless_rps_local.dynamodb_local import (
    DynamoDbEngine,
    DynamoDbLocal,
    DynamoDbLocalMissing,
    selected_engine,
)

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("value", "engine"),
    [
        (None, DynamoDbEngine.MOTO),
        ("", DynamoDbEngine.MOTO),
        ("moto", DynamoDbEngine.MOTO),
        ("LOCAL", DynamoDbEngine.LOCAL),
    ],
)
def test_the_engine_is_moto_unless_dynamodb_says_local(
    monkeypatch: pytest.MonkeyPatch, value: str | None, engine: DynamoDbEngine
) -> None:
    if value is None:
        monkeypatch.delenv("DYNAMODB", raising=False)
    else:
        monkeypatch.setenv("DYNAMODB", value)
    assert selected_engine() is engine


def test_an_unknown_engine_is_named_with_the_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DYNAMODB", "dynalite")
    with pytest.raises(ValueError, match="DYNAMODB='dynalite': expected moto or local"):
        selected_engine()


def _fake_java(directory: Path, version_line: str) -> None:
    java = directory / "java"
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(0o755)


def test_without_java_one_line_says_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(DynamoDbLocalMissing) as missing:
        DynamoDbLocal().start()
    assert str(missing.value) == (
        "DynamoDB Local needs Java 17 or newer on PATH (Debian: apt-get install openjdk-17-jre-headless)"
    )


@pytest.mark.parametrize("version_line", ['openjdk version "11.0.22" 2024-01-16', 'java version "1.8.0_392"'])
def test_a_java_too_old_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, version_line: str) -> None:
    _fake_java(tmp_path, version_line)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(DynamoDbLocalMissing, match="needs Java 17 or newer") as missing:
        DynamoDbLocal().start()
    assert version_line in str(missing.value)
    assert "\n" not in str(missing.value)


def test_a_missing_package_names_the_command_that_installs_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fake_java(tmp_path, 'openjdk version "17.0.15" 2025-04-15')
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("DYNAMODB_LOCAL_JAR", raising=False)
    monkeypatch.setattr(dynamodb_local, "_INSTALL_DIRECTORY", tmp_path / ".dynamodb-local")
    with pytest.raises(DynamoDbLocalMissing) as missing:
        DynamoDbLocal().start()
    assert str(missing.value) == (
        f"DynamoDB Local is not installed in {tmp_path / '.dynamodb-local'}: "
        "run make dynamodb-local (scripts/install-dynamodb-local.sh)"
    )


def test_a_jar_named_in_the_environment_must_exist(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fake_java(tmp_path, 'openjdk version "17.0.15" 2025-04-15')
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("DYNAMODB_LOCAL_JAR", str(tmp_path / "DynamoDBLocal.jar"))
    with pytest.raises(DynamoDbLocalMissing, match=r"DYNAMODB_LOCAL_JAR=.*DynamoDBLocal.jar is not a file"):
        DynamoDbLocal().start()
