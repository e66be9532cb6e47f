"""The ``yacht`` preset against OpenSpiel's own ``yacht`` (open_spiel/games/yacht/yacht.cc).

The same dice go through both implementations: our batched scorecard core
(:mod:`dice_env.scorecard.game`, one row per player, whole turns in seat order) throws them,
and pyspiel is told the same faces through its chance outcomes.  At every decision the legal
moves are compared, every open category's score, and at the end each player's total and
OpenSpiel's returns.  The turn protocols differ only in how they are spelled (docs/rules.md,
section 1.8):

* OpenSpiel's action ``m`` in 1..31 *rerolls* the dice at the bits of ``m``; ours (0..30)
  *holds* them: our hold is the same kept dice.  OpenSpiel's action 0 ("keep all") ends the
  rolling phase and then only the categories ``32 + c`` are legal; we offer the boxes
  ``32 + c`` beside the holds after every throw, which is the same choice in one step.
* Its categories are in our box order: category ``c`` is our box ``c``.

pyspiel is a test-only dependency (``pip install open_spiel``): without it the file skips.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import need

from dice_env import dice as D
from dice_env.scorecard import game as G
from dice_env.scorecard.match import match_outcome
from dice_env.scorecard.rules import get_rules

pyspiel = need("pyspiel", "pip install -e '.[dev]': open_spiel")

YACHT = get_rules("yacht")
N_HOLDS = G.N_HOLD_ACTIONS
#: OpenSpiel's normalisation of a solo score (yacht.cc: the most every category can score)
MAX_POSSIBLE = 5 * (1 + 2 + 3 + 4 + 5 + 6) + 30 + 30 + 30 + 30 + 30 + 50


def load(players: int, sort_dice: bool):
    return pyspiel.load_game("yacht", {"players": players, "sort_dice": sort_dice})


def dice_of(state) -> list[int]:
    """The five dice of an OpenSpiel yacht state, in its positions (from its string)."""
    return [int(x) for x in re.search(r"Dice: ([0-9 ]+)\n", str(state)).group(1).split()]


def totals_of(state, players: int) -> list[int]:
    return [int(re.search(rf"Player {p} \(total: (-?\d+)\)", str(state)).group(1))
            for p in range(players)]


def chance_outcome(kept: list[int | None], new_faces: list[int]) -> int:
    """The chance action that puts ``new_faces`` (in order) at the positions not kept."""
    code, j = 0, 0
    faces = iter(new_faces)
    for value in kept:
        if value is None:
            code += (next(faces) - 1) * 6 ** j
            j += 1
    return code


def category_scores(state, categories: list[int], player: int, players: int) -> dict[int, int]:
    """What each legal category would score now (applied to a clone each)."""
    before = totals_of(state, players)[player]
    out = {}
    for c in categories:
        child = state.clone()
        child.apply_action(32 + c)
        out[c] = totals_of(child, players)[player] - before
    return out


def test_every_roll_scores_the_same_in_every_category():
    """All 252 sorted rolls, thrown at once, scored in each of the 12 categories."""
    game = load(1, True)
    assert game.num_distinct_actions() == N_HOLDS + YACHT.n_boxes
    for roll, dice in enumerate(D.ROLLS.tolist()):
        state = game.new_initial_state()
        state.apply_action(chance_outcome([None] * 5, dice))
        assert dice_of(state) == dice
        state.apply_action(0)  # keep all: to the categories
        assert state.legal_actions() == [N_HOLDS + c for c in range(YACHT.n_boxes)]
        got = category_scores(state, list(range(YACHT.n_boxes)), 0, 1)
        assert [got[c] for c in range(YACHT.n_boxes)] == YACHT.tables.score[roll].tolist(), dice


def test_hand_checked_scores_agree():
    """OpenSpiel's own test rolls (yacht_test.cc), scored by our tables."""
    def score(dice, label):
        roll = int(D.roll_index(np.sort(np.array(dice))))
        return int(YACHT.tables.score[roll, YACHT.labels.index(label)])

    assert score([1, 2, 3, 4, 5], "Small Straight") == 30
    assert score([1, 2, 3, 4, 5], "Large Straight") == 0
    assert score([2, 3, 4, 5, 6], "Large Straight") == 30
    assert score([5, 3, 5, 3, 5], "Full House") == 21
    assert score([5, 5, 5, 3, 5], "Full House") == 0
    assert score([5, 5, 5, 3, 5], "Four of a Kind") == 23
    assert score([1, 1, 1, 1, 1], "Ones") == 5
    assert score([1, 1, 1, 1, 1], "Yacht") == 50
    assert score([1, 1, 1, 1, 1], "Full House") == 5


def play_both(players: int, sort_dice: bool, seed: int) -> None:
    """One whole game of ``players`` through both implementations, compared at every step."""
    rng = np.random.default_rng(seed)  # our dice
    choose = np.random.default_rng(seed + 10_000)  # the moves
    game = load(players, sort_dice)
    spiel = game.new_initial_state()
    ours = G.ScorecardState.empty(YACHT, players)
    G.clear_cards(YACHT, ours, np.arange(players))
    seat = 0

    def throw(kept_positions: list[int | None]) -> None:
        """Our core rerolls the dice not kept; OpenSpiel is told the same new faces."""
        kept_faces = [v for v in kept_positions if v is not None]
        # our hold: the sorted positions of the kept faces (any such positions will do)
        hold, pool = 0, ours.dice[seat].tolist()
        for face in kept_faces:
            i = next(i for i, v in enumerate(pool) if v == face and not hold >> i & 1)
            hold |= 1 << i
        rows = np.zeros(players, dtype=bool)
        rows[seat] = True
        holds = np.zeros(players, dtype=np.int64)
        holds[seat] = hold
        G.roll_dice(ours, rows, holds, rng)
        new = ours.dice[seat].tolist()
        for face in kept_faces:
            new.remove(face)
        assert spiel.is_chance_node()
        spiel.apply_action(chance_outcome(kept_positions, new))
        assert sorted(dice_of(spiel)) == ours.dice[seat].tolist()
        if sort_dice:
            assert dice_of(spiel) == ours.dice[seat].tolist()

    for _turn in range(players * YACHT.n_boxes):
        assert not spiel.is_terminal()
        throw([None] * 5)
        while True:
            assert spiel.current_player() == seat
            mask = G.action_mask(YACHT, ours, canonical_holds=False)[seat]
            legal_boxes = [int(b) for b in np.flatnonzero(mask[N_HOLDS:])]
            open_boxes = [int(b) for b in np.flatnonzero(ours.open_boxes()[seat])]
            assert legal_boxes == open_boxes  # no Joker: every open box is legal
            _, points, _ = G.box_options(YACHT, ours)
            if ours.rolls_left[seat] > 0:
                # rolling phase: OpenSpiel offers every reroll mask; we offer every hold but
                # "all five" (its mask 0, "keep all") plus the boxes
                assert spiel.legal_actions() == list(range(N_HOLDS))
                assert np.flatnonzero(mask[:N_HOLDS]).tolist() == list(range(N_HOLDS - 1))
                after_stop = spiel.clone()
                after_stop.apply_action(0)
                assert after_stop.legal_actions() == [N_HOLDS + b for b in legal_boxes]
                scored = category_scores(after_stop, legal_boxes, seat, players)
            else:
                assert spiel.legal_actions() == [N_HOLDS + b for b in legal_boxes]
                assert not mask[:N_HOLDS].any()
                scored = category_scores(spiel, legal_boxes, seat, players)
            assert scored == {b: int(points[seat, b]) for b in legal_boxes}

            reroll = ours.rolls_left[seat] > 0 and choose.random() < 0.6
            if reroll:
                m = int(choose.integers(1, N_HOLDS))  # OpenSpiel's reroll mask
                kept = [None if m >> i & 1 else v for i, v in enumerate(dice_of(spiel))]
                spiel.apply_action(m)
                ours.rolls_left[seat] -= 1
                throw(kept)
                continue
            # score: the best box half of the time, else any open box
            if choose.random() < 0.5:
                box = max(legal_boxes, key=lambda b: (points[seat, b], -b))
            else:
                box = int(choose.choice(legal_boxes))
            if spiel.legal_actions()[0] < N_HOLDS:
                spiel.apply_action(0)  # OpenSpiel: stop rolling first
            spiel.apply_action(N_HOLDS + box)
            active = np.zeros(players, dtype=bool)
            active[seat] = True
            actions = np.zeros(players, dtype=np.int64)
            actions[seat] = N_HOLDS + box
            G.apply_actions(YACHT, ours, actions, rng, active, throw_next_turn=False)
            assert totals_of(spiel, players) == ours.total(YACHT).tolist()
            break
        seat = (seat + 1) % players

    assert spiel.is_terminal() and ours.finished().all()
    totals = ours.total(YACHT)
    assert totals_of(spiel, players) == totals.tolist()
    returns = np.array(spiel.returns())
    if players == 1:
        # solo: OpenSpiel returns the score over its maximum (305); our reward is the score
        np.testing.assert_allclose(returns, totals / MAX_POSSIBLE)
    else:
        top = totals == totals.max()
        if top.all():
            expected = np.zeros(players)
        else:  # winners share +1, losers share -1 (yacht.cc, Returns)
            expected = np.where(top, 1.0 / top.sum(), -1.0 / (~top).sum())
        np.testing.assert_allclose(returns, expected)
        if players == 2:  # two players: our match rewards are the same (+1 / -1, tie 0 / 0)
            np.testing.assert_allclose(returns, match_outcome(totals[None])[0])


@pytest.mark.parametrize("players,sort_dice,seed", [
    (1, True, 0), (1, False, 1), (2, True, 2), (2, False, 3), (3, True, 4), (4, False, 5),
])
def test_the_same_dice_give_the_same_game(players, sort_dice, seed):
    play_both(players, sort_dice, seed)


def test_many_solo_games():
    for seed in range(20, 40):
        play_both(1, seed % 2 == 0, seed)


def test_a_full_upper_section_earns_no_bonus():
    """Five of each face in its upper box (105 points, past 63): no bonus in either game."""
    game = load(1, True)
    spiel = game.new_initial_state()
    ours = G.ScorecardState.empty(YACHT, 1)
    G.clear_cards(YACHT, ours, np.arange(1))
    turns = [([f] * 5, f - 1) for f in range(1, 7)]  # five 1s in Ones, ... five 6s in Sixes
    turns += [([2, 3, 4, 5, 6], YACHT.labels.index(label)) for label in
              ("Chance", "Four of a Kind", "Full House", "Small Straight", "Large Straight",
               "Yacht")]
    for dice, box in turns:
        spiel.apply_action(chance_outcome([None] * 5, dice))
        spiel.apply_action(0)
        spiel.apply_action(N_HOLDS + box)
        ours.dice[0] = dice
        ours.roll[0] = int(D.roll_index(np.array(dice)))
        G.apply_actions(YACHT, ours, np.array([N_HOLDS + box]), np.random.default_rng(0),
                        throw_next_turn=False)
        assert totals_of(spiel, 1) == ours.total(YACHT).tolist()
    assert spiel.is_terminal() and ours.finished().all()
    assert ours.total(YACHT).tolist() == [105 + 20 + 30]  # Chance 20, Large Straight 30
    np.testing.assert_allclose(spiel.returns(), [155 / MAX_POSSIBLE])
