"""The game's decisions, pure: for each use case and each of its branches, the whole Decision.

The protocol tests play these through DynamoDB; here each rule is checked at its edge (a limit
reached or not, an entry expiring at the very second, a streak changing sign) in microseconds.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from serverless_rps import game, replies
from serverless_rps.game import (
    LEADERBOARD_SHARDS,
    LOBBY_SHARDS,
    Challenge,
    Decision,
    LastOpponent,
    Leaderboard,
    Limits,
    Lobby,
    LobbyEntry,
    NicknameHolder,
    PendingThrow,
    Player,
    Ranking,
    Reply,
    board_shard,
    lobby_shard,
)
from serverless_rps.parsing import Rematch, SetNickname, Throw
from serverless_rps.rules import Move, Outcome

ALICE, BOB, CAROL = "+15551110001", "+15552220002", "+15553330003"
NOW = 1_000_000.0
DAY = 24 * 60 * 60.0
LIMITS = Limits(challenge_expiry_seconds=DAY, max_open_games=2, max_open_challenges=2, max_counterparts=3)

alice = Player(ALICE, "alice-1", "allce", "Alice")
bob = Player(BOB, "bob-1", "bob", "Bob")
carol = Player(CAROL, "carol-1", "carol", "Carol")
LAST_WAS_ALICE = LastOpponent("allce", "Alice", "alice-1")
LAST_WAS_BOB = LastOpponent("bob", "Bob", "bob-1")
ALICE_LINE, BOB_LINE = board_shard("alice-1"), board_shard("bob-1")  # two shards of the leaderboard
ALICE_LOBBY = lobby_shard(ALICE)


def _boards(*players: Player) -> dict[str, Leaderboard]:
    """The empty leaderboard shards of these players' lines, as a result locks them."""
    return {key: Leaderboard() for key in game.board_shards(*players)}


def _same_lobby_shard_as(phone: str) -> str:
    """Another phone whose lobby throws wait in `phone`'s shard."""
    return next(
        other
        for other in (f"+1555777{index:04d}" for index in range(1000))
        if lobby_shard(other) == lobby_shard(phone)
    )


def _thrown(
    thrower: Player, target: Player, move: Move, expires_at: float = NOW + DAY
) -> tuple[Player, Player]:
    """`thrower` has thrown `move` at `target`: the mirrored pair of entries."""
    return (
        replace(
            thrower, games={**thrower.games, target.phone: PendingThrow(move, target.player_id, expires_at)}
        ),
        replace(
            target, challenges={**target.challenges, thrower.phone: Challenge(thrower.player_id, expires_at)}
        ),
    )


def _others(n: int) -> list[str]:
    return [f"+1555999{index:04d}" for index in range(n)]


def test_a_refusal_is_one_reply_to_the_sender_and_changes_nothing() -> None:
    assert game.reply_only(ALICE, "No.") == Decision(replies=(Reply(ALICE, "No."),), players={})
    assert game.show_score(ALICE, None) == Decision(replies=(Reply(ALICE, replies.not_registered()),))


# -- nicknames ---------------------------------------------------------------------------------------


def test_a_new_phone_registers_and_claims_its_nickname() -> None:
    decision = game.set_nickname(ALICE, None, SetNickname("Alice"), None, "alice-1")
    assert decision == Decision(
        replies=(Reply(ALICE, replies.nick_registered("Alice")),),
        players={ALICE: alice},
        claim_nickname=alice,
    )


BOB_HOLDS_IT = NicknameHolder(BOB, "Bob")


def test_a_nickname_held_by_another_phone_is_refused() -> None:
    assert game.set_nickname(ALICE, alice, SetNickname("Bob"), BOB_HOLDS_IT, "x") == game.reply_only(
        ALICE, replies.nick_taken("Bob")
    )
    # Another case of the same letters needs no explaining.
    assert game.set_nickname(CAROL, None, SetNickname("BOB"), BOB_HOLDS_IT, "x") == game.reply_only(
        CAROL, replies.nick_taken("BOB")
    )


def test_a_look_alike_of_a_taken_nickname_is_refused_naming_the_name_it_looks_like() -> None:
    assert game.set_nickname(CAROL, None, SetNickname("B0b"), BOB_HOLDS_IT, "x") == game.reply_only(
        CAROL, replies.nick_taken_look_alike("B0b", "Bob")
    )
    holder = NicknameHolder(ALICE, "alice")
    assert game.set_nickname(BOB, bob, SetNickname("aIICE"), holder, "x") == game.reply_only(
        BOB, replies.nick_taken_look_alike("aIICE", "alice")
    )


def test_the_same_name_again_changes_nothing() -> None:
    assert game.set_nickname(
        ALICE, alice, SetNickname("Alice"), NicknameHolder(ALICE, "Alice"), "x"
    ) == game.reply_only(ALICE, replies.nick_unchanged("Alice"))


def test_a_new_case_keeps_the_nickname_row() -> None:
    decision = game.set_nickname(ALICE, alice, SetNickname("ALICE"), NicknameHolder(ALICE, "Alice"), "x")
    recased = replace(alice, display_name="ALICE")
    assert decision == Decision(
        replies=(Reply(ALICE, replies.nick_changed("Alice", "ALICE")),),
        players={ALICE: recased},
        claim_nickname=recased,
        release_nickname=None,
    )


def test_a_rename_keeps_the_games_and_gives_the_old_name_back() -> None:
    thrower, _ = _thrown(alice, bob, Move.ROCK)
    decision = game.set_nickname(ALICE, thrower, SetNickname("Queen"), None, "x")
    renamed = replace(thrower, nickname="queen", display_name="Queen")
    assert decision == Decision(
        replies=(Reply(ALICE, replies.nick_changed("Alice", "Queen")),),
        players={ALICE: renamed},
        claim_nickname=renamed,
        release_nickname="allce",
    )


# -- throws ------------------------------------------------------------------------------------------


def test_a_throw_from_a_phone_without_a_nickname_is_refused() -> None:
    assert game.throw(ALICE, None, bob, Throw(Move.ROCK, "bob"), NOW, LIMITS) == game.reply_only(
        ALICE, replies.not_registered()
    )


def test_a_throw_at_nobody_or_at_yourself_is_refused() -> None:
    assert game.throw(ALICE, alice, None, Throw(Move.ROCK, "zed"), NOW, LIMITS) == game.reply_only(
        ALICE, replies.unknown_player("zed")
    )
    assert game.throw(ALICE, alice, alice, Throw(Move.ROCK, "alice"), NOW, LIMITS) == game.reply_only(
        ALICE, replies.cannot_throw_at_self()
    )


def test_a_first_throw_waits_for_the_opponent_and_challenges_them() -> None:
    decision = game.throw(ALICE, alice, bob, Throw(Move.PAPER, "bob"), NOW, LIMITS)
    thrower, challenged = _thrown(alice, bob, Move.PAPER, NOW + DAY)
    assert decision == Decision(
        replies=(
            Reply(ALICE, replies.throw_waiting("Bob", Move.PAPER)),
            Reply(BOB, replies.challenged("Alice")),
        ),
        players={ALICE: thrower, BOB: challenged},
    )


def test_throwing_again_at_the_same_opponent_is_refused_while_the_first_throw_lives() -> None:
    thrower, challenged = _thrown(alice, bob, Move.ROCK, NOW + 1)
    assert game.throw(ALICE, thrower, challenged, Throw(Move.PAPER, "bob"), NOW, LIMITS) == game.reply_only(
        ALICE, replies.already_thrown("Bob")
    )


def test_a_throw_expiring_this_very_second_is_over_and_replaced_never_scored() -> None:
    thrower, challenged = _thrown(bob, alice, Move.ROCK, NOW)
    decision = game.throw(ALICE, challenged, thrower, Throw(Move.PAPER, "bob"), NOW, LIMITS)
    fresh_alice, fresh_bob = _thrown(alice, bob, Move.PAPER, NOW + DAY)
    assert decision.players == {ALICE: fresh_alice, BOB: fresh_bob}
    assert decision.replies[0] == Reply(ALICE, replies.throw_waiting("Bob", Move.PAPER))


def test_bobs_throw_at_alices_former_self_is_replaced_by_her_throw_not_resolved() -> None:
    thrower, _ = _thrown(bob, replace(alice, player_id="alice-0"), Move.ROCK)
    me = replace(alice, challenges={BOB: Challenge("bob-1", NOW + DAY)})
    decision = game.throw(ALICE, me, thrower, Throw(Move.PAPER, "bob"), NOW, LIMITS)
    assert decision.players[ALICE].games == {BOB: PendingThrow(Move.PAPER, "bob-1", NOW + DAY)}
    assert decision.players[ALICE].challenges == {}, "the old challenge is replaced, not kept"
    assert decision.players[BOB].games == {}
    assert (decision.players[ALICE].wins, decision.players[ALICE].losses) == (0, 0)


def test_answering_a_throw_resolves_the_game_for_both() -> None:
    thrower, challenged = _thrown(bob, alice, Move.ROCK)
    decision = game.throw(ALICE, challenged, thrower, Throw(Move.PAPER, "bob"), NOW, LIMITS)
    assert decision == Decision(
        replies=(
            Reply(ALICE, replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "Bob")),
            Reply(BOB, replies.result(Outcome.LOSS, Move.ROCK, Move.PAPER, "Alice")),
        ),
        players={
            ALICE: replace(alice, wins=1, streak=1, last_opponent=LAST_WAS_BOB),
            BOB: replace(bob, losses=1, streak=-1, last_opponent=LAST_WAS_ALICE),
        },
    )


def test_a_tie_counts_for_both_and_ends_both_streaks() -> None:
    thrower, challenged = _thrown(replace(bob, streak=-2), replace(alice, streak=3), Move.ROCK)
    decision = game.throw(ALICE, challenged, thrower, Throw(Move.ROCK, "bob"), NOW, LIMITS)
    assert decision.players == {
        ALICE: replace(alice, ties=1, last_opponent=LAST_WAS_BOB),
        BOB: replace(bob, ties=1, last_opponent=LAST_WAS_ALICE),
    }
    assert decision.replies[1] == Reply(BOB, replies.result(Outcome.TIE, Move.ROCK, Move.ROCK, "Alice"))


def test_streaks_grow_and_change_sign() -> None:
    scored = {
        (streak, outcome): game._scored(replace(alice, streak=streak), outcome).streak
        for streak in (-2, 0, 3)
        for outcome in (Outcome.WIN, Outcome.LOSS)
    }
    assert scored == {
        (-2, Outcome.WIN): 1,
        (0, Outcome.WIN): 1,
        (3, Outcome.WIN): 4,
        (-2, Outcome.LOSS): -3,
        (0, Outcome.LOSS): -1,
        (3, Outcome.LOSS): -1,
    }


def test_only_the_resolved_pair_leaves_the_records() -> None:
    thrower, challenged = _thrown(bob, alice, Move.ROCK)
    challenged, other = _thrown(challenged, carol, Move.SCISSORS)
    decision = game.throw(ALICE, challenged, thrower, Throw(Move.PAPER, "bob"), NOW, LIMITS)
    assert decision.players[ALICE].games == {CAROL: PendingThrow(Move.SCISSORS, "carol-1", NOW + DAY)}
    assert decision.players[ALICE].challenges == {}
    assert other.challenges == {ALICE: Challenge("alice-1", NOW + DAY)}


# -- leaderboard -------------------------------------------------------------------------------------


def test_only_a_throw_that_finishes_a_game_needs_the_leaderboard() -> None:
    bob_threw, alice_challenged = _thrown(bob, alice, Move.ROCK)
    assert game.resolves(alice_challenged, bob_threw, NOW)
    assert not game.resolves(alice, bob, NOW), "a first throw only waits"
    expired, _ = _thrown(bob, alice, Move.ROCK, expires_at=NOW)
    assert not game.resolves(alice_challenged, expired, NOW), "a throw expiring this very second is over"
    at_old_alice, _ = _thrown(bob, replace(alice, player_id="alice-0"), Move.ROCK)
    assert not game.resolves(alice_challenged, at_old_alice, NOW)
    assert not game.resolves(None, bob_threw, NOW)
    assert not game.resolves(alice, None, NOW)
    assert not game.resolves(alice, alice, NOW)


def test_a_resolved_game_puts_the_winner_on_the_board_and_marks_them_ranked_whichever_side_wins() -> None:
    thrower, challenged = _thrown(bob, alice, Move.ROCK)
    for answer, winner, loser in ((Move.PAPER, alice, bob), (Move.SCISSORS, bob, alice)):
        decision = game.throw(
            ALICE, challenged, thrower, Throw(answer, "bob"), NOW, LIMITS, _boards(alice, bob)
        )
        line = Ranking(winner.player_id, winner.display_name, 1, 0, NOW)
        # Each line in its own player's shard: the loser's shard is written too, unchanged.
        assert decision.shared == {
            board_shard(winner.player_id): Leaderboard((line,)),
            board_shard(loser.player_id): Leaderboard(),
        }
        assert decision.players[winner.phone].ranked
        assert not decision.players[loser.phone].ranked, "no win, no line"


def test_a_first_win_below_a_full_boards_last_line_leaves_the_board_as_it_was_whoever_wins() -> None:
    board = Leaderboard((Ranking("a", "A", 5, 0, NOW - 2), Ranking("b", "B", 4, 0, NOW - 1)))
    limits = replace(LIMITS, leaderboard_size=2)
    thrower, challenged = _thrown(bob, alice, Move.ROCK)
    boards = {ALICE_LINE: board, BOB_LINE: board}
    for answer in (Move.PAPER, Move.SCISSORS):  # alice wins, then bob does
        decision = game.throw(ALICE, challenged, thrower, Throw(answer, "bob"), NOW, limits, boards)
        assert decision.shared == boards
        assert not decision.players[ALICE].ranked
        assert not decision.players[BOB].ranked


def test_the_board_orders_by_wins_then_fewer_losses_then_who_got_there_first_and_keeps_its_size() -> None:
    first = Ranking("a", "A", 2, 3, NOW - 10)
    board = Leaderboard((first,))
    board = board.with_result(replace(bob, wins=2, losses=3), NOW, size=2)  # same totals, later
    board = board.with_result(replace(carol, wins=2, losses=1), NOW + 1, size=2)  # fewer losses
    assert [entry.display_name for entry in board.rankings] == ["Carol", "A"]
    board = board.with_result(replace(carol, wins=2, losses=2), NOW + 2, size=2)  # a loss keeps `since`
    assert board.rankings[0] == Ranking("carol-1", "Carol", 2, 2, NOW + 1)


def test_opt_out_takes_the_players_line_off_the_board() -> None:
    ranked = replace(alice, wins=1, ranked=True)
    board = Leaderboard((Ranking("alice-1", "Alice", 1, 0, NOW), Ranking("bob-1", "Bob", 1, 1, NOW)))
    decision = game.opt_out(ALICE, ranked, {}, NOW, LIMITS, board)
    assert decision.shared == {ALICE_LINE: Leaderboard((Ranking("bob-1", "Bob", 1, 1, NOW),))}


def test_the_leaderboard_and_the_lobby_each_take_a_goodbyes_place_in_the_opt_outs_transaction() -> None:
    bob_threw, alice_challenged = _thrown(bob, replace(alice, ranked=True, in_lobby=True), Move.ROCK)
    lobby = Lobby(LobbyEntry(ALICE, "alice-1", "Alice", Move.PAPER, NOW + DAY, NOW))
    limits = replace(LIMITS, max_opt_out_writes=3)  # alice and bob: room for one more item
    goodbye = (Reply(BOB, replies.opponent_left("Alice")),)
    assert game.opt_out(ALICE, alice_challenged, {BOB: bob_threw}, NOW, limits).replies == goodbye
    assert game.opt_out(ALICE, alice_challenged, {BOB: bob_threw}, NOW, limits, Leaderboard()).replies == ()
    assert game.opt_out(ALICE, alice_challenged, {BOB: bob_threw}, NOW, limits, lobby=lobby).replies == ()


def _shards(*lines: Ranking) -> dict[str, Leaderboard]:
    """A leaderboard as its shards hold it: each line in its player's shard, every shard read."""
    return {
        key: Leaderboard(
            tuple(
                sorted(
                    (line for line in lines if board_shard(line.player_id) == key),
                    key=lambda line: line.order,
                )
            )
        )
        for key in LEADERBOARD_SHARDS
    }


def test_top_lists_the_board_for_anyone() -> None:
    shards = _shards(Ranking("bob-1", "Bob", 3, 0, NOW))
    assert game.show_top(CAROL, shards, LIMITS) == game.reply_only(CAROL, replies.top([("Bob", 3)]))
    assert game.show_top(CAROL, _shards(), LIMITS) == game.reply_only(CAROL, replies.top([]))


def test_top_merges_the_shards_into_one_board_in_order_and_keeps_its_size() -> None:
    lines = [Ranking(f"player-{n}", f"P{n}", 30 - n, n % 3, NOW + n) for n in range(30)]
    limits = replace(LIMITS, leaderboard_size=20)
    shards = _shards(*lines)
    assert len({key for key, shard in shards.items() if shard.rankings}) > 1, "spread over shards"
    merged = Leaderboard.merged(shards.values(), limits.leaderboard_size)
    assert merged.rankings == tuple(sorted(lines, key=lambda line: line.order))[:20]


def test_top_tells_a_ranked_player_their_place_and_wins_from_the_board() -> None:
    board = Leaderboard(
        (
            Ranking("bob-1", "Bob", 3, 0, NOW),
            Ranking("carol-1", "Carol", 2, 0, NOW),
            Ranking("alice-1", "Alice", 1, 5, NOW),
        )
    )
    leaders = [("Bob", 3), ("Carol", 2), ("Alice", 1)]
    shards = _shards(*board.rankings)
    # The board's line, not the record's totals: the board is what the others see.
    assert game.show_top(ALICE, shards, LIMITS, replace(alice, wins=9)) == game.reply_only(
        ALICE, replies.top_with_rank(leaders, 3, 1)
    )
    assert game.show_top(BOB, shards, LIMITS, bob) == game.reply_only(
        BOB, replies.top_with_rank(leaders, 1, 3)
    )


def test_top_tells_a_player_whose_line_does_not_fit_their_place_and_wins_in_words() -> None:
    # Twelve long names: five lines fit beside the player's own, which follows them.
    board = Leaderboard(
        tuple(Ranking(f"player-{n}", f"Player{n:02d}xxxxxxx", 20 - n, 0, NOW) for n in range(12))
    )
    me = Player(ALICE, "player-10", "player10xxxxxxx", "Player10xxxxxxx", wins=99)
    assert game.show_top(ALICE, _shards(*board.rankings), LIMITS, me).replies == (
        Reply(
            ALICE,
            "Top players by wins: 1. Player00xxxxxxx 20, 2. Player01xxxxxxx 19, 3. Player02xxxxxxx 18,"
            " 4. Player03xxxxxxx 17, 5. Player04xxxxxxx 16. You: #11, 10 wins",
        ),
    )


def test_top_tells_a_player_who_is_not_on_the_board_so() -> None:
    shards = _shards(Ranking("bob-1", "Bob", 3, 0, NOW))
    assert game.show_top(CAROL, shards, LIMITS, carol) == game.reply_only(
        CAROL, replies.top_unranked([("Bob", 3)])
    )
    # Nobody is on an empty board: nothing to tell anyone about their place.
    assert game.show_top(CAROL, _shards(), LIMITS, carol) == game.reply_only(CAROL, replies.top([]))
    assert game.show_top(CAROL, {}, LIMITS, carol) == game.reply_only(CAROL, replies.top([]))


# -- the lobby ---------------------------------------------------------------------------------------


def test_shared_records_are_known_by_keys_no_phone_can_have_and_start_empty() -> None:
    keys = (*LEADERBOARD_SHARDS, *LOBBY_SHARDS)
    assert len(set(keys)) == 32, "sixteen shards of each"
    assert all(game.is_shared_key(key) for key in keys)
    assert not game.is_shared_key(ALICE)
    assert all(game.shared_record(key) == Leaderboard() for key in LEADERBOARD_SHARDS)
    assert all(game.shared_record(key) == Lobby() for key in LOBBY_SHARDS)
    assert sorted(keys) == [*LEADERBOARD_SHARDS, *LOBBY_SHARDS], "the lock order is the shards' order"
    for unknown in ("~scores", "~lobby", "~leaderboard", "~lobby#16"):
        with pytest.raises(ValueError, match=unknown):
            game.shared_record(unknown)


def test_a_players_line_and_lobby_entry_each_have_one_shard_found_without_a_read() -> None:
    # The same in every process and release: SHA-256 of the id or the phone, not Python's salted hash.
    assert board_shard("alice-1") == "~leaderboard#00"
    assert lobby_shard(ALICE) == "~lobby#06"
    spread = {lobby_shard(f"+1555000{index:04d}") for index in range(200)}
    assert spread == set(LOBBY_SHARDS), "two hundred phones use every shard"


def test_a_lobby_throw_from_a_phone_without_a_nickname_is_refused() -> None:
    lobby = Lobby(LobbyEntry(BOB, "bob-1", "Bob", Move.ROCK, NOW + DAY, NOW))
    assert game.lobby_throw(ALICE, None, bob, lobby, Move.PAPER, NOW, LIMITS) == game.reply_only(
        ALICE, replies.not_registered()
    )


def test_a_lobby_throw_into_an_empty_or_expired_shard_of_its_own_waits_there() -> None:
    # The processor locks whoever the shard names, expired or not: their record is at hand, and
    # they no longer wait once their entry is replaced.
    neighbour = replace(bob, phone=_same_lobby_shard_as(ALICE), in_lobby=True)
    expired = Lobby(
        LobbyEntry(neighbour.phone, "bob-1", "Bob", Move.ROCK, NOW, NOW)
    )  # expires this very second
    waits = Lobby(LobbyEntry(ALICE, "alice-1", "Alice", Move.PAPER, NOW + DAY, NOW))
    decision = game.lobby_throw(ALICE, alice, None, Lobby(), Move.PAPER, NOW, LIMITS)
    assert decision == Decision(
        replies=(Reply(ALICE, replies.lobby_waiting(Move.PAPER)),),
        players={ALICE: replace(alice, in_lobby=True)},
        shared={ALICE_LOBBY: waits},
    )
    decision = game.lobby_throw(ALICE, alice, neighbour, expired, Move.PAPER, NOW, LIMITS)
    assert decision == Decision(
        replies=(Reply(ALICE, replies.lobby_waiting(Move.PAPER)),),
        players={ALICE: replace(alice, in_lobby=True), neighbour.phone: replace(neighbour, in_lobby=False)},
        shared={ALICE_LOBBY: waits},
    )


def test_a_lobby_throw_never_waits_in_another_phones_shard() -> None:
    # Another shard is only played in: whoever waited there left (the processor's check starts over).
    expired = Lobby(LobbyEntry(BOB, "bob-1", "Bob", Move.ROCK, NOW, NOW))
    assert lobby_shard(BOB) != ALICE_LOBBY
    with pytest.raises(ValueError, match="its own phone's shard"):
        game.lobby_throw(ALICE, alice, replace(bob, in_lobby=True), expired, Move.PAPER, NOW, LIMITS)


def test_a_lobby_throw_plays_the_stranger_waiting_and_empties_the_lobby() -> None:
    lobby = Lobby(LobbyEntry(BOB, "bob-1", "Bob", Move.ROCK, NOW + DAY, NOW))
    waiting_bob = replace(bob, in_lobby=True)
    decision = game.lobby_throw(
        ALICE, alice, waiting_bob, lobby, Move.PAPER, NOW, LIMITS, _boards(alice, bob)
    )
    assert decision.replies == (
        Reply(ALICE, replies.lobby_result(Outcome.WIN, Move.PAPER, Move.ROCK, "Bob")),
        Reply(BOB, replies.lobby_result(Outcome.LOSS, Move.ROCK, Move.PAPER, "Alice")),
    )
    assert decision.shared == {
        lobby_shard(BOB): Lobby(),  # bob's shard, where he waited: another than alice's
        ALICE_LINE: Leaderboard((Ranking("alice-1", "Alice", 1, 0, NOW),)),
        BOB_LINE: Leaderboard(),
    }
    assert decision.players[BOB] == replace(bob, losses=1, streak=-1, last_opponent=LAST_WAS_ALICE)
    assert decision.players[ALICE] == replace(
        alice, wins=1, streak=1, last_opponent=LAST_WAS_BOB, ranked=True
    )


def test_a_lobby_throw_needs_the_leaderboard_only_when_a_live_stranger_waits() -> None:
    bob_waits = Lobby(LobbyEntry(BOB, "bob-1", "Bob", Move.ROCK, NOW + 1, NOW))
    assert game.lobby_pairs(alice, bob_waits, NOW)
    assert not game.lobby_pairs(alice, bob_waits, NOW + 1), "the entry expires at its expiry time"
    assert not game.lobby_pairs(alice, Lobby(), NOW)
    assert not game.lobby_pairs(bob, bob_waits, NOW), "nobody plays themselves"
    assert not game.lobby_pairs(None, bob_waits, NOW), "an unregistered phone is only told to register"


def test_a_lobby_game_leaves_a_pending_game_between_the_same_two_players_alone_either_way() -> None:
    lobby = Lobby(LobbyEntry(BOB, "bob-1", "Bob", Move.ROCK, NOW + DAY, NOW))
    alice_threw, bob_challenged = _thrown(alice, bob, Move.SCISSORS)
    bob_threw, alice_challenged = _thrown(bob, alice, Move.SCISSORS)
    for me, stranger in ((alice_threw, bob_challenged), (alice_challenged, bob_threw)):
        decision = game.lobby_throw(ALICE, me, stranger, lobby, Move.PAPER, NOW, LIMITS)
        mine, theirs = decision.players[ALICE], decision.players[BOB]
        assert (mine.games, mine.challenges) == (me.games, me.challenges)
        assert (theirs.games, theirs.challenges) == (stranger.games, stranger.challenges)


def test_a_lobby_throw_never_plays_yourself_or_someone_who_is_gone() -> None:
    mine = Lobby(LobbyEntry(ALICE, "alice-1", "Alice", Move.ROCK, NOW + DAY, NOW))
    assert game.lobby_throw(ALICE, alice, None, mine, Move.PAPER, NOW, LIMITS) == game.reply_only(
        ALICE, replies.lobby_already_waiting(Move.ROCK)
    )
    neighbour = _same_lobby_shard_as(ALICE)
    old_one = Lobby(LobbyEntry(neighbour, "bob-0", "Bob", Move.ROCK, NOW + DAY, NOW))  # has come back since
    decision = game.lobby_throw(ALICE, alice, replace(bob, phone=neighbour), old_one, Move.PAPER, NOW, LIMITS)
    assert decision.replies == (Reply(ALICE, replies.lobby_waiting(Move.PAPER)),)


def test_opt_out_takes_the_players_entry_out_of_the_lobby() -> None:
    lobby = Lobby(LobbyEntry(ALICE, "alice-1", "Alice", Move.ROCK, NOW + DAY, NOW))
    waiting = replace(alice, in_lobby=True)
    assert game.opt_out(ALICE, waiting, {}, NOW, LIMITS, lobby=lobby).shared == {ALICE_LOBBY: Lobby()}
    someone_else = Lobby(LobbyEntry(BOB, "bob-1", "Bob", Move.ROCK, NOW + DAY, NOW))
    assert game.opt_out(ALICE, waiting, {}, NOW, LIMITS, lobby=someone_else).shared == {}


# -- rematch -----------------------------------------------------------------------------------------


def test_again_throws_at_the_last_opponent_and_resolves_like_any_throw() -> None:
    me = replace(alice, last_opponent=LAST_WAS_BOB)
    decision = game.rematch(ALICE, me, bob, Rematch(Move.PAPER), NOW, LIMITS)
    assert decision == game.throw(ALICE, me, bob, Throw(Move.PAPER, "Bob"), NOW, LIMITS)
    assert decision.replies[0] == Reply(ALICE, replies.throw_waiting("Bob", Move.PAPER))


def test_again_that_answers_the_last_opponents_throw_finishes_the_game_on_the_leaderboard() -> None:
    bob_threw, alice_challenged = _thrown(bob, replace(alice, last_opponent=LAST_WAS_BOB), Move.ROCK)
    decision = game.rematch(
        ALICE, alice_challenged, bob_threw, Rematch(Move.PAPER), NOW, LIMITS, _boards(alice, bob)
    )
    assert decision.replies[0] == Reply(ALICE, replies.result(Outcome.WIN, Move.PAPER, Move.ROCK, "Bob"))
    assert decision.shared == {
        ALICE_LINE: Leaderboard((Ranking("alice-1", "Alice", 1, 0, NOW),)),
        BOB_LINE: Leaderboard(),
    }
    assert decision.players[ALICE].ranked


def test_again_with_no_finished_game_or_before_registering_is_explained() -> None:
    assert game.rematch(ALICE, alice, None, Rematch(Move.ROCK), NOW, LIMITS) == game.reply_only(
        ALICE, replies.no_last_opponent()
    )
    assert game.rematch(ALICE, None, None, Rematch(Move.ROCK), NOW, LIMITS) == game.reply_only(
        ALICE, replies.not_registered()
    )


def test_again_at_someone_who_left_or_whose_name_is_now_someone_elses_is_refused() -> None:
    me = replace(alice, last_opponent=LAST_WAS_BOB)
    new_bob = replace(bob, phone=CAROL, player_id="someone-else")
    gone = game.reply_only(ALICE, replies.last_opponent_gone("Bob"))
    assert game.rematch(ALICE, me, None, Rematch(Move.ROCK), NOW, LIMITS) == gone
    assert game.rematch(ALICE, me, new_bob, Rematch(Move.ROCK), NOW, LIMITS) == gone


def _with_games(player: Player, phones: list[str], expires_at: float = NOW + DAY) -> Player:
    return replace(player, games={phone: PendingThrow(Move.ROCK, "p", expires_at) for phone in phones})


def _with_challenges(player: Player, phones: list[str], expires_at: float = NOW + DAY) -> Player:
    return replace(player, challenges={phone: Challenge("p", expires_at) for phone in phones})


def test_open_games_are_limited_and_expired_ones_do_not_count() -> None:
    command = Throw(Move.ROCK, "bob")
    one_open = _with_games(alice, _others(1))
    assert game.throw(ALICE, one_open, bob, command, NOW, LIMITS).players, "the second game is allowed"
    two_open = _with_games(alice, _others(2))
    assert game.throw(ALICE, two_open, bob, command, NOW, LIMITS) == game.reply_only(
        ALICE, replies.too_many_open_games(2)
    )
    two_expired = _with_games(alice, _others(2), expires_at=NOW)
    assert game.throw(ALICE, two_expired, bob, command, NOW, LIMITS).players


def test_an_opponent_with_too_many_challenges_is_too_busy() -> None:
    command = Throw(Move.ROCK, "bob")
    assert game.throw(ALICE, alice, _with_challenges(bob, _others(1)), command, NOW, LIMITS).players
    assert game.throw(
        ALICE, alice, _with_challenges(bob, _others(2)), command, NOW, LIMITS
    ) == game.reply_only(ALICE, replies.opponent_too_busy("Bob"))
    expired = _with_challenges(bob, _others(2), expires_at=NOW)
    assert game.throw(ALICE, alice, expired, command, NOW, LIMITS).players


def test_a_record_mentioning_too_many_phones_takes_no_new_one() -> None:
    # Expired entries count: they stay stored until the pair meets again or one opts out.
    command = Throw(Move.ROCK, "bob")
    full = _with_challenges(alice, _others(3), expires_at=NOW - 1)
    assert game.throw(ALICE, full, bob, command, NOW, LIMITS) == game.reply_only(
        ALICE, replies.too_many_open_games(2)
    )
    nearly_full = _with_challenges(alice, _others(2), expires_at=NOW - 1)
    assert game.throw(ALICE, nearly_full, bob, command, NOW, LIMITS).players
    bob_full = _with_games(bob, _others(3), expires_at=NOW - 1)
    assert game.throw(ALICE, alice, bob_full, command, NOW, LIMITS) == game.reply_only(
        ALICE, replies.opponent_too_busy("Bob")
    )
    # A phone already mentioned is no new counterpart, on either side.
    full_with_bob = _with_challenges(alice, [BOB, *_others(2)], expires_at=NOW - 1)
    assert game.throw(ALICE, full_with_bob, bob, command, NOW, LIMITS).players
    bob_full_with_alice = _with_games(bob, [ALICE, *_others(2)], expires_at=NOW - 1)
    assert game.throw(ALICE, alice, bob_full_with_alice, command, NOW, LIMITS).players


# -- games, score, opt-out ----------------------------------------------------------------------------


def test_games_lists_live_entries_of_current_opponents_in_phone_order() -> None:
    me = replace(
        alice,
        games={
            CAROL: PendingThrow(Move.ROCK, "carol-1", NOW + 1),
            BOB: PendingThrow(Move.ROCK, "bob-1", NOW + 1),
            "+15550000009": PendingThrow(Move.ROCK, "gone", NOW + 1),  # no record any more
        },
        challenges={BOB: Challenge("bob-1", NOW + 1), CAROL: Challenge("carol-1", NOW + 1)},
    )
    bob_waiting = replace(bob, games={ALICE: PendingThrow(Move.PAPER, "alice-1", NOW + 1)})
    carol_expired = replace(carol, games={ALICE: PendingThrow(Move.PAPER, "alice-1", NOW)})
    decision = game.list_games(ALICE, me, {BOB: bob_waiting, CAROL: carol_expired}, NOW)
    assert decision == game.reply_only(ALICE, replies.games_summary(["Bob", "Carol"], ["Bob"]))


def test_games_leaves_out_a_throw_at_an_old_self_of_the_opponent() -> None:
    me = replace(alice, games={BOB: PendingThrow(Move.ROCK, "bob-0", NOW + 1)})
    assert game.list_games(ALICE, me, {BOB: bob}, NOW) == game.reply_only(
        ALICE, replies.games_summary([], [])
    )


def test_games_shows_my_throw_waiting_in_the_lobby_with_the_time_it_has_left() -> None:
    me = replace(alice, in_lobby=True, challenges={BOB: Challenge("bob-1", NOW + 1)})
    bob_waiting = replace(bob, games={ALICE: PendingThrow(Move.PAPER, "alice-1", NOW + 1)})
    lobby = Lobby(LobbyEntry(ALICE, "alice-1", "Alice", Move.ROCK, NOW + 3 * DAY + 0.5, NOW))
    assert game.list_games(ALICE, me, {BOB: bob_waiting}, NOW, lobby) == game.reply_only(
        ALICE, replies.games_summary([], ["Bob"], Move.ROCK, 3 * 24 * 60 * 60)
    )
    assert game.list_games(ALICE, me, {}, NOW, lobby) == game.reply_only(
        ALICE, replies.games_summary([], [], Move.ROCK, 3 * 24 * 60 * 60)
    )


def test_games_shows_my_throws_waiting_on_others_beside_my_wait_in_the_lobby() -> None:
    me = replace(alice, in_lobby=True, games={BOB: PendingThrow(Move.PAPER, "bob-1", NOW + 1)})
    lobby = Lobby(LobbyEntry(ALICE, "alice-1", "Alice", Move.ROCK, NOW + 3 * DAY + 0.5, NOW))
    assert game.list_games(ALICE, me, {BOB: bob}, NOW, lobby).replies == (
        Reply(ALICE, "Waiting on: Bob. Waiting for a stranger with rock (expires in 3 days)."),
    )


def test_games_shows_no_lobby_wait_that_expired_or_is_someone_elses() -> None:
    me = replace(alice, in_lobby=True)  # the flag outlives the entry: the lobby itself decides
    nothing = game.reply_only(ALICE, replies.games_summary([], []))
    for lobby in (
        Lobby(LobbyEntry(ALICE, "alice-1", "Alice", Move.ROCK, NOW, NOW)),  # expires this very second
        Lobby(LobbyEntry(BOB, "bob-1", "Bob", Move.ROCK, NOW + DAY, NOW)),
        Lobby(LobbyEntry(ALICE, "alice-0", "Alice", Move.ROCK, NOW + DAY, NOW)),  # an old self of this phone
        Lobby(),
        None,
    ):
        assert game.list_games(ALICE, me, {}, NOW, lobby) == nothing


def test_games_and_score_need_a_nickname() -> None:
    assert game.list_games(ALICE, None, {}, NOW) == game.reply_only(ALICE, replies.not_registered())
    assert game.show_score(ALICE, None) == game.reply_only(ALICE, replies.not_registered())


def test_score_shows_the_record() -> None:
    me = replace(alice, wins=3, losses=1, ties=2, streak=-1)
    assert game.show_score(ALICE, me) == game.reply_only(ALICE, replies.score(3, 1, 2, -1))


def test_opt_out_deletes_the_player_and_every_entry_about_them() -> None:
    alice_threw, bob_challenged = _thrown(alice, bob, Move.ROCK)
    carol_threw, alice_both = _thrown(carol, alice_threw, Move.PAPER)
    stranger = replace(carol, phone="+15550000009")  # locked, but mentions nobody
    counterparts = {ALICE: alice_both, BOB: bob_challenged, CAROL: carol_threw, stranger.phone: stranger}
    assert game.opt_out(ALICE, alice_both, counterparts, NOW, LIMITS) == Decision(
        replies=(Reply(CAROL, replies.opponent_left("Alice")),),
        players={ALICE: None, BOB: bob, CAROL: carol},
        release_nickname="allce",
        opt_in={ALICE: False},
    )


def test_opt_out_tells_only_those_whose_throw_still_waits_on_the_player() -> None:
    bob_threw, alice_from_bob = _thrown(bob, alice, Move.ROCK, expires_at=NOW)  # expired
    carol_threw, alice_both = _thrown(carol, alice_from_bob, Move.PAPER)
    carol_at_old_alice = replace(carol_threw, games={ALICE: PendingThrow(Move.PAPER, "alice-0", NOW + DAY)})
    told = game.opt_out(ALICE, alice_both, {BOB: bob_threw, CAROL: carol_threw}, NOW, LIMITS)
    assert told.replies == (Reply(CAROL, replies.opponent_left("Alice")),)
    not_told = game.opt_out(ALICE, alice_both, {BOB: bob_threw, CAROL: carol_at_old_alice}, NOW, LIMITS)
    assert not_told.replies == ()


def test_opt_out_tells_the_latest_throws_first_when_not_every_goodbye_fits_its_transaction() -> None:
    me, throwers = alice, {}
    for index, phone in enumerate(_others(3)):
        thrower = Player(phone, f"p{index}", f"p{index}", f"P{index}")
        throwers[phone], me = _thrown(thrower, me, Move.ROCK, expires_at=NOW + DAY + index)
    # Four records change (alice and three throwers): room for one goodbye, to the latest thrower.
    decision = game.opt_out(ALICE, me, throwers, NOW, replace(LIMITS, max_opt_out_writes=5))
    assert decision.replies == (Reply(_others(3)[2], replies.opponent_left("Alice")),)
    assert set(decision.players) == {ALICE, *_others(3)}
    everyone = game.opt_out(ALICE, me, throwers, NOW, replace(LIMITS, max_opt_out_writes=7))
    assert [reply.to for reply in everyone.replies] == _others(3)


def test_opt_out_skips_counterparts_that_are_gone_and_replies_nothing() -> None:
    thrower, _ = _thrown(alice, bob, Move.ROCK)
    assert game.opt_out(ALICE, thrower, {BOB: None}, NOW, LIMITS) == Decision(
        players={ALICE: None}, release_nickname="allce", opt_in={ALICE: False}
    )
    assert game.opt_out(ALICE, None, {}, NOW, LIMITS) == Decision(opt_in={ALICE: False})


PROGRAM = replies.Program("Acme RPS", "help@acme.example")


def test_an_opt_out_twilio_did_not_answer_sends_one_confirmation_first_then_the_goodbyes() -> None:
    alice_challenged, bob_threw = _thrown(bob, alice, Move.ROCK)[::-1]
    confirmation = replies.opt_out_confirmation(PROGRAM)
    decision = game.opt_out(ALICE, alice_challenged, {BOB: bob_threw}, NOW, LIMITS, confirmation=confirmation)
    assert decision.replies == (
        Reply(ALICE, confirmation, opt_out_confirmation=True),
        Reply(BOB, replies.opponent_left("Alice")),
    )
    # A phone with no record that opts out is confirmed too, and forgets its opt-in.
    assert game.opt_out(ALICE, None, {}, NOW, LIMITS, confirmation=confirmation) == Decision(
        replies=(Reply(ALICE, confirmation, opt_out_confirmation=True),), opt_in={ALICE: False}
    )


def test_the_first_reply_to_a_phone_is_the_opt_in_confirmation_then_the_answer() -> None:
    answered = game.reply_only(ALICE, replies.unknown_command())
    assert game.with_opt_in_confirmation(answered, ALICE, PROGRAM) == Decision(
        replies=(Reply(ALICE, replies.opt_in_confirmation(PROGRAM)), Reply(ALICE, replies.unknown_command())),
        opt_in={ALICE: True},
    )


def test_no_opt_in_confirmation_where_the_decision_settles_consent_or_answers_nothing() -> None:
    opted_out = game.opt_out(ALICE, None, {}, NOW, LIMITS, confirmation="bye")
    assert game.with_opt_in_confirmation(opted_out, ALICE, PROGRAM) == opted_out
    started = game.opt_in(ALICE, PROGRAM)
    assert game.with_opt_in_confirmation(started, ALICE, PROGRAM) == started
    # START records the phone as opted in again: the bot may text it, and does, once.
    assert started == Decision(
        replies=(Reply(ALICE, replies.opt_in_confirmation(PROGRAM)),), opt_in={ALICE: True}
    )
    assert game.with_opt_in_confirmation(Decision(), ALICE, PROGRAM) == Decision()


def test_a_record_without_one_phone_keeps_the_others_and_pruning_drops_what_expired() -> None:
    both = replace(
        alice, games={BOB: PendingThrow(Move.ROCK, "b", NOW)}, challenges={CAROL: Challenge("c", NOW)}
    )
    assert both.without(BOB) == replace(alice, challenges={CAROL: Challenge("c", NOW)})
    assert both.without(CAROL) == replace(alice, games={BOB: PendingThrow(Move.ROCK, "b", NOW)})
    assert both.counterpart_phones() == [BOB, CAROL]
    assert both.pruned(NOW - 1) == both
    assert both.pruned(NOW) == alice
