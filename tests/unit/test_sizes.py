"""The package stays readable in pieces: no class in serverless_rps/ over 300 lines and no module
over 600 (the operator's tool in admin/ included). A part that outgrows them is split by what it
owns, as game_store/ is split by record."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "serverless_rps"
MAX_CLASS_LINES = 300
MAX_MODULE_LINES = 600


def class_sizes(source: str) -> dict[str, int]:
    """Each class's length in lines, decorators left out, by its name (nested: `Outer.Inner`)."""
    sizes: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                name = prefix + child.name
                sizes[name] = (child.end_lineno or child.lineno) - child.lineno + 1
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return sizes


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_package_and_the_operators_tool_are_measured() -> None:
    names = {module.relative_to(PACKAGE).as_posix() for module in MODULES}
    assert {"game.py", "game_store/messages.py", "admin/operations.py"} <= names


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.relative_to(PACKAGE).as_posix())
def test_no_module_is_over_600_lines_and_none_of_its_classes_over_300(module: Path) -> None:
    source = module.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MAX_MODULE_LINES
    oversized = {name: size for name, size in class_sizes(source).items() if size > MAX_CLASS_LINES}
    assert oversized == {}


def test_a_class_over_the_limit_is_found_even_inside_another() -> None:
    body = "\n".join(f"    x{index} = {index}" for index in range(MAX_CLASS_LINES))
    nested = "class Outer:\n    class Inner:\n" + body.replace("    ", "        ") + "\n"
    assert class_sizes(nested) == {"Outer": MAX_CLASS_LINES + 2, "Outer.Inner": MAX_CLASS_LINES + 1}


def _classes(root: Path) -> dict[str, list[str]]:
    """Every class defined at a module's top level, by name: where each is defined."""
    found: dict[str, list[str]] = {}
    for module in sorted(root.rglob("*.py")):
        for node in ast.parse(module.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(module.relative_to(root.parent).as_posix())
    return found


def test_no_two_classes_share_a_name() -> None:
    """A reader who meets `Lookup` or `DeadLetterQueue` knows which one it is: no two classes of
    the package, the local stack or the benchmarks share a name."""
    root = PACKAGE.parent
    names: dict[str, list[str]] = {}
    for tree in ("serverless_rps", "serverless_rps_local", "bench"):
        for name, places in _classes(root / tree).items():
            names.setdefault(name, []).extend(places)
    shared = {name: places for name, places in names.items() if len(places) > 1}
    assert shared == {}


def test_the_processor_reads_in_one_sitting() -> None:
    """Claim, lock, decide, commit, deliver: `MessageProcessor` stays within 200 lines; the reply's
    life after the commit is the outbox's (outbox.py)."""
    sizes = class_sizes((PACKAGE / "processing.py").read_text(encoding="utf-8"))
    assert sizes["MessageProcessor"] <= 200


@pytest.mark.parametrize("port", ["GameStore", "OutboxStore"])
def test_each_store_port_has_at_most_ten_methods(port: str) -> None:
    tree = ast.parse((PACKAGE / "ports.py").read_text(encoding="utf-8"))
    [protocol] = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == port]
    methods = [node.name for node in protocol.body if isinstance(node, ast.FunctionDef)]
    assert 0 < len(methods) <= 10
