from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverless_rps import replies, replies_es, revocation_words
from serverless_rps.catalogue import Wording
from serverless_rps.parsing import (
    HELP_WORDS,
    OPT_IN_WORDS,
    OPT_OUT_WORDS,
    AnsweredByTwilio,
    ListGames,
    LobbyThrow,
    OptIn,
    OptOut,
    Rematch,
    ReplyOnly,
    SetNickname,
    ShowHelp,
    ShowScore,
    ShowTop,
    Throw,
    is_valid_nickname,
    nickname_skeleton,
    parse,
)
from serverless_rps.rules import Move


@pytest.mark.parametrize(
    ("body", "command"),
    [
        ("help", ShowHelp(Wording("help_overview"), overview=True)),
        ("?", ShowHelp(Wording("help_overview"), overview=True)),
        ("HELP throw", ShowHelp(Wording("help_topic", ("throw",)))),
        ("nick Alice", SetNickname("Alice")),
        ("  name   bob_2  ", SetNickname("bob_2")),
        ("throw rock bob", Throw(Move.ROCK, "bob")),
        ("T pap Bob", Throw(Move.PAPER, "Bob")),
        ("play s bob", Throw(Move.SCISSORS, "bob")),
        ("p rock bob", Throw(Move.ROCK, "bob")),
        ("p bob", Throw(Move.PAPER, "bob")),
        ("rock bob", Throw(Move.ROCK, "bob")),
        ("throw bob rock", Throw(Move.ROCK, "bob")),
        ("games", ListGames()),
        ("again paper", Rematch(Move.PAPER)),
        ("throw rock", LobbyThrow(Move.ROCK)),
        ("Rock", LobbyThrow(Move.ROCK)),
        ("p rock", LobbyThrow(Move.ROCK)),
        ("sc", LobbyThrow(Move.SCISSORS)),
        ("TOP", ShowTop()),
        ("leaders", ShowTop()),
        ("Rematch  r", Rematch(Move.ROCK)),
        ("Score", ShowScore()),
        ("STOP", OptOut()),
        (" quit ", OptOut()),
        ("revoke", OptOut()),
        ("start", OptIn()),
        ("unstop", OptIn()),
    ],
)
def test_commands_are_case_insensitive_and_forgiving_of_spaces(body: str, command: object) -> None:
    assert parse(body) == command


@pytest.mark.parametrize(
    ("body", "reply"),
    [
        ("", Wording("empty_message")),
        ("nick", Wording("nick_usage")),
        ("nick two words", Wording("nick_invalid")),
        ("nick ab", Wording("nick_invalid")),
        ("nick sixteen_chars_xx", Wording("nick_invalid")),
        ("nick help", Wording("nick_invalid")),
        ("nick Scissor", Wording("nick_invalid")),
        ("nick bøb", Wording("nick_invalid")),
        ("throw", Wording("throw_usage")),
        ("throw lizard bob", Wording("unknown_move")),
        ("throw rock b😀b", Wording("unknown_player", (None,))),
        ("again", Wording("again_usage")),
        ("again rock bob", Wording("again_usage")),
        ("again lizard", Wording("unknown_move")),
        ("help nonsense", Wording("unknown_help_topic")),
        ("hello there", Wording("unknown_command")),
    ],
)
def test_bad_input_becomes_a_clear_reply(body: str, reply: Wording) -> None:
    command = parse(body)
    assert isinstance(command, ReplyOnly | ShowHelp)
    assert command.wording == reply


def test_stop_inside_game_talk_is_not_an_opt_out() -> None:
    assert not isinstance(parse("lol you can't stop me"), OptOut)


def test_stop_inside_a_request_to_stop_is_an_opt_out_we_confirm() -> None:
    assert parse("please stop it") == OptOut(confirm=True, rule="stop-courtesy")


def test_nicknames_cannot_be_commands_or_moves() -> None:
    for word in ("help", "Nick", "THROW", "games", "score", "stop", "rock", "pap", "sciss", "again"):
        assert not is_valid_nickname(word)
    assert is_valid_nickname("Rocky")


def test_no_nickname_may_be_a_word_that_leaves_a_stop_a_request_to_stop() -> None:
    # "stop please", "stop bro", "alto amigo" are opt-outs; were "bro" a player, "stop bro" could
    # be read as about them. So every word a stop request may keep as company, and every stop
    # word, is reserved, and the rule holds by construction whatever the lists become.
    for word in revocation_words.RESERVED_WORDS:
        assert not is_valid_nickname(word), word
        assert not is_valid_nickname(word.upper()), word


@pytest.mark.parametrize("word", ["bob", "alice", "Rocky", "king", "boss", "champ", "kid", "ace", "ana"])
def test_a_stop_with_a_word_that_may_be_a_nickname_is_not_an_opt_out(word: str) -> None:
    # Only the reviewed address words (bro, dude, sir, amigo...) are read as addressing the bot.
    assert is_valid_nickname(word)
    assert not isinstance(parse(f"stop {word}"), OptOut)
    assert not isinstance(parse(f"alto {word}"), OptOut)


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("bob", True),
        ("x" * 15, True),
        ("Ab_9", True),
        ("bo", False),
        ("x" * 16, False),
        ("bob!", False),
        ("bo b", False),
        ("b\u00f3b", False),
        ("\uff42\uff4f\uff42", False),
    ],
    ids=["three", "fifteen", "mixed", "two", "sixteen", "punctuation", "space", "accent", "full-width"],
)
def test_a_nickname_is_3_to_15_ascii_letters_digits_or_underscores(name: str, valid: bool) -> None:
    assert is_valid_nickname(name) is valid


@given(st.text(max_size=2500))
def test_any_text_parses_to_a_command_without_raising(body: str) -> None:
    command = parse(body)
    if isinstance(command, ReplyOnly | ShowHelp):
        assert replies.is_single_segment(command.wording.in_(replies))
        assert replies.is_single_segment(command.wording.in_(replies_es))
    if isinstance(command, SetNickname):
        assert is_valid_nickname(command.display_name)


TWILIO_OPT_OUT_WORDS = ("STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE")


def test_the_keyword_lists_are_twilios() -> None:
    assert {word.lower() for word in TWILIO_OPT_OUT_WORDS} == OPT_OUT_WORDS
    assert {"start", "unstop", "yes"} == OPT_IN_WORDS
    assert {"help", "info"} <= HELP_WORDS


def full_width(text: str) -> str:
    return "".join(
        chr(ord(character) + 0xFEE0) if "!" <= character <= "~" else character for character in text
    )


def typed_forms(word: str) -> list[str]:
    zero_width = "\u200b"
    return [
        word,
        word.lower(),
        word.capitalize(),
        f"{word.capitalize()}.",
        f"{word.lower()}!",
        f"{word}!!!",
        f'"{word}"',
        f"  {word}  \n",
        f"{word} 🙏",
        full_width(word),
        full_width(word.lower()) + "。",
        word[:1] + zero_width + word[1:],
        "\ufeff" + word,
        word[:2] + "\u00ad" + word[2:],
        word + "\ufe0f",
        word[:1] + "\u2060" + word[1:] + "\u200d",
    ]


@pytest.mark.parametrize("word", TWILIO_OPT_OUT_WORDS)
def test_every_opt_out_word_in_every_typed_form_opts_out(word: str) -> None:
    # Twilio matches the whole message in any case, surrounding whitespace ignored, and confirms
    # it itself; any other form it may not have matched, so the bot sends the one confirmation.
    exact = {word, word.lower(), word.capitalize(), f"  {word}  \n"}
    for body in typed_forms(word):
        expected = OptOut() if body in exact else OptOut(confirm=True, rule="keyword-as-typed")
        assert parse(body) == expected, repr(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("STOP", OptOut(False, "keyword")),
        ("  Quit\n", OptOut(False, "keyword")),  # Twilio matches it as typed: it answered
        ("Stop.", OptOut(True, "keyword-as-typed")),  # it may not have: the bot confirms
        ("ＳＴＯＰ", OptOut(True, "keyword-as-typed")),
        ("st\u200bop", OptOut(True, "keyword-as-typed")),
    ],
)
def test_an_opt_out_twilio_may_not_have_answered_asks_for_the_one_confirmation(
    body: str, expected: OptOut
) -> None:
    assert parse(body) == expected


@pytest.mark.parametrize(
    "invisible",
    ["\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"],
    ids=["grapheme-joiner", "choseong-filler", "jungseong-filler", "hangul-filler", "half-width-filler"],
)
def test_a_stop_with_an_invisible_character_that_is_not_a_format_character_still_opts_out(
    invisible: str,
) -> None:
    """Outside Unicode's format category, so not removed as one: each is removed by name."""
    assert parse(f"st{invisible}op") == OptOut(True, "keyword-as-typed")


@pytest.mark.parametrize("word", ["START", "UNSTOP", "YES"])
def test_every_opt_in_word_in_typed_forms_opts_in(word: str) -> None:
    for body in typed_forms(word):
        assert parse(body) == OptIn(), repr(body)


@pytest.mark.parametrize("body", ["help", "Help.", "HELP?", "info", "ＨＥＬＰ", "h\u200belp", "?", " ?? "])
def test_help_words_as_typed_show_the_overview(body: str) -> None:
    assert parse(body) == ShowHelp(Wording("help_overview"), overview=True)


@given(
    word=st.sampled_from(TWILIO_OPT_OUT_WORDS),
    case=st.sampled_from([str.upper, str.lower, str.capitalize, str.swapcase]),
    before=st.text(alphabet=" \t\n\"'(*-.\u200b\ufeff", max_size=4),
    after=st.text(alphabet=" \t\n.!?\"')*,;:\u200b\u2060😀", max_size=4),
)
def test_opt_out_words_survive_any_case_spaces_and_punctuation(
    word: str, case: Callable[[str], str], before: str, after: str
) -> None:
    command = parse(before + case(word) + after)
    twilio_matches_it = (before + after).strip() == ""
    assert command == (OptOut() if twilio_matches_it else OptOut(confirm=True, rule="keyword-as-typed"))


@pytest.mark.parametrize("body", ["stop bob", "end game", "cancel rock bob", "stop sign"])
def test_opt_out_words_with_other_words_are_not_opt_outs(body: str) -> None:
    assert not isinstance(parse(body), OptOut)


@pytest.mark.parametrize("body", ["Stop please", "please stop", "quit now!", "s t o p", "stopp"])
def test_requests_to_stop_that_are_not_twilios_keywords_opt_out_with_our_confirmation(body: str) -> None:
    command = parse(body)
    assert isinstance(command, OptOut)
    assert command.confirm


def test_commands_still_parse_around_the_opt_out_words() -> None:
    assert parse("start game") == ReplyOnly(Wording("unknown_command"), "en", guessed=True)
    assert parse("nick end") == ReplyOnly(Wording("nick_invalid"))
    assert parse("throw rock endy") == Throw(Move.ROCK, "endy")
    assert parse("ｎｉｃｋ ａｌｉｃｅ") == SetNickname("alice")
    assert parse("throw\u200b rock bob") == Throw(Move.ROCK, "bob")
    assert parse("help throw") == ShowHelp(Wording("help_topic", ("throw",)))


@pytest.mark.parametrize(
    ("body", "language"),
    [
        ("STOP", "en"),
        ("arrêt", "en"),
        ("baja", "es"),
        ("BAJA", "es"),
        ("no me escriban", "es"),
        ("nick alice", "en"),
        ("", "en"),
        ("throw rock bob", "en"),
    ],
)
def test_twilios_stop_verdict_opts_out_whatever_the_body_and_says_its_language(
    body: str, language: str
) -> None:
    # The operator's keywords may be in any language; the command says which, as for our own.
    assert parse(body, opt_out_type="STOP") == OptOut(
        confirm=False, rule="advanced-opt-out", language=language
    )


@pytest.mark.parametrize("opt_out_type", ["START", "HELP"])
@pytest.mark.parametrize("body", ["START", "HELP", "info", "yes", "ayuda", "comenzar"])
def test_keywords_twilio_answered_get_no_second_answer(opt_out_type: str, body: str) -> None:
    assert parse(body, opt_out_type=opt_out_type) == AnsweredByTwilio()


@pytest.mark.parametrize("opt_out_type", [None, "", "UNKNOWN", "STOPALL", "PAUSE"])
def test_an_unknown_or_missing_verdict_counts_as_absent(opt_out_type: str | None) -> None:
    for body in ("STOP", "start", "help", "nick alice", "stop bob"):
        assert parse(body, opt_out_type=opt_out_type) == parse(body)
    assert parse("STOP", opt_out_type="UNKNOWN") == OptOut()
    assert parse("start", opt_out_type="UNKNOWN") == OptIn()
    assert parse("help", opt_out_type="UNKNOWN") == ShowHelp(Wording("help_overview"), overview=True)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("aIice", "alice"),
        ("a1ice", "ALICE"),
        ("b0b", "bob"),
        ("B0B", "bob"),
        ("Mary", "rnary"),
        ("walt", "vvalt"),
        ("l1l", "III"),
        ("O0o_7", "ooo_7"),
    ],
)
def test_look_alike_nicknames_are_the_same_nickname(first: str, second: str) -> None:
    claimed, wanted = parse(f"nick {first}"), parse(f"nick {second}")
    assert isinstance(claimed, SetNickname)
    assert isinstance(wanted, SetNickname)
    assert claimed.key == wanted.key
    assert claimed.display_name == first  # shown as typed
    throw = parse(f"throw rock {second}")
    assert isinstance(throw, Throw)
    assert throw.opponent_key == claimed.key


@pytest.mark.parametrize(
    ("first", "second"),
    [("alice", "alica"), ("bob", "rob"), ("sam5", "samS"), ("zed2", "zedZ"), ("bob_", "bob")],
)
def test_different_nicknames_stay_different(first: str, second: str) -> None:
    assert nickname_skeleton(first) != nickname_skeleton(second)


def test_a_re_cased_nickname_is_the_same_name() -> None:
    first, second = parse("nick alice"), parse("nick Alice")
    assert isinstance(first, SetNickname)
    assert isinstance(second, SetNickname)
    assert first.key == second.key
    assert first.display_name != second.display_name
    assert parse("throw rock a1ice") == Throw(Move.ROCK, "a1ice")
    assert nickname_skeleton("a1ice") == first.key


@pytest.mark.parametrize(
    "name", ["he1p", "r0ck", "st0p", "GAMES", "paPer", "sc1ss", "n1ck", "p1ay", "rev0ke", "INFO"]
)
def test_reserved_words_are_compared_by_look(name: str) -> None:
    assert not is_valid_nickname(name)


def test_digits_that_a_phone_tells_apart_are_not_look_alikes() -> None:
    assert is_valid_nickname("5core")
    assert is_valid_nickname("gam3s")


@given(st.from_regex(r"[A-Za-z0-9_]{3,15}", fullmatch=True))
def test_a_skeleton_is_a_fixed_point_and_ignores_case(name: str) -> None:
    skeleton = nickname_skeleton(name)
    assert nickname_skeleton(skeleton) == skeleton
    assert nickname_skeleton(name.swapcase()) == skeleton


@pytest.mark.parametrize(
    "selector",
    ["\ufe00", "\ufe0f", "\U000e0100", "\U000e01ef"],
    ids=["VS1", "VS16", "VS17", "VS256"],
)
def test_variation_selectors_inside_a_word_are_ignored(selector: str) -> None:
    assert parse(f"ro{selector}ck bob") == Throw(Move.ROCK, "bob")


@pytest.mark.parametrize(
    "character", ["\ufe10", "\U000e01f0"], ids=["vertical-comma-becomes-a-comma", "unassigned"]
)
def test_characters_just_past_the_variation_selectors_are_not_ignored(character: str) -> None:
    assert parse(f"ro{character}ck bob") == ReplyOnly(Wording("unknown_command"), guessed=True)


def test_a_throw_naming_two_moves_throws_the_first_at_the_second() -> None:
    # Only a throw whose first word is not a move is read the other way round.
    assert parse("throw rock paper") == Throw(Move.ROCK, "paper")
