"""The shared five-dice tables."""

import itertools

import numpy as np
import pytest

from dice_env import dice as D


def test_table_sizes():
    assert D.ROLLS.shape == (252, 5)
    assert D.KEEP_COUNTS.shape == (462, 6)
    assert (np.diff(D.ROLLS.astype(int), axis=1) >= 0).all()
    assert sorted(np.bincount(D.KEEP_SIZES).tolist()) == [1, 6, 21, 56, 126, 252]


def test_every_ordered_roll_maps_to_its_sorted_roll():
    for dice in itertools.product(range(1, 7), repeat=5):
        assert tuple(D.ROLLS[D.roll_index(dice)]) == tuple(sorted(dice))


def test_probabilities_are_distributions_and_exact():
    assert np.allclose(D.KEEP_TO_ROLL_PROB.sum(axis=1), 1.0)
    assert D.FRESH_ROLL_PROB[D.roll_index([3, 3, 3, 3, 3])] == pytest.approx(1 / 7776)
    assert D.FRESH_ROLL_PROB[D.roll_index([1, 2, 3, 4, 5])] == pytest.approx(120 / 7776)
    four_sixes = D.keep_index([6, 6, 6, 6])
    assert D.KEEP_TO_ROLL_PROB[four_sixes, D.roll_index([6] * 5)] == pytest.approx(1 / 6)
    full = D.keep_index([1, 2, 3, 4, 5])
    assert D.KEEP_TO_ROLL_PROB[full, D.roll_index([1, 2, 3, 4, 5])] == 1.0


def test_keep_children_add_one_die():
    for k in range(D.N_KEEPS):
        for f in range(6):
            child = D.KEEP_CHILDREN[k, f]
            if D.KEEP_SIZES[k] == 5:
                assert child == -1
            else:
                expected = D.KEEP_COUNTS[k].copy()
                expected[f] += 1
                assert (D.KEEP_COUNTS[child] == expected).all()


def test_canonical_holds_one_per_distinct_keep():
    for r in range(D.N_ROLLS):
        keeps = D.HOLD_KEEP[r]
        canon = np.flatnonzero(D.CANONICAL_HOLD[r])
        assert len(set(keeps[canon].tolist())) == len(canon) == len(set(keeps.tolist()))
        for b in range(32):
            assert D.HOLD_KEEP[r, D.canonical_hold(r, b)] == keeps[b]
    # two 2s, hold one: the leftmost is canonical
    r = D.roll_index([2, 2, 3, 5, 6])
    assert D.CANONICAL_HOLD[r, 0b00001] and not D.CANONICAL_HOLD[r, 0b00010]


def test_reroll_keeps_held_dice_and_draws_five_per_game():
    rng = np.random.default_rng(0)
    dice = np.array([[1, 2, 3, 4, 5], [6, 6, 6, 6, 6]], dtype=np.int8)
    out, roll = D.reroll(rng, dice, np.array([0b00011, 0b11110]))
    assert {1, 2} <= set(out[0].tolist())
    assert (out[1] == 6).sum() >= 4
    assert (np.diff(out, axis=1) >= 0).all() and (D.ROLLS[roll] == out).all()
    a, _ = D.reroll(np.random.default_rng(5), dice[:1], np.array([0]))
    b, _ = D.reroll(np.random.default_rng(5), dice[0], 0)
    assert (a[0] == b).all()


def test_bad_dice_are_refused():
    with pytest.raises(ValueError, match="faces 1..6"):
        D.roll_index([0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="5 dice"):
        D.roll_index([1, 2, 3])
