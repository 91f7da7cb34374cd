"""scripts/setup.sh, what `make play` and `make test` run first: what it says when something is missing.

Each case runs the script with a PATH holding only the basic tools it uses and the programs the
case provides, so that what is "missing" is decided by the test, not by this machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "setup.sh"
BASIC_TOOLS = ("bash", "dirname", "ls", "sed", "awk", "head", "touch", "rm", "cat", "env")
# An older Python than the project's minimum, as a stock Debian 12 has it.
PYTHON_311 = sorted(Path("/root/.pyenv/versions").glob("3.11*/bin/python3"))


@pytest.fixture
def bin_directory(tmp_path: Path) -> Path:
    directory = tmp_path / "bin"
    directory.mkdir()
    for tool in BASIC_TOOLS:
        found = shutil.which(tool)
        assert found is not None, f"{tool} is needed to run scripts/setup.sh"
        (directory / tool).symlink_to(found)
    return directory


@pytest.fixture
def fresh_clone(tmp_path: Path) -> Path:
    """The set-up script and the requirements in a directory of their own: what the script does to
    `.venv` happens there, not in this repository's."""
    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, clone / "scripts" / "setup.sh")
    for requirements in REPO.glob("requirements*.txt"):
        shutil.copy(requirements, clone / requirements.name)
    return clone


def fake_program(directory: Path, name: str, script: str) -> None:
    path = directory / name
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(0o755)


def python_313(directory: Path) -> None:
    """A python3.13 on PATH: this interpreter, which the tests run on (3.13, checked elsewhere)."""
    assert sys.version_info[:2] == (3, 13)
    (directory / "python3.13").symlink_to(sys.executable)


def run_setup(
    purpose: str, directory: Path, clone: Path, **environment: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(directory / "bash"), str(clone / "scripts" / "setup.sh"), purpose],
        # No index: should the script start installing, pip fails at once instead of downloading.
        env={"PATH": str(directory), "HOME": os.environ.get("HOME", "/"), "PIP_NO_INDEX": "1", **environment},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_make_test_names_each_missing_program_in_one_line_with_how_to_get_it(
    bin_directory: Path, fresh_clone: Path
) -> None:
    python_313(bin_directory)

    result = run_setup("test", bin_directory, fresh_clone)

    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 3, result.stderr
    assert lines[0].startswith("make test: missing chromium")
    assert "apt-get install chromium" in lines[0]
    assert lines[1].startswith("make test: missing java 17")
    assert "openjdk-17-jre-headless" in lines[1]
    assert lines[2].startswith("make test: missing npm")
    assert "apt-get install npm" in lines[2]


def test_an_old_java_is_named_with_its_version(bin_directory: Path, fresh_clone: Path) -> None:
    python_313(bin_directory)
    fake_program(bin_directory, "chromium", "exit 0")
    fake_program(bin_directory, "npm", "exit 0")
    fake_program(bin_directory, "java", "echo 'openjdk version \"11.0.21\" 2023-10-17' >&2")

    result = run_setup("test", bin_directory, fresh_clone)

    assert result.returncode == 1
    assert result.stderr.strip() == (
        "make test: missing java 17 or newer (runs DynamoDB Local; this one is 11): "
        "sudo apt-get install openjdk-17-jre-headless"
    )


def test_a_chromium_given_by_path_must_exist(bin_directory: Path, fresh_clone: Path, tmp_path: Path) -> None:
    python_313(bin_directory)
    fake_program(bin_directory, "npm", "exit 0")
    fake_program(bin_directory, "java", "echo 'openjdk version \"17.0.13\" 2024-10-15' >&2")
    fake_program(bin_directory, "chromium", "exit 0")  # on PATH, but CHROMIUM names another

    result = run_setup("test", bin_directory, fresh_clone, CHROMIUM=str(tmp_path / "no-such-chrome"))

    assert result.returncode == 1
    assert "CHROMIUM=" in result.stderr
    assert "is not an executable file" in result.stderr


def test_without_python_313_the_tests_refuse_to_start_rather_than_run_on_another_version(
    bin_directory: Path, fresh_clone: Path
) -> None:
    fake_program(bin_directory, "python3", "echo 3.12; exit 0")  # answers like a Python 3.12 would
    fake_program(bin_directory, "python3.13", "exit 127")  # a pyenv shim for an unselected version

    result = run_setup("test", bin_directory, fresh_clone)

    assert result.returncode == 1
    assert result.stderr.splitlines()[0].startswith("make test: missing Python 3.13 (the Lambda runtime")


@pytest.mark.skipif(not PYTHON_311, reason="needs a Python 3.11 (pyenv's) to play the stock Debian 12")
def test_make_play_on_python_311_stops_at_once_saying_what_is_missing_and_installs_nothing(
    bin_directory: Path, fresh_clone: Path
) -> None:
    (bin_directory / "python3").symlink_to(PYTHON_311[0])

    result = run_setup("play", bin_directory, fresh_clone)

    assert result.returncode == 1
    assert result.stderr.strip() == (
        "make play: missing Python 3.13 or newer (the Lambda runtime's version; the code uses its syntax; "
        "python3 here is 3.11): pyenv install 3.13, or your distribution's python3.13 package"
    )
    assert not (fresh_clone / ".venv").exists()


def test_a_venv_already_on_python_313_needs_no_other_python(bin_directory: Path, fresh_clone: Path) -> None:
    """A .venv made earlier keeps working when the Python that made it is no longer on PATH."""
    venv_bin = fresh_clone / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").symlink_to(sys.executable)
    (fresh_clone / ".venv" / ".installed-play").touch()

    result = run_setup("play", bin_directory, fresh_clone)

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_the_first_install_says_what_it_installs_and_roughly_how_much(
    bin_directory: Path, fresh_clone: Path
) -> None:
    """pip is quiet for the half minute of the first install: the set-up says first what is coming."""
    venv_bin = fresh_clone / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    # A .venv on 3.13 whose pip installs nothing, at once.
    fake_program(venv_bin, "python", 'if [ "$1" = -c ]; then echo 3.13; fi; exit 0')

    result = run_setup("play", bin_directory, fresh_clone)

    assert result.returncode == 0, result.stderr
    [announced, done] = result.stderr.splitlines()
    assert announced.startswith("setup: installing requirements-play.txt into .venv: ")
    assert "about 45 packages and 200 MB" in announced
    assert done == "setup: .venv is ready for play"
    assert (fresh_clone / ".venv" / ".installed-play").exists()


def test_make_verify_without_a_local_stack_says_so_before_setting_anything_up(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copy(REPO / "Makefile", clone / "Makefile")

    result = subprocess.run(
        ["make", "--no-print-directory", "verify"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == (
        "make verify: no local stack is running (start make play in another terminal, "
        "or give STACK=name for a deployed one)"
    )
    assert not (clone / ".venv").exists()
    assert "setup" not in result.stdout + result.stderr
