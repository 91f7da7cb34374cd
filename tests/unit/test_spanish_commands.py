"""Spanish commands, as people type them: accents or none, any case, full-width, mixed with English;
each command says its text is Spanish (`language="es"`), which is what makes the replies Spanish."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverless_rps import replies, replies_es
from serverless_rps.catalogue import Wording
from serverless_rps.parsing import (
    Command,
    ListGames,
    LobbyThrow,
    OptIn,
    OptOut,
    Rematch,
    ReplyOnly,
    SetLanguage,
    SetNickname,
    ShowHelp,
    ShowScore,
    ShowTop,
    Throw,
    is_valid_nickname,
    parse,
)
from serverless_rps.rules import Move


@pytest.mark.parametrize(
    ("body", "command"),
    [
        ("apodo ana", SetNickname("ana", "es")),
        ("APODO Ana_1", SetNickname("Ana_1", "es")),
        ("Ápodo ana", SetNickname("ana", "es")),
        ("piedra", LobbyThrow(Move.ROCK, "es")),
        ("  Papel ", LobbyThrow(Move.PAPER, "es")),
        ("tijera", LobbyThrow(Move.SCISSORS, "es")),
        ("TIJERAS", LobbyThrow(Move.SCISSORS, "es")),
        ("jugar piedra", LobbyThrow(Move.ROCK, "es")),
        ("tirar papel", LobbyThrow(Move.PAPER, "es")),
        ("tirar rock", LobbyThrow(Move.ROCK, "es")),
        ("piedra bob", Throw(Move.ROCK, "bob", "es")),
        ("tirar piedra bob", Throw(Move.ROCK, "bob", "es")),
        ("jugar bob tijera", Throw(Move.SCISSORS, "bob", "es")),
        ("tirar piedra a bob", Throw(Move.ROCK, "bob", "es")),
        ("jugar papel contra bob", Throw(Move.PAPER, "bob", "es")),
        ("jugar contra bob papel", Throw(Move.PAPER, "bob", "es")),
        ("piedra para bob", Throw(Move.ROCK, "bob", "es")),
        ("rock para bob", Throw(Move.ROCK, "bob", "es")),
        ("throw piedra bob", Throw(Move.ROCK, "bob", "es")),
        ("p para bob", Throw(Move.PAPER, "bob", "es")),
        ("ｐｉｅｄｒａ ｐａｒａ ｂｏｂ", Throw(Move.ROCK, "bob", "es")),
        ("tí\u200bjera bob", Throw(Move.SCISSORS, "bob", "es")),
        ("otra piedra", Rematch(Move.ROCK, "es")),
        ("otra rock", Rematch(Move.ROCK, "es")),
        ("again piedra", Rematch(Move.ROCK, "es")),
        ("partidas", ListGames("es")),
        ("Puntos", ShowScore("es")),
        ("top", ShowTop()),
        ("idioma es", SetLanguage("es")),
        ("Idioma Español", SetLanguage("es")),
        ("idioma inglés", SetLanguage("en")),
        ("lang en", SetLanguage("en")),
        ("LANG ES", SetLanguage("es")),
        ("language english", SetLanguage("en")),
        ("ayuda", ShowHelp(Wording("help_overview"), overview=True, language="es")),
        ("¿Ayuda?", ShowHelp(Wording("help_overview"), overview=True, language="es")),
        ("AYÚDA", ShowHelp(Wording("help_overview"), overview=True, language="es")),
        ("ayuda tirar", ShowHelp(Wording("help_topic", ("throw",)), language="es")),
        ("ayuda apodo", ShowHelp(Wording("help_topic", ("nick",)), language="es")),
        ("ayuda otra", ShowHelp(Wording("help_topic", ("again",)), language="es")),
        ("ayuda alto", ShowHelp(Wording("help_topic", ("stop",)), language="es")),
        ("ayuda idioma", ShowHelp(Wording("help_topic", ("language",)), language="es")),
        ("help tirar", ShowHelp(Wording("help_topic", ("throw",)), language="es")),
        ("help lang", ShowHelp(Wording("help_topic", ("language",)))),
        ("alta", OptIn("es")),
        ("¡ALTA!", OptIn("es")),
        ("alto", OptOut(confirm=True, rule="spanish-keyword", language="es")),
    ],
)
def test_spanish_commands_are_read_as_typed(body: str, command: Command) -> None:
    assert parse(body) == command


@pytest.mark.parametrize(
    ("body", "reply"),
    [
        ("apodo", Wording("nick_usage")),
        ("apodo ana beto", Wording("nick_invalid")),
        ("jugar", Wording("throw_usage")),
        ("tirar lagarto bob", Wording("unknown_move")),
        ("piedra para b😀b", Wording("unknown_player", (None,))),
        ("otra", Wording("again_usage")),
        ("otra lagarto", Wording("unknown_move")),
    ],
)
def test_a_spanish_command_used_wrong_is_explained_in_spanish(body: str, reply: Wording) -> None:
    assert parse(body) == ReplyOnly(reply, "es")


@pytest.mark.parametrize(
    "body", ["piedra para bob", "rock para bob", "para bob", "piedra para", "papel a bob"]
)
def test_para_between_a_move_and_a_name_is_never_an_opt_out(body: str) -> None:
    assert not isinstance(parse(body), OptOut)


@pytest.mark.parametrize(
    "word",
    [
        "apodo",
        "jugar",
        "tirar",
        "piedra",
        "papel",
        "tijera",
        "tijeras",
        "partidas",
        "puntos",
        "otra",
        "ayuda",
        "idioma",
        "lang",
        "language",
        "contra",
        "alta",
        "Piedra",
        "AYUDA",
    ],
)
def test_a_spanish_command_word_is_no_nickname(word: str) -> None:
    # Were one a player's name, `piedra ayuda` or `tirar piedra contra` would mean two things.
    assert not is_valid_nickname(word)
    assert parse(f"apodo {word}") == ReplyOnly(Wording("nick_invalid"), "es")
    assert parse(f"nick {word}") == ReplyOnly(Wording("nick_invalid"))


@pytest.mark.parametrize(
    ("body", "language"),
    [
        ("hola", "es"),
        ("hola, ¿qué tal?", "es"),
        ("quiero jugar", "es"),
        ("hello there", "en"),
        ("how do I play", "en"),
        ("asdf", None),
        ("👍👍", None),
    ],
)
def test_a_text_no_command_reads_is_answered_in_the_language_it_looks_like(body: str, language: str) -> None:
    assert parse(body) == ReplyOnly(Wording("unknown_command"), language, guessed=True)  # type: ignore[arg-type]


def test_emoji_around_a_spanish_keyword_are_read_past() -> None:
    assert parse("🙏 ayuda 🙏") == ShowHelp(Wording("help_overview"), overview=True, language="es")
    assert parse("alta ✅") == OptIn("es")


def test_a_1600_character_text_is_read_in_one_pass_to_a_command() -> None:
    # Word look-ups in tables only: no pattern that could backtrack on a long text.
    spanish = ("hola que tal, quiero jugar a piedra papel o tijera con mis amigos " * 30)[:1600]
    assert parse(spanish) == ReplyOnly(Wording("unknown_command"), "es", guessed=True)
    emoji = "🪨" * 1600
    assert parse(emoji) == ReplyOnly(Wording("unknown_command"), None, guessed=True)


@given(st.text(alphabet=st.sampled_from(list("piedra papel tijera para a bob ÁÉÍÓÚñ¿¡ 👊")), max_size=1600))
def test_any_spanish_looking_text_parses_and_its_answer_fits_one_segment_in_both_languages(body: str) -> None:
    command = parse(body)
    if isinstance(command, ReplyOnly | ShowHelp):
        for say in (replies, replies_es):
            assert replies.is_single_segment(command.wording.in_(say))
