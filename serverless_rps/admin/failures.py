"""One line for a failure of the operator's tool: its cause, found under the tool's own exceptions,
and what fixes it (the traceback is for --verbose)."""

from __future__ import annotations

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
    ProfileNotFound,
    SSOError,
    TokenRetrievalError,
)

from serverless_rps.admin import locate

__all__ = ["one_line"]

_EXPIRED = {"ExpiredToken", "ExpiredTokenException", "RequestExpired"}
_NOT_RECOGNISED = {
    "UnrecognizedClientException",
    "InvalidClientTokenId",
    "InvalidSignatureException",
    "SignatureDoesNotMatch",
    "AuthFailure",
}
_NOT_ALLOWED = {"AccessDenied", "AccessDeniedException"}
_NOT_THERE = {"ResourceNotFoundException", "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"}


def one_line(problem: BaseException) -> str:
    """What failed, for an operator: the SDK's cause (found under the tool's own exceptions) and
    what fixes it. The traceback is for --verbose."""
    cause = _sdk_cause(problem)
    if isinstance(cause, NoRegionError):
        return "no AWS region: give --region NAME, or set AWS_DEFAULT_REGION, or a region in your AWS profile"
    if isinstance(cause, NoCredentialsError | PartialCredentialsError):
        return (
            f"{_first_line(cause)}: configure a profile (`aws configure`, or `aws sso login`) and set "
            "AWS_PROFILE, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        )
    if isinstance(cause, ProfileNotFound):
        return f"{_first_line(cause)}: check AWS_PROFILE (`aws configure list-profiles` lists them)"
    if isinstance(cause, TokenRetrievalError | SSOError):
        return f"{_first_line(cause)}: sign in again (`aws sso login`)"
    if isinstance(cause, EndpointConnectionError | ConnectTimeoutError | ConnectionClosedError):
        return _unreachable(str(cause.kwargs.get("endpoint_url", "")))
    if isinstance(cause, ClientError):
        code = cause.response.get("Error", {}).get("Code", "")
        said = _first_line(problem)
        if code in _EXPIRED:
            return f"{said}: your AWS credentials have expired; renew them (`aws sso login`, or new keys)"
        if code in _NOT_RECOGNISED:
            return f"{said}: AWS does not accept your credentials; check them (`aws sts get-caller-identity`)"
        if code in _NOT_ALLOWED:
            return (
                f"{said}: your credentials lack this permission (the tool reads, scans and changes "
                "the stack's tables and queues)"
            )
        if code in _NOT_THERE:
            return f"{said}: the settings name a resource that is not there; check --stack and --region"
        return said
    return _first_line(problem)


def _sdk_cause(problem: BaseException) -> BaseException | None:
    seen: BaseException | None = problem
    while seen is not None:
        if isinstance(seen, BotoCoreError | ClientError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _first_line(problem: BaseException) -> str:
    return (str(problem).strip().splitlines() or [type(problem).__name__])[0]


def _unreachable(endpoint: str) -> str:
    return (
        locate.local_stack_gone(endpoint)
        or f"cannot reach {endpoint}: check the network, and the region (--region)"
    )
