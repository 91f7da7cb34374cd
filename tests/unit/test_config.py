from __future__ import annotations

from typing import Any

import boto3
import pytest

from serverless_rps.bootstrap import contact_key, read_auth_token
from serverless_rps.config import ConfigurationError, GameSettings

BASE = {
    "GAME_STATE_TABLE": "state",
    "NICKNAME_TABLE": "nicks",
    "IDEMPOTENCY_TABLE": "idem",
    "INCOMING_QUEUE_URL": "http://queue/in",
    "DEAD_LETTER_QUEUE_URL": "http://queue/dlq",
    "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
    "TWILIO_AUTH_TOKEN_PARAMETER": "/rps/twilio-auth-token",
}


def test_settings_are_read_from_the_environment_with_safe_defaults() -> None:
    settings = GameSettings.from_environment({**BASE, "CHALLENGE_EXPIRY_DAYS": "2"})
    assert settings.game_state_table == "state"
    assert settings.challenge_expiry_seconds == 2 * 86400
    assert settings.lock_lease_seconds > settings.function_timeout_seconds
    assert settings.twilio.auth_token is None


@pytest.mark.parametrize("missing", sorted(set(BASE) - {"TWILIO_AUTH_TOKEN_PARAMETER"}))
def test_a_missing_setting_is_named_in_the_error(missing: str) -> None:
    env = {key: value for key, value in BASE.items() if key != missing}
    with pytest.raises(ConfigurationError, match=missing):
        GameSettings.from_environment(env)


def test_the_auth_token_is_read_from_an_ssm_secure_string(aws: Any) -> None:
    ssm = boto3.client("ssm", region_name="us-east-1")
    ssm.put_parameter(Name="/rps/twilio-auth-token", Value="s3cret", Type="SecureString")
    settings = GameSettings.from_environment(BASE)
    assert read_auth_token(settings.twilio, ssm) == "s3cret"


MESSAGING_SERVICE = "MG" + "0123456789abcdef" * 2


def test_replies_leave_from_the_number_texted_unless_a_messaging_service_is_set() -> None:
    assert GameSettings.from_environment(BASE).messaging_service_sid is None
    assert (
        GameSettings.from_environment({**BASE, "TWILIO_MESSAGING_SERVICE_SID": " "}).messaging_service_sid
        is None
    )

    settings = GameSettings.from_environment({**BASE, "TWILIO_MESSAGING_SERVICE_SID": MESSAGING_SERVICE})

    assert settings.messaging_service_sid == MESSAGING_SERVICE


@pytest.mark.parametrize(
    "sid", ["PN" + "0" * 32, "MG123", "MG" + "A" * 32, "+15550100000", "MG" + "0" * 31, "MG" + "0" * 33]
)
def test_a_malformed_messaging_service_sid_is_refused_by_name(sid: str) -> None:
    with pytest.raises(ConfigurationError, match="TWILIO_MESSAGING_SERVICE_SID"):
        GameSettings.from_environment({**BASE, "TWILIO_MESSAGING_SERVICE_SID": sid})


def test_the_contact_key_is_the_same_for_the_same_token_in_every_release() -> None:
    """Contact records are named with it: a key that changed between releases would orphan every
    stored contact (and restart every phone's reply budget). Pinned for one token."""
    assert contact_key("0123456789abcdef0123456789abcdef").hex() == (
        "a7166ed9168932febb5e0621083514cc0d31a61e8519af1d38dcfc7bfc3e18ee"
    )
    assert contact_key("another token") != contact_key("0123456789abcdef0123456789abcdef")


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("two", "CHALLENGE_EXPIRY_DAYS must be a number, got 'two'"),
        ("0", "CHALLENGE_EXPIRY_DAYS must be positive, got '0'"),
        ("-1", "CHALLENGE_EXPIRY_DAYS must be positive, got '-1'"),
    ],
)
def test_a_number_setting_that_is_not_a_positive_number_is_named_with_its_value(raw: str, says: str) -> None:
    with pytest.raises(ConfigurationError) as error:
        GameSettings.from_environment({**BASE, "CHALLENGE_EXPIRY_DAYS": raw})
    assert str(error.value) == says


def test_a_fraction_below_one_is_a_positive_number() -> None:
    settings = GameSettings.from_environment({**BASE, "CHALLENGE_EXPIRY_DAYS": "0.5"})
    assert settings.challenge_expiry_seconds == 43200


def test_the_status_callback_url_is_read_from_the_environment() -> None:
    settings = GameSettings.from_environment(
        {**BASE, "STATUS_CALLBACK_URL": " https://example.com/sms/s3cret/status "}
    )
    assert settings.status_callback_url == "https://example.com/sms/s3cret/status"
    assert GameSettings.from_environment({**BASE, "STATUS_CALLBACK_URL": "  "}).status_callback_url is None
    assert GameSettings.from_environment(BASE).status_callback_url is None


def _timings(settings: GameSettings) -> tuple[float, ...]:
    return (
        settings.function_timeout_seconds,
        settings.lock_lease_seconds,
        settings.in_progress_expiry_seconds,
        settings.completed_record_seconds,
        settings.challenge_expiry_seconds,
        settings.lock_wait_seconds,
        settings.reply_budget_burst,
        settings.reply_budget_per_hour,
    )


def test_each_timing_and_budget_is_read_from_its_own_variable() -> None:
    settings = GameSettings.from_environment(
        {
            **BASE,
            "FUNCTION_TIMEOUT_SECONDS": "11",
            "LOCK_LEASE_SECONDS": "22",
            "IN_PROGRESS_EXPIRY_SECONDS": "33",
            "COMPLETED_RECORD_SECONDS": "44",
            "CHALLENGE_EXPIRY_DAYS": "3",
            "LOCK_WAIT_SECONDS": "0.25",
            "REPLY_BUDGET_BURST": "66",
            "REPLY_BUDGET_PER_HOUR": "77",
        }
    )
    assert _timings(settings) == (11, 22, 33, 44, 3 * 86400, 0.25, 66, 77)


def test_unset_or_blank_timings_and_budgets_keep_their_documented_defaults() -> None:
    for env in (BASE, {**BASE, "LOCK_WAIT_SECONDS": " ", "REPLY_BUDGET_BURST": ""}):
        settings = GameSettings.from_environment(env)
        assert _timings(settings) == (15, 25, 30, 20 * 86400, 7 * 86400, 1.5, 60, 180)


@pytest.mark.parametrize(
    ("override", "says"),
    [
        ({"LOCK_LEASE_SECONDS": "15"}, "LOCK_LEASE_SECONDS must exceed FUNCTION_TIMEOUT_SECONDS"),
        (
            {"IN_PROGRESS_EXPIRY_SECONDS": "14"},
            "IN_PROGRESS_EXPIRY_SECONDS must be >= FUNCTION_TIMEOUT_SECONDS",
        ),
        ({"REPLY_BUDGET_BURST": "0.5"}, "REPLY_BUDGET_BURST and REPLY_BUDGET_PER_HOUR must be at least 1"),
        ({"REPLY_BUDGET_PER_HOUR": "0.5"}, "REPLY_BUDGET_BURST and REPLY_BUDGET_PER_HOUR must be at least 1"),
    ],
    ids=["lease", "claim", "burst", "per-hour"],
)
def test_timings_that_break_the_protocol_are_refused_word_for_word(
    override: dict[str, str], says: str
) -> None:
    with pytest.raises(ConfigurationError) as error:
        GameSettings.from_environment({**BASE, "FUNCTION_TIMEOUT_SECONDS": "15", **override})
    assert str(error.value) == says


def test_the_smallest_timings_and_budgets_the_protocol_allows_are_accepted() -> None:
    settings = GameSettings.from_environment(
        {
            **BASE,
            "FUNCTION_TIMEOUT_SECONDS": "15",
            "IN_PROGRESS_EXPIRY_SECONDS": "15",
            "REPLY_BUDGET_BURST": "1",
            "REPLY_BUDGET_PER_HOUR": "1",
        }
    )
    assert (
        settings.in_progress_expiry_seconds,
        settings.reply_budget_burst,
        settings.reply_budget_per_hour,
    ) == (
        15,
        1,
        1,
    )


def test_without_a_token_source_the_error_says_which_variables_to_set() -> None:
    env = {key: value for key, value in BASE.items() if key != "TWILIO_AUTH_TOKEN_PARAMETER"}
    with pytest.raises(ConfigurationError) as error:
        GameSettings.from_environment(env)
    assert str(error.value) == (
        "set TWILIO_AUTH_TOKEN_PARAMETER (an SSM SecureString name) or, locally, TWILIO_AUTH_TOKEN"
    )


@pytest.mark.parametrize(
    ("raw", "api_url"),
    [
        ("https://proxy.example/TWILIO-BOX/", "https://proxy.example/TWILIO-BOX"),
        (" http://127.0.0.1:5123 ", "http://127.0.0.1:5123"),
        ("  ", None),
        (None, None),
    ],
    ids=["trailing-slash", "spaces", "blank", "unset"],
)
def test_a_twilio_api_url_is_kept_without_its_trailing_slash(raw: str | None, api_url: str | None) -> None:
    env = {**BASE, **({"TWILIO_API_URL": raw} if raw is not None else {})}
    assert GameSettings.from_environment(env).twilio.api_url == api_url


def test_the_countries_served_and_the_daily_ceiling_are_read_from_their_variables() -> None:
    settings = GameSettings.from_environment(
        {**BASE, "ALLOWED_COUNTRY_CODES": "1, 44", "DAILY_SMS_CEILING": "5000"}
    )
    defaults = GameSettings.from_environment({**BASE, "ALLOWED_COUNTRY_CODES": " ", "DAILY_SMS_CEILING": ""})

    assert (settings.served_countries.calling_codes, settings.daily_sms_ceiling) == (("1", "44"), 5000)
    assert (defaults.served_countries.calling_codes, defaults.daily_sms_ceiling) == (("1",), 300_000)


@pytest.mark.parametrize(
    ("name", "raw", "says"),
    [
        ("ALLOWED_COUNTRY_CODES", "1,uk", "ALLOWED_COUNTRY_CODES: a calling code is 1 to 3 digits"),
        ("ALLOWED_COUNTRY_CODES", "1,12", "ALLOWED_COUNTRY_CODES: no calling code starts with another"),
        ("DAILY_SMS_CEILING", "0", "DAILY_SMS_CEILING must be positive"),
        ("DAILY_SMS_CEILING", "-5", "DAILY_SMS_CEILING must be positive"),
        ("DAILY_SMS_CEILING", "2.5", "DAILY_SMS_CEILING must be a whole number"),
    ],
)
def test_a_country_list_or_ceiling_the_game_cannot_use_fails_the_cold_start_by_name(
    name: str, raw: str, says: str
) -> None:
    with pytest.raises(ConfigurationError, match=says):
        GameSettings.from_environment({**BASE, name: raw})
