"""Mutation testing: plant one small bug at a time in serverless_rps/ and see whether a test notices.

    make mutants                      # every group, then the table below
    .venv/bin/python scripts/mutants.py --group core --module rules
    .venv/bin/python scripts/mutants.py --again   # after new tests: judge the survivors again

mutmut (https://github.com/boxed/mutmut) does the planting and the running. It copies the tree into
`mutants/`, rewrites every function so that one mutant at a time can be switched on, records which
tests reach which function, and for each mutant runs only those tests, fastest first, stopping at
the first failure. This script adds what mutmut does not:

- **Groups.** The pure core is judged by its own fast tests (tests/unit); the store and the
  processor (engine), and the edges and the operator's tool (edges), by the unit and protocol
  tests, which drive them against moto. Each group runs in its own scratch copy under
  `.mutants/<group>/` so that their mutmut configurations do not meet.
- **Two phases.** A fresh run first has mutmut generate the mutants and record which tests reach
  which function, running none (`mutmut run` given a name no mutant has), then runs by name every
  mutant not already listed as equivalent: a listed one would cost every test reaching its
  function and could only survive.
- **Equivalent mutants.** A mutant no test can kill because it does not change behaviour (a
  default no caller relies on, the wording of an error no path raises) is listed in
  scripts/mutants-equivalent.toml with why; the list matches the mutant's diff, not mutmut's
  numbering, which shifts as code moves.
- **A verdict.** A table per module (killed / equivalent / survived / score) on stdout, the
  survivors' diffs, and exit status 1 if a module in GOAL_MODULES has a survivor not listed.
- **Module-level constants**, which mutmut never mutates (scripts/constant_mutants.py): each word
  list, table, pattern and number is changed one way at a time and judged by the tests that run
  the code reading it, after mutmut's run or alone (`--constants`), with a table of its own.

It is not part of `make test`: a full run takes tens of minutes on two cores (docs/reliability.md
gives the numbers).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from constant_mutants import ConstantMutant, Judged, constant_mutants, run_constant_mutants

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / ".mutants"
EQUIVALENTS_FILE = ROOT / "scripts" / "mutants-equivalent.toml"

# A module is named by its path under serverless_rps/ without `.py`: "rules", "game_store/messages".
# The store, one module per record (serverless_rps/game_store/), and the operator's reads that left
# it for the operator's tool (admin/store_reads.py): judged together, as the one module was.
STORE_MODULES = (
    "game_store/store",
    "game_store/messages",
    "game_store/outboxes",
    "game_store/contacts",
    "game_store/game_state",
    "game_store/nicknames",
    "game_store/items",
    "game_store/errors",
    "game_store/tables",
    "game_store/delivery_status",
    "admin/store_reads",
)
# Modules that must end with no surviving non-equivalent mutant (issue: "a stronger proof").
# commands.py is the processor's table of commands (moved out of processing.py): judged with it.
# The deployed edges (the two Lambda handlers, the adapters to Twilio and SQS, the settings and the
# logs and metrics an operator reads) and the operator's tool, admin/ (its store reads stay above).
EDGE_MODULES = (
    "app",
    "bootstrap",
    "webhook",
    "status_callbacks",
    "sms_gateway",
    "message_queue",
    "config",
    "observability",
    "admin/cli",
    "admin/operations",
    "admin/dead_letters",
    "admin/campaign",
    "admin/locate",
    "admin/verify",
    "admin/delivery_display",
    "admin/errors",
)
GOAL_MODULES = (
    "rules",
    "normalisation",
    "parsing",
    "revocation",
    "replies",
    "model",
    "game",
    "processing",
    "commands",
    "outbox",
    *STORE_MODULES,
    *EDGE_MODULES,
)


@dataclass(frozen=True)
class Group:
    name: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    why: str


GROUPS = (
    Group(
        "core",
        ("rules", "normalisation", "parsing", "revocation", "replies", "reply_budget", "model", "game"),
        ("tests/unit",),
        "the pure core, decisions without I/O: judged by its unit tests alone",
    ),
    # model and game are the core's: judged there by tests/unit, a subset of the tests that judge
    # the engine, so a mutant the core kills the engine would kill too (the equivalents are
    # shared). Judging them twice cost an hour of the engine's run and proved nothing more.
    Group(
        "engine",
        (
            "processing",
            "commands",
            "outbox",
            *STORE_MODULES,
            "exceptions",
        ),
        ("tests/unit", "tests/protocol"),
        "the store and the processor: judged by the protocol tests on moto",
    ),
    Group(
        "edges",
        EDGE_MODULES,
        ("tests/unit", "tests/protocol"),
        "the handlers, the adapters, the settings, the logs and the operator's tool: judged by the"
        " unit tests and the protocol tests, which call each of them in-process",
    ),
)
# Not mutated: serverless_rps_local/ and __main__ (the local stack and the CLI that starts it, which
# are development tools with tests of their own). Not among the edges' tests: tests/local. Its tests
# run the operator's tool and the functions in other processes. A child process that inherits
# MUTANT_UNDER_TEST does run the mutant (`python -m serverless_rps.admin --help` fails under a
# mutant of cli._parser), but mutmut picks a mutant's tests from the calls it recorded in its own
# process, which never include a child's: it would never pick these tests. (The operator-tool
# tests also give their child an environment of its own, without MUTANT_UNDER_TEST.)

# Tests that inspect the repository rather than behaviour and cannot run inside mutmut's copy
# (function-code/ is a symbolic link into the package, which the copy does not keep; a mutated
# module is many times the length test_sizes allows).
IGNORED_TESTS = ("tests/unit/test_template.py", "tests/unit/test_sizes.py")

KILLED = {"killed", "caught by type check", "timeout"}
JUDGED_ALIVE = {"survived", "no tests", "suspicious"}


@dataclass
class Mutant:
    name: str
    module: str
    status: str
    diff: str = ""
    equivalent_because: str | None = None
    # A module-level constant's mutant: the constant's name stands for the function.
    constant: str | None = None

    @property
    def function(self) -> str:
        if self.constant is not None:
            return self.constant
        # mutmut names mutants x_<function>__mutmut_<n> and xǁ<Class>ǁ<method>__mutmut_<n>.
        local = re.sub(r"__mutmut_\d+$", "", self.name.split(".")[-1])
        if local.startswith("xǁ"):
            return local.removeprefix("xǁ").replace("ǁ", ".")
        return local.removeprefix("x_")


@dataclass
class Equivalent:
    module: str
    function: str
    removed: str
    added: str
    why: str
    # Another line of the diff (context), where the changed line stands more than once in the function.
    near: str = ""
    used: int = field(default=0)

    def matches(self, mutant: Mutant) -> bool:
        if (mutant.module, mutant.function) != (self.module, self.function):
            return False
        # A function's lines are indented; a module-level constant's first line is not.
        lines = [line for line in mutant.diff.splitlines() if not line.startswith(("---", "+++"))]
        removed = [line[1:].strip() for line in lines if line.startswith("-")]
        added = [line[1:].strip() for line in lines if line.startswith("+")]
        if self.near and self.near.strip() not in [line[1:].strip() for line in lines]:
            return False
        # An empty `added` stands for a mutant that only deletes the line.
        return self.removed.strip() in removed and (
            self.added.strip() in added if self.added.strip() else not added
        )


# DynamoDB expression keywords are case-insensitive ("Keywords are not case sensitive", DynamoDB
# Developer Guide, expressions); attribute names, placeholders and function names are not.
EXPRESSION_KEYWORDS = {"SET", "REMOVE", "ADD", "DELETE", "AND", "OR", "NOT", "IN", "BETWEEN"}


def only_keyword_case_changed(mutant: Mutant) -> bool:
    """A mutant that changes nothing but the case of DynamoDB expression keywords."""
    removed = [line[1:] for line in mutant.diff.splitlines() if line.startswith("-  ")]
    added = [line[1:] for line in mutant.diff.splitlines() if line.startswith("+  ")]
    if len(removed) != len(added) or not removed:
        return False
    for before, after in zip(removed, added, strict=True):
        words_before, words_after = re.findall(r"[A-Za-z_]+", before), re.findall(r"[A-Za-z_]+", after)
        if len(words_before) != len(words_after) or re.sub(r"[A-Za-z_]+", "", before) != re.sub(
            r"[A-Za-z_]+", "", after
        ):
            return False
        for old, new in zip(words_before, words_after, strict=True):
            if old != new and not (old.upper() == new.upper() and old.upper() in EXPRESSION_KEYWORDS):
                return False
    return removed != added


def load_equivalents() -> list[Equivalent]:
    with EQUIVALENTS_FILE.open("rb") as handle:
        entries = tomllib.load(handle).get("equivalent", [])
    return [
        Equivalent(e["module"], e["function"], e["removed"], e["added"], e["why"], e.get("near", ""))
        for e in entries
    ]


def working_tree_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (ROOT / name).exists()]


def prepare(group: Group, only: list[str]) -> Path:
    """A fresh copy of the working tree with this group's mutmut configuration."""
    where = SCRATCH / group.name
    shutil.rmtree(where, ignore_errors=True)
    for name in working_tree_files():
        source = ROOT / name
        if source.is_symlink() or source.is_dir():
            continue
        target = where / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    modules = only or list(group.modules)
    also_copy = sorted({name.split("/")[0] for name in working_tree_files()} - {"serverless_rps", "tests"})
    settings = {
        "source_paths": ["serverless_rps"],
        "only_mutate": [f"serverless_rps/{module}.py" for module in modules],
        "also_copy": also_copy,
        "pytest_add_cli_args_test_selection": list(group.tests),
        "pytest_add_cli_args": [f"--ignore={path}" for path in IGNORED_TESTS] + ["-p", "no:cacheprovider"],
    }
    lines = ["", "[tool.mutmut]"] + [f"{key} = {toml_list(value)}" for key, value in settings.items()]
    with (where / "pyproject.toml").open("a") as handle:
        handle.write("\n".join(lines) + "\n")
    return where


def refresh(group: Group, only: list[str]) -> Path:
    """Bring the working tree's changes into the group's existing copy, keeping mutmut's results.

    A changed module to mutate gets a newer modification time, so mutmut mutates it again (its
    functions' mutants lose their results); any other changed file is also updated inside
    mutmut's own copy, `mutants/`, which mutmut does not refresh by itself.
    """
    where = SCRATCH / group.name
    if not (where / "mutants").is_dir():
        raise SystemExit(f"nothing to run again: no earlier run of {group.name} in {where}")
    mutated = {f"serverless_rps/{module}.py" for module in (only or group.modules)}
    for name in working_tree_files():
        source = ROOT / name
        if source.is_symlink() or source.is_dir() or name == "pyproject.toml":
            continue
        target = where / name
        if target.exists() and target.read_bytes() == source.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        inner = where / "mutants" / name
        if name not in mutated:
            inner.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, inner)
    return where


def changed_modules(group: Group, only: list[str]) -> set[str]:
    """The modules to mutate whose code in the working tree differs from the group's copy."""
    return {
        module
        for module in (only or group.modules)
        if (ROOT / "serverless_rps" / f"{module}.py").read_bytes()
        != (SCRATCH / group.name / "serverless_rps" / f"{module}.py").read_bytes()
    }


def toml_list(values: list[str]) -> str:
    return (
        "[" + ", ".join('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' for value in values) + "]"
    )


def mutmut(where: Path, *args: str) -> str:
    command = [str(Path(sys.executable).parent / "mutmut"), *args]
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(command, cwd=where, env=environment, capture_output=True, text=True)
    failed_to_start = ("failed to collect stats", "Failed to run clean test", "Failed to run pytest")
    if result.returncode not in (0, 1) or any(text in result.stdout for text in failed_to_start):
        sys.stdout.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"mutmut {' '.join(args)} failed in {where} (exit {result.returncode})")
    return result.stdout


# A name no mutant has. Given only this, `mutmut run` generates the mutants and records which tests
# reach which function (its stats), then stops where it selects the mutants to run: mutmut 3.8.1
# asserts that a name it was given matches one, before its clean test run.
NO_MUTANT = "no-mutant-has-this-name"


def generate(where: Path, children: list[str]) -> None:
    """Have mutmut mutate the code and collect its stats, running no mutant."""
    command = [str(Path(sys.executable).parent / "mutmut"), "run", *children, NO_MUTANT]
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(command, cwd=where, env=environment, capture_output=True, text=True)
    stopped_as_expected = result.returncode == 1 and "but nothing matches" in result.stderr
    if not stopped_as_expected or not (where / "mutants" / "mutmut-stats.json").exists():
        sys.stdout.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"mutmut run {NO_MUTANT} did not stop after collecting its stats in {where}")


def run_named(where: Path, children: list[str], patterns: list[str]) -> None:
    """Run these mutants (names or fnmatch patterns), whatever their last result."""
    # One mutmut run per batch re-runs every test the batch reaches once, clean: few batches.
    for start in range(0, len(patterns), 3000):
        mutmut(where, "run", *children, *patterns[start : start + 3000])


def results(where: Path) -> list[Mutant]:
    mutants = []
    for line in mutmut(where, "results", "--all", "true").splitlines():
        # serverless_rps.game_store.messages.xǁMessageRecordsǁclaim__mutmut_1: the module's dotted path,
        # then the mangled function (x_<function> or xǁ<Class>ǁ<method>).
        match = re.match(r"\s*(serverless_rps\.([\w.]+?)\.x[_ǁ]\S+): (.+)$", line)
        if match:
            mutants.append(Mutant(match[1], match[2].replace(".", "/"), match[3].strip()))
    return mutants


# mutmut's own `show`, for many mutants in one process (one `mutmut show` each takes a second).
_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
names = json.load(sys.stdin)
diffs = {name: get_diff_for_mutant(name, path=f"serverless_rps/{module}.py") for name, module in names}
json.dump(diffs, sys.stdout)
"""


def read_diffs(where: Path, mutants: list[Mutant]) -> None:
    """Fill in each mutant's diff against the code it mutates."""
    if not mutants:
        return
    shown = subprocess.run(
        [sys.executable, "-c", _DIFFS],
        cwd=where,
        input=json.dumps([[m.name, m.module] for m in mutants]),
        capture_output=True,
        text=True,
        check=True,
    )
    diffs = json.loads(shown.stdout)
    for mutant in mutants:
        mutant.diff = diffs[mutant.name]


def run_group(
    group: Group,
    only: list[str],
    equivalents: list[Equivalent],
    *,
    again: bool,
    survivors_only: bool = False,
    report_only: bool = False,
) -> list[Mutant]:
    started = time.monotonic()
    children = ["--max-children", str(os.cpu_count() or 2)]
    where = SCRATCH / group.name
    if report_only:
        if not (where / "mutants").is_dir():
            raise SystemExit(f"nothing to report: no earlier run of {group.name} in {where}")
    elif again:
        where = SCRATCH / group.name
        if not (where / "mutants").is_dir():
            raise SystemExit(f"nothing to run again: no earlier run of {group.name} in {where}")
        # Every survivor, and every mutant an interrupted run did not reach. In a module whose
        # code changed since, every mutant of a function that had a survivor: mutmut mutates a
        # changed function anew and renumbers its mutants, so a survivor's name may be another's.
        # A survivor already judged equivalent is not run again: no test can kill it.
        earlier = [m for m in results(where) if m.module in (only or group.modules)]
        changed = changed_modules(group, only)
        survivors = [m for m in earlier if m.status in JUDGED_ALIVE]
        unjudged = [m for m in earlier if m.status not in KILLED | JUDGED_ALIVE and not survivors_only]
        read_diffs(where, [m for m in survivors + unjudged if m.module not in changed])
        # A mutant already judged equivalent is not run (again): the list says why no test can
        # kill it, and each costs every test that reaches its function (minutes in the engine).
        skipped = [m for m in survivors + unjudged if m.module not in changed and equivalence(m, equivalents)]
        survivors = [m for m in survivors if m not in skipped]
        functions = {m.name.rsplit("__mutmut_", 1)[0] for m in survivors if m.module in changed}
        names = {m.name for m in survivors if m.module not in changed}
        unjudged_names = {
            m.name for m in unjudged if m not in skipped and m.name.rsplit("__mutmut_", 1)[0] not in functions
        }
        refresh(group, only)
        print(
            f"[{group.name}] mutmut run again over {len(names)} survivors, every mutant of"
            f" {len(functions)} changed functions with survivors and {len(unjudged_names)} mutants not"
            f" run yet; {len(skipped)} judged equivalent are not run",
            flush=True,
        )
        patterns = sorted(f"{function}__mutmut_*" for function in functions) + sorted(names | unjudged_names)
        run_named(where, children, patterns)
    else:
        # Two phases, so that a fresh run does not pay for the mutants already judged equivalent:
        # mutmut generates every mutant and records which tests reach which function, running
        # none; then every mutant not listed as equivalent is run by name, as --again runs the
        # mutants an interrupted run did not reach.
        where = prepare(group, only)
        modules = ", ".join(only or group.modules)
        print(f"[{group.name}] mutmut generates the mutants of {modules} ...", flush=True)
        generate(where, children)
        fresh = [m for m in results(where) if m.module in (only or group.modules)]
        read_diffs(where, fresh)
        skipped = [m for m in fresh if equivalence(m, equivalents)]
        to_run = sorted(m.name for m in fresh if m not in skipped)
        print(
            f"[{group.name}] mutmut run over {len(to_run)} mutants;"
            f" {len(skipped)} judged equivalent are not run",
            flush=True,
        )
        run_named(where, children, to_run)
    print(f"[{group.name}] {time.monotonic() - started:.0f} s", flush=True)
    mutants = [m for m in results(where) if m.module in (only or group.modules)]
    alive = [m for m in mutants if m.status not in KILLED]  # survivors, and those not run
    read_diffs(where, alive)
    for mutant in alive:
        mutant.equivalent_because = equivalence(mutant, equivalents)
    return mutants


def equivalence(mutant: Mutant, equivalents: list[Equivalent]) -> str | None:
    """Why this surviving mutant cannot change behaviour, or None if nothing says it cannot."""
    if only_keyword_case_changed(mutant):
        return "DynamoDB expression keywords are case-insensitive"
    for equivalent in equivalents:
        if equivalent.matches(mutant):
            equivalent.used += 1
            return equivalent.why
    return None


CONSTANTS = SCRATCH / "constants"
CONSTANT_RESULTS = CONSTANTS / "results.json"


def run_constants(
    selected: list[tuple[Group, tuple[str, ...]]],
    equivalents: list[Equivalent],
    *,
    again: bool,
    report_only: bool,
) -> list[Mutant]:
    """The mutants of the selected modules' module-level constants (scripts/constant_mutants.py),
    each with its last verdict: all run afresh, or with --again those not killed last time, or
    none (--report). A mutant is known by its module, constant and change, not by a number."""
    earlier: dict[str, str] = json.loads(CONSTANT_RESULTS.read_text()) if CONSTANT_RESULTS.exists() else {}
    planted: list[tuple[Group, list[ConstantMutant]]] = [
        (group, [mutant for module in modules for mutant in constant_mutants(ROOT, module)])
        for group, modules in selected
    ]
    as_mutants = {
        planted_mutant.key: _constant_mutant(planted_mutant, earlier.get(planted_mutant.key, "not run"))
        for _, mutants in planted
        for planted_mutant in mutants
    }
    if not report_only:
        plan = [
            (
                group.tests,
                [
                    mutant
                    for mutant in mutants
                    if not equivalence(as_mutants[mutant.key], equivalents)
                    and not (again and earlier.get(mutant.key) in KILLED)
                ],
            )
            for group, mutants in planted
        ]
        judged: list[Judged] = run_constant_mutants(
            ROOT,
            CONSTANTS,
            working_tree_files(),
            plan,
            [f"--ignore={path}" for path in IGNORED_TESTS] + ["-p", "no:cacheprovider"],
            os.cpu_count() or 2,
            reuse=again,
            on_judged=lambda verdict: _keep(earlier, verdict),
        )
        for verdict in judged:
            as_mutants[verdict.mutant.key].status = verdict.status
    for equivalent in equivalents:
        equivalent.used = 0
    for mutant in as_mutants.values():
        if mutant.status not in KILLED:
            mutant.equivalent_because = equivalence(mutant, equivalents)
    return list(as_mutants.values())


def _keep(verdicts: dict[str, str], verdict: Judged) -> None:
    verdicts[verdict.mutant.key] = verdict.status
    CONSTANT_RESULTS.write_text(json.dumps(verdicts, indent=1, sort_keys=True))


def _constant_mutant(mutant: ConstantMutant, status: str) -> Mutant:
    original = (ROOT / "serverless_rps" / f"{mutant.module}.py").read_text()
    return Mutant(
        f"{mutant.module}:{mutant.constant} ({mutant.change})",
        mutant.module,
        status,
        mutant.diff(original),
        constant=mutant.constant,
    )


def report(mutants: list[Mutant], what: str = "functions (mutmut)") -> int:
    if not mutants:
        return 0
    print(f"\n### Mutants of {what}")
    by_module: dict[str, Counter[str]] = {}
    for mutant in mutants:
        counts = by_module.setdefault(mutant.module, Counter())
        counts["total"] += 1
        if mutant.status in KILLED:
            counts["killed"] += 1
        elif mutant.equivalent_because:
            counts["equivalent"] += 1
        elif mutant.status in JUDGED_ALIVE:
            counts["survived"] += 1
        else:
            counts["not run"] += 1  # an interrupted run: mutmut has no verdict yet
    print("\n| module | mutants | killed | equivalent | survived | not run | score |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for module, counts in sorted(by_module.items()):
        judged = counts["killed"] + counts["survived"]
        score = f"{100.0 * counts['killed'] / judged:.1f}%" if judged else "-"
        print(
            f"| {module} | {counts['total']} | {counts['killed']} | {counts['equivalent']} "
            f"| {counts['survived']} | {counts['not run']} | {score} |"
        )
    survivors = [m for m in mutants if m.status in JUDGED_ALIVE and not m.equivalent_because]
    for mutant in survivors:
        print(f"\n## {mutant.name} ({mutant.status}, in {mutant.function})\n{mutant.diff.strip()}")
    failing = [m for m in survivors if m.module in GOAL_MODULES]
    unjudged = [
        m
        for m in mutants
        if m.module in GOAL_MODULES and m.status not in KILLED | JUDGED_ALIVE and not m.equivalent_because
    ]
    if failing:
        print(f"\n{len(failing)} surviving mutant(s) in {', '.join(sorted({m.module for m in failing}))}")
    if unjudged:
        print(f"\n{len(unjudged)} mutant(s) in goal modules not run yet")
    return 1 if failing or unjudged else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--group", choices=[g.name for g in GROUPS], action="append")
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        help="only these modules (in one group): rules, game_store/messages, or game_store for all its parts",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="run nothing: report the last run's results (an interrupted run's mutants show as not run)",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="reuse the last run's copy: judge the survivors again (all of a changed function's mutants)",
    )
    parser.add_argument(
        "--survivors-only",
        action="store_true",
        help="with --again: leave the mutants an interrupted run did not reach for later",
    )
    parser.add_argument(
        "--constants",
        action="store_true",
        help="only the module-level constants (scripts/constant_mutants.py): no mutmut run",
    )
    options = parser.parse_args()
    equivalents = load_equivalents()
    mutants: list[Mutant] = []
    selected: list[tuple[Group, tuple[str, ...]]] = []
    for group in GROUPS:
        if options.group and group.name not in options.group:
            continue
        # A package's name selects its modules: --module game_store is every part of the store.
        only = [m for m in group.modules if any(m == o or m.startswith(o + "/") for o in options.module)]
        if options.module and not only:
            continue
        selected.append((group, tuple(only) or group.modules))
        if options.constants:
            continue
        mutants += run_group(
            group,
            only,
            equivalents,
            again=options.again,
            survivors_only=options.survivors_only,
            report_only=options.report,
        )
    for equivalent in equivalents:
        if equivalent.used == 0 and any(m.module == equivalent.module for m in mutants):
            print(f"note: no mutant matched an equivalent in {equivalent.module}: {equivalent.removed!r}")
    functions = report(mutants)
    constants = run_constants(selected, equivalents, again=options.again, report_only=options.report)
    return max(functions, report(constants, "module-level constants (scripts/constant_mutants.py)"))


if __name__ == "__main__":
    raise SystemExit(main())
