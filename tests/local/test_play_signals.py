"""`play` stops cleanly however its terminal lets go of it: Ctrl-C, `kill`, or the terminal
closing (SIGHUP, which a dropped SSH connection sends too) all save the games and remove the
operator's variables file; and a file left by a stack that was killed says so instead of pointing
the operator's tool at ports that are gone."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serverless_rps.admin import locate
from serverless_rps.config import ConfigurationError
from serverless_rps_local import dev_account
from serverless_rps_local.lambda_runtime import LocalFunction
from serverless_rps_local.saved_state import STATE_DIRECTORY_VARIABLE, StateDirectory, local_stack_running

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
ALICE = dev_account.FIRST_PHONE_NUMBERS[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def call(url: str, payload: dict[str, Any] | None = None) -> Any:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture
def play(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, str]]:
    """`play` in a process group of its own, as a terminal runs it: a hang-up reaches every process."""
    state = tmp_path / "state"
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "serverless_rps", "play", "--port", str(port), "--state-dir", str(state)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Ready in"):
            break
    else:
        pytest.fail(f"play exited with {process.wait()} before it was ready")
    try:
        yield process, state, f"http://127.0.0.1:{port}"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def a_game_is_played(page: str) -> None:
    call(f"{page}/_sim/phones/{ALICE}/texts", {"body": "nick alice"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        entries = call(f"{page}/_sim/conversation")["entries"]
        if any(entry["direction"] == "outbound" and "alice" in entry["body"] for entry in entries):
            return
        time.sleep(0.2)
    pytest.fail("no reply to 'nick alice'")


# The terminal sends Ctrl-C's SIGINT and a hang-up's SIGHUP to its whole foreground process group
# (make, play and the stack's processes); `kill` sends SIGTERM to the one process it names.
@pytest.mark.parametrize(
    ("stop_signal", "to_the_group"),
    [(signal.SIGHUP, True), (signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["terminal closed", "Ctrl-C", "kill"],
)
def test_closing_the_terminal_saves_the_games_like_ctrl_c_and_leaves_no_variables_file(
    play: tuple[subprocess.Popen[str], Path, str], stop_signal: signal.Signals, to_the_group: bool
) -> None:
    process, state, page = play
    a_game_is_played(page)
    assert (state / "game-function.env").exists()
    assert process.stdout is not None
    process.stdout.close()  # the terminal is gone: what play prints from now on goes nowhere

    if to_the_group:
        os.killpg(process.pid, stop_signal)
    else:
        os.kill(process.pid, stop_signal)

    assert process.wait(timeout=60) == 0
    assert "alice" in (state / "dynamodb.json").read_text(encoding="utf-8")
    assert not (state / "game-function.env").exists()
    assert not local_stack_running(state)


def test_a_state_directory_is_in_use_only_while_a_stack_holds_it(tmp_path: Path) -> None:
    directory = StateDirectory(tmp_path / "state")
    assert not local_stack_running(directory.path)  # never used

    directory.lock()
    assert local_stack_running(directory.path)

    directory.unlock()
    assert not local_stack_running(directory.path)  # as after a stack ends, however it ends


def test_the_operators_tool_says_no_local_stack_runs_when_its_variables_file_is_stale(tmp_path: Path) -> None:
    state = tmp_path / "state"
    StateDirectory(state).lock()  # a stack that ran here once ...
    stale = {
        STATE_DIRECTORY_VARIABLE: str(state),
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}",
    }
    # ... and was killed: its lock went with its process (this one is released by unlocking it).
    StateDirectory(state).unlock()

    with pytest.raises(ConfigurationError, match="no local stack is running"):
        locate.from_environment(stale)


def test_make_verify_with_a_stale_variables_file_says_no_local_stack_runs(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "lock").touch()
    (state / "game-function.env").write_text(
        f"{STATE_DIRECTORY_VARIABLE}={state}\nAWS_ENDPOINT_URL=http://127.0.0.1:{free_port()}\n"
    )
    environment = {
        **os.environ,
        STATE_DIRECTORY_VARIABLE: str(state),
        "AWS_ENDPOINT_URL": "http://127.0.0.1:1",
    }

    result = subprocess.run(
        [sys.executable, "-m", "serverless_rps.admin", "verify"],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        f"error: no local stack is running: these variables come from one that stopped ({state}); "
        "start make play in another terminal"
    ]


def test_ctrl_c_while_a_function_worker_starts_does_not_fail_its_cold_start(tmp_path: Path) -> None:
    # Ctrl-C reaches every process of the terminal's group, workers starting up included: the
    # stack stops them itself, so a worker must neither die of it nor report a failed cold start.
    (tmp_path / "slow_handler.py").write_text(
        "import time\ntime.sleep(0.5)\n\ndef handle(event, context):\n    return {'echo': event}\n"
    )
    function = LocalFunction("Echo", "slow_handler.handle", tmp_path, {}, timeout_seconds=10)
    interrupted: list[int] = []
    done = threading.Event()

    def interrupt_every_worker_as_it_starts() -> None:
        while not done.is_set():
            for pid in function.worker_pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGINT)
                    interrupted.append(pid)
            time.sleep(0.005)

    interrupter = threading.Thread(target=interrupt_every_worker_as_it_starts)
    interrupter.start()
    try:
        errors = function.warm(1)
    finally:
        done.set()
        interrupter.join()
    try:
        assert interrupted, "no worker was interrupted while it started"
        assert errors == []
        assert function.invoke({"n": 1}).response == {"echo": {"n": 1}}
    finally:
        function.stop()
