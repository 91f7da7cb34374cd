"""Cold start: the time to import each handler in a fresh interpreter, tracing on and off.

Run: `python -m bench.cold_start`. Each figure is the median of several fresh processes. "Tracing
on" sets the variables Lambda sets for `Tracing: Active` (powertools then imports aws-xray-sdk and
patches boto3 and requests at import); "off" adds POWERTOOLS_TRACE_DISABLED=true. `-X importtime`
tells what dominates. On Lambda the interpreter start itself (~tens of ms) and the INIT phase's
network (none here: clients are built on the first invocation) come on top.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["measure", "render"]

ROOT = Path(__file__).resolve().parents[1]
_FUNCTION_ENVIRONMENT = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "GAME_STATE_TABLE": "rps-game-state",
    "NICKNAME_TABLE": "rps-nicknames",
    "IDEMPOTENCY_TABLE": "rps-idempotency",
    "INCOMING_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/rps-incoming",
    "DEAD_LETTER_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/rps-dead-letters",
    "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
    "TWILIO_AUTH_TOKEN": "local-token",
    "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
}
_TARGETS = {
    "import boto3": "import boto3",
    "game handler (serverless_rps.app)": "import serverless_rps.app",
    "webhook handler (serverless_rps.webhook)": "import serverless_rps.webhook",
    "game handler + build clients": (
        "import serverless_rps.app as app\n"
        "from serverless_rps.config import GameSettings\n"
        "app.build_game_function(GameSettings.from_environment())"
    ),
}
_TIMED = "import time\nstarted = time.perf_counter()\n{code}\nprint(time.perf_counter() - started)\n"


def _environment(tracing: bool) -> dict[str, str]:
    environment = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    environment.update(_FUNCTION_ENVIRONMENT)
    environment["AWS_LAMBDA_FUNCTION_NAME"] = "GameFunction"
    if tracing:
        # Powertools traces only inside Lambda, which it recognises by LAMBDA_TASK_ROOT.
        environment["LAMBDA_TASK_ROOT"] = str(ROOT / "function-code")
        environment["_X_AMZN_TRACE_ID"] = "Root=1-00000000-000000000000000000000000;Parent=0;Sampled=1"
    else:
        environment["POWERTOOLS_TRACE_DISABLED"] = "true"
    environment["PYTHONPATH"] = str(ROOT / "function-code")
    return environment


def _run(code: str, tracing: bool) -> float:
    output = subprocess.run(
        [sys.executable, "-P", "-c", _TIMED.format(code=code)],
        env=_environment(tracing),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(output.stdout.strip().splitlines()[-1])


def _import_breakdown(module: str, tracing: bool) -> dict[str, float]:
    """Import time (ms) by top-level package: the sum of each module's own time, from `-X importtime`."""
    output = subprocess.run(
        [sys.executable, "-P", "-X", "importtime", "-c", f"import {module}"],
        env=_environment(tracing),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    totals: dict[str, float] = defaultdict(float)
    for line in output.stderr.splitlines():
        parts = line.split("|")
        if not line.startswith("import time:") or len(parts) != 3 or "self [us]" in line:
            continue
        own = int(parts[0].removeprefix("import time:").strip())
        totals[parts[2].strip().split(".")[0]] += own / 1000
    return dict(sorted(totals.items(), key=lambda item: -item[1])[:10])


def measure(repeats: int = 7) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for label, code in _TARGETS.items():
        for tracing in (False, True):
            if label == "import boto3" and tracing:
                continue
            samples = [_run(code, tracing) for _ in range(repeats)]
            results.append(
                {
                    "what": label,
                    "tracing": tracing,
                    "median_ms": statistics.median(samples) * 1000,
                    "min_ms": min(samples) * 1000,
                    "max_ms": max(samples) * 1000,
                    "repeats": repeats,
                }
            )
    breakdown = {
        f"serverless_rps.app, tracing {'on' if tracing else 'off'}": _import_breakdown(
            "serverless_rps.app", tracing
        )
        for tracing in (False, True)
    }
    return {"results": results, "top_level_imports_ms": breakdown}


def render(data: dict[str, Any]) -> str:
    lines = ["| what | tracing | median ms | min ms | max ms |", "|---|---|---|---|---|"]
    for row in data["results"]:
        tracing = "-" if row["what"] == "import boto3" else ("on" if row["tracing"] else "off")
        lines.append(
            f"| {row['what']} | {tracing} | {row['median_ms']:.0f} | {row['min_ms']:.0f} "
            f"| {row['max_ms']:.0f} |"
        )
    for label, packages in data["top_level_imports_ms"].items():
        lines += [
            "",
            f"What dominates ({label}; `-X importtime`, own time summed by top-level package, ms):",
            "",
        ]
        lines += [f"- {package}: {milliseconds:.0f}" for package, milliseconds in packages.items()]
    return "\n".join(lines)


def main() -> None:
    data = measure(repeats=3 if "--quick" in sys.argv else 7)
    print(render(data))
    if "--json" in sys.argv:
        print(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
