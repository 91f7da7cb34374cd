"""Each command, played through the real protocol on moto, as a player would see it."""

from __future__ import annotations

from typing import Any

from serverless_rps import replies
from serverless_rps.game import Limits, lobby_shard
from serverless_rps.model import LOBBY_SWEEP_SECONDS
from serverless_rps.processing import Result
from serverless_rps.rules import Move, Outcome
from tests.conftest import ALICE, BOB, CAROL, TABLES, FakeSms, Game

DAY = 24 * 60 * 60


def test_a_new_player_registers_a_nickname_and_keeps_its_display_case(game: Game) -> None:
    game.text(ALICE, "  NICK   Alice_1 ")
    assert game.sms.last(ALICE) == replies.nick_registered("Alice_1")
    assert game.nickname_row("alice_1")["phone_number"]["S"] == ALICE
    assert game.player(ALICE)["display_name"]["S"] == "Alice_1"


def test_a_nickname_is_unique_ignoring_case(game: Game) -> None:
    game.text(ALICE, "nick Alice")
    game.text(BOB, "nick ALICE")
    assert game.sms.last(BOB) == replies.nick_taken("ALICE")
    assert game.player(BOB) is None


def test_renaming_frees_the_old_name_and_keeps_games(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "throw rock bob")
    game.text(ALICE, "nick queen")
    assert game.sms.last(ALICE) == replies.nick_changed("alice", "queen")
    assert game.nickname_row("alice") is None
    game.text(CAROL, "nick alice")
    assert game.sms.last(CAROL) == replies.nick_registered("alice")
    game.text(BOB, "paper queen")
    assert game.sms.last(BOB) == replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "queen")


def _scores(game: Game, *phones: str) -> list[str]:
    """What SCORE answers each of `phones`, in turn."""
    answers = []
    for phone in phones:
        game.text(phone, "score")
        answers.append(game.sms.last(phone))
    return answers


def test_a_resolved_game_tells_both_players_the_result_and_both_moves(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "throw rock bob")
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.ROCK)
    assert game.sms.last(BOB) == replies.challenged("alice")
    game.text(BOB, "sc alice")
    assert game.sms.last(BOB) == replies.result(Outcome.LOSS, Move.SCISSORS, Move.ROCK, "alice")
    assert game.sms.last(ALICE) == replies.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "bob")
    assert _scores(game, ALICE, BOB) == [replies.score(1, 0, 0, 1), replies.score(0, 1, 0, -1)]


def test_a_tie_is_kept_in_both_players_scores_and_ends_a_streak(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(BOB, "scissors alice")  # alice wins: a streak of one
    game.text(ALICE, "paper bob")
    game.text(BOB, "paper alice")
    assert game.sms.last(BOB) == replies.result(Outcome.TIE, Move.PAPER, Move.PAPER, "alice")
    assert game.sms.last(ALICE) == replies.result(Outcome.TIE, Move.PAPER, Move.PAPER, "bob")
    assert _scores(game, ALICE, BOB) == [replies.score(1, 0, 1, 0), replies.score(0, 1, 1, 0)]


def test_again_throws_at_the_last_opponent_who_can_answer_with_again(game: Game) -> None:
    game.register((ALICE, "Alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(BOB, "paper alice")
    game.text(ALICE, "again scissors")
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.SCISSORS)
    assert game.sms.last(BOB) == replies.challenged("Alice")
    game.text(BOB, "again rock")
    assert game.sms.last(BOB) == replies.result(Outcome.WIN, Move.ROCK, Move.SCISSORS, "Alice")
    game.text(BOB, "score")
    assert game.sms.last(BOB) == replies.score(2, 0, 0, 2)
    game.text(BOB, "top")
    assert game.sms.last(BOB) == replies.top([("bob", 2)]), "a rematch's result counts on the board"


def test_again_before_any_finished_game_is_explained(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")  # waiting, not finished
    game.text(ALICE, "again paper")
    assert game.sms.last(ALICE) == replies.no_last_opponent()
    game.text(CAROL, "again paper")
    assert game.sms.last(CAROL) == replies.not_registered()


def test_again_never_reaches_whoever_took_a_quitters_name(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(BOB, "paper alice")
    game.text(ALICE, "stop")
    game.text(CAROL, "nick alice")
    sent_to_carol = len(game.sms.to(CAROL))
    game.text(BOB, "again rock")
    assert game.sms.last(BOB) == replies.last_opponent_gone("alice")
    assert len(game.sms.to(CAROL)) == sent_to_carol
    assert game.player(CAROL)["challenges"]["M"] == {}


def test_a_throw_with_no_opponent_waits_for_a_stranger_and_both_learn_who_and_the_result(
    game: Game, clock: Any
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "throw rock")
    assert game.sms.last(ALICE) == replies.lobby_waiting(Move.ROCK)
    game.text(ALICE, "paper")
    assert game.sms.last(ALICE) == replies.lobby_already_waiting(Move.ROCK), "never paired with herself"
    clock.tick(LOBBY_SWEEP_SECONDS)  # bob's room is another than alice's: she has waited long enough
    game.text(BOB, "paper")
    assert game.sms.last(BOB) == replies.lobby_result(Outcome.WIN, Move.PAPER, Move.ROCK, "alice")
    assert game.sms.last(ALICE) == replies.lobby_result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob")
    game.text(BOB, "top")
    assert game.sms.last(BOB) == replies.top([("bob", 1)])
    game.text(CAROL, "nick carol")
    game.text(CAROL, "scissors")
    assert game.sms.last(CAROL) == replies.lobby_waiting(Move.SCISSORS), "the pair left the lobby"
    game.text(ALICE, "again scissors")  # the stranger is now her last opponent
    assert game.sms.last(BOB) == replies.challenged("alice")


def test_a_lobby_throw_expires_like_a_challenge(dynamodb: object, clock: object) -> None:
    game = Game(dynamodb, FakeSms(), Limits(challenge_expiry_seconds=3600))
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock")
    clock.tick(3601)  # type: ignore[attr-defined]
    game.text(BOB, "paper")
    assert game.sms.last(BOB) == replies.lobby_waiting(Move.PAPER)
    assert replies.lobby_result(Outcome.LOSS, Move.ROCK, Move.PAPER, "bob") not in game.sms.to(ALICE)


def test_a_stranger_must_register_before_playing_the_lobby(game: Game) -> None:
    game.text(CAROL, "rock")
    assert game.sms.last(CAROL) == replies.not_registered()
    # No row of the number. The room is locked before the sender (game.lock_position): its row
    # stays, with nobody in it.
    assert game.items(TABLES.game_state) == [{"phone_number": {"S": lobby_shard(CAROL)}}]


def test_throwing_again_before_the_opponent_answers_gets_a_clear_reply(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    game.text(ALICE, "paper bob")
    assert game.sms.last(ALICE) == replies.already_thrown("bob")
    game.text(BOB, "p alice")
    assert game.sms.last(BOB) == replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "alice")


def test_throwing_at_yourself_an_unknown_name_or_before_registering_is_refused(game: Game) -> None:
    game.register((ALICE, "alice"))
    game.text(ALICE, "throw rock alice")
    assert game.sms.last(ALICE) == replies.cannot_throw_at_self()
    game.text(ALICE, "throw rock nobody")
    assert game.sms.last(ALICE) == replies.unknown_player("nobody")
    game.text(BOB, "throw rock alice")
    assert game.sms.last(BOB) == replies.not_registered()
    assert game.player(BOB) is None, "a refused stranger must leave no row behind"


def _play(game: Game, winner: str, loser: str, winner_nick: str, loser_nick: str) -> None:
    game.text(loser, f"scissors {winner_nick}")
    game.text(winner, f"rock {loser_nick}")


def test_top_ranks_by_wins_then_fewer_losses_then_who_got_there_first(game: Game, clock: object) -> None:
    game.text(CAROL, "top")
    assert game.sms.last(CAROL) == replies.top([])
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    _play(game, BOB, ALICE, "bob", "alice")  # bob 1-0, alice 0-1
    clock.tick(1)  # type: ignore[attr-defined]
    _play(game, ALICE, CAROL, "alice", "carol")  # alice 1-1, carol 0-1
    clock.tick(1)  # type: ignore[attr-defined]
    _play(game, CAROL, BOB, "carol", "bob")  # all 1-1: in the order they reached one win
    game.text(BOB, "top")
    assert game.sms.last(BOB) == replies.top([("bob", 1), ("alice", 1), ("carol", 1)])
    _play(game, ALICE, BOB, "alice", "bob")  # alice 2-1; bob 1-2 falls below carol's 1-1
    game.text(BOB, "leaders")
    assert game.sms.last(BOB) == replies.top([("alice", 2), ("carol", 1), ("bob", 1)])


def test_a_player_who_stops_leaves_the_leaderboard(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    _play(game, ALICE, BOB, "alice", "bob")
    _play(game, BOB, ALICE, "bob", "alice")
    game.text(ALICE, "stop")
    game.text(BOB, "top")
    assert game.sms.last(BOB) == replies.top([("bob", 1)])


def test_games_lists_whom_you_wait_on_and_who_waits_on_you(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    game.text(ALICE, "rock bob")
    game.text(CAROL, "rock alice")
    game.text(ALICE, "games")
    assert game.sms.last(ALICE) == replies.games_summary(["bob"], ["carol"])


def test_games_shows_a_throw_waiting_in_the_lobby_until_it_is_played_or_expires(
    game: Game, clock: object
) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    game.text(ALICE, "throw rock")
    game.text(CAROL, "paper alice")
    clock.tick(DAY)  # type: ignore[attr-defined]
    game.text(ALICE, "games")
    assert game.sms.last(ALICE) == replies.games_summary([], ["carol"], Move.ROCK, 6 * DAY)
    game.text(BOB, "games")
    assert game.sms.last(BOB) == replies.games_summary([], []), "someone else's wait is not bob's"
    game.text(BOB, "throw paper")  # plays alice
    game.text(ALICE, "games")
    assert game.sms.last(ALICE) == replies.games_summary([], ["carol"])
    game.text(ALICE, "throw scissors")
    clock.tick(7 * DAY)  # type: ignore[attr-defined]
    game.text(ALICE, "games")
    assert game.sms.last(ALICE) == replies.games_summary([], [])


def test_top_tells_a_player_below_the_lines_shown_their_place_and_others_that_they_have_none(
    game: Game, clock: object
) -> None:
    # Eight winners with the longest names, one win each: the lines that fit one SMS stop before
    # the last, who reached one win last and so ranks last.
    winners = [(f"+1555444{n:04d}", f"winner{n}" + "w" * 8) for n in range(8)]
    game.register((ALICE, "alice"), (BOB, "bob"), *winners)
    for phone, name in winners:
        _play(game, phone, BOB, name, "bob")
        clock.tick(1)  # type: ignore[attr-defined]
    board = [(name, 1) for _, name in winners]
    last, first = winners[-1][0], winners[0][0]
    game.text(last, "top")
    assert game.sms.last(last) == replies.top_with_rank(board, 8, 1)
    assert game.sms.last(last).endswith(". You: #8, 1 win")
    game.text(first, "top")
    assert game.sms.last(first) == replies.top(board), "the first line is their own"
    game.text(BOB, "top")  # eight losses, no win
    assert game.sms.last(BOB) == replies.top_unranked(board)
    game.text(CAROL, "top")  # no nickname: anyone may look
    assert game.sms.last(CAROL) == replies.top(board)


def test_a_nickname_that_looks_like_a_taken_one_is_refused_naming_the_one_it_looks_like(game: Game) -> None:
    game.register((ALICE, "alice"))
    game.text(BOB, "nick aIice")
    assert game.sms.last(BOB) == replies.nick_taken_look_alike("aIice", "alice")
    game.text(ALICE, "nick ALICE")  # the holder re-cases it: the row says so
    game.text(CAROL, "nick A1ice")
    assert game.sms.last(CAROL) == replies.nick_taken_look_alike("A1ice", "ALICE")
    assert game.player(BOB) is None
    assert game.player(CAROL) is None


def test_strangers_asking_for_help_leave_no_trace(game: Game) -> None:
    game.text(CAROL, "help")
    game.text(CAROL, "score")
    game.text(CAROL, "games")
    assert game.sms.to(CAROL) == [
        replies.opt_in_confirmation(replies.Program()),  # the first reply a phone ever gets
        replies.program_help(replies.Program()),
        replies.help_overview(),
        replies.not_registered(),
        replies.not_registered(),
    ]
    assert game.items(TABLES.game_state) == []


def test_stop_deletes_the_player_and_sends_nothing(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    sent_before = len(game.sms.sent)
    game.text(ALICE, "STOP")
    assert len(game.sms.sent) == sent_before
    assert game.player(ALICE) is None
    assert game.nickname_row("alice") is None


def test_stop_tells_everyone_whose_throw_waits_on_the_player_once_by_nickname(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    game.text(BOB, "rock alice")  # waits on alice: told
    game.text(ALICE, "paper carol")  # alice waits on carol: carol is not told
    sent_to_carol = len(game.sms.to(CAROL))
    game.text(ALICE, "STOP")
    assert game.sms.last(BOB) == replies.opponent_left("alice")
    assert len(game.sms.to(CAROL)) == sent_to_carol
    assert ALICE not in game.sms.last(BOB)
    game.text(BOB, "games")
    assert game.sms.last(BOB) == replies.games_summary([], [])
    game.text(ALICE, "stop")  # a second STOP has no one left to tell
    assert game.sms.to(BOB).count(replies.opponent_left("alice")) == 1


def test_stop_with_more_goodbyes_than_its_transaction_holds_tells_the_latest_throws(
    dynamodb: object, clock: object
) -> None:
    game = Game(dynamodb, FakeSms(), Limits(max_opt_out_writes=4))
    game.register((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))
    game.text(BOB, "rock alice")
    clock.tick(60)  # type: ignore[attr-defined]
    game.text(CAROL, "rock alice")
    game.text(ALICE, "stop")  # three records change: room for one goodbye
    assert game.sms.last(CAROL) == replies.opponent_left("alice")
    assert replies.opponent_left("alice") not in game.sms.to(BOB)
    assert game.player(ALICE) is None
    assert game.player(BOB)["games"]["M"] == {}


def test_old_throws_never_score_against_whoever_takes_a_quitters_place(game: Game) -> None:
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(BOB, "rock alice")
    game.text(ALICE, "stop")
    game.text(CAROL, "nick alice")  # someone else takes the name
    game.text(CAROL, "paper bob")
    assert game.sms.last(CAROL) == replies.throw_waiting("bob", Move.PAPER)
    game.text(ALICE, "start")
    assert game.sms.last(ALICE) == replies.opt_in_confirmation(replies.Program())
    game.text(ALICE, "nick alice2")  # the same phone returns: a new player
    game.text(ALICE, "scissors bob")
    assert game.sms.last(ALICE) == replies.throw_waiting("bob", Move.SCISSORS)


def test_pending_challenges_expire(dynamodb: object, clock: object) -> None:
    sms = FakeSms()
    game = Game(dynamodb, sms, Limits(challenge_expiry_seconds=3600))
    game.register((ALICE, "alice"), (BOB, "bob"))
    game.text(ALICE, "rock bob")
    clock.tick(3601)  # type: ignore[attr-defined]
    game.text(BOB, "paper alice")
    assert game.sms.last(BOB) == replies.throw_waiting("alice", Move.PAPER)
    game.text(ALICE, "games")
    assert game.sms.last(ALICE) == replies.games_summary([], ["bob"])


def test_bad_input_gets_a_short_reply(game: Game) -> None:
    for body, expected in (
        ("", replies.empty_message()),
        ("   ", replies.empty_message()),
        ("nick", replies.nick_usage()),
        ("nick " + "x" * 2000, replies.nick_invalid()),
        ("nick rock", replies.nick_invalid()),
        ("throw banana bob", replies.unknown_move()),
        ("😀" * 500, replies.unknown_command()),
    ):
        assert game.text(ALICE, body) is Result.PROCESSED
        assert game.sms.last(ALICE) == expected


def test_help_on_a_topic_answers_that_topic_alone_to_the_asker(game: Game) -> None:
    game.register((ALICE, "alice"))
    before = len(game.sms.sent)
    game.text(ALICE, "help nick")
    game.text(ALICE, "help banana")
    answers = [(message.to, message.body) for message in game.sms.sent[before:]]
    assert answers == [(ALICE, replies.help_topic("nick")), (ALICE, replies.unknown_help_topic())]
