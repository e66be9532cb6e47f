"""The score spread's numba kernel against the plain numpy turn solver it replaced.

:mod:`agents.solvers.spread_kernels` replays each turn with the DP's decisions and carries the
second moment and the variance left after the turn.  The reference here plays the same turns
through :func:`agents.scorecard.turn_policy.follow_policy` (every leaf built by
:func:`turn_leaves`, no kernel), reading the successors' moments from the kernel's table: so
each layer's recursion is checked on its own, and the whole table by induction.  Both follow
the same tie rule (the lowest box, scoring before an equal reroll, the lowest hold), so they
agree to rounding, ties included.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.scorecard.score_spread import ScoreMoments, _compute, reachable_states
from agents.scorecard.turn_policy import follow_policy, turn_leaves
from agents.solvers.scorecard_dp import load_or_solve_scorecard
from agents.solvers.spread_kernels import hold_order, hold_ordered, lost_totals_merge
from dice_env import dice as D
from dice_env.scorecard.rules import Rules, get_rules

BOXES = get_rules("penta").boxes[:6] + ("chance", "five_kind")
TINY = Rules(name="tiny-spread", boxes=BOXES, labels=tuple(b.title() for b in BOXES))


def _reference(moments: ScoreMoments, open_, upper, five) -> np.ndarray:
    """``(S, 2)`` second moment and variance after the turn by the numpy turn solver."""
    rules = moments.rules
    second = moments.second

    def successor(o2, u2, f2):
        fs, rest, uu, done = moments._index(o2, u2, f2)
        return moments.mean(o2, u2, f2), np.where(done, 0.0, second[fs, rest, uu])

    def first(rows, o2, u2, f2, gain):
        return gain + moments.mean(o2, u2, f2)

    def second_leaf(rows, o2, u2, f2, gain):
        mean, m2 = successor(o2, u2, f2)
        return gain * gain + 2.0 * gain * mean + m2

    def after_leaf(rows, o2, u2, f2, gain):
        mean, m2 = successor(o2, u2, f2)
        return m2 - mean * mean

    leaves = turn_leaves(rules, open_, upper, five, first)
    q = np.stack([turn_leaves(rules, open_, upper, five, second_leaf),
                  turn_leaves(rules, open_, upper, five, after_leaf)], axis=-1)
    q[~np.isfinite(q)] = 0.0
    return follow_policy(leaves, q, rules.rolls_per_turn)[1]


def _check(moments: ScoreMoments, open_, upper, five) -> None:
    want = _reference(moments, open_, upper, five)
    fs, rest, u, _ = moments._index(open_, upper, five)
    got = np.stack([moments.second[fs, rest, u], moments.after[fs, rest, u]], axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)


@pytest.fixture(scope="module")
def tiny():
    solution = load_or_solve_scorecard(TINY, use_cache=False)
    return ScoreMoments(solution, *_compute(solution))


@pytest.fixture(scope="module")
def penta():
    solution = load_or_solve_scorecard("penta")
    return ScoreMoments(solution, *_compute(solution))


def test_every_state_of_a_small_game_matches_the_numpy_turn_solver(tiny):
    for filled in range(TINY.n_boxes):
        _check(tiny, *reachable_states(tiny.solution, filled))


def test_penta_with_its_joker_and_bonuses_matches_layer_by_layer(penta):
    """A sample of every layer of Penta (forced Joker, the Penta bonus, the upper bonus), and
    every state of a card where expected values tie between different holds (Fives and one
    more box open, the Penta box filled with 50)."""
    rng = np.random.default_rng(0)
    for filled in range(penta.rules.n_boxes):
        open_, upper, five = reachable_states(penta.solution, filled)
        pick = rng.choice(len(upper), min(len(upper), 120), replace=False)
        _check(penta, open_[pick], upper[pick], five[pick])
    open_, upper, five = reachable_states(penta.solution, penta.rules.n_boxes - 2)
    ties = open_[:, 4] & open_[:, 9] & (five == 1)
    assert ties.sum() >= 10
    _check(penta, open_[ties], upper[ties], five[ties])


def test_the_totals_that_cannot_reach_the_bonus_share_one_lane_bit_for_bit(tiny):
    """The kernel computes the upper totals that can no longer reach the bonus once per group;
    the tables are those of every total computed on its own, to the last bit."""
    solution = tiny.solution
    ub_table = solution.model.ub_table
    assert lost_totals_merge(ub_table)
    paid_early = ub_table.copy()
    paid_early[0, 1] = 1.0  # a bonus earned short of the threshold: no merging
    assert not lost_totals_merge(paid_early)
    open_, upper, _ = reachable_states(solution, 3)
    lost = upper + (open_[:, :6] * 5 * np.arange(1, 7)).sum(axis=1) < ub_table.shape[0] - 1
    assert lost.sum() > 100  # the merge is exercised
    second, after = _compute(solution, merge_lost=False)
    np.testing.assert_array_equal(second, tiny.second)
    np.testing.assert_array_equal(after, tiny.after)


def test_the_spread_is_a_variance_and_the_turn_resolves_part_of_it(penta):
    """Where reachable: ``E[R^2] >= E[R]^2``, and the variance left after the turn lies between
    0 and the whole variance; on a card with one box open the turn resolves all of it."""
    values = penta.solution.values
    live = ~np.isnan(values)
    live[1:, -1, :] = False
    var = penta.second[live] - values[live] ** 2
    assert np.all(var >= -1e-6)
    after = penta.after[live]
    assert np.all(after >= -1e-6) and np.all(after <= var + 1e-6)
    open_, upper, five = reachable_states(penta.solution, penta.rules.n_boxes - 1)
    assert np.allclose(penta.std_after_turn(open_, upper, five), 0.0, atol=1e-6)


def test_the_keeps_are_numbered_in_the_order_of_the_lowest_hold_of_every_roll():
    """Of two keeps a roll can reroll to, the one made by the lower hold has the lower number,
    for every roll (the tie rule the kernels rely on); parents still come before children."""
    number = hold_order()
    for r in range(D.N_ROLLS):
        first_hold = {}
        for h in range(D.N_HOLDS - 1):
            first_hold.setdefault(int(number[D.HOLD_KEEP[r, h]]), h)
        keeps = sorted(first_hold)
        assert [first_hold[k] for k in keeps] == sorted(first_hold.values())
        assert max(keeps) < 210
    assert sorted(number[:210].tolist()) == list(range(210))
    assert number[210:].tolist() == list(range(210, D.N_KEEPS))
    children = D.KEEP_CHILDREN.astype(np.int64)
    parents = np.full((D.N_KEEPS, 6), -1, dtype=np.int64)
    n_parents = np.zeros(D.N_KEEPS, dtype=np.int64)
    for k in range(210):
        for c in children[k]:
            parents[c, n_parents[c]] = k
            n_parents[c] += 1
    ch, pa, n_pa = hold_ordered(children, parents, n_parents)
    for k in range(210):
        assert np.all(ch[k] > k)
    for k in range(D.N_KEEPS):
        assert np.all(pa[k, :n_pa[k]] < k)
    for k in range(210):  # the same lattice, renamed
        assert ch[number[k]].tolist() == number[children[k]].tolist()
