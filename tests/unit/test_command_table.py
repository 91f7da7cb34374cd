"""Every command the parser can produce is described in the command table, and the processor
walks that table instead of branching per command."""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass

import pytest

from serverless_rps import commands, parsing, processing


def test_every_parsed_command_has_a_description() -> None:
    assert set(commands.COMMANDS) == set(typing.get_args(parsing.Command))


def test_the_processor_has_no_branch_per_command() -> None:
    source = inspect.getsource(processing.MessageProcessor)
    for command in typing.get_args(parsing.Command):
        assert command.__name__ not in source, f"the processor names {command.__name__}"


def test_a_command_the_table_does_not_describe_is_named_in_the_error() -> None:
    """What a developer who adds a parser case without its row meets, at the first such message."""

    @dataclass(frozen=True)
    class Dance:
        style: str

    with pytest.raises(TypeError) as missing:
        commands.spec_for(Dance("tango"))  # type: ignore[arg-type]
    assert str(missing.value) == "no description for " + repr(Dance("tango"))
