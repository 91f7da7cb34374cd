"""What the numbers were measured on."""

from __future__ import annotations

import os
import platform
import sys
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

__all__ = ["describe"]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe() -> dict[str, Any]:
    versions = {}
    for package in ("boto3", "botocore", "moto", "aws-lambda-powertools", "twilio", "aws-xray-sdk"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return {
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "load_average_at_start": os.getloadavg(),
        "packages": versions,
    }


def render(data: dict[str, Any]) -> str:
    load = ", ".join(f"{value:.1f}" for value in data["load_average_at_start"])
    packages = ", ".join(f"{name} {version}" for name, version in data["packages"].items())
    return (
        f"- date (UTC): {data['date_utc']}\n"
        f"- machine: {data['nproc']} CPUs, {data['cpu']}, {data['platform']}\n"
        f"- Python {data['python']}; {packages}\n"
        f"- load average when the run started: {load} (other work on the machine makes timings noisier)"
    )
