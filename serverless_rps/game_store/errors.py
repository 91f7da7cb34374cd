"""The store's error edge: SDK errors become the engine's exceptions here, and nowhere else.

A refused condition is not an error at this edge: each caller says what it means (a claim held
elsewhere, a lease contended, a record already finished), and each item of the commit carries its
meaning with it (tables.TransactItem). Everything else is translated once:
what an operator must fix is a `ConfigurationProblem`, what a retry may fix is `StoreUnavailable`,
and a request no retry can fix (a bug) goes on unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from botocore.exceptions import BotoCoreError, ClientError

from serverless_rps.exceptions import ConfigurationProblem, StoreUnavailable
from serverless_rps.game_store.tables import TransactItem
from serverless_rps.observability import logger

__all__ = ["CONFIGURATION_ERROR_CODES", "cancellation_error", "is_condition_failure", "translated"]

# What a missing table, a missing permission or bad credentials look like: an operator must act.
CONFIGURATION_ERROR_CODES = frozenset(
    {
        "ResourceNotFoundException",
        "AccessDeniedException",
        "UnrecognizedClientException",
        "InvalidSignatureException",
        "MissingAuthenticationTokenException",
        "ExpiredTokenException",
        "KMSAccessDeniedException",
        "KMSDisabledException",
        "KMSNotFoundException",
    }
)
REQUEST_ERROR_CODES = frozenset({"ValidationException", "SerializationException"})


def cancellation_error(exc: ClientError, items: Sequence[TransactItem]) -> Exception:
    """What a cancelled commit means. DynamoDB gives one reason per item, in the items' order: the
    first item whose condition was refused says what that means (its `if_refused`); otherwise the
    commit was throttled or collided with another transaction, and a retry soon may succeed."""
    reasons = exc.response.get("CancellationReasons") or []
    codes = [reason.get("Code", "None") for reason in reasons]
    for item, code in zip(items, codes, strict=False):
        if code != "ConditionalCheckFailed" or item.if_refused is None:
            continue
        return item.if_refused()
    if any(code in {"ThrottlingError", "ProvisionedThroughputExceeded"} for code in codes):
        return StoreUnavailable("the commit was throttled", retry_after=1)
    # TransactionConflict: another transaction touched one of our items at the same moment.
    return StoreUnavailable(f"the commit was cancelled: {codes}", retry_after=0.5)


@contextmanager
def translated(action: str) -> Iterator[None]:
    """SDK errors become StoreUnavailable at this edge; condition failures are left to the caller."""
    try:
        yield
    except ClientError as exc:
        if is_condition_failure(exc) or exc.response.get("Error", {}).get("Code") == (
            "TransactionCanceledException"
        ):
            raise
        code = exc.response.get("Error", {}).get("Code", "Unknown")
        if code in CONFIGURATION_ERROR_CODES:
            raise ConfigurationProblem(f"DynamoDB refused to {action}: {code}", retry_after=60) from exc
        if code in REQUEST_ERROR_CODES:
            raise  # a request no retry can fix is a bug: it reaches the handler as unexpected
        logger.warning("DynamoDB refused a request", extra={"action": action, "error_code": code})
        raise StoreUnavailable(f"could not {action}: {code}", retry_after=1) from exc
    except BotoCoreError as exc:
        logger.warning("DynamoDB unreachable", extra={"action": action, "error": type(exc).__name__})
        raise StoreUnavailable(f"could not {action}: {type(exc).__name__}", retry_after=1) from exc


def is_condition_failure(exc: ClientError) -> bool:
    return bool(exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException")
