"""Which senders and recipients the bot serves (countries.py): E.164 numbers of a listed calling
code, and nothing else, whatever shape a sender's address takes."""

from __future__ import annotations

import pytest

from serverless_rps.countries import ServedCountries

NANP_ONLY = ServedCountries()


@pytest.mark.parametrize(
    "address",
    [
        "+15551110001",  # the US
        "+16135550123",  # Canada
        "+18765550123",  # Jamaica: NANP too; Twilio's Geo Permissions are the gate for it
    ],
)
def test_a_nanp_number_is_served_by_default(address: str) -> None:
    assert NANP_ONLY.serves(address)


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("15551110001", "no +: its country cannot be known"),
        ("5551110001", "a national number"),
        ("12345", "a short code"),
        ("898211", "a six-digit short code"),
        ("ACME", "an alphanumeric sender"),
        ("Twilio-Alerts", "an alphanumeric sender with a dash"),
        ("whatsapp:+15551110001", "a WhatsApp address: the bot answers SMS only"),
        ("+447700900123", "the UK, not listed"),
        ("+33612345678", "France, not listed"),
        ("+1555111000", "NANP with nine digits"),
        ("+155511100012", "NANP with eleven digits"),
        ("+1234567890123456", "over-long: E.164 has at most 15 digits"),
        ("+0155511100", "no calling code starts with 0"),
        ("+1 555 111 0001", "spaces: Twilio sends E.164 without them"),
        ("", "nothing"),
        ("+", "a + alone"),
    ],
)
def test_anything_but_a_listed_e164_number_is_not_served(address: str, why: str) -> None:
    assert not NANP_ONLY.serves(address), why


def test_a_longer_list_serves_each_country_on_it_and_e164_bounds_their_length() -> None:
    served = ServedCountries.parse("1, +44,33")

    assert served.calling_codes == ("1", "44", "33")
    assert served.serves("+447700900123")
    assert served.serves("+33612345678")
    assert served.serves("+15551110001")
    assert not served.serves("+4915123456789")  # Germany, not listed
    assert served.serves("+447700900123456")  # 15 digits: E.164's longest
    assert not served.serves("+4477009001234567")  # 16 digits


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "1 to 3 digits"),
        ("1,,44", "1 to 3 digits"),
        ("one", "1 to 3 digits"),
        ("0", "not starting with 0"),
        ("1234", "1 to 3 digits"),
        ("1,12", "no calling code starts with another"),
    ],
)
def test_a_list_that_is_not_calling_codes_is_refused(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        ServedCountries.parse(text)


def test_a_repeated_code_counts_once() -> None:
    assert ServedCountries.parse("1,1").calling_codes == ("1",)
