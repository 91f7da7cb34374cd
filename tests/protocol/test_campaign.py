"""`admin campaign` says what the bot sends: every sample message and every keyword reply it prints
is a text the real processor sends, worded with the configured program."""

from __future__ import annotations

import io
from typing import Any

import pytest

from serverless_rps import replies_es
from serverless_rps.admin import campaign, cli
from serverless_rps.parsing import OptIn, OptOut, ShowHelp, parse
from serverless_rps.replies import Program
from tests.conftest import ALICE, BOB, CAROL, FakeSms, Game, new_processor, new_store

PROGRAM = Program("Acme RPS", "help@acme.example")


def _game(dynamodb: Any) -> Game:
    game = Game(dynamodb, FakeSms())
    game.processor = new_processor(new_store(dynamodb), game.sms, lock_wait_seconds=0.2, program=PROGRAM)
    return game


def test_every_sample_message_is_a_text_the_bot_sends(dynamodb: Any, clock: Any) -> None:
    game = _game(dynamodb)
    alice, bob = campaign.SAMPLE_NICKNAMES
    game.text(ALICE, f"nick {alice}")
    game.text(BOB, f"nick {bob}")
    game.text(ALICE, f"rock {bob}")
    game.text(BOB, f"scissors {alice}")
    game.text(BOB, f"paper {alice}")
    game.text(ALICE, "help")
    game.text(ALICE, "Stop.")

    samples = campaign.sample_messages(PROGRAM)
    assert len(samples) >= 5
    assert [text for text in samples if text not in game.sms.to(ALICE)] == []


def test_each_keywords_reply_is_what_the_bot_answers_to_them(dynamodb: Any, clock: Any) -> None:
    game = _game(dynamodb)
    game.text(CAROL, "nick carol")  # a phone the bot has answered before
    rows = {row["kind"]: row for row in campaign.registration(PROGRAM)["keywords"]}
    for kind, expected in (("opt-in", OptIn), ("opt-out", OptOut), ("help", ShowHelp)):
        for keyword in rows[kind]["keywords"].split(", "):
            assert isinstance(parse(keyword), expected), (kind, keyword)

    game.text(CAROL, "HELP")
    assert rows["help"]["reply"] == game.sms.to(CAROL)[-2]  # then the commands
    game.text(CAROL, "START")
    assert rows["opt-in"]["reply"] == game.sms.last(CAROL)
    game.text(CAROL, "Stop.")  # an opt-out Twilio may not have answered
    assert rows["opt-out"]["reply"] == game.sms.last(CAROL)
    game.text(ALICE, "yes")  # a number's first text: the same opt-in confirmation, once
    assert game.sms.to(ALICE) == [rows["opt-in"]["reply"]]


def test_the_spanish_keywords_are_the_ones_the_bot_reads_and_it_confirms_each_itself(
    dynamodb: Any, clock: Any
) -> None:
    # Twilio answers none of them without Advanced Opt-Out: the bot's reply is the only one.
    game = _game(dynamodb)
    spanish = next(
        row for row in campaign.registration(PROGRAM)["keywords"] if row["kind"] == "opt-out (Spanish)"
    )
    assert spanish["keywords"] == "ALTO, BAJA, CANCELAR, DETENER, NO MAS, PARA, PARAR"
    for keyword in spanish["keywords"].split(", "):
        assert parse(keyword) == OptOut(confirm=True, rule="spanish-keyword", language="es"), keyword
        game.text(CAROL, "nick carol")
        game.text(CAROL, keyword)
        assert game.sms.last(CAROL) == spanish["reply"], keyword


def test_every_spanish_sample_message_is_a_text_the_bot_sends_a_spanish_player(
    dynamodb: Any, clock: Any
) -> None:
    game = _game(dynamodb)
    alice, bob = campaign.SAMPLE_NICKNAMES
    game.text(ALICE, f"apodo {alice}")
    game.text(BOB, f"apodo {bob}")
    game.text(ALICE, f"piedra {bob}")
    game.text(BOB, f"tijera {alice}")
    game.text(BOB, f"papel {alice}")
    game.text(ALICE, "ayuda")
    game.text(ALICE, "Alto.")

    samples = campaign.sample_messages(PROGRAM, replies_es)
    assert [text for text in samples if text not in game.sms.to(ALICE)] == []


def test_each_spanish_keywords_reply_is_what_the_bot_answers_to_them(dynamodb: Any, clock: Any) -> None:
    game = _game(dynamodb)
    rows = {row["kind"]: row for row in campaign.registration(PROGRAM)["keywords"]}
    assert (rows["opt-in (Spanish)"]["keywords"], rows["help (Spanish)"]["keywords"]) == ("ALTA", "AYUDA")
    assert parse("Alta") == OptIn(language="es")
    game.text(CAROL, "ALTA")  # a number's first text: the opt-in confirmation, in Spanish
    assert game.sms.to(CAROL) == [rows["opt-in (Spanish)"]["reply"]]
    game.text(CAROL, "¡Ayuda!")
    assert rows["help (Spanish)"]["reply"] == game.sms.to(CAROL)[-2]  # then the commands, in Spanish
    assert game.sms.last(CAROL) == replies_es.help_overview()


def test_the_command_prints_the_configured_programs_form(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROGRAM_NAME", PROGRAM.name)
    monkeypatch.setenv("SUPPORT_CONTACT", PROGRAM.support)
    out = io.StringIO()
    assert cli.main(["campaign"], out=out) == 0
    printed = out.getvalue()
    for text in campaign.sample_messages(PROGRAM):
        assert text in printed
    assert "help@acme.example" in printed


def test_a_program_name_that_cannot_fit_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROGRAM_NAME", "x" * 31)
    assert cli.main(["campaign"], out=io.StringIO()) == 1
    assert "PROGRAM_NAME" in capsys.readouterr().err
