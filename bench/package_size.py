"""Deployment size: the built artifact of each function, zipped, and what dominates it.

Run: `python -m bench.package_size`. With the SAM CLI at .venv-sam/bin/sam (scripts/sam-venv.sh
installs it) this runs `sam build` (arm64 wheels, as the template declares) into a temporary
directory. Without it, it runs the same build script sam build runs (function-code/build_function.py)
and says so. Reported: the zip, the zip without the AWS SDK (boto3, botocore, s3transfer, jmespath,
dateutil, six, urllib3), and any development-only file that reached the artifact (there must be none).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

__all__ = ["measure", "render"]

ROOT = Path(__file__).resolve().parents[1]
SAM = ROOT / ".venv-sam" / "bin" / "sam"


def _python_313_path() -> str:
    """PATH with the project's python3.13 first (.venv, made on 3.13 by `make test`): `sam build`
    looks the runtime's interpreter up by name, as the Makefile's `make build` arranges too."""
    return os.pathsep.join([str(ROOT / ".venv" / "bin"), os.environ.get("PATH", "")])


def _zip_size(directory: Path, destination: Path) -> int:
    with zipfile.ZipFile(destination, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(directory))
    return destination.stat().st_size


def _tree_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def _top_entries(directory: Path, count: int = 8) -> dict[str, float]:
    sizes: dict[str, int] = {}
    for entry in directory.iterdir():
        if entry.name.endswith((".dist-info", ".data")) or entry.name == "__pycache__":
            continue
        sizes[entry.name] = _tree_size(entry)
    ordered = sorted(sizes.items(), key=lambda item: -item[1])[:count]
    return {name: size / 1e6 for name, size in ordered}


def _build_with_sam(workdir: Path) -> tuple[dict[str, Path], str]:
    build = workdir / "build"
    subprocess.run(
        [str(SAM), "build", "--template-file", str(ROOT / "template.yaml"), "--build-dir", str(build)],
        cwd=workdir,
        env={**os.environ, "PATH": _python_313_path(), "SAM_CLI_TELEMETRY": "0"},
        check=True,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    functions = {path.name: path for path in build.iterdir() if path.is_dir()}
    return functions, "sam build (arm64 wheels from PyPI, as template.yaml declares)"


def _build_without_sam(workdir: Path) -> tuple[dict[str, Path], str]:
    """The build `sam build` runs for each function (function-code/build_function.py), run directly."""
    target = workdir / "GameFunction"
    python = shutil.which("python3.13", path=_python_313_path()) or sys.executable
    subprocess.run(
        [python, str(ROOT / "function-code" / "build_function.py"), str(target)],
        cwd=ROOT / "function-code",
        check=True,
        capture_output=True,
        timeout=1200,
    )
    return {"GameFunction and WebhookFunction (the same build)": target}, (
        "function-code/build_function.py run directly (no SAM CLI found; the same arm64 wheels)"
    )


# What the AWS SDK is made of (Lambda's runtime ships its own copy; the budget leaves it out).
AWS_SDK = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "python_dateutil", "six", "urllib3")
# What must never be deployed: the local stack, its CLI, tests, benchmarks, twilio's async stack.
DEVELOPMENT_ONLY = (
    "serverless_rps_local",
    "serverless_rps/__main__.py",
    "tests",
    "bench",
    "docs",
    "scripts",
    "aiohttp",
    "aiohttp_retry",
    "moto",
    "simulator.html",
)


def _is_sdk(relative: Path) -> bool:
    top = relative.parts[0].split("-")[0].removesuffix(".py").lower()
    return top in AWS_SDK


def _zip_of(directory: Path, keep: Any) -> int:
    handle, name = tempfile.mkstemp(suffix=".zip")
    os.close(handle)
    buffer = Path(name)
    try:
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(directory.rglob("*")):
                if path.is_file() and keep(path.relative_to(directory)):
                    archive.write(path, path.relative_to(directory))
        return buffer.stat().st_size
    finally:
        buffer.unlink()


def _development_only(directory: Path) -> list[str]:
    found = []
    for name in DEVELOPMENT_ONLY:
        if "/" in name or "." in name:
            found += [
                str(path.relative_to(directory))
                for path in directory.rglob(Path(name).name)
                if str(path.relative_to(directory)).endswith(name)
            ]
        elif (directory / name).exists():
            found.append(name)
    return sorted(found)


def measure() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rps-size-") as directory:
        workdir = Path(directory)
        try:
            functions, method = _build_with_sam(workdir) if SAM.exists() else _build_without_sam(workdir)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            detail = getattr(exc, "stderr", "") or ""
            raise SystemExit(f"the build failed: {detail}") from exc
        results = {}
        for name, path in sorted(functions.items()):
            zipped = _zip_size(path, workdir / f"{name}.zip")
            results[name] = {
                "zip_mb": zipped / 1e6,
                "zip_without_aws_sdk_mb": _zip_of(path, lambda relative: not _is_sdk(relative)) / 1e6,
                "unzipped_mb": _tree_size(path) / 1e6,
                "largest_unzipped_mb": _top_entries(path),
                "package_itself_mb": _tree_size(path / "serverless_rps") / 1e6,
                "development_only": _development_only(path),
            }
    return {"method": method, "functions": results}


def render(data: dict[str, Any]) -> str:
    lines = [
        f"Built with: {data['method']}",
        "",
        "| function | zip MB | zip without the AWS SDK MB | unzipped MB | serverless_rps itself MB "
        "| development-only files |",
    ]
    lines.append("|---|---:|---:|---:|---:|---|")
    for name, result in data["functions"].items():
        lines.append(
            f"| {name} | {result['zip_mb']:.1f} | {result['zip_without_aws_sdk_mb']:.2f} "
            f"| {result['unzipped_mb']:.1f} | {result['package_itself_mb']:.2f} "
            f"| {', '.join(result['development_only']) or 'none'} |"
        )
    first = next(iter(data["functions"].values()), None)
    if first:
        lines += ["", "Largest parts (unzipped MB):", ""]
        lines += [f"- {name}: {size:.1f}" for name, size in first["largest_unzipped_mb"].items()]
    return "\n".join(lines)


def main() -> None:
    data = measure()
    print(render(data))
    if "--json" in sys.argv:
        print(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
