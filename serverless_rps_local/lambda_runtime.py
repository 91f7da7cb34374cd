"""Run a real Lambda handler the way Lambda does: in a process of its own, cold start and all.

Each execution environment is a spawned Python process with only the function's environment
variables (plus dummy credentials and the moto endpoint). It imports the handler from the
function's code root (template `CodeUri`), which is the cold start, then runs one invocation at a
time. An invocation that outlives the function's `Timeout` is killed with its process, as Lambda
does; so is one whose process dies (a crash, or SIGKILL from a chaos harness). Either way the next
invocation gets a fresh process and a fresh cold start.

`LocalFunction` is a pool of such environments up to a concurrency limit, created on demand.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import threading
import time
import traceback
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from multiprocessing import resource_tracker
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

__all__ = ["Invocation", "LambdaContext", "LocalFunction"]

_INIT_TIMEOUT_SECONDS = 60.0
# What a terminal sends its whole process group: Ctrl-C, and the hang-up when it closes.
_TERMINAL_SIGNALS = frozenset({signal.SIGINT, signal.SIGHUP})
# What a Lambda execution environment passes on from the host: nothing else leaks in.
_INHERITED_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT", "VIRTUAL_ENV")


@dataclass(frozen=True)
class Invocation:
    """The outcome of one invocation: the handler's return value, or Lambda's error shape."""

    response: Any
    error: dict[str, Any] | None
    duration_seconds: float
    cold_start: bool
    worker_pid: int | None

    @property
    def failed(self) -> bool:
        return self.error is not None


class LambdaContext:
    """The `context` a handler gets: names, request id and the time left."""

    def __init__(self, function_name: str, memory_mb: int, timeout_seconds: float, request_id: str) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
        self.memory_limit_in_mb = memory_mb
        self.aws_request_id = request_id
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = f"local/{os.getpid()}"
        self._deadline = time.monotonic() + timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


@dataclass(frozen=True)
class _FunctionSpec:
    name: str
    handler: str
    code_root: str
    environment: dict[str, str]
    timeout_seconds: float
    memory_mb: int
    log_path: str | None


def _run_environment(connection: multiprocessing.connection.Connection, spec: _FunctionSpec) -> None:
    """The execution environment's process: cold start, then one invocation per message."""
    import importlib
    import sys

    # Ctrl-C and a closed terminal's hang-up reach the whole process group; the stack finishes
    # in-flight invocations, then stops us. They were blocked from before this process began
    # (`_ExecutionEnvironment`): one that came during the interpreter's start is dropped here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _TERMINAL_SIGNALS)
    if spec.log_path:
        log = os.open(spec.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
    kept = {name: os.environ[name] for name in _INHERITED_VARIABLES if name in os.environ}
    os.environ.clear()
    os.environ.update(kept)
    os.environ.update(spec.environment)
    sys.path.insert(0, spec.code_root)
    started = time.monotonic()
    try:
        module_name, function_name = spec.handler.rsplit(".", 1)
        handler = getattr(importlib.import_module(module_name), function_name)
    except BaseException as exc:  # noqa: BLE001 - Lambda reports any init failure the same way
        connection.send(("init-error", _error_shape(exc)))
        return
    connection.send(("ready", time.monotonic() - started))
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            # An execution environment is dropped, not shut down: skip the interpreter's teardown.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        event, request_id = message
        context = LambdaContext(spec.name, spec.memory_mb, spec.timeout_seconds, request_id)
        try:
            response = handler(event, context)
        except BaseException as exc:  # noqa: BLE001 - Lambda reports any handler failure the same way
            connection.send(("error", _error_shape(exc)))
        else:
            connection.send(("ok", response))
        sys.stdout.flush()


def _error_shape(exc: BaseException) -> dict[str, Any]:
    return {
        "errorType": type(exc).__name__,
        "errorMessage": str(exc),
        "stackTrace": traceback.format_exception(exc),
    }


class _ExecutionEnvironment:
    """One worker process; not thread-safe (the pool hands it to one caller at a time)."""

    def __init__(self, spec: _FunctionSpec) -> None:
        context = multiprocessing.get_context("spawn")
        self._connection, child_connection = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_run_environment, args=(child_connection, spec), name=f"lambda-{spec.name}", daemon=True
        )
        # A Ctrl-C while the new interpreter starts, before it can ignore it, would end it with a
        # KeyboardInterrupt (a cold start "failed"): it starts with both signals blocked instead,
        # as multiprocessing starts its resource tracker (bpo-33613). That tracker is started
        # first: starting it unblocks SIGINT, which would undo ours.
        resource_tracker.ensure_running()
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _TERMINAL_SIGNALS)
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
        child_connection.close()
        self._spec = spec
        self._initialised = False
        self.init_seconds: float | None = None

    def wait_until_ready(self) -> dict[str, Any] | None:
        """Wait for the cold start; returns Lambda's error shape if the init failed."""
        if self._initialised:
            return None
        try:
            if not self._connection.poll(_INIT_TIMEOUT_SECONDS):
                self.kill()
                return {
                    "errorType": "Runtime.InitTimeout",
                    "errorMessage": "the handler did not load in time",
                }
            status, detail = self._connection.recv()
        except EOFError:
            return {"errorType": "Runtime.ExitError", "errorMessage": "the runtime exited during init"}
        except OSError:
            # The function was stopped (Ctrl-C) while this environment started: `kill` closed the
            # connection under the thread waiting here, the background warm-up's.
            return {"errorType": "Runtime.ExitError", "errorMessage": "stopped during init"}
        if status != "ready":
            self.kill()
            return dict(detail)
        self._initialised = True
        self.init_seconds = float(detail)
        return None

    def invoke(self, event: Any) -> tuple[Any, dict[str, Any] | None]:
        deadline = self._spec.timeout_seconds
        try:
            self._connection.send((event, str(uuid.uuid4())))
            if not self._connection.poll(deadline):
                self.kill()
                return None, {
                    "errorType": "Sandbox.Timedout",
                    "errorMessage": f"Task timed out after {deadline:.2f} seconds",
                }
            status, payload = self._connection.recv()
        except (EOFError, OSError):
            # The runtime exited, or the stack stopped it (Ctrl-C) and closed its pipe, while this
            # invocation was in flight: an error the caller answers like any other, no traceback.
            self.kill()
            return None, {
                "errorType": "Runtime.ExitError",
                "errorMessage": "the runtime exited mid-invocation",
            }
        return (payload, None) if status == "ok" else (None, payload)

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self._connection.close()

    def ask_to_stop(self) -> None:
        if self.process.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                self._connection.send(None)

    def stop(self) -> None:
        self.ask_to_stop()
        self.process.join(5)
        self.kill()


class LocalFunction:
    """A function's execution environments, at most `concurrency` at once, created on demand."""

    def __init__(
        self,
        name: str,
        handler: str,
        code_root: Path,
        environment: Mapping[str, str],
        timeout_seconds: float,
        memory_mb: int = 128,
        concurrency: int = 1,
        log_directory: Path | None = None,
    ) -> None:
        self.name = name
        self._spec_template = _FunctionSpec(
            name=name,
            handler=handler,
            code_root=str(code_root.resolve()),
            environment=dict(environment),
            timeout_seconds=timeout_seconds,
            memory_mb=memory_mb,
            log_path=None,
        )
        self._log_directory = log_directory
        self._idle: queue.LifoQueue[_ExecutionEnvironment | None] = queue.LifoQueue()
        for _ in range(concurrency):
            self._idle.put(None)  # a free slot without an environment yet
        self._all: set[_ExecutionEnvironment] = set()
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._closed = False

    @property
    def environment(self) -> dict[str, str]:
        return dict(self._spec_template.environment)

    def invoke(self, event: Any) -> Invocation:
        """Run the handler on `event` in a free environment; blocks while all are busy."""
        with self._slot() as slot:
            environment, cold_start = slot
            started = time.monotonic()
            init_error = environment.wait_until_ready()
            if init_error is not None:
                self._discard(environment)
                return Invocation(None, init_error, time.monotonic() - started, cold_start, None)
            response, error = environment.invoke(event)
            if not environment.alive:
                self._discard(environment)
            return Invocation(
                response, error, time.monotonic() - started, cold_start, environment.process.pid
            )

    def warm(self, count: int | None = None) -> list[dict[str, Any]]:
        """Start environments ahead of traffic (all free slots if `count` is None); returns init errors.

        Environments that are already warm stay available, and each new one becomes available as
        soon as its cold start is over, so warming never holds up an invocation longer than that.
        """
        slots: list[_ExecutionEnvironment | None] = []
        while count is None or len(slots) < count:
            try:
                slots.append(self._idle.get_nowait())
            except queue.Empty:
                break
        starting = []
        for slot in slots:
            if slot is not None and slot.alive:
                self._idle.put(slot)
                continue
            if slot is not None:
                self._discard(slot)
            starting.append(self._start_environment())
        errors = []
        for environment in starting:
            error = environment.wait_until_ready()
            if error is not None:
                errors.append(error)
                self._discard(environment)
                self._idle.put(None)
            else:
                self._idle.put(environment)
        return errors

    def worker_pids(self) -> list[int]:
        """Process ids of the live environments (a chaos harness may SIGKILL them)."""
        with self._lock:
            return [
                environment.process.pid for environment in self._all if environment.process.pid is not None
            ]

    @property
    def stopped(self) -> bool:
        return self._closed

    def stop(self) -> None:
        """Take no more invocations and stop every environment; one still mid-invocation gets five
        seconds to finish (the stack stops the event source, so none is, normally)."""
        self._closed = True
        with self._lock:
            environments = list(self._all)
        for environment in environments:
            environment.ask_to_stop()
        for environment in environments:
            environment.stop()
        with self._lock:
            self._all.clear()

    @contextlib.contextmanager
    def _slot(self) -> Iterator[tuple[_ExecutionEnvironment, bool]]:
        if self._closed:
            raise RuntimeError(f"{self.name} is stopped")
        environment = self._idle.get()
        cold_start = environment is None or not environment.alive
        if environment is None or not environment.alive:
            if environment is not None:
                self._discard(environment)
            environment = self._start_environment()
        try:
            yield environment, cold_start
        finally:
            self._idle.put(environment if environment.alive else None)

    def _start_environment(self) -> _ExecutionEnvironment:
        log_path = None
        if self._log_directory is not None:
            self._log_directory.mkdir(parents=True, exist_ok=True)
            log_path = str(self._log_directory / f"{self.name}-{next(self._numbers)}.log")
        spec = _FunctionSpec(**{**self._spec_template.__dict__, "log_path": log_path})
        environment = _ExecutionEnvironment(spec)
        with self._lock:
            self._all.add(environment)
        return environment

    def _discard(self, environment: _ExecutionEnvironment) -> None:
        environment.kill()
        with self._lock:
            self._all.discard(environment)
