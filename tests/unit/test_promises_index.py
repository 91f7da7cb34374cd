"""docs/promises.md names the tests that prove each promise: every test it names must exist.

A reference is inline code. `tests/...` names a file or a folder; `tests/....py::name` a test
function or class in that file (`Class::name` for a method), and `::name[id]` one case of a
parametrised test; `::name` alone is in the file named last before it. Other inline code is not a
reference.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROMISES = ROOT / "docs" / "promises.md"
HERE = "tests/unit/test_promises_index.py"

INLINE_CODE = re.compile(r"`([^`]+)`")
REFERENCE = re.compile(r"(?P<path>tests/[\w./-]*)?(?:::(?P<name>\w+(?:::\w+)?)(?:\[(?P<case>[^\]\s]+)\])?)?")


@dataclass(frozen=True)
class Reference:
    line: int
    path: str
    name: str = ""  # a test function or class, "Class::method" for a method; "" for a whole file or folder
    case: str = ""  # the id of one case of a parametrised test

    def __str__(self) -> str:
        name = f"::{self.name}" if self.name else ""
        case = f"[{self.case}]" if self.case else ""
        return f"{self.path}{name}{case}"


def references(markdown: str) -> list[Reference]:
    """Every test reference in the text, in reading order."""
    found: list[Reference] = []
    last_file = ""
    for span in INLINE_CODE.finditer(markdown):
        code = span[1]
        if not code.startswith(("tests/", "::")):
            continue
        line = markdown.count("\n", 0, span.start()) + 1
        match = REFERENCE.fullmatch(code)
        if match is None:
            raise ValueError(f"line {line}: `{code}` is not a test reference")
        path = match["path"] or last_file
        if not path:
            raise ValueError(f"line {line}: `{code}` follows no file")
        last_file = path
        found.append(Reference(line, path, match["name"] or "", match["case"] or ""))
    return found


def collectable_names(source: str) -> set[str]:
    """What pytest collects by name in a test module: `test*` functions, `Test*` classes and their
    `test*` methods (as "Class::method")."""

    def test_functions(body: list[ast.stmt]) -> list[str]:
        functions = (node for node in body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))
        return [function.name for function in functions if function.name.startswith("test")]

    module = ast.parse(source).body
    names = set(test_functions(module))
    for node in module:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {node.name} | {f"{node.name}::{method}" for method in test_functions(node.body)}
    return names


@functools.cache
def collected_ids(session: pytest.Session, path: str) -> set[str]:
    """The node ids pytest gives the tests of one module, parametrised cases included."""

    def walk(node: pytest.Collector) -> set[str]:
        ids: set[str] = set()
        for child in node.collect():
            ids |= {child.nodeid} if isinstance(child, pytest.Item) else walk(child)
        return ids

    return walk(pytest.Module.from_parent(session, path=ROOT / path))


def what_is_missing(reference: Reference, session: pytest.Session) -> str | None:
    """Why the reference names no test, or None when it names one."""
    target = ROOT / reference.path
    if not target.exists():
        return "no such file or folder"
    if not reference.name:
        return None
    if not (target.is_file() and target.suffix == ".py"):
        return "a test is named in a folder or a file that is not Python"
    if reference.name not in collectable_names(target.read_text(encoding="utf-8")):
        return "no such test in the file"
    if reference.case and str(reference) not in collected_ids(session, reference.path):
        return "no such case of the test"
    return None


def test_every_test_the_promises_name_exists(request: pytest.FixtureRequest) -> None:
    broken = [
        f"docs/promises.md:{reference.line}: `{reference}`: {why}"
        for reference in references(PROMISES.read_text(encoding="utf-8"))
        if (why := what_is_missing(reference, request.session))
    ]
    assert broken == []


def test_each_promise_names_the_tests_that_prove_it() -> None:
    sections = re.split(r"^### ", PROMISES.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]
    promises = {
        section.split()[0]: references(section) for section in sections if re.match(r"P\d+ ", section)
    }
    assert sorted(promises, key=lambda name: int(name[1:])) == [f"P{number}" for number in range(1, 16)]
    assert [name for name, named in promises.items() if not named] == []


def test_a_name_alone_is_in_the_file_named_before_it_and_a_case_is_read_with_its_test() -> None:
    markdown = (
        "`tests/a.py` (`::test_one`,\n`::test_two[x-1]`), `tests/b.py::TestB::test_three`, `::test_four`"
    )
    assert references(markdown) == [
        Reference(1, "tests/a.py"),
        Reference(1, "tests/a.py", "test_one"),
        Reference(2, "tests/a.py", "test_two", "x-1"),
        Reference(2, "tests/b.py", "TestB::test_three"),
        Reference(2, "tests/b.py", "test_four"),
    ]


def test_inline_code_that_is_not_about_tests_is_no_reference() -> None:
    assert references("`template.yaml`, `not-erased`, `make test`, `python -m tests.simulation`") == []


@pytest.mark.parametrize(
    ("markdown", "error"),
    [
        ("`::test_one` comes first", "line 1: `::test_one` follows no file"),
        ("\n`tests/a.py::test one`", "line 2: `tests/a.py::test one` is not a test reference"),
        ("`tests/a.py::test_one[]`", "line 1: `tests/a.py::test_one[]` is not a test reference"),
    ],
    ids=["name-before-any-file", "space-in-name", "empty-case"],
)
def test_a_reference_that_cannot_be_read_is_an_error_not_skipped(markdown: str, error: str) -> None:
    with pytest.raises(ValueError, match=re.escape(error)):
        references(markdown)


@pytest.mark.parametrize(
    ("reference", "why"),
    [
        (Reference(1, HERE), None),
        (Reference(1, "tests/unit"), None),
        (Reference(1, HERE, "test_every_test_the_promises_name_exists"), None),
        (
            Reference(1, HERE, "test_a_reference_that_cannot_be_read_is_an_error_not_skipped", "empty-case"),
            None,
        ),
        (Reference(1, "tests/unit/test_no_such_file.py"), "no such file or folder"),
        (Reference(1, HERE, "test_that_was_renamed"), "no such test in the file"),
        (Reference(1, HERE, "Reference"), "no such test in the file"),
        (
            Reference(1, HERE, "test_a_reference_that_cannot_be_read_is_an_error_not_skipped", "no-such-id"),
            "no such case of the test",
        ),
        (
            Reference(1, "tests/unit", "test_rules"),
            "a test is named in a folder or a file that is not Python",
        ),
    ],
    ids=[
        "a-file",
        "a-folder",
        "a-test",
        "a-case",
        "a-missing-file",
        "a-missing-test",
        "a-class-that-is-no-test",
        "a-missing-case",
        "a-test-in-a-folder",
    ],
)
def test_a_reference_is_checked_against_the_tests_pytest_collects(
    reference: Reference, why: str | None, request: pytest.FixtureRequest
) -> None:
    assert what_is_missing(reference, request.session) == why


def test_test_classes_and_their_methods_are_names_too() -> None:
    source = "class TestB:\n    def test_three(self): ...\n    def helper(self): ...\nclass Helper: ...\n"
    assert collectable_names(source) == {"TestB", "TestB::test_three"}
