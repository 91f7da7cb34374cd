"""The phone simulator page in a headless Chromium (find_chromium's: CHROMIUM, or one on PATH),
driven by Playwright.

The screenshot goes to test-output/simulator.png; with UPDATE_SCREENSHOT=1 it also replaces
docs/img/simulator.png, the one the README shows.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect, sync_playwright

from serverless_rps import replies, replies_es
from serverless_rps.rules import Move, Outcome
from serverless_rps_local import dev_account
from serverless_rps_local.browser import find_chromium, no_chromium_reason
from serverless_rps_local.stack import LocalStack, StackOptions, repository_root

# Slow: tests/local, the local stack's tests, runs in make test and not in make check.
pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHROMIUM_ARGUMENTS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REPLY_TIMEOUT_MS = 60_000
PROGRAM = replies.Program()  # the template's ProgramName and SupportContact defaults
WELCOME = replies.opt_in_confirmation(PROGRAM)  # the first reply a phone ever gets, and START's


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    options = StackOptions(workers=2, log_directory=tmp_path_factory.mktemp("logs"))
    with LocalStack(options) as running:
        yield running


@pytest.fixture(scope="module")
def page_url(stack: LocalStack) -> str:
    assert stack.page_url is not None
    return stack.page_url


@pytest.fixture
def page() -> Iterator[Page]:
    chromium = find_chromium()
    if chromium is None:
        # A failure, not a skip: a run without the browser must not look like a passing page.
        pytest.fail(f"the simulator page test needs Chromium: {no_chromium_reason()}", pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGUMENTS)
        yield browser.new_page(viewport={"width": 1120, "height": 700})
        browser.close()


def _text(page: Page, phone: str, body: str) -> None:
    card = page.locator(f'.phone[data-phone="{phone}"]')
    card.get_by_test_id("compose").fill(body)
    card.get_by_test_id("send").click()
    expect(card.locator(".bubble.inbound").last).to_have_text(body)


def _wait_for_replies(page: Page, phone: str, count: int) -> None:
    expect(page.locator(f'.phone[data-phone="{phone}"] .bubble.outbound')).to_have_count(
        count, timeout=REPLY_TIMEOUT_MS
    )


def test_two_players_register_play_and_both_see_the_result(page_url: str, page: Page) -> None:
    alice, bob = dev_account.FIRST_PHONE_NUMBERS
    page.goto(page_url)
    expect(page.locator(".phone")).to_have_count(2)

    # Each phone's first text is answered after the opt-in confirmation.
    _text(page, alice, "nick alice")
    _wait_for_replies(page, alice, 2)
    _text(page, bob, "nick bob")
    _wait_for_replies(page, bob, 2)
    _text(page, alice, "throw rock bob")
    _wait_for_replies(page, bob, 3)
    _text(page, bob, "paper alice")
    _wait_for_replies(page, alice, 4)
    _wait_for_replies(page, bob, 4)

    for phone in (alice, bob):
        replies_shown = page.locator(f'.phone[data-phone="{phone}"] .bubble.outbound')
        expect(replies_shown.first).to_have_text(WELCOME)
        result = replies_shown.last
        expect(result).to_contain_text("rock")
        expect(result).to_contain_text("paper")
    expect(page.locator("#queue-depth")).to_contain_text("0 waiting")
    _save_screenshot(page)


def test_phones_can_be_added_and_removed(page_url: str, page: Page) -> None:
    page.goto(page_url)
    expect(page.locator(".phone")).to_have_count(2)

    page.get_by_role("button", name="Add phone").click()
    expect(page.locator(".phone")).to_have_count(3)
    added = page.locator(".phone").last
    number = added.get_attribute("data-phone")
    added.get_by_title("Remove phone").click()

    expect(page.locator(".phone")).to_have_count(2)
    assert number not in dev_account.FIRST_PHONE_NUMBERS


def _add_phone(page: Page) -> Locator:
    # The page draws the phones it knows from one answer after loading: count them once drawn.
    expect(page.locator(".phone").first).to_be_visible()
    before = page.locator(".phone").count()
    page.get_by_role("button", name="Add phone").click()
    expect(page.locator(".phone")).to_have_count(before + 1)
    return page.locator(".phone").last


def test_a_new_phone_says_what_to_text_until_it_has_texted(page_url: str, page: Page) -> None:
    page.goto(page_url)
    phone = _add_phone(page)
    hint = phone.get_by_test_id("hint")

    expect(hint).to_be_visible()
    expect(hint).to_contain_text("help")
    expect(hint).to_contain_text("nick yourname")
    expect(hint).to_contain_text("throw rock <nick>")
    expect(hint).to_contain_text("again, top")
    hint.get_by_text("help", exact=True).click()
    expect(phone.get_by_test_id("compose")).to_have_value("help")

    phone.get_by_test_id("send").click()
    expect(phone.locator(".bubble.inbound")).to_have_text(["help"])
    expect(hint).to_have_count(0)
    # The opt-in confirmation, the program's help, then the commands.
    expect(phone.locator(".bubble.outbound")).to_have_count(3, timeout=REPLY_TIMEOUT_MS)
    expect(phone.locator(".bubble.outbound").first).to_have_text(WELCOME)
    expect(phone.locator(".bubble.outbound").nth(1)).to_have_text(replies.program_help(PROGRAM))
    expect(phone.locator(".bubble.outbound").last).to_contain_text("NICK")
    page.reload()
    expect(page.locator(f'.phone[data-phone="{phone.get_attribute("data-phone")}"] .hint')).to_have_count(0)


def _replies_shown(page: Page, phone: str) -> Locator:
    return page.locator(f'.phone[data-phone="{phone}"] .bubble.outbound')


def test_two_phones_play_a_spanish_game_and_a_third_plays_one_of_them_in_english(
    stack: LocalStack, page_url: str, page: Page
) -> None:
    page.goto(page_url)
    # Each number read as its phone is added (`_add_phone` locates the last phone, whichever it is then).
    ana, beto, carol = (str(_add_phone(page).get_attribute("data-phone")) for _ in range(3))
    assert len({ana, beto, carol}) == 3
    already_sent = len(stack.twilio.sent_messages())
    card = page.locator(f'.phone[data-phone="{ana}"]')
    expect(card.get_by_test_id("hint-spanish")).to_contain_text("¿En español?")
    card.get_by_test_id("hint-spanish").get_by_text("ayuda", exact=True).click()
    expect(card.get_by_test_id("compose")).to_have_value("ayuda")

    _text(page, ana, "apodo ana")
    _wait_for_replies(page, ana, 2)
    _text(page, beto, "Apodo beto")
    _wait_for_replies(page, beto, 2)
    _text(page, ana, "tirar piedra a beto")
    _wait_for_replies(page, beto, 3)
    _text(page, beto, "papel para ana")
    _wait_for_replies(page, ana, 4)
    _wait_for_replies(page, beto, 4)
    spanish = replies_es.opt_in_confirmation(PROGRAM)
    expect(_replies_shown(page, ana)).to_have_text(
        [
            spanish,
            replies_es.nick_registered("ana"),
            replies_es.throw_waiting("beto", Move.ROCK),
            replies_es.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "beto"),
        ]
    )
    expect(_replies_shown(page, beto)).to_have_text(
        [
            spanish,
            replies_es.nick_registered("beto"),
            replies_es.challenged("ana"),
            replies_es.result(Outcome.WIN, Move.PAPER, Move.ROCK, "ana"),
        ]
    )

    # carol plays in English against ana, who stays in Spanish: each reads their own language.
    _text(page, carol, "nick carol")
    _wait_for_replies(page, carol, 2)
    _text(page, carol, "rock ana")
    _wait_for_replies(page, ana, 5)
    _text(page, ana, "tijera carol")
    _wait_for_replies(page, ana, 6)
    _wait_for_replies(page, carol, 4)
    expect(_replies_shown(page, ana).nth(4)).to_have_text(replies_es.challenged("carol"))
    expect(_replies_shown(page, ana).last).to_have_text(
        replies_es.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "carol")
    )
    expect(_replies_shown(page, carol)).to_have_text(
        [
            WELCOME,
            replies.nick_registered("carol"),
            replies.throw_waiting("ana", Move.ROCK),
            replies.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "ana"),
        ]
    )
    # As Twilio billed them: every reply one GSM-7 segment, in either language.
    sent = [
        message for message in stack.twilio.sent_messages(already_sent) if message["to"] in (ana, beto, carol)
    ]
    assert len(sent) == 14
    assert {(message["encoding"], message["num_segments"]) for message in sent} == {("GSM-7", "1")}


def test_an_opted_out_phone_shows_it_and_why_its_texts_go_unanswered(page_url: str, page: Page) -> None:
    page.goto(page_url)
    phone = _add_phone(page)
    number = phone.get_attribute("data-phone")
    assert number is not None
    banner = phone.get_by_test_id("opted-out")
    expect(banner).to_be_hidden()

    _text(page, number, "STOP")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Opted out (STOP)")
    expect(banner).to_contain_text("Text START to opt back in")
    _text(page, number, "help")
    # The bot answers (the opt-in confirmation and HELP's two replies); Twilio refuses all three.
    notes = phone.locator(".bubble.refused")
    expect(notes).to_have_count(3, timeout=REPLY_TIMEOUT_MS)
    for index in range(3):
        expect(notes.nth(index)).to_contain_text("this phone opted out (STOP)")
        expect(notes.nth(index)).to_contain_text("21610")
    expect(phone.locator(".bubble.outbound")).to_have_count(0)

    _text(page, number, "START")
    expect(banner).to_be_hidden()
    _wait_for_replies(page, number, 1)
    expect(phone.locator(".bubble.outbound")).to_have_text([WELCOME])


def test_each_reply_shows_whether_it_was_delivered_as_twilios_status_callbacks_say(
    stack: LocalStack, page_url: str, page: Page
) -> None:
    page.goto(page_url)
    numbers = [_add_phone(page).get_attribute("data-phone") for _ in range(2)]
    assert None not in numbers
    reached, filtered = (page.locator(f'.phone[data-phone="{number}"]') for number in numbers)
    stack.twilio.callbacks.fail_deliveries_to(str(numbers[1]), 30007)  # carrier filtering

    for number, phone in zip(numbers, (reached, filtered), strict=True):
        _text(page, str(number), "help")
        expect(phone.locator(".bubble.outbound").first).to_be_visible(timeout=REPLY_TIMEOUT_MS)
    expect(reached.get_by_test_id("delivery").first).to_have_text("delivered", timeout=REPLY_TIMEOUT_MS)
    expect(filtered.get_by_test_id("delivery").first).to_have_text(
        "not delivered (30007)", timeout=REPLY_TIMEOUT_MS
    )


def _save_screenshot(page: Page) -> None:
    output = repository_root() / "test-output"
    output.mkdir(exist_ok=True)
    screenshot = output / "simulator.png"
    page.screenshot(path=str(screenshot), full_page=True)
    if os.environ.get("UPDATE_SCREENSHOT") == "1":
        target = repository_root() / "docs" / "img" / "simulator.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(screenshot, target)
