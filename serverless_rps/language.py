"""Which language each reply is in: decided here, and only here. Pure: standard library only.

Three rules, in the words a player would use:

1. **A player's language is on their record** (`Player.language`, English unless said otherwise).
   It turns Spanish once they text a Spanish command (`apodo ana`, `piedra bob`, `rock para bob`,
   `tirar` alone: a word of the game in Spanish), and either way with `IDIOMA es|en` or `LANG
   en|es`. An English command leaves it as it is (NICK, TOP and STOP are everyone's words), and
   so does a text no command reads (`hola`). STOP erases the record, and the language with it.
2. **The replies to a text are in the language of that text when it shows one, else the
   player's.** A Spanish command is answered in Spanish, an opt-out in the language it was asked
   in (`OptOut.language`), a text no command reads in the language it looks like (`hola`: Spanish;
   `hi there`: English; `asdf`: the player's). A number with no record and a text that shows no
   language gets English: so the first reply to a new number is in the language of its first text.
3. **Everyone else is written to in their own language**, as their record (locked for the message,
   like every recipient: the reply budget needs it) says: when alice (Spanish) throws at bob
   (English), bob's challenge is English and alice's acknowledgement Spanish.

`voices` turns these into the one `Say` a decision writes every reply from; `recorded` writes the
language on the sender's record in the message's own commit (so a redelivered message, which
never decides again, changes nothing twice).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from serverless_rps.catalogue import Catalogue, Say, catalogue
from serverless_rps.game import Decision
from serverless_rps.model import Player
from serverless_rps.parsing import Command, OptOut, ReplyOnly, SetLanguage
from serverless_rps.revocation_words import Language

__all__ = ["DEFAULT", "Spoken", "for_message", "for_sender", "recorded", "stored_after", "voices"]

DEFAULT: Language = "en"


def stored_after(command: Command, before: Language | None) -> Language | None:
    """The sender's language once this command is done (rule 1); None for a number with no record
    and nothing to store."""
    if isinstance(command, SetLanguage):
        return command.language
    if isinstance(command, OptOut) or (isinstance(command, ReplyOnly) and command.guessed):
        return before  # an opt-out erases the record; a guess from free text never changes it
    if command.language == "es":
        return "es"
    return before


def for_sender(command: Command, stored: Language | None) -> Language:
    """The language of the replies to the sender (rule 2)."""
    return command.language or stored or DEFAULT


def voices(sender: str, sender_language: Language, players: Mapping[str, Player | None]) -> Say:
    """Whom each reply goes to -> the catalogue it is written from: the sender in
    `sender_language`, everyone else in their record's (rule 3). `players` are the message's locked
    records, which hold every phone a decision may reply to."""

    def say(phone: str) -> Catalogue:
        if phone == sender:
            return catalogue(sender_language)
        player = players.get(phone)
        return catalogue(player.language if player is not None else DEFAULT)

    return say


def recorded(decision: Decision, sender: str, before: Player | None, stored: Language | None) -> Decision:
    """The decision with the sender's record in its new language: the record the decision writes
    (a new player's too), or the locked one written again; nothing when there is no record, or
    when the decision erases it (an opt-out)."""
    if stored is None:
        return decision
    after = decision.players.get(sender, before)
    if after is None or after.language == stored:
        return decision
    return replace(decision, players={**decision.players, sender: replace(after, language=stored)})


@dataclass(frozen=True)
class Spoken:
    """One message's languages: the sender's record before it (`before`) and its language after
    it (`stored`), for `recorded`; and whom each reply is written for (`say`)."""

    before: Player | None
    stored: Language | None
    say: Say


def for_message(command: Command, sender: str, players: Mapping[str, Player | None]) -> Spoken:
    """Rules 1 to 3 for one message, from its locked `players` (the sender's record among them)."""
    before = players[sender]
    stored = stored_after(command, before.language if before is not None else None)
    return Spoken(before, stored, voices(sender, for_sender(command, stored), players))
