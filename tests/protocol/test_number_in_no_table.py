"""No table ever holds an opted-out number, in clear or under an unkeyed hash (docs/privacy.md).

A game is played by phones that then opt out in every way the bot reads (a keyword, one as typed,
a Spanish keyword, Twilio's Advanced Opt-Out, free text in English and in Spanish, the operator's
erasure, and a second opt-out after START), and every table the engine holds is scanned whole for
each number: as E.164, its digits alone, and the SHA-256, SHA-1 and MD5 of both, in hex and in
base64. The proof of each opt-out is there, under an HMAC with the (test) key: the only way the
number may be kept. Run on moto, and on DynamoDB Local with DYNAMODB=local.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import itertools
import json
from typing import Any

from serverless_rps.processing import Result
from tests.conftest import PROOF_KEY, PROOF_TABLE, Game

# Phones 555-01xx-style, each digits string unlike any other's and any timestamp's.
KEYWORD = "+15557010001"
AS_TYPED = "+15557020002"
SPANISH = "+15557030003"
ADVANCED = "+15557040004"
FREE_TEXT = "+15557050005"
FREE_TEXT_ES = "+15557060006"
ERASED = "+15557070007"
TWICE = "+15557080008"
PHONES = [KEYWORD, AS_TYPED, SPANISH, ADVANCED, FREE_TEXT, FREE_TEXT_ES, ERASED, TWICE]


def forms(phone: str) -> dict[str, str]:
    """Every way the number could be written down without a key, by name."""
    found = {"E.164": phone, "digits": phone.removeprefix("+")}
    for source, text in list(found.items()):
        for algorithm in ("sha256", "sha1", "md5"):
            digest = hashlib.new(algorithm, text.encode()).digest()
            found[f"{algorithm} hex of the {source}"] = digest.hex()
            found[f"{algorithm} base64 of the {source}"] = base64.b64encode(digest).decode()
            found[f"{algorithm} url-safe base64 of the {source}"] = base64.urlsafe_b64encode(digest).decode()
    return found


def every_item(dynamodb: Any) -> dict[str, list[dict[str, Any]]]:
    """Every item of every table the engine holds, each table scanned to its end."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for name in dynamodb.list_tables()["TableNames"]:
        items: list[dict[str, Any]] = []
        request: dict[str, Any] = {"TableName": name, "ConsistentRead": True}
        while True:
            page = dynamodb.scan(**request)
            items += page["Items"]
            if "LastEvaluatedKey" not in page:
                break
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        tables[name] = items
    return tables


def _play(game: Game) -> None:
    names = {phone: f"p{phone[-4:]}" for phone in PHONES}
    game.register(*names.items())
    # Games, challenges, a leaderboard line and a lobby entry: every record that mentions a number.
    for thrower, target in itertools.pairwise(PHONES):
        game.text(thrower, f"rock {names[target]}")
    game.text(AS_TYPED, f"paper {names[KEYWORD]}")  # resolves: a leaderboard line
    game.text(SPANISH, "throw scissors")  # waits in the lobby


def written_down(tables: dict[str, list[dict[str, Any]]], phones: list[str]) -> list[str]:
    """Each form of each phone found in a table: `<phone>'s <form> in <table>`. Hex is looked for in
    either case; base64 as it is."""
    text = {name: json.dumps(items, sort_keys=True) for name, items in tables.items()}
    return [
        f"{phone}'s {form} in {table}"
        for phone in phones
        for form, value in forms(phone).items()
        for table, dumped in text.items()
        if value in dumped or ("hex" in form and value in dumped.lower())
    ]


def test_the_scan_finds_a_number_in_play_and_an_unkeyed_hash_of_it(game: Game) -> None:
    _play(game)
    digest = base64.b64encode(hashlib.sha256(KEYWORD.removeprefix("+").encode()).digest()).decode()
    game.dynamodb.put_item(
        TableName=PROOF_TABLE, Item={"number": {"S": digest}, "event": {"S": "planted by the test"}}
    )

    found = written_down(every_item(game.dynamodb), [KEYWORD])

    assert f"{KEYWORD}'s E.164 in {PROOF_TABLE}" not in found
    assert f"{KEYWORD}'s sha256 base64 of the digits in {PROOF_TABLE}" in found
    assert any(entry.startswith(f"{KEYWORD}'s E.164 in ") for entry in found), "its player's record"


def test_no_table_holds_an_opted_out_number_in_clear_or_under_an_unkeyed_hash(game: Game) -> None:
    _play(game)

    game.text(KEYWORD, "STOP")
    game.text(AS_TYPED, "Stop.")
    game.text(SPANISH, "ALTO")
    game.processor.process(dataclasses.replace(game.inbound(ADVANCED, "BAJA"), opt_out_type="STOP"))
    game.text(FREE_TEXT, "please stop texting me")
    game.text(FREE_TEXT_ES, "ya no me escriban")
    erasure = game.inbound(ERASED, "STOP", sid="erasure-request-test")
    assert game.processor.process(dataclasses.replace(erasure, opt_out_type="STOP", by_operator=True)) is (
        Result.PROCESSED
    )
    game.text(TWICE, "STOP")
    game.text(TWICE, "START")
    game.text(TWICE, "nick again")
    game.text(TWICE, "stop texting me")

    tables = every_item(game.dynamodb)
    assert PROOF_TABLE in tables, "the proof table is scanned with the others"
    assert written_down(tables, PHONES) == []
    # What is kept is the proof, under the keyed hash: one opt-out each, two for TWICE.
    proven = [item["number"]["S"] for item in tables[PROOF_TABLE] if item["event"]["S"] != "status"]
    assert sorted(proven) == sorted(PROOF_KEY.number_id(phone) for phone in [*PHONES, TWICE])
