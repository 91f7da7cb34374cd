"""Builds one function's artifact: what `sam build` runs (function-code/Makefile, BuildMethod: makefile).

    python build_function.py ARTIFACTS_DIR

What goes in, and nothing else:

1. The runtime modules of `serverless_rps/`, compiled to bytecode for Python 3.13. Lambda's
   /var/task is read-only, so bytecode not shipped is compiled again on every cold start.
   Sub-packages (`game_store/`) go in; `__main__.py` (the local stack's command line) and
   `admin/` (the operator's tool, run with the operator's credentials) stay out, and the local
   stack, the simulator and the benchmarks live outside the package altogether
   (serverless_rps_local/, bench/).
2. The dependencies of requirements.txt for Lambda's arm64 Python 3.13, as pip resolves them,
   less the ones no function imports: twilio requires aiohttp and aiohttp-retry for its async
   HTTP client, which serverless-rps never uses (it sends with the synchronous, requests-based
   client), and aiohttp brings its own. The resolution is pip's, so versions are consistent; the
   exclusion is this file's `NEVER_IMPORTED`, and the build stops if anything but those packages
   (or twilio) requires one of them, so a new dependency cannot be silently broken.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLATFORM = ("--platform", "manylinux2014_aarch64", "--implementation", "cp", "--python-version", "3.13")
# twilio's async HTTP client (twilio.http.async_http_client) and everything only it pulls in.
NEVER_IMPORTED = frozenset(
    {
        "aiohttp",
        "aiohttp-retry",
        "aiohappyeyeballs",
        "aiosignal",
        "attrs",
        "frozenlist",
        "multidict",
        "propcache",
        "yarl",
    }
)
# Left out of the package: the local stack's command line, and the operator's tool (run on a
# laptop with the operator's credentials: its table scans never ship).
DEVELOPMENT_ONLY_MODULES = frozenset({"__main__.py"})
OPERATOR_ONLY_PACKAGES = frozenset({"admin"})


def shipped_modules(source: Path) -> list[Path]:
    """The package's modules that go into the artifact, relative to the package: its top-level
    modules but `__main__.py`, and its sub-packages (game_store/) but `admin/`."""
    shipped = []
    for module in sorted(source.rglob("*.py")):
        relative = module.relative_to(source)
        if len(relative.parts) == 1 and relative.name in DEVELOPMENT_ONLY_MODULES:
            continue
        if relative.parts[0] in OPERATOR_ONLY_PACKAGES:
            continue
        shipped.append(relative)
    return shipped


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip(*arguments: str) -> str:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", *arguments]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def resolve() -> dict[str, tuple[str, list[str]]]:
    """What pip would install for Lambda: name -> (version, the names it requires)."""
    report = json.loads(
        pip(
            "install",
            "--dry-run",
            "--quiet",
            "--ignore-installed",
            "--only-binary=:all:",
            *PLATFORM,
            "--report",
            "-",
            "-r",
            str(HERE / "requirements.txt"),
        )
    )
    resolved = {}
    for item in report["install"]:
        metadata = item["metadata"]
        requires = [
            canonical(re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0]) for r in metadata.get("requires_dist", [])
        ]
        resolved[canonical(metadata["name"])] = (metadata["version"], requires)
    return resolved


def runtime_requirements(resolved: dict[str, tuple[str, list[str]]]) -> list[str]:
    for name, (_, requires) in resolved.items():
        if name in NEVER_IMPORTED or name == "twilio":
            continue
        needed = NEVER_IMPORTED.intersection(requires)
        if needed and resolved.keys() & needed:
            raise SystemExit(f"build_function: {name} requires {sorted(needed)}, which the build leaves out")
    return sorted(
        f"{name}=={version}" for name, (version, _) in resolved.items() if name not in NEVER_IMPORTED
    )


# The AWS SDK gets bytecode throughout: botocore imports much of itself lazily, per request.
AWS_SDK = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py", "urllib3")

# Both handlers' cold start without a network: settings from the environment, clients built, an
# empty SQS batch handled, an unsigned webhook request refused.
_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import serverless_rps.app, serverless_rps.webhook

class Context:
    function_name, memory_limit_in_mb, aws_request_id = "probe", 256, "probe"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:probe"

assert serverless_rps.app.lambda_handler({"Records": []}, Context()) == {"batchItemFailures": []}
assert serverless_rps.webhook.lambda_handler({"headers": {}, "body": ""}, Context())["statusCode"] >= 400
print("\\n".join(m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)))
"""
_PROBE_ENVIRONMENT = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "probe",
    "AWS_SECRET_ACCESS_KEY": "probe",
    "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
    "GAME_STATE_TABLE": "probe",
    "NICKNAME_TABLE": "probe",
    "IDEMPOTENCY_TABLE": "probe",
    "INCOMING_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/probe",
    "DEAD_LETTER_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/probe",
    "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
    "TWILIO_AUTH_TOKEN": "probe",
    "PUBLIC_WEBHOOK_URL": "https://example.invalid/sms",
}


def imported_at_cold_start(artifacts: Path) -> set[Path]:
    """The artifact's modules a cold start of each function loads, tracing on (the most it loads)."""
    environment = {**_PROBE_ENVIRONMENT, "LAMBDA_TASK_ROOT": str(artifacts)}
    probe = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", _PROBE, str(artifacts)],
        env=environment,
        check=False,
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        raise SystemExit(f"build_function: the handlers do not start from the artifact:\n{probe.stderr}")
    loaded = probe.stdout.split()
    return {Path(name).resolve() for name in loaded if Path(name).suffix == ".py"}


def compile_bytecode(artifacts: Path) -> int:
    """Bytecode for python3.13 of the modules a cold start loads, and of all of the AWS SDK.

    Lambda's /var/task is read-only: a module shipped without bytecode is compiled again at every
    cold start that imports it. The others need none: the Twilio SDK is some 1,500 modules of REST
    bindings of which the functions load a few dozen, Powertools has utilities the functions never
    use, and their bytecode would double the package for nothing.

    Unchecked hashes: a zip keeps modification times to 2 s, so a timestamp check could find a
    .pyc stale and compile the module again at each cold start.
    """
    imported = imported_at_cold_start(artifacts)
    compiled = 0
    for module in sorted(artifacts.rglob("*.py")):
        relative = module.relative_to(artifacts)
        if relative.parts[0] not in AWS_SDK and module.resolve() not in imported:
            continue
        py_compile.compile(
            str(module), doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
        )
        compiled += 1
    return compiled


def install_dependencies(target: Path) -> int:
    """pip's resolution for Lambda, downloaded and installed into `target`; how many distributions."""
    print("build_function: resolving and downloading requirements.txt for arm64 Python 3.13 ...", flush=True)
    pinned = runtime_requirements(resolve())
    pip(
        "install",
        "--quiet",
        "--no-deps",
        "--no-compile",
        "--only-binary=:all:",
        *PLATFORM,
        "--target",
        str(target),
        *pinned,
    )
    shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts: nothing runs them
    return len(pinned)


# `sam build --cached` cannot reuse a makefile build's dependencies: for a python runtime it takes
# its incremental strategy, which expects the dependencies where its own pip builder puts them, finds
# none, and runs the whole makefile again. So the Makefile names a directory (`make build` keeps it
# in .aws-sam/) where the dependencies are kept, by a hash of what decides them.
DEPENDENCY_CACHE_VARIABLE = "FUNCTION_DEPENDENCY_CACHE"
_DISTRIBUTIONS_FILE = ".distributions"


def dependency_key() -> str:
    """What the installed dependencies depend on: requirements.txt and this file (the platform,
    what it leaves out, how it installs). pip's resolution of the same ranges is then reused, as
    samconfig.toml's `cached = true` promises, until requirements.txt changes."""
    digest = hashlib.sha256()
    for source in (HERE / "requirements.txt", Path(__file__)):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def cached_dependencies(cache: Path) -> tuple[Path, int, bool]:
    """The dependencies for this key, installed once into the cache: (where, how many, reused).
    Both functions build in parallel: the second waits for the first and reuses its download."""
    cache.mkdir(parents=True, exist_ok=True)
    kept = cache / dependency_key()
    with (cache / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        reused = kept.is_dir()
        if not reused:
            partial = cache / f"{kept.name}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            count = install_dependencies(partial)
            (partial / _DISTRIBUTIONS_FILE).write_text(str(count))
            for stale in cache.iterdir():  # only the newest key is worth keeping
                if stale.is_dir() and stale != partial:
                    shutil.rmtree(stale)
            partial.rename(kept)
    return kept, int((kept / _DISTRIBUTIONS_FILE).read_text()), reused


def main(artifacts: Path) -> None:
    artifacts.mkdir(parents=True, exist_ok=True)
    cache = os.environ.get(DEPENDENCY_CACHE_VARIABLE)
    if cache:
        kept, distributions, reused = cached_dependencies(Path(cache))
        if reused:
            print(f"build_function: dependencies reused from {kept} (same requirements.txt)", flush=True)
        shutil.copytree(
            kept, artifacts, dirs_exist_ok=True, ignore=shutil.ignore_patterns(_DISTRIBUTIONS_FILE)
        )
    else:
        distributions = install_dependencies(artifacts)
    package = artifacts / "serverless_rps"
    shutil.rmtree(package, ignore_errors=True)
    package.mkdir()
    for module in shipped_modules(HERE / "serverless_rps"):
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / "serverless_rps" / module, package / module)
    compiled = compile_bytecode(artifacts)
    print(f"build_function: {distributions} distributions and serverless_rps ({compiled} modules compiled)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]))
