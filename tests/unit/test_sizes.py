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
