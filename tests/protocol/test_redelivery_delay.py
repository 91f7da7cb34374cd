"""How soon a message that must wait comes back: the retry hint of the failure, never sooner than
the game function's minimum redelivery delay (so no hot loop forms), and a hint of 0 seconds is a
hint like any other (come back as soon as allowed), not the absence of one (the full timeout)."""

from __future__ import annotations

import pytest

from serverless_rps.exceptions import RetryLater
from serverless_rps.processing import InboundSms
from tests.conftest import ALICE
from tests.protocol.test_batch_handler import Queues

MINIMUM_REDELIVERY_SECONDS = 1


class MustWait:
    """A processor whose every message must wait, with the failure's retry hint."""

    def __init__(self, retry_after: float | None) -> None:
        self.retry_after = retry_after

    def process(self, sms: InboundSms) -> None:
        raise RetryLater("must wait", retry_after=self.retry_after)


@pytest.fixture
def queues(aws: None) -> Queues:
    return Queues()


def visibility_after_a_failure(queues: Queues, retry_after: float | None) -> list[int]:
    function = queues.function(MustWait(retry_after))
    event = queues.event(queues.sms_body(ALICE, "rock"))

    response = function.handle_batch(event, None)

    assert response["batchItemFailures"] == [{"itemIdentifier": event["Records"][0]["messageId"]}]
    return queues.visibility_changes


@pytest.mark.parametrize("retry_after", [0, 0.0, 0.2, 0.999])
def test_a_message_told_to_retry_at_once_comes_back_after_the_minimum_delay_not_sooner(
    queues: Queues, retry_after: float
) -> None:
    assert visibility_after_a_failure(queues, retry_after) == [MINIMUM_REDELIVERY_SECONDS]


@pytest.mark.parametrize(("retry_after", "seconds"), [(1, 1), (1.2, 2), (2.5, 3), (30, 30)])
def test_a_message_comes_back_no_sooner_than_its_retry_hint(
    queues: Queues, retry_after: float, seconds: int
) -> None:
    assert visibility_after_a_failure(queues, retry_after) == [seconds]


def test_without_a_hint_the_message_waits_for_the_queues_visibility_timeout(queues: Queues) -> None:
    assert visibility_after_a_failure(queues, None) == []
