"""Every command the parser can produce is described in the command table, and the processor
walks that table instead of branching per command."""

from __future__ import annotations

import inspect
import typing

from serverless_rps import commands, parsing, processing


def test_every_parsed_command_has_a_description() -> None:
    assert set(commands.COMMANDS) == set(typing.get_args(parsing.Command))


def test_the_processor_has_no_branch_per_command() -> None:
    source = inspect.getsource(processing.MessageProcessor)
    for command in typing.get_args(parsing.Command):
        assert command.__name__ not in source, f"the processor names {command.__name__}"
