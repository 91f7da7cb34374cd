"""Is this free text a request to stop texting, in English or in Spanish? Pure: standard library only.

Since 11 April 2025 a person may revoke consent to texts "by any reasonable means" (the FCC's
rule, 47 CFR 64.1200(a)(10)): "please stop texting me" and "ya no me escriban" count as much as
STOP. Twilio acts only on its single-word English keywords, so the rest reaches the bot, and
`parsing.parse` asks `classify` about any text that is not a real command. docs/opt-out.md says
what counts and why.

The classifier weighs what in a text asks to stop texting against what in it is about the game,
word by word, not with a model. A text is read as command keywords are
(`normalisation.normalised`), casefolded, without accents (`número` is `numero`) or apostrophes
(`don't` is `dont`); every other non-letter separates words. Each word is then read as the word
it stands for: people's spellings (`txt`, `msgs` -> `text`, `message`; `porfa`, `xfa` ->
`porfavor`; `escríbanme`, `mándame` -> `escribir`), its shapes (`STOPPPP`, `st0p` -> `stop`) and
a typo of a key word (`remvoe` -> `remove`); words run together are split (`stoptexting`) and a
key word split in two joined (`un subscribe`). Punctuation never decides: people leave it out.

What asks to stop:

- a **clear phrase** ("stop texting", "unsubscribe", "wrong number", "delete my info", "remove me
  from", "no me escribas", "borra mis datos", "número equivocado"), wherever it stands: a verb of
  its intent and what it acts on, in `revocation_words.py`;
- a **stop request** ("stop", "quit it", "no more", "remove me", "alto", "basta", "sáquenme")
  whose only company is courtesy and address words ("please", "now", "bro"; "ya", "porfa",
  "amigo"), as the whole text, as its end ("this is so annoying, stop") or as its start before a
  new clause ("stop it, I'm done with this game");
- else, the **second reading** (`revocation_signals.py`): a stop intent aimed at the texts or the
  sender ("quit blowing up my phone", "make the texts stop", "¿cómo me salgo?").

What outweighs it (the game signals):

- a **move or a word of the contest** ("rock", "win", "cheating", "leaderboard", "piedra",
  "trampa") outside the phrase and within a few words of it (anywhere, against a stop request):
  the text is about the game. Not the three moves that name the game ("these rock paper scissors
  texts");
- **a nickname's shape** (`alice_99`, `bob2`): enough against a stop request but a removal ("pls
  remove"), not against a clear phrase. Laughter and swearing are read out of the text ("stop
  lol", "stop f***ing texting me"): they say how a request is made, not what;
- **the sentence around the stop**: a negation or an "if" before it ("can't stop texting", "no
  para de ganar", "what if I stop"), a "you" before a negated one ("you never text me back") or an
  "until" after it (a pause); a third party who is to stop ("tell bob to stop", "make him stop",
  "bob needs to stop", "stop texting me bob", "bob can you stop", "dile a ana que deje de
  escribirme", "when does it stop") or to whom the texts are ("dejen de molestar a ana"); "stop"
  as a noun or "alto" as an adjective ("bus stop", "muy alto"); a stop with an object other than
  texting ("stop bob", "stop winning", "para bob": the word after a stop request must be courtesy
  or start a new clause, and "para" starts none: "para eso practiqué"); a command's shape (`nick
  unsubscribe`, `apodo desuscribir`).

A third party is a word that may be a nickname (one no list knows: `bob`, not `this` or `sick`)
in the place a name takes: first, after "tell", "make", "dile a"..., or after a complete phrase at
the end or before a new clause. The words a stop request may keep as company are reserved from
nicknames (`revocation_words.RESERVED_WORDS`), so "stop bro" never names a player. The words are
in `revocation_words.py` and `revocation_sentence.py`; this module reads a text and weighs them.
Matching looks words up in tables a bounded number of times per word; no pattern can backtrack.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import accumulate

from serverless_rps import revocation_words as vocabulary
from serverless_rps.normalisation import (
    ENGLISH_SPELLINGS,
    SPANISH_SPELLINGS,
    SPELLINGS,
    collapsed_doubles,
    key_word_typed,
    normalised,
    spelled,
    split_run_together,
    typed_shapes,
    without_accents,
)
from serverless_rps.revocation_parties import (
    REACH,
    ends_a_sentence,
    is_asked_of_a_third_party,
    is_laughter,
    is_negated,
    may_be_a_nickname,
    names_someone_after,
    says_what_you_do,
    starts_with_a_third_party,
)
from serverless_rps.revocation_signals import aimed_intent, game_signals, move, the_games_name_as_one
from serverless_rps.revocation_words import Language, Meaning

__all__ = ["ONLY_ENGLISH", "ONLY_SPANISH", "Revocation", "classify", "language_of", "words_of"]


@dataclass(frozen=True)
class Revocation:
    """The text reads as "stop texting me"; `rule` names the rule that matched, for the audit log,
    and `language` the language the text is in, for the confirmation."""

    rule: str
    language: Language = "en"


# How far from a clear phrase a move or a word of the contest outweighs it: "stop texting me, I
# already won" is about the game; a long text whose request is sentences away from the game it
# complains about ("...saying someone threw rock at me. I don't know you. Please remove me from
# this list") is not.
_GAME_REACH = 6


# --- The lists' words ------------------------------------------------------------------------------


def _words_in(phrases: Iterable[tuple[str, ...]]) -> frozenset[str]:
    return frozenset(word for phrase in phrases for word in phrase)


# Every word some list knows, as typed or as read: a word no reading makes one of these (its
# shapes, its typos) is read as typed.
_KNOWN_WORDS = vocabulary.ORDINARY_WORDS.union(
    vocabulary.RESERVED_WORDS,
    _words_in(vocabulary.STOP_REQUESTS),
    vocabulary.CONTEST_WORDS,
    vocabulary.ENGLISH_MOVES,
    vocabulary.SPANISH_MOVES,
    SPELLINGS,
    SPELLINGS.values(),
)


# What a word the lists do not know may be split into: the words they know, two letters or more,
# but "nomas" ("just"), which would hide a "no más" (`nomasmsjs`).
_SPLIT_LEXICON = frozenset(word for word in _KNOWN_WORDS if len(word) >= 2 and word.isalpha()) - {"nomas"}
# An English word made of a stop word and an affix is one word: `unstoppable`, `unendable`; not
# a word that splits into words of its own (`unsubscribeme`).
_PREFIXES = frozenset({"un"})
_SUFFIXES = frozenset({"able", "ably", "ible"})
_LONGEST_KNOWN_WORD = max(len(word) for word in _SPLIT_LEXICON)
# The stop words as people type them (`dejenme`, `saquenme`, `no`): a word holding none is not split.
_STOPS_AS_TYPED = tuple(
    sorted(word for word in _SPLIT_LEXICON if SPELLINGS.get(word, word) in vocabulary.INTENT_WORDS)
)


def _vocabulary(spellings: Mapping[str, str], language: Language) -> frozenset[str]:
    tables = (vocabulary.CLEAR_PHRASES, vocabulary.STOP_REQUESTS, vocabulary.COURTESY)
    in_tables = _words_in(
        phrase for table in tables for phrase, meaning in table.items() if meaning.language == language
    )
    return in_tables.union(
        spelled(spellings),
        spellings,
        vocabulary.FUNCTION_WORDS[language],
        vocabulary.NEGATIONS[language],
        vocabulary.ADDRESS_WORDS[language],
    )


# Words of one language and not the other, to tell which a text is in ("stop" is both's).
_ENGLISH_WORDS = _vocabulary(ENGLISH_SPELLINGS, "en")
_SPANISH_WORDS = _vocabulary(SPANISH_SPELLINGS, "es")
ONLY_ENGLISH = _ENGLISH_WORDS - _SPANISH_WORDS - {"stop"}
ONLY_SPANISH = _SPANISH_WORDS - _ENGLISH_WORDS - {"stop"}


# --- Reading --------------------------------------------------------------------------------------

_APOSTROPHES = re.compile("['\u2018\u2019\u02bc`\u00b4]")
_WORD = re.compile(r"\w+")


_NO_PLUS = re.compile(r"\bno\s*\+")  # `no+ msjs`: "no más" as people type it
# A swear masked with symbols: `f***ing`, `F**KING`, `sh*t`, `$#!t`. Read as if it were not there,
# but `f***` and `f*ck`, which are read as `f` ("f*** off" is "f off").
_MASKED = re.compile(r"(?<![\w*#$@%!])[\w$@][\w*#$@%!]*[*#$@%][\w*#$@%!]*")


def _unmasked(masked: re.Match[str]) -> str:
    token = masked.group()
    if not any(character.isalpha() for character in token):
        return token  # `#5`, `20%`: no word
    return " f " if token[0] == "f" and len(token) <= 4 else " "


def _folded_words(body: str, *, split: bool = True) -> list[str]:
    """The words as typed, casefolded, without accents or apostrophes, each as the word it stands
    for: `¡Déjame!` -> ['dejame'], `STOPPP` -> ['stop'], `st0p` -> ['stop'], `remvoe` -> ['remove'];
    words split apart joined (`un subscribe`, `un-sub`) and words run together split
    (`stoptexting` -> ['stop', 'texting'], `dejenmeenpaz` -> ['dejenme', 'en', 'paz'])."""
    text = _MASKED.sub(_unmasked, without_accents(_APOSTROPHES.sub("", normalised(body).casefold())))
    text = _NO_PLUS.sub(
        "no mas ",
        text.replace("#", " number ")
        .replace("\N{OCTAGONAL SIGN}", " stop ")
        .replace("\N{NO ENTRY SIGN}", " no "),
    )
    words: list[str] = []
    for word in _joined(_WORD.findall(text)):
        meant = _as_meant(word)
        parts = None if not split or meant != word or word in _KNOWN_WORDS else _run_together(word)
        words.extend(parts or (meant,))
    # Laughter and swearing beside a request say how it is said, not what: "stop lol", "stop
    # fucking texting me", "ya basta jajaja" are read without them.
    return [word for word in words if not is_laughter(word) and word not in vocabulary.INTENSIFIERS]


def _joined(words: list[str]) -> list[str]:
    """Two words that are a key word together, joined: `un subscribe`, `unsub scribe`, `un-sub`."""
    joined: list[str] = []
    index = 0
    while index < len(words):
        pair = "".join(words[index : index + 2])
        if (
            index + 1 < len(words)
            and min(len(words[index]), len(words[index + 1])) >= 2  # `t unsubscribe` is a throw's shape
            and (pair in vocabulary.JOINED_KEY_WORDS or key_word_typed(pair) in vocabulary.JOINED_KEY_WORDS)
        ):
            joined.append(pair)
            index += 2
        else:
            joined.append(words[index])
            index += 1
    return joined


def _run_together(word: str) -> list[str] | None:
    """The words a word the lists do not know is, run together, if one of them asks to stop and
    none names a move or the contest; each as the word it stands for."""
    if not any(stop in word for stop in _STOPS_AS_TYPED):
        return None  # most words no list knows hold no stop word: names, other words, noise
    parts = split_run_together(word, _SPLIT_LEXICON, _LONGEST_KNOWN_WORD)
    if parts is None or parts[0] in _PREFIXES or parts[-1] in _SUFFIXES:
        return None
    meant = [_as_meant(part) for part in parts]
    canonical = _canonical_words(meant)
    if not any(part in vocabulary.INTENT_WORDS for part in canonical) or any(
        move(part) is not None or part in vocabulary.CONTEST_WORDS for part in canonical
    ):
        return None
    return meant


def _as_meant(word: str) -> str:
    """A word the lists know as typed, or the first of its shapes they know (`stoppp`, `st0p`), or
    a stop word typed with a letter doubled (`altoo`), or the key word it is a typo of (`remvoe`),
    or else the word as typed."""
    if word in _KNOWN_WORDS:
        return word
    shapes = typed_shapes(word)
    known = next((shape for shape in shapes if shape in _KNOWN_WORDS), None)
    if known is not None:
        return known
    single = next((shape for shape in collapsed_doubles(word) if shape in vocabulary.INTENT_WORDS), None)
    if single is not None:
        return single
    typo = next((key for shape in (word, *shapes) if (key := key_word_typed(shape))), None)
    return typo or word


def words_of(body: str) -> list[str]:
    """The text as the rules read it: `Don’t TXT me!!` -> ['dont', 'text', 'me']."""
    return _canonical_words(_folded_words(body))


def _canonical_words(folded_words: list[str]) -> list[str]:
    return [SPELLINGS.get(word, word) for word in folded_words]


# --- Deciding -------------------------------------------------------------------------------------


def classify(body: str) -> Revocation | None:
    """A `Revocation` naming the rule that matched and the text's language, or None. Says nothing
    about commands: the caller asks only about text that is not one."""
    folded_words = _folded_words(body)
    words = _canonical_words(folded_words)
    # A command's argument as typed: `apodo olvidame` names a player, however it splits.
    if _has_a_commands_shape(words) or _has_a_commands_shape(
        _canonical_words(_folded_words(body, split=False))
    ):
        return None
    words = the_games_name_as_one(words)
    game_words_before = list(accumulate(game_signals(words), initial=0))
    meaning = _clear_phrase(words, game_words_before)
    if meaning is None and not game_words_before[-1]:
        request = _stop_request(words)
        if request is not None and (request.rule in vocabulary.REMOVALS or not _sounds_playful(words)):
            meaning = request
    if meaning is None:
        meaning = _aimed_intent(words, game_words_before)
    if meaning is not None:
        return Revocation(meaning.rule, _language(folded_words, meaning.language))
    spelled_out = _spelled_out(folded_words)  # as typed: `k` and `u` are letters here, not ok and you
    return Revocation(spelled_out.rule, spelled_out.language) if spelled_out else None


def _aimed_intent(words: list[str], game_words_before: list[int]) -> Meaning | None:
    """A stop intent aimed at the texts or the sender (`revocation_signals`), weighed against the
    game signals near it, as a clear phrase is."""
    tails = _tails(words)

    def outweighed(start: int, end: int, meaning: Meaning) -> bool:
        near = (max(0, start - _GAME_REACH), min(len(words), end + _GAME_REACH))
        return bool(
            game_words_before[near[1]] - game_words_before[near[0]]
            or is_negated(words, start, meaning.language)
            or is_asked_of_a_third_party(words, start, meaning)
            or says_what_you_do(words, start, meaning.language)
            # "stop pinging me bob": "me" is courtesy before a name, as after a phrase
            or names_someone_after(words, end - 1 if words[end - 1] in ("me", "us") else end, meaning)
            or any(word in vocabulary.UNTIL for word in words[end : end + REACH])
            or _sounds_playful(words[near[0] : near[1]])
        )

    return aimed_intent(words, outweighed, lambda end: tails[end] is not None)


def language_of(body: str) -> Language:
    """The language most of the text's known words are in; English when none or as many."""
    return _language(_folded_words(body), "en")


def _has_a_commands_shape(words: list[str]) -> bool:
    """`nick unsubscribe`, `apodo desuscribir`, `ayuda alto`: a command word and one argument of a
    nickname's shape, whatever the word (it is the name asked for, as far as the command can
    tell), or two that may be a nickname or a topic (a keyword is one)."""
    if not 2 <= len(words) <= 3 or words[0] not in vocabulary.COMMANDS_WITH_AN_ARGUMENT:
        return False
    if len(words) == 2 and vocabulary.NICKNAME_SHAPE.fullmatch(words[1]):
        return True
    return all(may_be_a_nickname(word) or word in vocabulary.RESERVED_WORDS for word in words[1:])


def _sounds_playful(words: list[str]) -> bool:
    """A nickname's shape (`alice_99`, `bob2`): the weak game signal, enough to outweigh a stop
    request. Laughter is no longer one: it is read out of the text (`_folded_words`)."""
    return any(vocabulary.NAME_WITH_DIGITS_OR_UNDERSCORE.fullmatch(word) for word in words)


def _clear_phrase(words: list[str], game_words_before: list[int]) -> Meaning | None:
    """The first clear phrase no game signal outweighs. `game_words_before[i]` counts the words
    before position i that name the game; those inside the phrase do not count ("lose my number"),
    nor those more than `_GAME_REACH` words away from it."""
    for start in range(len(words)):
        for length in range(1, min(vocabulary.LONGEST_PHRASE, len(words) - start) + 1):
            end = start + length
            meaning = vocabulary.CLEAR_PHRASES.get(tuple(words[start:end]))
            if meaning is None:
                continue
            near = (max(0, start - _GAME_REACH), min(len(words), end + _GAME_REACH))
            names_the_game = (game_words_before[start] - game_words_before[near[0]]) + (
                game_words_before[near[1]] - game_words_before[end]
            )
            if not (
                names_the_game
                or is_negated(words, start, meaning.language)
                or is_asked_of_a_third_party(words, start, meaning)
                or says_what_you_do(words, start, meaning.language)
                or names_someone_after(words, end, meaning)
                or any(word in vocabulary.UNTIL for word in words[end : end + REACH])
                or (
                    meaning.rule in vocabulary.PAUSED_FOR_A_DAY
                    and any(word in vocabulary.FOR_A_DAY for word in words[end : end + 2])
                )
            ):
                return meaning
    return None


def _stop_request(words: list[str]) -> Meaning | None:
    """A stop request with courtesy words that is the whole text, its end or its start."""
    heads = _heads(words)
    if heads[-1] is not None and heads[-1].rule:
        return heads[-1]
    if starts_with_a_third_party(words):
        return None
    tails = _tails(words)
    # Right to left, from the last stop to the courtesy words before it: a negation governs the
    # stop itself ("nadie me para"), while a name or a modifier is only the word just before.
    for start in range(len(words) - 1, 0, -1):
        tail = tails[start]
        if tail is None or not tail.rule:
            continue
        if is_negated(words, start, tail.language):
            break
        if ends_a_sentence(words, start, tail):
            return tail
    for start_of_the_rest, head in enumerate(heads[1:-1], start=1):
        if (
            head is not None
            and head.rule
            and (
                words[start_of_the_rest] in vocabulary.CLAUSE_STARTS
                # "STOP!!! This is my dad's phone": "this" starts a clause only with its verb
                or tuple(words[start_of_the_rest : start_of_the_rest + 2]) in vocabulary.CLAUSE_STARTING_PAIRS
            )
            and words[start_of_the_rest - 1] not in vocabulary.NOT_BEFORE_A_CLAUSE
        ):
            return head
    return None


def _run_meaning(phrase: tuple[str, ...]) -> Meaning | None:
    return (
        vocabulary.STOP_REQUESTS.get(phrase)
        or vocabulary.CLEAR_PHRASES.get(phrase)
        or vocabulary.COURTESY.get(phrase)
    )


def _heads(words: list[str]) -> list[Meaning | None]:
    """Entry i: how words[:i] splits wholly into stop requests, clear phrases and courtesy words:
    the first stop's meaning, `vocabulary.COURTESY_ONLY`, or None for no split. One pass, left to right, a
    few look-ups per position and phrase length."""
    heads: list[Meaning | None] = [None] * (len(words) + 1)
    heads[0] = vocabulary.COURTESY_ONLY
    for start in range(len(words)):
        so_far = heads[start]
        if so_far is None:
            continue
        for length in range(1, min(vocabulary.LONGEST_PHRASE, len(words) - start) + 1):
            meaning = _run_meaning(tuple(words[start : start + length]))
            if meaning is not None:
                _keep_a_stop(heads, start + length, so_far if so_far.rule else meaning)
    return heads


def _tails(words: list[str]) -> list[Meaning | None]:
    """Entry i: how words[i:] splits, as `_heads` says, right to left. At the end of a text "end"
    and "quit" alone are no stop request (`vocabulary.NOT_AT_THE_END`)."""
    tails: list[Meaning | None] = [None] * (len(words) + 1)
    tails[-1] = vocabulary.COURTESY_ONLY
    for end in range(len(words), 0, -1):
        after = tails[end]
        if after is None:
            continue
        for length in range(1, min(vocabulary.LONGEST_PHRASE, end) + 1):
            phrase = tuple(words[end - length : end])
            meaning = None if phrase in vocabulary.NOT_AT_THE_END else _run_meaning(phrase)
            if meaning is not None:
                _keep_a_stop(tails, end - length, meaning if meaning.rule else after)
    return tails


def _keep_a_stop(splits: list[Meaning | None], position: int, meaning: Meaning) -> None:
    """Record a split at `position`, preferring one with a stop request to courtesy words only."""
    known = splits[position]
    if known is None or (meaning.rule and not known.rule):
        splits[position] = meaning


def _spelled_out(words: list[str]) -> Meaning | None:
    """`S T O P`, `A L T O`: single letters that spell a keyword. Its letters are no language's words."""
    spelled = "".join(words)
    if (
        len(words) > 1
        and all(len(word) == 1 for word in words)
        and spelled in vocabulary.SPELLED_OUT_KEYWORDS
    ):
        return Meaning("spelled-out-keyword", "es" if spelled in vocabulary.SPANISH_KEYWORDS else "en")
    return None


def _language(folded_words: list[str], fallback: Language) -> Language:
    """The language with more of the text's words as typed; `fallback` (the matched rule's) if as many."""
    english = sum(word in ONLY_ENGLISH for word in folded_words)
    spanish = sum(word in ONLY_SPANISH for word in folded_words)
    if english == spanish:
        return fallback
    return "es" if spanish > english else "en"
