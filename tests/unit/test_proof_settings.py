"""The proof of opt-outs' settings and key: on with a table and a retention, off at 0; the key read
from SSM, every version of it, once, refused when it is no key; and the pure rules of what a
proof record says (opt_out_proof.py)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from serverless_rps import opt_out_proof
from serverless_rps.bootstrap import LazyProofKeys, build_proof_settings, read_proof_keys
from serverless_rps.config import ConfigurationError, GameSettings
from serverless_rps.exceptions import ConfigurationProblem, RetryLater
from serverless_rps.opt_out_proof import Fate, key_from_text, reading_of

BASE = {
    "GAME_STATE_TABLE": "state",
    "NICKNAME_TABLE": "nicks",
    "IDEMPOTENCY_TABLE": "idem",
    "INCOMING_QUEUE_URL": "http://queue/in",
    "DEAD_LETTER_QUEUE_URL": "http://queue/dlq",
    "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
    "TWILIO_AUTH_TOKEN_PARAMETER": "/rps/twilio-auth-token",
}
PROOF = {"PROOF_TABLE": "proof", "PROOF_KEY_PARAMETER": "/rps/proof-key"}
KEY = "ab" * 32
DAY = 86400


def test_a_proof_table_and_a_key_parameter_keep_proof_for_four_years_by_default() -> None:
    settings = GameSettings.from_environment({**BASE, **PROOF})

    assert settings.keeps_proof
    assert settings.proof_retention_days == 4 * 365 + 1
    assert settings.proof_key_parameter == "/rps/proof-key"


@pytest.mark.parametrize(
    ("variables", "keeps"),
    [
        ({"PROOF_RETENTION_DAYS": "0"}, False),
        ({"PROOF_RETENTION_DAYS": "30"}, True),
        ({"PROOF_TABLE": ""}, False),
    ],
)
def test_a_retention_of_zero_or_no_table_keeps_no_proof(variables: dict[str, str], keeps: bool) -> None:
    settings = GameSettings.from_environment({**BASE, **PROOF, **variables})

    assert settings.keeps_proof is keeps
    assert (build_proof_settings(settings, boto3.session.Session()) is not None) is keeps


@pytest.mark.parametrize(("raw", "says"), [("-1", "must be 0 or more"), ("four", "must be a number")])
def test_a_retention_that_is_no_number_of_days_is_refused_naming_it(raw: str, says: str) -> None:
    with pytest.raises(ConfigurationError, match=f"PROOF_RETENTION_DAYS {says}"):
        GameSettings.from_environment({**BASE, **PROOF, "PROOF_RETENTION_DAYS": raw})


def test_a_proof_table_without_a_key_says_which_variables_to_set() -> None:
    with pytest.raises(ConfigurationError, match=r"PROOF_KEY_PARAMETER .* or, locally, PROOF_KEY"):
        GameSettings.from_environment({**BASE, "PROOF_TABLE": "proof"})


def test_the_retention_is_the_proof_records_lifetime_in_seconds() -> None:
    settings = GameSettings.from_environment({**BASE, **PROOF, "PROOF_RETENTION_DAYS": "10"})

    proof = build_proof_settings(settings, boto3.session.Session())

    assert proof is not None
    assert (proof.table, proof.retention_seconds) == ("proof", 10 * DAY)


def test_a_local_key_in_the_environment_is_never_shown_by_the_settings() -> None:
    settings = GameSettings.from_environment({**BASE, "PROOF_TABLE": "proof", "PROOF_KEY": KEY})

    assert KEY not in repr(settings)
    proof = build_proof_settings(settings, boto3.session.Session())
    assert proof is not None
    assert proof.keys().current.secret == bytes.fromhex(KEY)


# -- the key, from SSM ------------------------------------------------------------------------------


def _ssm() -> Any:
    return boto3.client("ssm", region_name="us-east-1")


def test_every_version_of_the_key_is_read_the_newest_first_each_named_by_its_version(aws: None) -> None:
    ssm = _ssm()
    for value in ("11" * 32, "22" * 32, "33" * 32):
        ssm.put_parameter(Name="/rps/proof-key", Value=value, Type="SecureString", Overwrite=True)

    keys = read_proof_keys(ssm, "/rps/proof-key")

    assert keys.current == key_from_text("33" * 32, "/rps/proof-key:3")
    assert [key.label for key in keys.older] == ["/rps/proof-key:2", "/rps/proof-key:1"]


def test_more_versions_than_one_page_are_all_read(aws: None) -> None:
    ssm = _ssm()
    for version in range(1, 56):
        ssm.put_parameter(Name="/rps/proof-key", Value=f"{version:064x}", Type="SecureString", Overwrite=True)

    keys = read_proof_keys(ssm, "/rps/proof-key")

    assert len(keys.all) == 55
    assert keys.current.label == "/rps/proof-key:55"


def test_a_missing_key_is_for_an_operator_to_fix_and_says_how(aws: None) -> None:
    with pytest.raises(
        ConfigurationProblem, match=r"/rps/proof-key cannot be read \(ParameterNotFound\): create"
    ):
        read_proof_keys(_ssm(), "/rps/proof-key")


def test_a_current_version_that_is_no_key_is_refused_without_showing_it(aws: None) -> None:
    _ssm().put_parameter(Name="/rps/proof-key", Value="not a key", Type="SecureString")

    with pytest.raises(ConfigurationProblem) as refused:
        read_proof_keys(_ssm(), "/rps/proof-key")

    assert str(refused.value) == "the proof key /rps/proof-key:1 is not hexadecimal"


def test_an_older_version_that_is_no_key_is_left_out(aws: None) -> None:
    ssm = _ssm()
    ssm.put_parameter(Name="/rps/proof-key", Value="ab" * 8, Type="SecureString")  # too short
    ssm.put_parameter(Name="/rps/proof-key", Value=KEY, Type="SecureString", Overwrite=True)

    keys = read_proof_keys(ssm, "/rps/proof-key")

    assert (keys.current.label, keys.older) == ("/rps/proof-key:2", ())


class _Throttled:
    """An SSM client that is throttled once, then answers."""

    def __init__(self) -> None:
        self.calls = 0
        self.real = _ssm()

    def get_parameter_history(self, **request: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            from botocore.exceptions import ClientError

            raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "Get")
        return self.real.get_parameter_history(**request)


def test_the_key_is_read_once_and_a_failed_read_is_tried_again_by_the_next_message(aws: None) -> None:
    _ssm().put_parameter(Name="/rps/proof-key", Value=KEY, Type="SecureString")
    ssm = _Throttled()
    keys = LazyProofKeys(ssm, "/rps/proof-key")
    assert ssm.calls == 0, "nothing is read before a message needs it"

    with pytest.raises(RetryLater, match="ThrottlingException"):
        keys()
    assert keys().current.secret == bytes.fromhex(KEY)
    assert keys() is keys()
    assert ssm.calls == 2


# -- what a proof record says -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "wording"),
    [
        ("keyword", "keyword"),
        ("keyword-as-typed", "keyword"),
        ("spanish-keyword", "keyword"),
        ("advanced-opt-out", "carrier opt-out"),
        ("stop-texting", "free text"),
        ("spelled-out-keyword", "free text"),
    ],
)
def test_each_rule_falls_in_its_wording_class(rule: str, wording: str) -> None:
    assert reading_of(rule, "en", confirm=False).wording == wording


def test_an_operators_request_is_a_deletion_request_whatever_its_text_was_read_as() -> None:
    reading = reading_of("advanced-opt-out", "en", confirm=True, by_operator=True)

    assert (reading.rule, reading.wording, reading.language, reading.confirm) == (
        "erase-request",
        "deletion request",
        None,
        False,
    )
    assert opt_out_proof.initial_fate(reading, confirmation_queued=False) == "none"


@pytest.mark.parametrize(
    ("confirm", "queued", "fate"),
    [(False, False, "by-twilio"), (True, True, "pending"), (True, False, "withheld:budget")],
)
def test_the_fate_the_commit_knows(confirm: bool, queued: bool, fate: str) -> None:
    reading = reading_of("keyword", "en", confirm=confirm)
    assert opt_out_proof.initial_fate(reading, confirmation_queued=queued) == fate


@pytest.mark.parametrize(
    ("outcome", "learnt", "fate"),
    [
        ("SM" + "1" * 32, None, Fate("sent", "SM" + "1" * 32)),
        ("refused:21610", None, Fate("refused:21610")),
        ("dropped:late", None, Fate("dropped:late")),
        ("erased", None, Fate("erased")),
        ("sending", None, Fate("unknown")),
        ("sending", "SM" + "2" * 32, Fate("sent", "SM" + "2" * 32)),
    ],
)
def test_the_fate_settled_from_what_the_outbox_recorded(outcome: str, learnt: str | None, fate: Fate) -> None:
    assert opt_out_proof.fate_of(outcome, learnt) == fate


@pytest.mark.parametrize(
    ("text", "problem"),
    [("zz" * 32, "is not hexadecimal"), ("ab" * 31, "has 31 bytes; it needs at least 32")],
)
def test_a_key_shorter_than_32_bytes_or_not_hex_is_refused(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        key_from_text(text, "k")


def test_the_number_id_is_an_hmac_sha256_of_the_e164_number_under_the_key() -> None:
    import hashlib
    import hmac

    key = key_from_text(KEY, "k")

    assert (
        key.number_id("+15551234567")
        == hmac.new(bytes.fromhex(KEY), b"+15551234567", hashlib.sha256).hexdigest()
    )
    assert key.number_id("+15551234567") != key_from_text("cd" * 32, "other").number_id("+15551234567")
