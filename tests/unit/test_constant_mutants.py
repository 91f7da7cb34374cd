"""scripts/constant_mutants.py, the mutants `make mutants` plants in module-level constants: each
element of a table left out, each number and string changed, a pattern's bounds moved; and the
functions whose tests judge them."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from scripts.constant_mutants import constant_mutants, readers

MODULE = """\
import enum
import re
from collections.abc import Callable

__all__ = ["WORDS"]


class Kind(enum.Enum):
    GOOD = "good"
    BAD = "bad"


WORDS = frozenset({"stop", "quit"})
CODES = {
    1: Kind.GOOD,  # the first
    2: (
        Kind.BAD
    ),
}
LIMIT = 60 * 5
DONE, FAILED = 0, 1
PREFIX = "contact#"
PATTERN = re.compile(r"^[0-9]{1,4}$")
LETTERS = frozenset("ab")
Handler = Callable[[str], str]
DERIVED = frozenset(code for code in CODES if code > 1)


def is_word(text: str) -> bool:
    return text in WORDS


def derived(code: int) -> bool:
    return code in DERIVED
"""


def _planted(tmp_path: Path, text: str = MODULE) -> dict[str, str]:
    (tmp_path / "serverless_rps").mkdir()
    (tmp_path / "serverless_rps" / "sample.py").write_text(text)
    mutants = constant_mutants(tmp_path, "sample")
    for mutant in mutants:
        ast.parse(mutant.source)  # every mutant is a module Python can run
    return {f"{mutant.constant}: {mutant.change}": mutant.source for mutant in mutants}


def test_each_element_of_a_word_list_or_a_table_is_left_out_in_turn_with_its_comma_and_comment(
    tmp_path: Path,
) -> None:
    planted = _planted(tmp_path)
    assert 'WORDS = frozenset({"quit"})' in planted["WORDS: left out 'stop'"]
    assert 'WORDS = frozenset({"stop", })' in planted["WORDS: left out 'quit'"]
    without_first = planted["CODES: left out 1"]
    assert "the first" not in without_first
    assert "1: Kind.GOOD" not in without_first
    assert "2: (" in without_first
    assert "Kind.BAD" not in planted["CODES: left out 2"]


def test_a_tables_enum_value_is_swapped_for_another_member_the_table_uses(tmp_path: Path) -> None:
    planted = _planted(tmp_path)
    assert "1: Kind.BAD,  # the first" in planted["CODES: 1: Kind.GOOD -> Kind.BAD"]
    assert "Kind.GOOD\n    )" in planted["CODES: 2: Kind.BAD -> Kind.GOOD"]


def test_each_number_goes_up_by_one_and_a_string_is_marked(tmp_path: Path) -> None:
    planted = _planted(tmp_path)
    assert "LIMIT = 61 * 5" in planted["LIMIT: 60 -> 61"]
    assert "LIMIT = 60 * 6" in planted["LIMIT: 5 -> 6"]
    assert "DONE, FAILED = 1, 1" in planted["DONE: 0 -> 1"], "each name of a tuple its own constant"
    assert "PREFIX = 'XXcontact#XX'" in planted["PREFIX: 'contact#' -> XX...XX"]


def test_a_patterns_bounds_anchors_and_digits_are_changed_one_at_a_time(tmp_path: Path) -> None:
    planted = _planted(tmp_path)
    patterns = {
        change: source.split("PATTERN = ")[1].splitlines()[0]
        for change, source in planted.items()
        if change.startswith("PATTERN")
    }
    assert patterns == {
        "PATTERN: pattern 1 -> 2 in {1,4}": 're.compile(r"^[0-9]{2,4}$")',
        "PATTERN: pattern 1 -> 0 in {1,4}": 're.compile(r"^[0-9]{0,4}$")',
        "PATTERN: pattern 4 -> 5 in {1,4}": 're.compile(r"^[0-9]{1,5}$")',
        "PATTERN: pattern 4 -> 3 in {1,4}": 're.compile(r"^[0-9]{1,3}$")',
        "PATTERN: pattern dropped ^": 're.compile(r"[0-9]{1,4}$")',
        "PATTERN: pattern dropped $": 're.compile(r"^[0-9]{1,4}")',
        "PATTERN: pattern [0-9] -> \\d": 're.compile(r"^\\d{1,4}$")',
    }


def test_a_frozenset_of_a_strings_characters_loses_each_character_in_turn(tmp_path: Path) -> None:
    planted = _planted(tmp_path)
    assert "LETTERS = frozenset('b')" in planted["LETTERS: left out 'a'"]
    assert "LETTERS = frozenset('a')" in planted["LETTERS: left out 'b'"]


def test_all_a_type_alias_and_a_constant_made_from_others_are_not_mutated(tmp_path: Path) -> None:
    constants = {change.split(":")[0] for change in _planted(tmp_path)}
    assert constants == {"WORDS", "CODES", "LIMIT", "DONE", "FAILED", "PREFIX", "PATTERN", "LETTERS"}


def _line(text: str, code: str) -> int:
    return text.splitlines().index(code) + 1


def test_a_constant_is_read_on_the_lines_that_name_it_where_it_is_defined_imported_or_made_into_another(
    tmp_path: Path,
) -> None:
    _planted(tmp_path)
    user = textwrap.dedent(
        """\
        import dataclasses

        from serverless_rps.sample import LIMIT, WORDS


        def unrelated() -> None:
            pass


        def says_a_word(text: str) -> bool:
            found = text.split()
            return any(word in found for word in WORDS)


        def waits(seconds: float = LIMIT) -> float:
            return seconds


        @dataclasses.dataclass
        class Settings:
            limit: float = LIMIT

            def doubled(self) -> float:
                return 2 * self.limit
        """
    )
    (tmp_path / "serverless_rps" / "user.py").write_text(user)
    assert readers(tmp_path, "sample", "WORDS") == {
        ("serverless_rps/sample.py", _line(MODULE, "    return text in WORDS")),
        ("serverless_rps/user.py", _line(user, "    return any(word in found for word in WORDS)")),
    }
    assert readers(tmp_path, "sample", "CODES") == {
        ("serverless_rps/sample.py", _line(MODULE, "    return code in DERIVED"))
    }, "read through DERIVED, made from it"
    # Taken at import, as a default: read wherever the function or the class runs.
    assert readers(tmp_path, "sample", "LIMIT") == {
        ("serverless_rps/user.py", _line(user, "    return seconds")),
        ("serverless_rps/user.py", _line(user, "        return 2 * self.limit")),
    }
