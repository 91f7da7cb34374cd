"""The rule that takes a message of Twilio's list for a reply an earlier attempt may have sent."""

from __future__ import annotations

from serverless_rps.outbox import CLOCK_SKEW_SECONDS, LookBeforeResending
from serverless_rps.ports import CompletedRecord, OtherSends, OutboundSms, OutboxStore, SentSms

BOT = "+15550000000"
ALICE = "+15551110001"
BOB = "+15552220002"
COMMITTED_AT = 1_800_000_000.4
AGAIN = "Your move was counted. Waiting for bob."


class Listed:
    """Twilio's Messages list: newest first; counts its requests."""

    def __init__(self, *messages: SentSms) -> None:
        self.messages = sorted(messages, key=lambda message: message.created_at, reverse=True)
        self.requests: list[str] = []

    def sent_to(self, to: str, limit: int) -> list[SentSms]:
        self.requests.append(to)
        return [message for message in self.messages if message.to == to][:limit]


class Others:
    """The store's account of what the other records sent to a number (`others_sending_to`)."""

    def __init__(self, sends: OtherSends | None = None, order: list[str] | None = None) -> None:
        self.sends = sends
        self.order = order

    def others_sending_to(self, phone: str, key: str) -> OtherSends | None:
        if self.order is not None:
            self.order.append("store")
        return self.sends


NOBODY_ELSE: OutboxStore = Others(OtherSends(frozenset(), frozenset()))  # type: ignore[assignment]


def _sent(sid: str, at: float, body: str = AGAIN, to: str = ALICE, **changes: str | None) -> SentSms:
    fields: dict[str, str | None] = {"from_": BOT, "direction": "outbound-api", **changes}
    return SentSms(sid, to, fields["from_"], body, str(fields["direction"]), float(int(at)))


def _record(*outbox: OutboundSms, delivered: dict[int, str] | None = None) -> CompletedRecord:
    return CompletedRecord("SMin", outbox, delivered or {}, COMMITTED_AT + 25, (), COMMITTED_AT)


REPLY = OutboundSms(ALICE, BOT, AGAIN)


def test_two_identical_replies_to_one_number_each_claim_their_own_sid() -> None:
    log = Listed(_sent("SM1", COMMITTED_AT), _sent("SM2", COMMITTED_AT + 1))
    look = LookBeforeResending(log, NOBODY_ELSE, _record(REPLY, REPLY))

    assert look.already_sent(0) == "SM1"
    assert look.already_sent(1) == "SM2"
    assert log.requests == [ALICE], "one list per recipient"


def test_a_sid_the_record_already_holds_is_not_taken_again() -> None:
    log = Listed(_sent("SM1", COMMITTED_AT))
    look = LookBeforeResending(log, NOBODY_ELSE, _record(REPLY, REPLY, delivered={0: "SM1"}))

    assert look.already_sent(1) is None


def test_only_the_same_sender_body_and_direction_match() -> None:
    log = Listed(
        _sent("SMother-from", COMMITTED_AT, from_="+15559990000"),
        _sent("SMother-body", COMMITTED_AT, body="Something else"),
        _sent("SMinbound", COMMITTED_AT, direction="inbound"),
        _sent("SMbob", COMMITTED_AT, to=BOB),
    )
    assert LookBeforeResending(log, NOBODY_ELSE, _record(REPLY)).already_sent(0) is None


def test_a_message_from_before_the_first_attempt_began_is_someone_elses() -> None:
    # Another message's identical reply, sent well before this record's commit.
    log = Listed(_sent("SMearlier", COMMITTED_AT - CLOCK_SKEW_SECONDS - 1))
    assert LookBeforeResending(log, NOBODY_ELSE, _record(REPLY)).already_sent(0) is None


def test_an_identical_reply_two_seconds_before_the_commits_second_is_someone_elses() -> None:
    """A number, not the constant under test: Twilio's clock may run a second behind ours, not two.
    Taken for ours, another message's reply would stand in for one never sent: a lost reply."""
    log = Listed(_sent("SMearlier", COMMITTED_AT - 2))
    assert LookBeforeResending(log, NOBODY_ELSE, _record(REPLY)).already_sent(0) is None


def test_twilios_whole_seconds_and_a_small_clock_skew_are_allowed() -> None:
    log = Listed(_sent("SMskewed", COMMITTED_AT - CLOCK_SKEW_SECONDS))  # Twilio's clock a second behind
    assert LookBeforeResending(log, NOBODY_ELSE, _record(REPLY)).already_sent(0) == "SMskewed"


def test_a_record_without_its_commit_time_is_never_matched() -> None:
    record = CompletedRecord("SMin", (REPLY,), {}, 0.0, (), None)
    log = Listed(_sent("SM1", COMMITTED_AT))
    assert LookBeforeResending(log, NOBODY_ELSE, record).already_sent(0) is None
    assert log.requests == []


def test_the_send_nearest_the_commit_is_taken_not_an_earlier_identical_reply() -> None:
    # Another message's identical reply a second before the commit, and ours in the commit's second.
    log = Listed(_sent("SMother", COMMITTED_AT - 1), _sent("SMours", COMMITTED_AT))
    assert LookBeforeResending(log, NOBODY_ELSE, _record(REPLY)).already_sent(0) == "SMours"


def test_within_one_second_the_newest_is_taken() -> None:
    # Whole seconds: both look created at the commit; the list's order (newest first) decides.
    log = Listed(_sent("SMours", COMMITTED_AT + 0.2), _sent("SMother", COMMITTED_AT - 0.3))
    assert log.messages[0].sid == "SMours"
    assert LookBeforeResending(log, NOBODY_ELSE, _record(REPLY)).already_sent(0) == "SMours"


def _lookup(log: Listed, others: Others, record: CompletedRecord) -> LookBeforeResending:
    return LookBeforeResending(log, others, record)  # type: ignore[arg-type]


def test_another_messages_identical_reply_not_yet_recorded_is_never_taken_for_ours() -> None:
    # The soak's lost reply: the player texted the same thing twice; the first message's reply was
    # never sent (its attempt died after the commit), so the SMS in the list may be either's.
    log = Listed(_sent("SMtheirs_or_ours", COMMITTED_AT))
    first_unsent = Others(OtherSends(frozenset(), frozenset({AGAIN})))
    assert _lookup(log, first_unsent, _record(REPLY)).already_sent(0) is None, "sent, not taken"


def test_a_sid_another_record_holds_is_excluded_and_ours_is_found() -> None:
    log = Listed(_sent("SMours", COMMITTED_AT + 1), _sent("SMtheirs", COMMITTED_AT))
    theirs_recorded = Others(OtherSends(frozenset({"SMtheirs"}), frozenset()))
    assert _lookup(log, theirs_recorded, _record(REPLY)).already_sent(0) == "SMours"


def test_when_the_other_records_cannot_be_read_nothing_is_taken() -> None:
    log = Listed(_sent("SM1", COMMITTED_AT))
    assert _lookup(log, Others(None), _record(REPLY)).already_sent(0) is None


def test_another_body_pending_for_the_number_does_not_block_the_match() -> None:
    log = Listed(_sent("SM1", COMMITTED_AT))
    other_text = Others(OtherSends(frozenset(), frozenset({"Something else"})))
    assert _lookup(log, other_text, _record(REPLY)).already_sent(0) == "SM1"


def test_the_other_records_are_read_after_the_list() -> None:
    # A message in the list was sent by a record committed before the list was read: read later,
    # the contact record still accounts for it (pending, or its SIDs kept).
    order: list[str] = []

    class OrderedList(Listed):
        def sent_to(self, to: str, limit: int) -> list[SentSms]:
            order.append("list")
            return super().sent_to(to, limit)

    log = OrderedList(_sent("SM1", COMMITTED_AT))
    _lookup(log, Others(OtherSends(frozenset(), frozenset()), order), _record(REPLY)).already_sent(0)
    assert order == ["list", "store"]


def test_the_other_records_are_read_only_when_the_list_holds_a_candidate() -> None:
    # Nothing in the list could be ours (the earlier attempt died before sending it): the reply is
    # sent, and the contact record's read, which could only have stopped a match, is not made.
    order: list[str] = []
    log = Listed(_sent("SMother", COMMITTED_AT, body="Another reply"))
    look = _lookup(log, Others(OtherSends(frozenset(), frozenset()), order), _record(REPLY, REPLY))

    assert (look.already_sent(0), look.already_sent(1)) == (None, None)
    assert order == []
    assert log.requests == [ALICE], "one list request per recipient"
