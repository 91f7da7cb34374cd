"""bench/cold_path.py compares the game handler with a floor that must make the same requests:
if the protocol changes what answering `help` takes, this fails until the floor follows."""

from __future__ import annotations

import json

import pytest

from bench import cold_path
from serverless_rps import replies
from serverless_rps_local.stack import LocalStack, StackOptions

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow


def test_the_floor_makes_exactly_the_requests_the_game_handler_makes_for_a_first_help() -> None:
    with LocalStack(StackOptions(serve_http=False, poll_queue=False, warm=False)) as stack:
        environment = cold_path._environment(stack, tracing=False)

        made = json.loads(cold_path._run(cold_path._COUNTING, environment))
        cold_path._run(cold_path._FLOOR, environment)  # raises if the floor's requests fail
        texted = [message["body"] for message in stack.twilio.sent_messages()]

    assert tuple(made) == cold_path.FLOOR_REQUESTS
    # The handler's three replies to a new phone's help, then the floor's three.
    program = replies.Program()
    assert texted[:3] == [
        replies.opt_in_confirmation(program),
        replies.program_help(program),
        replies.help_overview(),
    ]
    assert len(texted) == 6
