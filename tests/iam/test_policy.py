"""The evaluator against the examples of AWS's IAM documentation: the policy evaluation logic (an
explicit deny wins, no allow is a deny), the Action, NotAction, Resource and NotResource elements,
and their wildcards."""

from __future__ import annotations

from typing import Any

import pytest

from tests.iam.policy import Policy, Request, Statement, action_matches, resource_matches


def policy(*statements: dict[str, Any]) -> Policy:
    return Policy.from_documents("example", [{"Version": "2012-10-17", "Statement": list(statements)}])


# DynamoDB's "Using IAM with DynamoDB transactions", example 1: the item actions of a transaction.
TABLE04 = {
    "Effect": "Allow",
    "Action": [
        "dynamodb:ConditionCheckItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:GetItem",
    ],
    "Resource": ["arn:aws:dynamodb:*:*:table/table04"],
}


def test_an_action_on_a_resource_that_a_statement_names_is_allowed() -> None:
    decision = policy(TABLE04).decide(
        Request("dynamodb:ConditionCheckItem", "arn:aws:dynamodb:us-east-1:123456789012:table/table04")
    )

    assert decision.allowed
    assert decision.allowed_by == (Statement.from_json(TABLE04),)


def test_a_request_no_statement_allows_is_denied_by_default() -> None:
    allowed = policy(TABLE04)
    other_table = "arn:aws:dynamodb:us-east-1:123456789012:table/table05"

    assert not allowed.decide(Request("dynamodb:PutItem", other_table)).allowed
    assert not allowed.decide(
        Request("dynamodb:Scan", "arn:aws:dynamodb:us-east-1:123456789012:table/table04")
    ).allowed
    denied = allowed.decide(Request("dynamodb:Scan", other_table))
    assert (denied.allowed, denied.explicitly_denied) == (False, False)


def test_an_explicit_deny_wins_over_any_allow() -> None:
    # DynamoDB's transactions example 3 denies the item actions inside a transaction and allows
    # them outside one; its condition is not evaluated here, so the deny applies to both.
    deny = {
        "Effect": "Deny",
        "Action": ["dynamodb:PutItem", "dynamodb:DeleteItem"],
        "Resource": ["arn:aws:dynamodb:*:*:table/table04"],
        "Condition": {"ForAnyValue:StringEquals": {"dynamodb:EnclosingOperation": ["TransactWriteItems"]}},
    }
    both = policy(TABLE04, deny)
    table = "arn:aws:dynamodb:us-east-1:123456789012:table/table04"

    put = both.decide(Request("dynamodb:PutItem", table))
    assert (put.allowed, put.explicitly_denied) == (False, True)
    assert put.denied_by == (Statement.from_json(deny),)
    assert both.decide(Request("dynamodb:UpdateItem", table)).allowed


def test_an_allow_with_a_condition_allows_nothing_here_since_the_condition_is_not_evaluated() -> None:
    # The template's kms:Decrypt is allowed only through SSM (kms:ViaService): no request is.
    through_ssm = {
        "Effect": "Allow",
        "Action": "kms:Decrypt",
        "Resource": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        "Condition": {"StringEquals": {"kms:ViaService": "ssm.us-east-1.amazonaws.com"}},
    }

    decision = policy(through_ssm).decide(
        Request("kms:Decrypt", "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab")
    )

    assert not decision.allowed


@pytest.mark.parametrize(
    ("action", "named"),
    [
        # The Action element's example: every IAM action with AccessKey in its name.
        ("iam:CreateAccessKey", True),
        ("iam:DeleteAccessKey", True),
        ("iam:ListAccessKeys", True),
        ("iam:UpdateAccessKey", True),
        ("iam:ListUsers", False),
        # "Prefixes and action names are case insensitive."
        ("IAM:listaccesskeys", True),
        ("s3:ListAccessKeys", False),
    ],
)
def test_a_wildcard_in_an_action_matches_any_characters_and_case_does_not_matter(
    action: str, named: bool
) -> None:
    assert action_matches("iam:*AccessKey*", action) is named


def test_a_question_mark_in_an_action_stands_for_exactly_one_character() -> None:
    assert action_matches("sqs:?eleteMessage", "sqs:DeleteMessage")
    assert not action_matches("sqs:?eleteMessage", "sqs:eleteMessage")
    assert not action_matches("sqs:DeleteMessage", "sqs:DeleteMessageBatch")


@pytest.mark.parametrize(
    "key",
    [
        # The Resource element's example: every one of these matches .../*/test/*.
        "1/test/object.jpg",
        "1/2/test/object.jpg",
        "1/2/test/3/object.jpg",
        "1/2/3/test/4/object.jpg",
        "1///test///object.jpg",
        "1/test/.jpg",
        "/test/object.jpg",
        "1/test/",
    ],
)
def test_a_wildcard_in_a_resource_spans_slashes_within_its_segment(key: str) -> None:
    assert resource_matches(
        "arn:aws:s3:::amzn-s3-demo-bucket/*/test/*", f"arn:aws:s3:::amzn-s3-demo-bucket/{key}"
    )


@pytest.mark.parametrize("key", ["1-test/object.jpg", "test/object.jpg"])
def test_a_resource_wildcard_still_needs_the_characters_around_it(key: str) -> None:
    assert not resource_matches(
        "arn:aws:s3:::amzn-s3-demo-bucket/*/test/*", f"arn:aws:s3:::amzn-s3-demo-bucket/{key}"
    )


def test_resource_names_are_matched_with_regard_to_case() -> None:
    # "In the Resource element, the IAM user name is case sensitive."
    bob = "arn:aws:iam::123456789012:user/Bob"

    assert resource_matches(bob, bob)
    assert not resource_matches(bob, "arn:aws:iam::123456789012:user/bob")


def test_a_wildcard_inside_a_segment_stays_in_it_and_one_that_ends_a_segment_may_run_past_colons() -> None:
    # "If the * wildcard is the last character of a resource ARN segment, it can expand to match
    # beyond the colon boundaries."
    queue = "arn:aws:sqs:us-east-1:123456789012:serverless-rps-IncomingQueue-1A2B"

    assert resource_matches("arn:aws:sqs:*:123456789012:serverless-rps-*", queue)
    assert resource_matches("arn:aws:sqs:*", queue)
    assert resource_matches("*", queue)
    spanning = "arn:aws:sqs:us-east:x-1:123456789012:serverless-rps-IncomingQueue-1A2B"
    assert not resource_matches("arn:aws:sqs:us-*-1:123456789012:serverless-rps-*", spanning)
    assert resource_matches("arn:aws:sqs:us-*:123456789012:serverless-rps-*", spanning)


def test_a_question_mark_in_a_resource_stands_for_exactly_one_character() -> None:
    queue = "arn:aws:sqs:us-east-1:123456789012:serverless-rps-IncomingQueue-1A2B"

    assert resource_matches("arn:aws:sqs:us-east-?:123456789012:*", queue)
    assert not resource_matches("arn:aws:sqs:us-east-??:123456789012:*", queue)
    assert not resource_matches(
        "arn:aws:sqs:us-east?1:123456789012:*", "arn:aws:sqs:us-east:1:123456789012:q"
    )


def test_an_action_without_resource_level_permissions_is_allowed_only_on_every_resource() -> None:
    traces = Request("xray:PutTraceSegments", "*")

    assert (
        policy({"Effect": "Allow", "Action": "xray:PutTraceSegments", "Resource": "*"}).decide(traces).allowed
    )
    assert (
        not policy(
            {
                "Effect": "Allow",
                "Action": "xray:PutTraceSegments",
                "Resource": "arn:aws:xray:us-east-1:1:group/x",
            }
        )
        .decide(traces)
        .allowed
    )


def test_not_action_allows_every_action_but_those_it_names() -> None:
    # The NotAction element's example: everything in every service but IAM.
    everything_but_iam = policy({"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"})

    assert everything_but_iam.decide(
        Request("dynamodb:PutItem", "arn:aws:dynamodb:us-east-1:1:table/t")
    ).allowed
    assert not everything_but_iam.decide(Request("iam:CreateUser", "arn:aws:iam::1:user/Bob")).allowed


def test_not_resource_denies_every_resource_but_those_it_names() -> None:
    # The NotResource element's example: S3 denied everywhere but the Payroll folder; it grants
    # nothing by itself, so an allow is added.
    payroll_only = policy(
        {
            "Effect": "Deny",
            "Action": "s3:*",
            "NotResource": ["arn:aws:s3:::HRBucket/Payroll", "arn:aws:s3:::HRBucket/Payroll/*"],
        },
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
    )

    assert payroll_only.decide(Request("s3:GetObject", "arn:aws:s3:::HRBucket/Payroll/march.csv")).allowed
    assert payroll_only.decide(Request("s3:ListBucket", "arn:aws:s3:::HRBucket/Payroll")).allowed
    other = payroll_only.decide(Request("s3:GetObject", "arn:aws:s3:::HRBucket/Benefits/march.csv"))
    assert (other.allowed, other.explicitly_denied) == (False, True)


def test_a_statement_given_as_one_object_rather_than_a_list_is_read() -> None:
    single = Policy.from_documents("one", [{"Version": "2012-10-17", "Statement": TABLE04}])

    assert single.statements == (Statement.from_json(TABLE04),)


@pytest.mark.parametrize(
    "statement",
    [
        {"Effect": "Permit", "Action": "s3:*", "Resource": "*"},
        {"Effect": "Allow", "Action": "s3:*", "NotAction": "iam:*", "Resource": "*"},
        {"Effect": "Allow", "Resource": "*"},
        {"Effect": "Allow", "Action": "s3:*"},
        {"Effect": "Allow", "Action": {"s3": "*"}, "Resource": "*"},
    ],
)
def test_a_statement_iam_would_refuse_is_refused(statement: dict[str, Any]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - each refusal has its own message
        Statement.from_json(statement)
