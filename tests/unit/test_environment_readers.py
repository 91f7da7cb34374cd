"""config.py is the one reader of the environment in the package: both functions and the operator's
tool. A second reader is how the `Messages` metric once went to a namespace the dashboard never
looked in: observability read POWERTOOLS_METRICS_NAMESPACE for itself, and one metric forgot to
use it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from serverless_rps.config import DEFAULT_METRICS_NAMESPACE, GameSettings, OperatorSettings

PACKAGE = Path(__file__).resolve().parents[2] / "serverless_rps"
_READS_ENVIRONMENT = re.compile(r"\bos\.(environ|getenv)\b|\bgetenv\(|\bimport os\b")


def test_no_module_of_the_package_but_config_reads_the_environment() -> None:
    # Every module, subpackages included: the store (game_store/) and the operator's tool (admin/).
    modules = sorted(PACKAGE.rglob("*.py"))
    readers = [
        path.relative_to(PACKAGE).as_posix()
        for path in modules
        if path.name != "config.py" and _READS_ENVIRONMENT.search(path.read_text(encoding="utf-8"))
    ]

    assert {"game_store/store.py", "admin/locate.py", "app.py"} <= {
        path.relative_to(PACKAGE).as_posix() for path in modules
    }
    assert readers == []


def test_the_game_function_takes_its_metrics_namespace_from_its_settings() -> None:
    base = {
        "GAME_STATE_TABLE": "state",
        "NICKNAME_TABLE": "nicks",
        "IDEMPOTENCY_TABLE": "idem",
        "INCOMING_QUEUE_URL": "http://queue/in",
        "DEAD_LETTER_QUEUE_URL": "http://queue/dlq",
        "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
        "TWILIO_AUTH_TOKEN": "token",
    }

    stack = GameSettings.from_environment({**base, "POWERTOOLS_METRICS_NAMESPACE": "ServerlessRps/prod"})
    unset = GameSettings.from_environment(base)

    assert stack.metrics_namespace == "ServerlessRps/prod"
    assert unset.metrics_namespace == DEFAULT_METRICS_NAMESPACE


def test_verify_may_take_the_number_and_the_webhook_from_the_environment() -> None:
    given = OperatorSettings.from_environment(
        {"TWILIO_PHONE_NUMBER": " +15550000000 ", "WEBHOOK_URL": "", "WEBHOOK_PATH_SECRET": "s3cret"}
    )

    assert given == OperatorSettings(service_number="+15550000000", webhook_path_secret="s3cret")
    assert OperatorSettings.from_environment({}) == OperatorSettings()


def test_config_reads_settings_and_does_no_io() -> None:
    """Clients, the Twilio token's read from SSM and every other start-up I/O live in bootstrap.py,
    the composition root: config.py imports nothing that could reach the network."""
    source = (PACKAGE / "config.py").read_text(encoding="utf-8")
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
    }
    assert imported <= {"__future__", "os", "re", "collections", "dataclasses", "serverless_rps"}
    assert ".client(" not in source
