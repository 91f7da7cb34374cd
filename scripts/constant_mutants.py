"""Mutants of module-level constants: the word lists, patterns, tables and numbers mutmut never changes.

mutmut 3 plants its mutants inside functions only (each function is rewritten to switch one on),
so a frozenset of error codes, a compiled pattern or a limit at module level is never mutated, and
"none surviving" says nothing about them. scripts/mutants.py runs this after mutmut, or alone
(`--constants`). Each constant's value is changed one way at a time:

- a number: n + 1 (as mutmut changes one in a function);
- a string: "XX" + s + "XX" (likewise); the pattern given to `re.compile` instead: each bound of a
  `{m,n}` one up and (above 0) one down, a `^` or `$` dropped, `[0-9]` widened to `\\d`;
- a tuple, list, set or dict: each element (each key) left out in turn; a frozenset of a string's
  characters: each character left out; a dict's value changed as above, or, when it is an enum
  member (`TwilioFailure.REFUSED`), swapped for the next other member the same dict uses.

An element of a collection is only left out, not changed as well: a changed word is a word left
out (and another put in that nothing looks for). A constant made from others (a comprehension,
`A + "x"`) is not mutated apart from its own literals: its sources are.

Which tests judge a mutant: those that ran a line reading the constant (where it is defined, where
it is imported, or through a constant made from it), recorded once per run by the pytest plugin
below (`-p scripts.constant_mutants`), run fastest first, stopping at the first failure: a line, not
a function, so that a table read only on an error path is judged by the tests of that path. A
constant no recorded line reads is judged by every test of its group. A mutant fails the tests
(killed), or crashes them (killed too: a pattern that no longer compiles fails every import), or
passes them all (survived).
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ConstantMutant",
    "Reach",
    "constant_mutants",
    "pytest_addoption",
    "pytest_configure",
    "readers",
    "record_reach",
    "run_constant_mutants",
]

PACKAGE = "serverless_rps"
# A mutant's tests are stopped after this long: a changed number that makes a test wait forever
# is caught (killed), not waited for.
_MUTANT_TIMEOUT_SECONDS = 900


@dataclass(frozen=True)
class ConstantMutant:
    module: str  # its path under serverless_rps/ without .py: "game_store/errors"
    constant: str
    change: str  # what was changed, in words: `left out "AccessDenied"`
    source: str  # the whole module, with the change

    @property
    def key(self) -> str:
        return f"{self.module}:{self.constant}:{self.change}"

    def diff(self, original: str) -> str:
        path = f"{PACKAGE}/{self.module}.py"
        return "".join(
            difflib.unified_diff(
                original.splitlines(keepends=True), self.source.splitlines(keepends=True), path, path, n=1
            )
        )


# -- planting ----------------------------------------------------------------------------------------


class _Source:
    """A module's text, addressed as ast addresses it: lines from 1, columns in UTF-8 bytes."""

    def __init__(self, text: str) -> None:
        self.data = text.encode()
        self._starts = [0]
        for line in self.data.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(line))

    def offset(self, line: int, column: int) -> int:
        return self._starts[line - 1] + column

    def span(self, node: ast.expr) -> tuple[int, int]:
        assert node.end_lineno is not None
        assert node.end_col_offset is not None
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def replaced(self, start: int, end: int, text: str) -> str:
        return (self.data[:start] + text.encode() + self.data[end:]).decode()


def _assignments(tree: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id, node.value
                elif (
                    isinstance(target, ast.Tuple)
                    and isinstance(node.value, ast.Tuple)
                    and len(target.elts) == len(node.value.elts)
                ):
                    # `DONE, FAILED, USAGE = 0, 1, 2`: three constants.
                    for name, value in zip(target.elts, node.value.elts, strict=True):
                        if isinstance(name, ast.Name):
                            yield name.id, value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            yield node.target.id, node.value


def _is_type_alias(value: ast.expr) -> bool:
    """`A | B`, `Callable[...]`, a bare name: a type, not data."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        return _is_type_alias(value.left) and _is_type_alias(value.right)
    return isinstance(value, ast.Subscript | ast.Name | ast.Attribute)


def _string(node: ast.expr | None) -> ast.Constant | None:
    return node if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


_QUANTIFIER = re.compile(r"\{(\d+)(?:,(\d*))?\}")


def _pattern_changes(pattern: str) -> Iterator[tuple[str, str]]:
    """Each mutant of a regular expression's text, with what it changes."""
    for match in _QUANTIFIER.finditer(pattern):
        low, high = match[1], match[2]
        bounds = [(match.start(1), match.end(1), low)]
        if high:
            bounds.append((match.start(2), match.end(2), high))
        for start, end, number in bounds:
            for changed in (int(number) + 1, int(number) - 1):
                if changed >= 0:
                    yield (
                        pattern[:start] + str(changed) + pattern[end:],
                        f"{number} -> {changed} in {match[0]}",
                    )
    for anchor in ("^", "$"):
        if anchor in pattern:
            yield pattern.replace(anchor, "", 1), f"dropped {anchor}"
    if "[0-9]" in pattern:
        yield pattern.replace("[0-9]", r"\d", 1), r"[0-9] -> \d"


class _Planter:
    def __init__(self, module: str, text: str) -> None:
        self.module = module
        self.text = text
        self.source = _Source(text)
        self.mutants: list[ConstantMutant] = []

    def add(self, constant: str, change: str, start: int, end: int, replacement: str) -> None:
        mutated = self.source.replaced(start, end, replacement)
        if mutated == self.text:
            return
        # A change that reads like an earlier one of the same constant (`60 -> 61` twice in
        # 24 * 60 * 60) is told apart by its place, so that each mutant keeps a verdict of its own.
        same = sum(
            1
            for mutant in self.mutants
            if (mutant.constant, mutant.change.split(" #")[0]) == (constant, change)
        )
        if same:
            change = f"{change} #{same + 1}"
        self.mutants.append(ConstantMutant(self.module, constant, change, mutated))

    def literal(self, constant: str, node: ast.Constant, where: str = "") -> None:
        """A number or a string where it stands alone (not an element of a collection); `where`
        names its place in the constant (a dict's key)."""
        start, end = self.source.span(node)
        value = node.value
        if isinstance(value, int | float) and not isinstance(value, bool):
            self.add(constant, f"{where}{value!r} -> {value + 1!r}", start, end, repr(value + 1))
        elif isinstance(value, str):
            self.add(constant, f"{where}{_short(value)!r} -> XX...XX", start, end, repr("XX" + value + "XX"))

    def value(self, constant: str, node: ast.expr) -> None:
        if isinstance(node, ast.Constant):
            self.literal(constant, node)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            self.leave_out(constant, node, node.elts)
        elif isinstance(node, ast.Dict):
            self.dictionary(constant, node)
        elif isinstance(node, ast.Call):
            called, first = ast.unparse(node.func), _string(node.args[0] if node.args else None)
            if called == "re.compile" and first is not None:
                self.pattern(constant, first, str(first.value))
            elif called == "frozenset" and first is not None:
                self.characters(constant, first, str(first.value))
            else:
                for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
                    self.value(constant, argument)
        elif isinstance(node, ast.BinOp):
            self.value(constant, node.left)
            self.value(constant, node.right)
        elif isinstance(node, ast.Subscript):
            self.value(constant, node.value)
            self.value(constant, node.slice)
        elif isinstance(node, ast.Attribute):
            self.value(constant, node.value)

    def leave_out(self, constant: str, collection: ast.expr, items: list[ast.expr]) -> None:
        """Each item (an element, or a dict's key standing for its entry) left out in turn: from its
        start to the next one's, or the last one's to the closing bracket, so that its comma, its
        parentheses and its comment go with it."""
        starts = [self._line_start(self.source.span(item)[0]) for item in items]
        end = self.source.span(collection)[1]
        if self.source.data[end - 1 : end] in (b")", b"]", b"}"):
            end = self._line_start(end - 1)
        for item, start, following in zip(items, starts, [*starts[1:], end], strict=True):
            self.add(constant, f"left out {_short(ast.unparse(item))}", start, following, "")

    def _line_start(self, offset: int) -> int:
        """Where the line of `offset` starts, if only its indentation stands before it: an item on a
        line of its own goes with its line."""
        line_start = self.source.data.rfind(b"\n", 0, offset) + 1
        return line_start if not self.source.data[line_start:offset].strip() else offset

    def dictionary(self, constant: str, node: ast.Dict) -> None:
        members = [value for value in node.values if isinstance(value, ast.Attribute)]
        others = list(dict.fromkeys(ast.unparse(member) for member in members))
        keys = [key for key in node.keys if key is not None]  # None: a ** unpacking, kept
        if len(keys) == len(node.keys):
            self.leave_out(constant, node, keys)
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                continue
            if isinstance(value, ast.Attribute) and len(others) > 1:
                written = ast.unparse(value)
                swapped = others[(others.index(written) + 1) % len(others)]
                start, end = self.source.span(value)
                self.add(constant, f"{_short(ast.unparse(key))}: {written} -> {swapped}", start, end, swapped)
            elif isinstance(value, ast.Constant):
                self.literal(constant, value, f"{_short(ast.unparse(key))}: ")
            else:
                self.value(constant, value)

    def pattern(self, constant: str, node: ast.Constant, pattern: str) -> None:
        start, end = self.source.span(node)
        for changed, change in _pattern_changes(pattern):
            self.add(constant, f"pattern {change}", start, end, "r" + _raw(changed))

    def characters(self, constant: str, node: ast.Constant, characters: str) -> None:
        start, end = self.source.span(node)
        for character in dict.fromkeys(characters):
            self.add(constant, f"left out {character!r}", start, end, repr(characters.replace(character, "")))


def _raw(pattern: str) -> str:
    """A raw string literal of `pattern` (one no regular expression here ends with a backslash)."""
    quote = '"' if '"' not in pattern else "'"
    return quote + pattern + quote


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def constant_mutants(root: Path, module: str) -> list[ConstantMutant]:
    """Every mutant of `module`'s module-level constants (`__all__` and type aliases left alone)."""
    text = (root / PACKAGE / f"{module}.py").read_text()
    planter = _Planter(module, text)
    for name, value in _assignments(ast.parse(text)):
        if name == "__all__" or _is_type_alias(value):
            continue
        if isinstance(value, ast.SetComp | ast.ListComp | ast.DictComp | ast.GeneratorExp):
            continue
        if isinstance(value, ast.Call) and any(isinstance(arg, ast.GeneratorExp) for arg in value.args):
            continue  # made from other constants (frozenset(... for ...)): they are mutated
        planter.value(name, value)
    return planter.mutants


# -- which code reads a constant --------------------------------------------------------------------

# A line of code, as the recorder and the reader search both name it: its file under the
# repository and its number.
Place = tuple[str, int]


def _names(node: ast.AST) -> set[str]:
    found = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            found.add(inner.attr)
    return found


def _reading(node: ast.AST, name: str) -> set[int]:
    """The lines within `node` that name `name`."""
    return {
        inner.lineno
        for inner in ast.walk(node)
        if (isinstance(inner, ast.Name) and inner.id == name)
        or (isinstance(inner, ast.Attribute) and inner.attr == name)
    }


def _body_lines(node: ast.AST) -> set[int]:
    """Every line a statement of the functions within `node` starts on."""
    return {
        statement.lineno
        for function in ast.walk(node)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for statement in ast.walk(function)
        if isinstance(statement, ast.stmt) and statement is not function
    }


def readers(root: Path, module: str, constant: str) -> set[Place]:
    """The lines of serverless_rps/ that read `constant` of `module`: where it is defined or imported
    by name, and through every module-level constant made from it. A value taken at import (a
    default argument, a class attribute such as a dataclass default) is read wherever its function
    or class runs: every line of it."""
    trees = {
        path.relative_to(root).as_posix(): ast.parse(path.read_text())
        for path in sorted((root / PACKAGE).rglob("*.py"))
    }
    home = f"{PACKAGE}/{module}.py"
    found: set[Place] = set()
    wanted = [(home, constant)]
    seen: set[tuple[str, str]] = set()
    while wanted:
        origin, name = wanted.pop()
        if (origin, name) in seen:
            continue
        seen.add((origin, name))
        for path, tree in trees.items():
            imported = any(
                isinstance(node, ast.ImportFrom) and any(alias.name == name for alias in node.names)
                for node in ast.walk(tree)
            )
            if path != origin and not imported and name not in _attributes(tree):
                continue
            for node in tree.body:
                if name not in _names(node):
                    continue
                if isinstance(node, ast.Assign | ast.AnnAssign):
                    # A constant made from this one: whatever reads it reads this one too.
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    wanted += [(path, target.id) for target in targets if isinstance(target, ast.Name)]
                    continue
                found |= {(path, line) for line in _reading_at_run_time(node, name)}
    return found


def _reading_at_run_time(node: ast.stmt, name: str) -> set[int]:
    """The lines of a module-level function or class whose running reads `name`."""
    if isinstance(node, ast.ClassDef):
        at_import = [
            statement
            for statement in node.body
            if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and name in _names(statement)
        ]
        decorated = any(name in _names(decorator) for decorator in node.decorator_list)
        lines = _body_lines(node) if at_import or decorated else set()
        for method in node.body:
            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                lines |= _reading_at_run_time(method, name)
        return lines
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        defaults = [*node.args.defaults, *(value for value in node.args.kw_defaults if value is not None)]
        if any(name in _names(value) for value in [*defaults, *node.decorator_list]):
            return _body_lines(node)
    return _reading(node, name)


def _attributes(tree: ast.Module) -> set[str]:
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}


# -- the pytest plugin: which test runs which line -------------------------------------------------

_TOOL = 4  # a sys.monitoring tool id no debugger, coverage or profiler claims


class Reach:
    """Records, for each test, the lines of serverless_rps/ it ran (set-up and tear-down included),
    and how long it took: each line once per test, then its event is disabled until the next."""

    def __init__(self, root: Path, output: Path) -> None:
        self._package = str(root / PACKAGE) + os.sep
        self._root = str(root) + os.sep
        self._output = output
        self._current: set[Place] | None = None
        self.reached: dict[str, list[Place]] = {}
        self.seconds: dict[str, float] = {}

    def _line(self, code: Any, line: int) -> Any:
        if self._current is not None and code.co_filename.startswith(self._package):
            self._current.add((code.co_filename.removeprefix(self._root), line))
        return sys.monitoring.DISABLE

    def pytest_sessionstart(self) -> None:
        sys.monitoring.use_tool_id(_TOOL, "constant mutants: reach")
        sys.monitoring.register_callback(_TOOL, sys.monitoring.events.LINE, self._line)
        sys.monitoring.set_events(_TOOL, sys.monitoring.events.LINE)

    def pytest_runtest_protocol(self, item: Any) -> None:
        sys.monitoring.restart_events()
        self._current = set()
        self._started_at = time.perf_counter()

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        if self._current is not None:
            self.reached[nodeid] = sorted(self._current)
            self.seconds[nodeid] = time.perf_counter() - self._started_at
        self._current = None

    def pytest_sessionfinish(self) -> None:
        sys.monitoring.set_events(_TOOL, 0)
        sys.monitoring.free_tool_id(_TOOL)
        self._output.write_text(json.dumps({"reached": self.reached, "seconds": self.seconds}))


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--reach-record", help="where to write which test ran which line (JSON)")


def pytest_configure(config: Any) -> None:
    output = config.getoption("--reach-record")
    if output:
        config.pluginmanager.register(Reach(config.rootpath, Path(output)), "constant-mutants-reach")


# -- running ----------------------------------------------------------------------------------------


@dataclass
class Judged:
    mutant: ConstantMutant
    status: str  # killed, survived, no tests, timeout
    tests: int = 0
    seconds: float = 0.0
    failed: list[str] = field(default_factory=list)


def record_reach(copy: Path, tests: list[str], pytest_arguments: list[str]) -> dict[str, Any]:
    """Run the tests (paths or test ids) once, unmutated, recording which lines each one runs."""
    output, arguments = copy / ".reach.json", copy / ".reach-tests"
    arguments.write_text("\n".join(tests) + "\n")
    command = [sys.executable, "-m", "pytest", f"@{arguments}", *pytest_arguments, "-q"]
    command += ["-p", "scripts.constant_mutants", f"--reach-record={output}"]
    result = subprocess.run(command, cwd=copy, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stdout.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"the unmutated tests failed in {copy}: fix them before judging mutants")
    recorded: dict[str, Any] = json.loads(output.read_text())
    return recorded


def _collected(copy: Path, tests: tuple[str, ...], pytest_arguments: list[str]) -> list[str]:
    command = [sys.executable, "-m", "pytest", *tests, *pytest_arguments, "--collect-only", "-q"]
    result = subprocess.run(command, cwd=copy, capture_output=True, text=True, check=True)
    return [line for line in result.stdout.splitlines() if "::" in line]


def _reach(
    copy: Path, saved: Path, tests: tuple[str, ...], pytest_arguments: list[str], reuse: bool, log: Any
) -> dict[str, Any]:
    """Which test runs which line: recorded afresh, or (`reuse`) as saved by the last run, with
    the tests it did not know recorded now (a test changed since keeps its old record)."""
    started = time.monotonic()
    reach: dict[str, Any] = json.loads(saved.read_text()) if reuse and saved.exists() else {}
    if reach.get("by") == "line":
        collected = _collected(copy, tests, pytest_arguments)
        # A test since removed is forgotten: named to pytest, it would fail the mutant's run.
        reach = {
            part: {test: reach[part][test] for test in collected if test in reach[part]}
            for part in ("reached", "seconds")
        }
        new = [test for test in collected if test not in reach["reached"]]
        log(f"[constants] {len(new)} tests not recorded yet ...")
        if new:
            more = record_reach(copy, new, pytest_arguments)
            reach = {part: {**reach[part], **more[part]} for part in ("reached", "seconds")}
    else:
        log(f"[constants] recording which tests run which lines ({', '.join(tests)}) ...")
        reach = record_reach(copy, list(tests), pytest_arguments)
    saved.write_text(json.dumps({**reach, "by": "line"}))
    log(f"[constants] {len(reach['reached'])} tests recorded ({time.monotonic() - started:.0f} s)")
    return reach


def _selected(reach: dict[str, Any], places: set[Place], tests: tuple[str, ...]) -> list[str]:
    chosen = [
        nodeid
        for nodeid, reached in reach["reached"].items()
        if nodeid.startswith(tests) and any(tuple(place) in places for place in reached)
    ]
    if not chosen:
        # Read by no line a test runs (a dataclass default, read by generated code): every test.
        chosen = [nodeid for nodeid in reach["reached"] if nodeid.startswith(tests)]
    return sorted(chosen, key=lambda nodeid: reach["seconds"][nodeid])


def _judge(copy: Path, mutant: ConstantMutant, nodeids: list[str], pytest_arguments: list[str]) -> Judged:
    path = copy / PACKAGE / f"{mutant.module}.py"
    original = path.read_text()
    arguments = copy / ".mutant-tests"
    arguments.write_text("\n".join(nodeids) + "\n")
    started = time.monotonic()
    try:
        path.write_text(mutant.source)
        command = [sys.executable, "-m", "pytest", f"@{arguments}", *pytest_arguments, "-x", "-q"]
        environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        result = subprocess.run(
            command,
            cwd=copy,
            env=environment,
            capture_output=True,
            text=True,
            timeout=_MUTANT_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return Judged(mutant, "timeout", len(nodeids), time.monotonic() - started)
    finally:
        path.write_text(original)
    seconds = time.monotonic() - started
    if result.returncode == 0:
        return Judged(mutant, "survived", len(nodeids), seconds)
    if result.returncode == 5:
        return Judged(mutant, "no tests", 0, seconds)
    failed = [
        line.split(" ", 1)[1].split(" - ")[0]
        for line in result.stdout.splitlines()
        if line.startswith(("FAILED ", "ERROR "))
    ]
    return Judged(mutant, "killed", len(nodeids), seconds, failed)


def copy_tree(files: list[str], root: Path, where: Path) -> Path:
    shutil.rmtree(where, ignore_errors=True)
    for name in files:
        source = root / name
        if source.is_symlink() or source.is_dir():
            continue
        target = where / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return where


def run_constant_mutants(
    root: Path,
    scratch: Path,
    files: list[str],
    plan: list[tuple[tuple[str, ...], list[ConstantMutant]]],
    pytest_arguments: list[str],
    workers: int,
    *,
    reuse: bool = False,
    on_judged: Callable[[Judged], None] = lambda judged: None,
    log: Any = print,
) -> list[Judged]:
    """Judge each group's mutants (its tests, its mutants) in `workers` copies of the tree; with
    `reuse`, which test runs which line is the last run's, for the tests it knew. `on_judged` hears
    of each verdict as it comes (one at a time), so that an interrupted run keeps what it judged."""
    started = time.monotonic()
    copies = [copy_tree(files, root, scratch / f"copy-{number}") for number in range(workers)]
    every_test = tuple(sorted({test for tests, _ in plan for test in tests}))
    reach = _reach(copies[0], scratch / "reach.json", every_test, pytest_arguments, reuse, log)
    jobs: list[tuple[ConstantMutant, list[str]]] = []
    places: dict[tuple[str, str], set[Place]] = {}
    for tests, mutants in plan:
        for mutant in mutants:
            key = (mutant.module, mutant.constant)
            if key not in places:
                places[key] = readers(root, mutant.module, mutant.constant)
            jobs.append((mutant, _selected(reach, places[key], tests)))
    log(f"[constants] {len(jobs)} mutants of {len(places)} constants, on {workers} copies ...")
    free = list(copies)
    reporting = threading.Lock()

    def judge(job: tuple[ConstantMutant, list[str]]) -> Judged:
        copy = free.pop()
        try:
            judged = _judge(copy, job[0], job[1], pytest_arguments)
        finally:
            free.append(copy)
        with reporting:
            on_judged(judged)
        return judged

    with ThreadPoolExecutor(max_workers=workers) as pool:
        judged = list(pool.map(judge, jobs))
    log(f"[constants] {time.monotonic() - started:.0f} s")
    return judged
