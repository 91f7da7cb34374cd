"""Is this free text a request to stop texting? Pure: standard library only.

Since 11 April 2025 a person may revoke consent to texts "by any reasonable means" (the FCC's
rule, 47 CFR 64.1200(a)(10)): "please stop texting me" counts as much as STOP. Twilio acts only
on its single-word keywords, so the rest reaches the bot, and `parsing.parse` asks `classify`
about any text that is not a real command. docs/opt-out.md says what counts and why.

The classifier is a tiny grammar over words, not a model. The text is normalised as command
keywords are (`normalisation.normalised`, then casefolded), apostrophes are dropped (`don't` is
`dont`), every other non-letter separates words, and common spellings become one word (`txt`,
`msgs` and `texting` are all `text`; `pls` and `plz` are `please`). Then two kinds of rule:

- A **clear phrase** anywhere in the text ("stop texting", "unsubscribe", "leave me alone",
  "wrong number"...) is a revocation, unless a negation comes just before it ("I can't stop
  texting" is not).
- A **bare stop** ("stop", "stop it", "remove me", "I quit"...) is one only when every other
  word of the text is a courtesy or context word ("please", "now", "thx", "who is this"). One
  unknown word is enough to leave it alone: "stop bob", "please stop winning", "stop, hammer
  time" and every other sentence that only mentions stopping are game talk, not a revocation.

Matching looks words up in sets, a bounded number of times per word: a 1,600-character text
costs a few thousand look-ups and no pattern can backtrack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product

from serverless_rps.normalisation import normalised

__all__ = ["Revocation", "classify", "words_of"]


@dataclass(frozen=True)
class Revocation:
    """The text reads as "stop texting me"; `rule` names the rule that matched, for the audit log."""

    rule: str


# People's spellings, each to one word the rules below are written in.
_SPELLINGS = {
    "text": "text texts texting texted textin txt txts txting txtin txtng txtn sms smss smses",
    "message": "message messages messaging messaged msg msgs msging msgng msgin mesage mesages messege "
    "messeges",
    "contact": "contact contacting contacted",
    "call": "call calls calling",
    "spam": "spam spamming spaming",
    "stop": "stop stopp stahp stp sotp stpo",
    "unsubscribe": "unsubscribe unsub unsubscribed unsubcribe unsuscribe unsubscibe unsubsribe unsubscirbe",
    "please": "please pls plz plez plse pleas pleez pleeze plss plzz pleeease pleaseee",
    "thanks": "thanks thx thnx thnks thanx tnx ty tyvm",
    "you": "you u",
    "your": "your ur yr",
    "number": "number numbr nmbr num",
}
_CANONICAL = {spelling: word for word, spellings in _SPELLINGS.items() for spelling in spellings.split()}

_NEGATIONS = frozenset(
    {"dont", "not", "never", "cant", "cannot", "wont", "wouldnt", "shouldnt", "couldnt", "didnt", "doesnt"}
    | {"isnt", "aint"}
)
_NEGATION_REACH = 3  # words before a clear phrase that may negate it: "I can't ever stop texting"


def _expand(pattern: str) -> list[tuple[str, ...]]:
    """`stop [the|these] (text|message)` -> every word sequence it allows. `(a|b)` is a choice,
    `[a|b]` an optional choice; a choice may hold several words (`[with the|your]`)."""
    slots = re.findall(r"\[[^\]]*\]|\([^)]*\)|[^\s()\[\]]+", pattern)
    choices: list[list[tuple[str, ...]]] = []
    for slot in slots:
        if slot[0] in "[(":
            options = [tuple(option.split()) for option in slot[1:-1].split("|")]
            choices.append([*options, ()] if slot[0] == "[" else options)
        else:
            choices.append([(slot,)])
    return [tuple(word for part in parts for word in part) for parts in product(*choices)]


def _phrases(rules: dict[str, tuple[str, ...]]) -> dict[tuple[str, ...], str]:
    return {
        phrase: rule
        for rule, patterns in rules.items()
        for pattern in patterns
        for phrase in _expand(pattern)
    }


_STOP_VERBS = "(stop|quit|end|cancel|cease|halt)"
_CONTACT_NOUNS = "(text|message|contact|call|spam)"
_TO_ME = "(me|this number|my number|my phone)"

# Clear phrases: a revocation wherever they stand, unless negated just before.
_CLEAR_PHRASES = _phrases(
    {
        "stop-texting": (
            f"{_STOP_VERBS} [sending|sending me|with|with the|with all the|all|all the|all these|all your"
            f"|the|these|those|your|them] {_CONTACT_NOUNS}",
            # "sending" only with "me" or a text after it: `stop sending rock` is game talk
            f"{_STOP_VERBS} sending [stuff|anything|things] (me|to me|to this number)",
        ),
        "unsubscribe": ("unsubscribe",),
        "opt-out": ("opt [me|this number|my number] out", "optout"),
        "do-not-text": (f"(dont|do not|never) [ever] (text|message|contact|call|spam) {_TO_ME}",),
        "do-not-want-texts": (
            "(dont|do not|no longer) want [any|any more|anymore|more|these|those|the|your|all these]"
            " (text|message|call)",
        ),
        "no-more-texts": ("no more (text|message|call)",),
        "leave-me-alone": ("leave me alone", "leave me the hell alone"),
        "delete-my-number": ("(delete|remove|erase) (my|this) number",),
        "cancel-subscription": ("(cancel|end) [my|the|this] (subscription|subscriptions)",),
        "wrong-number": ("wrong number", "wrong person"),
    }
)

# Bare stops: a revocation only when the rest of the text is courtesy and context words.
_BARE_STOPS = _phrases(
    {
        "stop-courtesy": ("(stop|stopall|revoke|optout|quit)",),
        "remove-me": ("remove (me|my info|my data|my details|my contact)",),
        "take-me-off": ("take (me|my number|this number) off",),
        "delete-me": ("delete (me|my info|my data|my details|my account)",),
        "i-quit": ("(i|im|i am) (quit|quitting|done|out) [this|the|your] [game|games]",),
    }
)

_COURTESY_AND_CONTEXT = _phrases(
    {
        "": (
            "please",
            "thanks",
            "thank (you|u)",
            "[right] now",
            "already",
            "asap",
            "immediately",
            "just",
            "all",
            "it",
            "ok",
            "okay",
            "sorry",
            "seriously",
            "really",
            "ffs",
            "omg",
            "wtf",
            "god",
            "again",
            "anymore",
            "any more",
            "ever",
            "me",
            "to me",
            "this number",
            "my number",
            "hey",
            "hi",
            "hello",
            "yo",
            "who is this",
            "whos this",
            "who dis",
            "who are you",
            "not interested",
            "no thanks",
            "no thank (you|u)",
            "i said",
            "[from|off|of] [the|this|your|my] (list|lists|system|database|contacts|contact list)",
            "[from|off|of] [the|this|your|my] mailing list",
        )
    }
)

_LONGEST_PHRASE = max(len(phrase) for phrase in (*_CLEAR_PHRASES, *_BARE_STOPS, *_COURTESY_AND_CONTEXT))
_SPELLED_OUT_KEYWORDS = frozenset({"stop", "stopall", "unsubscribe", "optout", "revoke", "quit"})

_APOSTROPHES = re.compile("['\u2018\u2019\u02bc`\u00b4]")
_WORD = re.compile(r"[^\W_]+")


def words_of(body: str) -> list[str]:
    """The text as the rules read it: `Don’t TXT me!!` -> ['dont', 'text', 'me']."""
    text = _APOSTROPHES.sub("", normalised(body).casefold()).replace("#", " number ")
    return [_CANONICAL.get(word, word) for word in _WORD.findall(text)]


def classify(body: str) -> Revocation | None:
    """A `Revocation` naming the rule that matched, or None. Says nothing about commands: the
    caller asks only about text that is not one."""
    words = words_of(body)
    rule = _clear_phrase(words) or _bare_stop(words) or _spelled_out(words)
    return Revocation(rule) if rule else None


def _clear_phrase(words: list[str]) -> str | None:
    for start in range(len(words)):
        before = words[max(0, start - _NEGATION_REACH) : start]
        if _NEGATIONS.intersection(before):
            continue
        for length in range(1, _LONGEST_PHRASE + 1):
            rule = _CLEAR_PHRASES.get(tuple(words[start : start + length]))
            if rule is not None:
                return rule
    return None


def _bare_stop(words: list[str]) -> str | None:
    """The rule of the first stop phrase, if the words split wholly into stop phrases, clear
    phrases and courtesy words, with at least one stop. A left-to-right pass over positions:
    `first_rule[i]` is what the words before position i can be split into ("" for courtesy only,
    None for no split)."""
    first_rule: list[str | None] = [None] * (len(words) + 1)
    first_rule[0] = ""
    for start in range(len(words)):
        rule_so_far = first_rule[start]
        if rule_so_far is None:
            continue
        for length in range(1, min(_LONGEST_PHRASE, len(words) - start) + 1):
            phrase = tuple(words[start : start + length])
            rule = _BARE_STOPS.get(phrase) or _CLEAR_PHRASES.get(phrase)
            if rule is None and phrase not in _COURTESY_AND_CONTEXT:
                continue
            reached = rule_so_far or rule or ""
            if not first_rule[start + length]:
                first_rule[start + length] = reached
    return first_rule[-1] or None


def _spelled_out(words: list[str]) -> str | None:
    """`S T O P`: single letters that spell a keyword."""
    if len(words) > 1 and all(len(word) == 1 for word in words) and "".join(words) in _SPELLED_OUT_KEYWORDS:
        return "spelled-out-keyword"
    return None
