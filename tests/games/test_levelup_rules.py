"""Scenario tests for Super Mario: Level Up! (docs/rules/levelup.md); each quotes the rule it checks, in the
words of the rulings the engine was written from."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

from levelup_helpers import E, blk, build, card_with, pw, texts, where

from toadstool.games.levelup import data
from toadstool.games.levelup.data import BLOCKS, POWERS, BlockKind, PowerKind
from toadstool.games.levelup.engine import (
    CastVote,
    EndTurn,
    Move,
    Pass,
    Place,
    PlayBoo,
    PlayFeather,
    PlayGoldenMushroom,
    PlayGoombaStomp,
    PlayGreenShell,
    PlayMegaPow,
    PlayOneUp,
    PlayWarpPipe,
    RevealBlock,
    Stage,
    VoteChoice,
)

YES, NO, THWOMP = VoteChoice.YES, VoteChoice.NO, VoteChoice.THWOMP_VOTE
MARIO, LUIGI, PEACH, DAISY, YOSHI, TOAD, TOADETTE, ROSALINA, BOWSER, JR, WARIO, WALUIGI, DK = range(13)


# ------------------------------------------------------------------------------------------------- data
def test_objective_cards_put_every_character_on_12_cards_and_every_pair_on_5() -> None:
    """'Every character is on 12 cards and every pair of characters shares exactly 5.'"""
    cards = data.OBJECTIVE_CARDS
    assert len(cards) == 26
    assert all(len(set(card)) == 6 for card in cards)
    assert len(set(cards)) == 26
    counts = Counter(c for card in cards for c in card)
    assert all(counts[c] == 12 for c in range(13))
    for a, b in itertools.combinations(range(13), 2):
        assert sum(1 for card in cards if a in card and b in card) == 5


def test_blocks_and_power_ups_match_the_tables_with_separate_id_spaces() -> None:
    """'? blocks (28)' / 'Power Up cards (15)' / 'Blocks and Power Up cards have separate ids'."""
    assert len(BLOCKS) == 28
    assert len(POWERS) == 15
    assert Counter(BLOCKS) == {kind: count for count, kind, *_ in data.BLOCK_TABLE}
    assert Counter(POWERS)[PowerKind.THWOMP_VOTE] == 3
    assert all(name.startswith("block.") for name in data.BLOCK_DATA_NAMES.values())
    assert all(name.startswith("power.") for name in data.POWER_DATA_NAMES.values())
    assert len(data.CHARACTER_NAMES) == 13


def test_vote_cards_and_placements_follow_the_player_count() -> None:
    """'3 players 4, 4 players 3, 5 and 6 players 2' No! cards; placement 4, 3, 2, 2."""
    for players, no_cards, placed in ((3, 4, 4), (4, 3, 3), (5, 2, 2), (6, 2, 2)):
        state = E.new(players, {}, 1)
        assert state.no_cards == (no_cards,) * players
        assert state.placements_left == placed * players
        assert len(set(state.objectives)) == players


# -------------------------------------------------------------------------------------------- placement
def test_placement_goes_round_robin_onto_levels_1_to_4_and_leftovers_start_on_level_0() -> None:
    """'round-robin from the first player, one character per pass, onto any level 1-4 with room.'"""
    state = E.new(3, {}, 3)
    assert state.stage == Stage.PLACEMENT
    assert E.to_act(state) == (0,)
    assert {a.level for a in E.legal_actions(state, 0)} == {1, 2, 3, 4}
    order = []
    for k in range(12):
        seat = E.to_act(state)[0]
        order.append(seat)
        state = E.apply(state, seat, Place(k, 4 if k < 4 else 1 + k % 3))
        if k == 3:
            assert all(a.level != 4 for a in E.legal_actions(state, E.to_act(state)[0])), "level 4 is full"
    assert order == [0, 1, 2] * 4
    assert where(state, DK) == 0  # the one leftover
    # '? blocks: fill levels 1-5 face down so each level has 4 characters and/or blocks.'
    for level in range(1, 6):
        assert len(state.levels[level]) + len(state.face_down[level]) == 4
    assert state.stage == Stage.TURN
    assert state.current == 0


def test_a_short_block_pile_fills_level_5_first_then_downwards() -> None:
    """'if the pile is ever short, fill level 5 first, then 4, 3, 2, 1, as far as it goes'."""
    state = E.new(3, {}, 3)
    state = dataclasses.replace(state, block_pile=tuple(range(6)))
    for k in range(12):
        state = E.apply(state, E.to_act(state)[0], Place(k, 1 + k % 4))
    counts = [len(state.face_down[i]) for i in range(1, 6)]
    assert counts == [0, 0, 1, 1, 4]


# --------------------------------------------------------------------------------------------- movement
def test_the_move_is_mandatory_when_any_legal_move_exists() -> None:
    """'each player moves one character up one level (mandatory when any legal move exists)'."""
    state = build(levels={0: [MARIO], 1: [LUIGI, PEACH, DAISY, YOSHI]})
    legal = E.legal_actions(state, 0)
    assert EndTurn() not in legal
    assert Move(MARIO) not in legal, "level 1 is full"
    assert set(legal) == {Move(LUIGI), Move(PEACH), Move(DAISY), Move(YOSHI)}


def test_moving_up_onto_face_down_blocks_lets_the_mover_choose_which_to_reveal() -> None:
    """'Moving up onto a level with face-down blocks reveals one (the mover's choice) and resolves it.'"""
    coin, goomba = blk(BlockKind.COIN), blk(BlockKind.GOOMBA)
    state = build(levels={1: [MARIO], 0: [LUIGI]}, face_down={2: [goomba, coin]})
    state = E.apply(state, 0, Move(MARIO))
    assert state.stage == Stage.REVEAL
    assert E.to_act(state) == (0,)
    assert E.legal_actions(state, 0) == (RevealBlock(0), RevealBlock(1))
    view = E.view(state, 0)
    assert view.levels[2].face_down_blocks == 2
    assert view.reveal_level == 2
    state = E.apply(state, 0, RevealBlock(1))
    assert coin in state.held_blocks[0]
    assert where(state, MARIO) == 2
    assert state.stage == Stage.TURN
    assert state.current == 1, "nothing to play: the turn ends by itself"


def test_a_super_mushroom_moves_the_same_character_up_and_may_chain() -> None:
    """'Super Mushroom: move the same character up 1 level now'; 'immediate blocks may chain'."""
    mush, coin = blk(BlockKind.SUPER_MUSHROOM), blk(BlockKind.COIN)
    state = build(levels={1: [MARIO], 0: [LUIGI]}, face_down={2: [mush], 3: [coin]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert where(state, MARIO) == 3
    assert state.stage == Stage.REVEAL
    state = E.apply(state, 0, RevealBlock(0))
    assert coin in state.held_blocks[0]


def test_a_goomba_moves_the_character_down_into_the_first_open_level() -> None:
    """'Goomba: move the same character down 1 level now'; 'Moving down into a full level goes to the first
    open level below'."""
    goomba = blk(BlockKind.GOOMBA)
    state = build(levels={2: [MARIO], 1: [LUIGI, PEACH, DAISY, YOSHI]}, face_down={3: [goomba]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert where(state, MARIO) == 2
    assert goomba in state.block_discard
    shell = blk(BlockKind.GREEN_SHELL)
    full = build(
        levels={3: [MARIO], 2: [LUIGI, PEACH, DAISY, YOSHI], 1: [TOAD, TOADETTE, ROSALINA, BOWSER]}, held={0: [shell]}
    )
    full = E.apply(full, 0, PlayGreenShell(MARIO))
    assert where(full, MARIO) == 0


def test_a_double_cherry_gives_an_extra_turn() -> None:
    """'Double Cherry: take one extra turn after this one'."""
    cherry = blk(BlockKind.DOUBLE_CHERRY)
    state = build(levels={0: [MARIO, LUIGI]}, face_down={1: [cherry]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert state.current == 0
    assert not state.moved
    assert state.stage == Stage.TURN
    state = E.apply(state, 0, Move(LUIGI))
    assert state.current == 1


def test_a_thwomp_skips_the_finders_next_turn() -> None:
    """'Thwomp: skip your next turn (keep it face up until then)'."""
    thwomp = blk(BlockKind.THWOMP)
    state = build(levels={0: [MARIO, LUIGI, PEACH]}, face_down={1: [thwomp]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert thwomp in state.held_blocks[0]
    assert state.skips[0] == 1
    state = E.apply(state, 1, Move(LUIGI))
    state = E.apply(state, 2, Move(PEACH))
    assert state.current == 1, "seat 0's turn was skipped"
    assert thwomp not in state.held_blocks[0]
    assert thwomp in state.block_discard
    assert any("skips" in t for t in texts(state))


def test_a_pow_block_moves_everyone_on_its_level_down_left_to_right() -> None:
    """'POW Block: all characters on this level move down (left to right) to the first open level'."""
    pow_block = blk(BlockKind.POW_BLOCK)
    state = build(
        levels={3: [LUIGI, PEACH], 2: [MARIO, ROSALINA, BOWSER, JR], 1: [DAISY, YOSHI, TOAD], 0: [TOADETTE]},
        face_down={3: [pow_block]},
    )
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert state.levels[3] == ()
    assert state.levels[2] == (ROSALINA, BOWSER, JR, LUIGI), "Luigi goes first and takes the last room"
    assert state.levels[1] == (DAISY, YOSHI, TOAD, PEACH)
    assert state.levels[0] == (TOADETTE, MARIO)


def test_a_super_star_draws_a_power_up_card_seen_only_by_the_finder() -> None:
    """'Super Star: draw a Power Up card now'; Power Ups are 'own only; others see counts'."""
    star = blk(BlockKind.SUPER_STAR)
    state = build(levels={0: [MARIO, LUIGI]}, face_down={1: [star]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert len(state.power_hands[0]) == 1
    card = state.power_hands[0][0]
    assert E.view(state, 0).power_ups[0].id == card
    assert E.view(state, 1).power_ups == ()
    assert E.view(state, 1).seats[0].power_up_count == 1
    assert f"power #{card}" in " ".join(texts(state, 0))
    assert f"power #{card}" not in " ".join(texts(state, 1) + texts(state, None))


def test_a_held_block_is_playable_on_a_later_turn_before_or_after_the_move() -> None:
    """'Held blocks may be played on any later turn of yours (not the turn that revealed them), before or
    after your move'."""
    feather = blk(BlockKind.FEATHER)
    state = build(levels={0: [MARIO, LUIGI, PEACH]}, face_down={1: [feather]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert state.current == 1, "a block found this turn is not playable yet, so the turn ended by itself"
    assert not E.view(state, 1).seats[0].held_blocks[0].fresh
    state = E.apply(state, 1, Move(LUIGI))
    state = E.apply(state, 2, Move(PEACH))
    assert PlayFeather(MARIO) in E.legal_actions(state, 0), "before the move"
    state = E.apply(state, 0, PlayFeather(MARIO))
    assert where(state, MARIO) == 2
    assert feather in state.block_discard
    assert Move(MARIO) in E.legal_actions(state, 0), "the mandatory move is still due"


def test_a_green_shell_moves_any_character_down_on_your_turn() -> None:
    """'Green Shell: keep; move any character down 1 level, on your turn or in the pre-vote window'."""
    shell = blk(BlockKind.GREEN_SHELL)
    state = build(levels={3: [PEACH], 0: [MARIO]}, held={0: [shell]})
    assert PlayGreenShell(MARIO) not in E.legal_actions(state, 0), "down from 0 does nothing"
    state = E.apply(state, 0, PlayGreenShell(PEACH))
    assert where(state, PEACH) == 2


def test_a_warp_pipe_moves_up_twice_and_stops_when_blocked() -> None:
    """'Warp Pipe: move any character up 1 level twice (stops when blocked; reveals ? blocks as usual)'."""
    warp = pw(PowerKind.WARP_PIPE)
    state = build(levels={1: [MARIO], 0: [LUIGI]}, hands={0: [warp, pw(PowerKind.BOO)]})
    state = E.apply(state, 0, PlayWarpPipe(MARIO))
    assert where(state, MARIO) == 3
    assert warp in state.power_discard
    blocked = build(levels={1: [MARIO], 3: [LUIGI, PEACH, DAISY, YOSHI]}, hands={0: [warp]})
    blocked = E.apply(blocked, 0, PlayWarpPipe(MARIO))
    assert where(blocked, MARIO) == 2
    coin = blk(BlockKind.COIN)
    revealing = build(levels={1: [MARIO]}, face_down={2: [coin]}, hands={0: [warp]})
    revealing = E.apply(revealing, 0, PlayWarpPipe(MARIO))
    assert revealing.stage == Stage.REVEAL
    revealing = E.apply(revealing, 0, RevealBlock(0))
    assert where(revealing, MARIO) == 3, "the second step follows the reveal"


def test_a_warp_pipe_that_nominates_loses_its_second_step() -> None:
    """'5 to 10 nominates, and then the second step is lost'."""
    state = build(levels={5: [MARIO]}, hands={0: [pw(PowerKind.WARP_PIPE)]})
    state = E.apply(state, 0, PlayWarpPipe(MARIO))
    assert where(state, MARIO) == 10
    assert state.nominee == MARIO
    assert state.warp_character == -1


def test_goomba_stomp_boo_mega_pow_and_golden_mushroom_on_your_turn() -> None:
    """Goomba Stomp 'down 2 levels'; Boo 'swap two characters on levels 0-5 (no ? block is revealed)';
    Mega POW 'every character on one chosen level 1-5 moves down 1'; Golden Mushroom 'another turn'."""
    hand = [pw(k) for k in (PowerKind.GOOMBA_STOMP, PowerKind.BOO, PowerKind.MEGA_POW, PowerKind.GOLDEN_MUSHROOM)]
    coin = blk(BlockKind.COIN)
    state = build(levels={4: [PEACH], 0: [MARIO], 2: [LUIGI, DAISY]}, face_down={4: [coin]}, hands={0: hand})
    state = E.apply(state, 0, PlayGoombaStomp(PEACH))
    assert where(state, PEACH) == 2
    assert state.levels[2] == (LUIGI, DAISY, PEACH)
    state = E.apply(state, 0, PlayBoo(MARIO, LUIGI))
    assert state.levels[2] == (MARIO, DAISY, PEACH)
    assert state.levels[0] == (LUIGI,)
    assert state.stage == Stage.TURN
    assert state.face_down[4] == (coin,)
    state = E.apply(state, 0, PlayMegaPow(2))
    assert state.levels[1] == (MARIO, DAISY, PEACH)
    state = E.apply(state, 0, PlayGoldenMushroom())
    state = E.apply(state, 0, Move(LUIGI))
    assert state.current == 0, "the extra turn"
    assert not state.moved


# ------------------------------------------------------------------------------------- nomination, vote
def test_moving_from_5_to_10_nominates_and_opens_the_pre_vote_window_from_the_mover() -> None:
    """'a character moved from 5 to 10 is nominated. Pre-vote window: each player in turn order from the
    mover may play a Green Shell block or Goomba Stomp on the nominee ... or pass'."""
    shell = blk(BlockKind.GREEN_SHELL)
    state = build(4, levels={5: [MARIO], 0: [LUIGI]}, held={3: [shell]}, hands={1: [pw(PowerKind.BOO)]}, current=2)
    state = E.apply(state, 2, Move(MARIO))
    assert state.stage == Stage.PRE_VOTE
    assert state.nominee == MARIO
    assert state.window == (3, 1), "from the mover, only seats that hold something (public counts)"
    assert E.legal_actions(state, 3) == (Pass(), PlayGreenShell(MARIO))
    assert E.legal_actions(state, 1) == ()
    state = E.apply(state, 3, Pass())
    assert E.legal_actions(state, 1) == (Pass(),), "a Boo cannot stop a nominee"
    state = E.apply(state, 1, Pass())
    assert state.stage == Stage.VOTE


def test_a_green_shell_in_the_pre_vote_window_knocks_the_nominee_to_the_first_open_level() -> None:
    """'it goes down to level 5, or the first open level below'."""
    shell = blk(BlockKind.GREEN_SHELL)
    state = build(levels={5: [MARIO, LUIGI, PEACH, DAISY], 4: [YOSHI]}, held={1: [shell]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 1, PlayGreenShell(MARIO))
    assert where(state, MARIO) == 5
    assert state.nominee == -1
    state2 = build(levels={5: [MARIO, LUIGI, PEACH, DAISY]}, hands={2: [pw(PowerKind.GOOMBA_STOMP)]})
    state2 = E.apply(state2, 0, Move(MARIO))
    state2 = dataclasses.replace(state2, levels=((), (), (), (), (), (LUIGI, PEACH, DAISY, YOSHI), (MARIO,)))
    state2 = E.apply(state2, 2, PlayGoombaStomp(MARIO))
    assert where(state2, MARIO) == 4
    assert state2.current == 1, "the mover's turn went on and ended"


def _to_vote(players: int = 3, **kwargs: object) -> object:
    state = build(players, levels={5: [MARIO], 0: [LUIGI, PEACH]}, **kwargs)  # type: ignore[arg-type]
    state = E.apply(state, 0, Move(MARIO))
    while state.stage == Stage.PRE_VOTE:
        state = E.apply(state, state.window[0], Pass())
    assert state.stage == Stage.VOTE
    return state


def test_the_vote_is_simultaneous_and_secret_until_everyone_has_voted() -> None:
    """'all players choose Yes!, No! or Thwomp Vote secretly and at once ... revealed together'."""
    state = _to_vote()
    assert E.to_act(state) == (0, 1, 2)
    before = [E.view(state, v) for v in (0, 1, 2, None)]
    state = E.apply(state, 1, CastVote(NO))
    assert E.to_act(state) == (0, 2)
    assert E.legal_actions(state, 1) == ()
    for v, old in zip((0, 1, 2, None), before, strict=True):
        view = E.view(state, v)
        assert [s.has_voted for s in view.seats] == [False, True, False]
        assert all(s.revealed_vote == VoteChoice.UNSPECIFIED for s in view.seats)
        assert view.seats[1].no_cards == old.seats[1].no_cards, "the card is face down: counts do not move"
        assert "No!" not in " ".join(texts(state, v))
    state = E.apply(state, 0, CastVote(YES))
    state = E.apply(state, 2, CastVote(YES))
    assert [s.revealed_vote for s in E.view(state, None).seats] == [YES, NO, YES]
    assert where(state, MARIO) is None, "a No! sends the nominee off the board for the round"
    assert state.no_cards == (4, 3, 4), "No! cards are discarded, Yes! cards go back"
    assert state.current == 1
    assert state.stage == Stage.TURN


def test_a_player_without_no_and_thwomp_vote_can_only_vote_yes() -> None:
    """'a player with no No! and no Thwomp Vote can only vote Yes!'."""
    state = _to_vote(no_cards=(0, 4, 4), hands={1: [pw(PowerKind.THWOMP_VOTE)]})
    assert E.legal_actions(state, 0) == (CastVote(YES),)
    assert E.legal_actions(state, 1) == (CastVote(YES), CastVote(NO), CastVote(THWOMP))


def test_a_thwomp_vote_counts_as_no_and_sends_the_nominee_to_level_0() -> None:
    """'if the vote fails the nominee goes to level 0 instead of leaving the board'."""
    thwomp_vote = pw(PowerKind.THWOMP_VOTE)
    state = _to_vote(hands={2: [thwomp_vote]})
    for seat, vote in ((0, YES), (1, NO), (2, THWOMP)):
        state = E.apply(state, seat, CastVote(vote))
    assert where(state, MARIO) == 0
    assert state.levels[0][-1] == MARIO
    assert thwomp_vote in state.power_discard
    assert state.power_hands[2] == ()


def test_all_yes_elects_the_champion_and_scores_the_round() -> None:
    """'If no No! and no Thwomp Vote is left, the nominee is champion and the round ends'; 'each listed
    character scores its level number (level 10 scores 10); characters off the board score 0'."""
    card = card_with({MARIO, LUIGI})
    objectives = [card, card_with({PEACH}), card_with({DAISY})]
    state = build(levels={5: [MARIO], 3: [LUIGI], 0: [PEACH]}, objectives=objectives, current=1)
    state = E.apply(state, 1, Move(MARIO))
    for seat in (0, 1, 2):
        state = E.apply(state, seat, CastVote(YES))
    expected = [sum({MARIO: 10, LUIGI: 3}.get(c, 0) for c in data.OBJECTIVE_CARDS[o]) for o in objectives]
    assert state.round_scores == (tuple(expected),)
    assert state.round == 2
    assert state.stage == Stage.PLACEMENT
    assert state.first_player == 2, "the next round starts left of the player whose move made the champion"
    view = E.view(state, 1)
    assert view.scores == tuple(expected)
    assert view.seats[0].last_objective == data.OBJECTIVE_CARDS[card], "objectives are revealed at scoring"


def test_a_one_up_mushroom_cancels_a_no_in_the_circle_from_the_mover() -> None:
    """'one circle, starting with the mover: each player may play one 1-Up Mushroom to cancel one No! or one
    Thwomp Vote, or pass' ... '(it is still discarded)'."""
    one_up = pw(PowerKind.ONE_UP_MUSHROOM)
    state = _to_vote(hands={2: [one_up], 0: [pw(PowerKind.BOO)]})
    # seats 0 and 2 hold Power Ups, so the pre-vote window asked them first
    for seat, vote in ((0, YES), (1, NO), (2, YES)):
        state = E.apply(state, seat, CastVote(vote))
    assert state.stage == Stage.ONE_UP
    assert state.window == (0, 2)
    assert E.legal_actions(state, 0) == (Pass(),)
    state = E.apply(state, 0, Pass())
    assert E.legal_actions(state, 2) == (Pass(), PlayOneUp(1))
    state = E.apply(state, 2, PlayOneUp(1))
    assert state.round == 2, "no No! left: Mario is champion"
    assert state.round_scores
    assert state.no_cards == (4, 4, 4), "a new round resets No! cards"


def test_the_maximum_round_score_is_33() -> None:
    """'The maximum is 33 (10 + 5 + 5 + 5 + 4 + 4).'"""
    card = data.OBJECTIVE_CARDS[0]
    a, b, c, d, e, f = card
    others = [x for x in range(13) if x not in card]
    state = build(
        levels={5: [a, b, c, d], 4: [e, f, others[0]], 0: others[1:]},
        objectives=[0, 1, 2],
    )
    state = E.apply(state, 0, Move(a))
    for seat in (0, 1, 2):
        state = E.apply(state, seat, CastVote(YES))
    assert state.round_scores[0][0] == 10 + 5 + 5 + 5 + 4 + 4 == data.MAX_ROUND_SCORE


# ---------------------------------------------------------------------------------------- rounds, end
def test_a_new_round_resets_the_board_but_keeps_held_blocks_and_power_ups() -> None:
    """'new objective cards; No! cards reset; all characters leave the board; every ? block not held ... is
    shuffled into one face-down pile; held blocks and Power Ups stay; pending extra turns and Thwomp skips
    are cleared.'"""
    coin, thwomp, feather = blk(BlockKind.COIN), blk(BlockKind.THWOMP), blk(BlockKind.FEATHER)
    boo = pw(PowerKind.BOO)
    state = build(
        levels={5: [MARIO], 0: [LUIGI]},
        face_down={3: [blk(BlockKind.GOOMBA)]},
        held={1: [coin, thwomp, feather]},
        hands={2: [boo]},
        skips=(0, 1, 0),
        extra_turns=(0, 0, 1),
        no_cards=(4, 2, 4),
        block_discard=(blk(BlockKind.POW_BLOCK),),
        block_pile=(blk(BlockKind.COIN, 1),),
    )
    old_objectives = state.objectives
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 2, Pass())
    for seat in (0, 1, 2):
        state = E.apply(state, seat, CastVote(YES))
    assert state.round == 2
    assert state.stage == Stage.PLACEMENT
    assert set(state.objectives).isdisjoint(old_objectives)
    assert state.no_cards == (4, 4, 4)
    assert state.skips == (0, 0, 0)
    assert state.extra_turns == (0, 0, 0)
    assert state.held_blocks[1] == (coin, feather)
    assert state.power_hands[2] == (boo,)
    assert all(not level for level in state.levels)
    assert all(not fd for fd in state.face_down)
    expected = [blk(BlockKind.COIN, 1), blk(BlockKind.POW_BLOCK), blk(BlockKind.GOOMBA), thwomp]
    assert sorted(state.block_pile) == sorted(expected), "pile, discards, board and spent Thwomps"
    assert state.block_discard == ()


def _finish_round(state: object, champion_level_chars: dict[int, list[int]], objectives: list[int]) -> object:
    return dataclasses.replace(
        state,  # type: ignore[type-var]
        levels=tuple(tuple(champion_level_chars.get(level, ())) for level in data.LEVELS),
        objectives=tuple(objectives),
        stage=Stage.TURN,
        placements_left=0,
    )


def test_round_3_turns_a_zero_into_33_and_adds_coins_at_the_end() -> None:
    """'Round 3 only: a player who scored 0 in round 3 scores 33 for it instead; then Coin blocks are added.'"""
    zero_card = next(i for i, card in enumerate(data.OBJECTIVE_CARDS) if MARIO not in card and LUIGI not in card)
    mario_card = card_with({MARIO})
    coin2 = blk(BlockKind.COIN_X2)
    state = build(
        levels={5: [MARIO], 0: [LUIGI]},
        objectives=[zero_card, mario_card, mario_card],
        held={0: [coin2]},
        round=3,
        round_scores=((1, 2, 3), (0, 0, 0)),
    )
    state = E.apply(state, 0, Move(MARIO))
    for seat in (0, 1, 2):
        state = E.apply(state, seat, CastVote(YES))
    outcome = E.outcome(state)
    assert outcome is not None
    assert state.stage == Stage.GAME_OVER
    assert state.round_scores[2] == (33, 10, 10)
    assert outcome.scores == (1 + 33 + 2, 12, 13)
    assert outcome.winners == (0,)
    assert E.to_act(state) == ()
    assert all(E.legal_actions(state, s) == () for s in range(3))


def test_round_1_keeps_a_zero_score() -> None:
    """'Round 3 only'."""
    zero_card = next(i for i, card in enumerate(data.OBJECTIVE_CARDS) if MARIO not in card and LUIGI not in card)
    state = build(levels={5: [MARIO], 0: [LUIGI]}, objectives=[zero_card, 1, 2])
    state = E.apply(state, 0, Move(MARIO))
    for seat in (0, 1, 2):
        state = E.apply(state, seat, CastVote(YES))
    assert state.round_scores[0][0] == 0


def _play_round_3(objectives: list[int], levels: dict[int, list[int]], earlier: tuple[int, int, int]) -> object:
    state = build(levels=levels, objectives=objectives, round=3, round_scores=(earlier, (0, 0, 0)))
    state = E.apply(state, 0, Move(MARIO))
    for seat in (0, 1, 2):
        state = E.apply(state, seat, CastVote(YES))
    return state


def test_a_tie_goes_to_most_round_3_objective_characters_on_the_board_else_it_is_shared() -> None:
    """'Tie: the tied player with the most round-3 objective characters still on the board (levels 0-10)
    wins; otherwise the win is shared.'"""
    card_a = card_with({MARIO})
    card_b = next(i for i, card in enumerate(data.OBJECTIVE_CARDS) if MARIO in card and i != card_a)
    only_b = sorted(set(data.OBJECTIVE_CARDS[card_b]) - set(data.OBJECTIVE_CARDS[card_a]))[0]
    levels = {5: [MARIO], 0: [c for c in range(13) if c not in (MARIO, only_b)]}  # only_b is off the board
    objectives = [card_a, card_b, card_with({only_b})]
    probe = _play_round_3(objectives, levels, (0, 0, 0))
    r = probe.round_scores[2]  # type: ignore[attr-defined]
    state = _play_round_3(objectives, levels, (50 - r[0], 50 - r[1], 0))
    outcome = E.outcome(state)  # type: ignore[arg-type]
    assert outcome is not None
    assert outcome.scores[:2] == (50, 50)
    assert outcome.scores[2] < 50
    assert outcome.winners == (0,), "seat 1 has one objective character fewer on the board"
    shared = _play_round_3([card_a, card_a, card_b], levels, (0, 0, 0))
    outcome = E.outcome(shared)  # type: ignore[arg-type]
    assert outcome is not None
    assert outcome.winners == (0, 1), "same points, same count: a shared win"


def test_three_rounds_make_a_game() -> None:
    """'End, after 3 rounds.'"""
    from toadstool.bots import RandomBot
    from toadstool.selfplay import play

    result = play(E, [RandomBot() for _ in range(4)], 11)
    assert result.outcome.winners
    rounds = []

    def observe(state: object, seat: object, action: object) -> None:
        rounds.append(state.round)  # type: ignore[attr-defined]

    play(E, [RandomBot() for _ in range(4)], 11, observe=observe)
    assert sorted(set(rounds)) == [1, 2, 3]


def test_a_green_shell_found_on_the_nominating_turn_cannot_stop_that_nominee() -> None:
    """'Held blocks may be played on any later turn of yours (not the turn that revealed them)'."""
    shell = blk(BlockKind.GREEN_SHELL)
    state = build(
        levels={4: [MARIO], 0: [LUIGI]}, face_down={5: [shell]}, hands={0: [pw(PowerKind.WARP_PIPE), pw(PowerKind.BOO)]}
    )
    state = E.apply(state, 0, PlayWarpPipe(MARIO))
    state = E.apply(state, 0, RevealBlock(0))
    assert state.stage == Stage.PRE_VOTE
    assert state.window == (0,), "asked because it holds a Power Up card (a public count)"
    assert E.legal_actions(state, 0) == (Pass(),)


def test_a_thwomp_skip_takes_the_extra_turn_when_that_comes_next() -> None:
    """Decision: 'skip your next turn' skips the very next turn, an extra turn from a Double Cherry too."""
    thwomp, cherry = blk(BlockKind.THWOMP), blk(BlockKind.DOUBLE_CHERRY)
    state = build(levels={0: [MARIO, LUIGI]}, face_down={1: [cherry], 2: [thwomp]})
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))  # Double Cherry: an extra turn is due
    assert state.current == 0
    state = E.apply(state, 0, Move(MARIO))
    state = E.apply(state, 0, RevealBlock(0))  # Thwomp found on the extra turn
    assert state.extra_turns == (0, 0, 0)
    assert state.current == 1, "the extra turn was taken; the skip waits for seat 0's next turn"
    assert state.skips == (1, 0, 0)
