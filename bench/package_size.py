"""Deployment size: the built artifact of each function, zipped, and what dominates it.

Run: `python -m bench.package_size`. With the SAM CLI at .venv-sam/bin/sam (scripts/sam-venv.sh
installs it) this runs `sam build` (arm64 wheels, as the template declares) into a temporary
directory. Without it, it pip-installs requirements.txt (for the local platform, so sizes of
compiled wheels differ slightly) plus the package into a temporary directory, and says so.
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
    """PATH with a real python3.13 first: `sam build` looks the runtime's interpreter up by name."""
    candidates = (
        sorted(Path("/root/.pyenv/versions").glob("3.13*/bin")) if Path("/root/.pyenv").exists() else []
    )
    return os.pathsep.join([str(path) for path in candidates[-1:]] + [os.environ.get("PATH", "")])


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


def _build_with_pip(workdir: Path) -> tuple[dict[str, Path], str]:
    target = workdir / "package"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--target",
            str(target),
            "-r",
            str(ROOT / "requirements.txt"),
        ],
        check=True,
        capture_output=True,
        timeout=1200,
    )
    shutil.copytree(
        ROOT / "serverless_rps", target / "serverless_rps", ignore=shutil.ignore_patterns("__pycache__")
    )
    return {"GameFunction and WebhookFunction (same CodeUri)": target}, (
        "pip install -r requirements.txt + the package into a temporary directory (no SAM CLI found; "
        "local-platform wheels)"
    )


def measure() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rps-size-") as directory:
        workdir = Path(directory)
        try:
            functions, method = _build_with_sam(workdir) if SAM.exists() else _build_with_pip(workdir)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            detail = getattr(exc, "stderr", "") or ""
            functions, method = _build_with_pip(workdir)
            method += f" (sam build failed: {str(detail).strip().splitlines()[-1:] or exc})"
        results = {}
        for name, path in sorted(functions.items()):
            zipped = _zip_size(path, workdir / f"{name}.zip")
            results[name] = {
                "zip_mb": zipped / 1e6,
                "unzipped_mb": _tree_size(path) / 1e6,
                "largest_unzipped_mb": _top_entries(path),
                "package_itself_mb": _tree_size(path / "serverless_rps") / 1e6,
            }
    return {"method": method, "functions": results}


def render(data: dict[str, Any]) -> str:
    lines = [
        f"Built with: {data['method']}",
        "",
        "| function | zip MB | unzipped MB | serverless_rps itself MB |",
    ]
    lines.append("|---|---|---|---|")
    for name, result in data["functions"].items():
        lines.append(
            f"| {name} | {result['zip_mb']:.1f} | {result['unzipped_mb']:.1f} "
            f"| {result['package_itself_mb']:.2f} |"
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
