"""The local Twilio Messages API, driven by the real `twilio` client as the game drives it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.rest import Client

from serverless_rps.sms_gateway import RedirectingHttpClient
from serverless_rps_local.twilio_api import LocalTwilioApi, count_segments

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = pytest.mark.slow

ACCOUNT_SID = "AC" + "0" * 32
AUTH_TOKEN = "test-auth-token"
SERVICE_NUMBER = "+15550100000"
ALICE = "+15550100001"


@pytest.fixture
def twilio_api() -> Iterator[LocalTwilioApi]:
    with LocalTwilioApi(ACCOUNT_SID, AUTH_TOKEN) as api:
        yield api


def _client(api: LocalTwilioApi, token: str = AUTH_TOKEN) -> Client:
    return Client(ACCOUNT_SID, token, http_client=RedirectingHttpClient(api.base_url))


def _send(
    api: LocalTwilioApi, to: str = ALICE, body: str = "Welcome, alice!", token: str = AUTH_TOKEN
) -> Any:
    return _client(api, token).messages.create(to=to, from_=SERVICE_NUMBER, body=body)


def test_a_send_is_accepted_and_recorded_like_twilio(twilio_api: LocalTwilioApi) -> None:
    message = _send(twilio_api)

    assert message.sid.startswith("SM")
    assert len(message.sid) == 34
    assert (message.status, message.to, message.from_, message.body) == (
        "queued",
        ALICE,
        SERVICE_NUMBER,
        "Welcome, alice!",
    )
    assert message.account_sid == ACCOUNT_SID
    assert message.num_segments == "1"
    [recorded] = twilio_api.sent_messages()
    assert (recorded["sid"], recorded["to"], recorded["body"]) == (message.sid, ALICE, "Welcome, alice!")


def test_a_wrong_auth_token_is_refused_with_20003(twilio_api: LocalTwilioApi) -> None:
    with pytest.raises(TwilioRestException) as refused:
        _send(twilio_api, token="not-the-token")

    assert (refused.value.status, refused.value.code) == (401, 20003)
    assert twilio_api.sent_messages() == []


def test_a_send_to_an_opted_out_phone_is_refused_with_21610(twilio_api: LocalTwilioApi) -> None:
    twilio_api.opt_out(ALICE)

    with pytest.raises(TwilioRestException) as refused:
        _send(twilio_api)

    assert (refused.value.status, refused.value.code) == (400, 21610)
    assert twilio_api.sent_messages() == []
    assert [(attempt["to"], attempt["code"]) for attempt in twilio_api.attempts()] == [(ALICE, 21610)]


def test_texting_stop_opts_a_phone_out_and_start_opts_it_back_in(twilio_api: LocalTwilioApi) -> None:
    confirmation = twilio_api.receive_inbound(ALICE, "  stop ")
    with pytest.raises(TwilioRestException) as refused:
        _send(twilio_api)
    twilio_api.receive_inbound(ALICE, "START")
    _send(twilio_api)

    assert confirmation is not None
    assert "unsubscribed" in confirmation
    assert refused.value.code == 21610
    assert len(twilio_api.sent_messages()) == 1


def test_an_ordinary_text_changes_no_opt_out(twilio_api: LocalTwilioApi) -> None:
    assert twilio_api.receive_inbound(ALICE, "stop it bob") is None
    assert twilio_api.opted_out() == set()


def test_a_to_number_that_is_not_e164_is_refused_with_21211(twilio_api: LocalTwilioApi) -> None:
    with pytest.raises(TwilioRestException) as refused:
        _send(twilio_api, to="555-0100")

    assert (refused.value.status, refused.value.code) == (400, 21211)


def test_an_injected_429_carries_retry_after_and_only_the_next_send_fails(twilio_api: LocalTwilioApi) -> None:
    twilio_api.fail_next(1, status=429, retry_after=7)
    http_client = RedirectingHttpClient(twilio_api.base_url)
    client = Client(ACCOUNT_SID, AUTH_TOKEN, http_client=http_client)

    with pytest.raises(TwilioRestException) as throttled:
        client.messages.create(to=ALICE, from_=SERVICE_NUMBER, body="first")
    retry_after = http_client.last_retry_after
    client.messages.create(to=ALICE, from_=SERVICE_NUMBER, body="second")

    assert (throttled.value.status, throttled.value.code, retry_after) == (429, 20429, 7)
    assert [message["body"] for message in twilio_api.sent_messages()] == ["second"]


@pytest.mark.parametrize("status", [500, 503])
def test_injected_server_errors_fail_as_many_sends_as_asked(twilio_api: LocalTwilioApi, status: int) -> None:
    twilio_api.fail_next(2, status=status)

    statuses, pending = [], []
    for _ in range(3):
        pending.append(twilio_api.faults_pending)
        try:
            _send(twilio_api)
            statuses.append(201)
        except TwilioRestException as error:
            statuses.append(error.status)

    assert statuses == [status, status, 201]
    assert pending == [2, 1, 0]


def test_a_stalled_send_that_was_accepted_times_the_client_out_but_is_recorded(
    twilio_api: LocalTwilioApi,
) -> None:
    twilio_api.stall_next(1, seconds=2, accept=True)
    http_client = RedirectingHttpClient(twilio_api.base_url, timeout=0.2)
    client = Client(ACCOUNT_SID, AUTH_TOKEN, http_client=http_client)

    with pytest.raises(requests.exceptions.Timeout):
        client.messages.create(to=ALICE, from_=SERVICE_NUMBER, body="maybe twice")

    assert [message["body"] for message in twilio_api.sent_messages()] == ["maybe twice"]


def test_waiting_for_messages_returns_once_enough_were_sent(twilio_api: LocalTwilioApi) -> None:
    _send(twilio_api, body="one")
    _send(twilio_api, body="two")

    assert [message["body"] for message in twilio_api.wait_for_messages(2, timeout=1)] == ["one", "two"]
    with pytest.raises(TimeoutError):
        twilio_api.wait_for_messages(3, timeout=0.05)


def test_the_local_endpoints_list_messages_since_an_index_and_drive_the_switches(
    twilio_api: LocalTwilioApi,
) -> None:
    _send(twilio_api, body="one")
    _send(twilio_api, body="two")
    base = twilio_api.base_url

    listed = requests.get(f"{base}/_local/messages", params={"since": 1}, timeout=5).json()
    requests.post(f"{base}/_local/opt-outs", json={"phone": ALICE}, timeout=5)
    opted_out = requests.get(f"{base}/_local/opt-outs", timeout=5).json()["opted_out"]
    requests.post(f"{base}/_local/faults", json={"count": 1, "status": 503}, timeout=5)
    requests.delete(f"{base}/_local/opt-outs/{ALICE}", timeout=5)
    with pytest.raises(TwilioRestException) as unavailable:
        _send(twilio_api)
    requests.post(f"{base}/_local/clear", timeout=5)

    assert ([message["body"] for message in listed["messages"]], listed["next"]) == (["two"], 2)
    assert opted_out == [ALICE]
    assert unavailable.value.status == 503
    assert twilio_api.sent_messages() == []


def test_every_accepted_message_reaches_the_subscribers(twilio_api: LocalTwilioApi) -> None:
    seen: list[str] = []
    twilio_api.subscribe(lambda message: seen.append(message["body"]))

    _send(twilio_api, body="hello")

    assert seen == ["hello"]


@pytest.mark.parametrize(
    ("body", "encoding", "segments"),
    [
        ("a" * 160, "GSM-7", 1),
        ("a" * 161, "GSM-7", 2),
        ("€" * 80, "GSM-7", 1),
        ("€" * 81, "GSM-7", 2),
        ("✊" * 70, "UCS-2", 1),
        ("✊" * 71, "UCS-2", 2),
    ],
)
def test_segments_are_counted_as_a_handset_would(body: str, encoding: str, segments: int) -> None:
    counted = count_segments(body)
    assert (counted.encoding, counted.segments) == (encoding, segments)


MESSAGING_SERVICE = "MG" + "1" * 32
SECOND_NUMBER = "+15550100009"
BOB = "+15550100002"


@pytest.fixture
def service_api() -> Iterator[LocalTwilioApi]:
    with LocalTwilioApi(
        ACCOUNT_SID, AUTH_TOKEN, messaging_services={MESSAGING_SERVICE: (SERVICE_NUMBER, SECOND_NUMBER)}
    ) as api:
        yield api


def _send_through(api: LocalTwilioApi, service: str, to: str = ALICE) -> Any:
    return _client(api).messages.create(to=to, messaging_service_sid=service, body="Welcome!")


def test_a_send_through_a_messaging_service_is_accepted_before_a_sender_is_assigned(
    service_api: LocalTwilioApi,
) -> None:
    message = _send_through(service_api, MESSAGING_SERVICE)

    assert (message.status, message.from_, message.messaging_service_sid) == (
        "accepted",
        None,
        MESSAGING_SERVICE,
    )
    [recorded] = service_api.sent_messages()
    assert (recorded["sid"], recorded["from"]) == (message.sid, SERVICE_NUMBER), (
        "a number of the pool sent it"
    )


def test_a_messaging_service_keeps_each_recipient_on_one_number_of_its_pool(
    service_api: LocalTwilioApi,
) -> None:
    for to in (ALICE, BOB, ALICE, BOB):
        _send_through(service_api, MESSAGING_SERVICE, to)

    senders = {(sent["to"], sent["from"]) for sent in service_api.sent_messages()}
    assert senders == {(ALICE, SERVICE_NUMBER), (BOB, SECOND_NUMBER)}


@pytest.mark.parametrize(("service", "code"), [("MG" + "2" * 32, 21701), ("MG-not-a-sid", 21705)])
def test_an_unknown_or_malformed_messaging_service_is_refused(
    service_api: LocalTwilioApi, service: str, code: int
) -> None:
    with pytest.raises(TwilioRestException) as refused:
        _send_through(service_api, service)

    assert refused.value.code == code
    assert service_api.sent_messages() == []


def test_a_messaging_service_without_numbers_is_refused_with_21704() -> None:
    with (
        LocalTwilioApi(ACCOUNT_SID, AUTH_TOKEN, messaging_services={MESSAGING_SERVICE: ()}) as api,
        pytest.raises(TwilioRestException) as refused,
    ):
        _send_through(api, MESSAGING_SERVICE)

    assert refused.value.code == 21704


def test_other_processes_set_the_status_callbacks_delay_and_a_phones_failure_over_http(
    twilio_api: LocalTwilioApi,
) -> None:
    base = twilio_api.base_url
    answer = requests.post(
        f"{base}/_local/delivery", json={"delay_seconds": 2, "phone": ALICE, "code": 30003}, timeout=5
    )
    assert answer.json() == {"delay_seconds": 2.0, "failing": {ALICE: 30003}}
    assert twilio_api.callbacks.delay_seconds == 2.0

    cleared = requests.post(f"{base}/_local/delivery", json={"phone": ALICE, "code": None}, timeout=5)
    assert cleared.json()["failing"] == {}


# -- the Messages list ------------------------------------------------------------------------------

BOB = "+15550100002"


def test_the_list_is_newest_first_filtered_by_recipient_with_twilios_fields(
    twilio_api: LocalTwilioApi,
) -> None:
    first = _send(twilio_api, body="one")
    _send(twilio_api, to=BOB, body="for bob")
    second = _send(twilio_api, body="two")

    listed = _client(twilio_api).messages.list(to=ALICE, limit=10)

    assert [message.sid for message in listed] == [second.sid, first.sid]
    newest = listed[0]
    assert (newest.direction, newest.from_, newest.to, newest.body) == (
        "outbound-api",
        SERVICE_NUMBER,
        ALICE,
        "two",
    )
    assert newest.status == "queued"
    assert newest.date_created is not None
    assert newest.date_sent is None


def test_the_list_pages_like_twilio_without_repeating_or_skipping(twilio_api: LocalTwilioApi) -> None:
    sids = [_send(twilio_api, body=f"reply {n}").sid for n in range(7)]

    # A page size of 3 and a limit of 7: three requests, each following next_page_uri (PageToken).
    listed = _client(twilio_api).messages.list(to=ALICE, limit=7, page_size=3)

    assert [message.sid for message in listed] == list(reversed(sids))
    first_page = _client(twilio_api).messages.page(to=ALICE, page_size=3)
    assert first_page.next_page_url is not None
    assert "PageToken=PA" in first_page.next_page_url


def test_a_limit_reads_one_page_of_the_newest(twilio_api: LocalTwilioApi) -> None:
    sids = [_send(twilio_api, body=f"reply {n}").sid for n in range(5)]

    listed = _client(twilio_api).messages.list(to=ALICE, limit=2)

    assert [message.sid for message in listed] == [sids[4], sids[3]]


def test_date_sent_filters_compare_whole_gmt_dates(twilio_api: LocalTwilioApi) -> None:
    _send(twilio_api)
    client = _client(twilio_api)

    # Strings go to Twilio as written: a date, as Twilio's documentation asks.
    assert len(client.messages.list(to=ALICE, date_sent_after="2000-01-01")) == 1
    assert client.messages.list(to=ALICE, date_sent_before="2000-01-01") == []
    assert client.messages.list(to=ALICE, date_sent="2000-01-01") == []


def test_a_throttled_list_answers_429_with_20429_and_retry_after(twilio_api: LocalTwilioApi) -> None:
    twilio_api.fail_next_lists(1, status=429, retry_after=3)
    response = requests.get(
        f"{twilio_api.base_url}/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json",
        auth=(ACCOUNT_SID, AUTH_TOKEN),
        timeout=5,
    )
    assert response.status_code == 429
    assert response.json()["code"] == 20429
    assert response.headers["Retry-After"] == "3"
    # One fault, one request: the next list is answered.
    assert _client(twilio_api).messages.list(to=ALICE, limit=1) == []


def test_the_list_needs_the_accounts_credentials(twilio_api: LocalTwilioApi) -> None:
    # twilio-python raises a bare TwilioException for a list page that is not a 200, with the response.
    with pytest.raises(TwilioException) as refused:
        _client(twilio_api, token="not-the-token").messages.list(to=ALICE, limit=1)
    response = refused.value.args[1]
    assert response.status_code == 401
    assert '"code": 20003' in response.text


@pytest.mark.parametrize("validity", ["0", "36001", "ten", "1.5"])
def test_a_validity_period_twilio_would_not_take_is_refused_with_21624(
    twilio_api: LocalTwilioApi, validity: str
) -> None:
    with pytest.raises(TwilioRestException) as refused:
        _client(twilio_api).messages.create(
            to=ALICE, from_=SERVICE_NUMBER, body="hi", validity_period=validity
        )
    assert (refused.value.status, refused.value.code) == (400, 21624)
    assert twilio_api.sent_messages() == []
