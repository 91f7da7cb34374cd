"""A status callback the route refuses says which parameter is repeated, and where: in the query
(blank values counted) or in the form; a name too long to quote is cut to 40 characters. A reply's
index is one to four ASCII digits, nothing else."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from serverless_rps.ports import ReplyId
from serverless_rps.status_callbacks import STATUS_ROUTE_SUFFIX, is_status_route, read_status_callback

FORM = [("MessageSid", "SM" + "1" * 32), ("MessageStatus", "delivered")]


def test_a_parameter_repeated_in_the_query_is_refused_even_blank() -> None:
    assert (
        read_status_callback("key=SMabc&index=0&key=", FORM, 0.0)
        == "query parameter key appears more than once"
    )


def test_a_parameter_repeated_in_the_form_is_named_as_the_forms() -> None:
    form = [*FORM, ("MessageStatus", "sent")]
    assert (
        read_status_callback("key=SMabc&index=0", form, 0.0)
        == "form parameter MessageStatus appears more than once"
    )


def test_a_long_repeated_name_is_quoted_to_forty_characters() -> None:
    name = "n" * 60
    assert (
        read_status_callback(f"{name}=1&{name}=2", FORM, 0.0)
        == f"query parameter {'n' * 40} appears more than once"
    )


def test_a_callback_without_its_records_key_is_refused() -> None:
    assert (
        read_status_callback("index=0", FORM, 0.0) == "key or index missing or malformed in the query string"
    )


def test_a_callback_missing_a_field_is_refused_naming_it() -> None:
    sid, status = FORM
    assert (
        read_status_callback("key=SMabc", FORM, 0.0)
        == "key or index missing or malformed in the query string"
    )
    assert read_status_callback("key=SMabc&index=0", [status], 0.0) == "MessageSid missing or malformed"
    assert read_status_callback("key=SMabc&index=0", [sid], 0.0) == "MessageStatus missing or malformed"


@pytest.mark.parametrize(("index", "reply_index"), [("0", 0), ("9999", 9999)])
def test_a_replys_index_of_one_to_four_digits_names_that_reply(index: str, reply_index: int) -> None:
    callback = read_status_callback(urlencode({"key": "SMabc", "index": index}), FORM, 0.0)
    assert not isinstance(callback, str), callback
    assert callback.reply == ReplyId("SMabc", reply_index)


@pytest.mark.parametrize(
    "index",
    ["12345", "1x", "", "-1", "\u0661", "\uff11", " 1", "1\n", "+1"],
    ids=[
        "five-digits",
        "trailing-letter",
        "empty",
        "negative",
        "arabic-indic-one",
        "fullwidth-one",
        "leading-space",
        "trailing-newline",
        "plus-sign",
    ],
)
def test_an_index_that_is_not_one_to_four_ascii_digits_is_refused(index: str) -> None:
    """Python's int() reads `١` and `１` as 1 and ` 1` as 1: the pattern, not int(), decides."""
    assert (
        read_status_callback(urlencode({"key": "SMabc", "index": index}), FORM, 0.0)
        == "key or index missing or malformed in the query string"
    )


@pytest.mark.parametrize(("key", "read"), [("k", True), ("k" * 128, True), ("k" * 129, False)])
def test_a_records_key_is_one_to_128_characters(key: str, read: bool) -> None:
    callback = read_status_callback(urlencode({"key": key, "index": 0}), FORM, 0.0)
    if read:
        assert not isinstance(callback, str), callback
        assert callback.reply == ReplyId(key, 0)
    else:
        assert callback == "key or index missing or malformed in the query string"


@pytest.mark.parametrize(("status", "read"), [("x", True), ("x" * 32, True), ("x" * 33, False)])
def test_a_status_is_one_to_32_lowercase_letters(status: str, read: bool) -> None:
    sid, _ = FORM
    callback = read_status_callback("key=SMabc&index=0", [sid, ("MessageStatus", status)], 0.0)
    if read:
        assert not isinstance(callback, str), callback
        assert callback.status.status == status
    else:
        assert callback == "MessageStatus missing or malformed"


@pytest.mark.parametrize(
    ("code", "read"),
    [("7", 7), ("123456", 123456), ("1234567", None), ("\u0663\u0660\u0660\u0660\u0667", None)],
    ids=["one-digit", "six-digits", "seven-digits", "arabic-indic-digits"],
)
def test_an_error_code_is_one_to_six_ascii_digits(code: str, read: int | None) -> None:
    callback = read_status_callback("key=SMabc&index=0", [*FORM, ("ErrorCode", code)], 0.0)
    if read is None:
        assert callback == "ErrorCode malformed"
    else:
        assert not isinstance(callback, str)
        assert callback.status.error_code == read


def test_the_status_route_is_known_with_or_without_a_trailing_slash() -> None:
    assert is_status_route(f"/sms/s3cret{STATUS_ROUTE_SUFFIX}/")
    assert is_status_route(f"/sms/s3cret{STATUS_ROUTE_SUFFIX}")
    assert not is_status_route(f"/sms/s3cret{STATUS_ROUTE_SUFFIX}X")
    assert not is_status_route("/sms/s3cret")
