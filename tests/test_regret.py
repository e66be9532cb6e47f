"""Exact per-decision regret (agents.evaluation.optimality_gap / fivethousand_gap)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
from agents.evaluation import fivethousand_gap, optimality_gap
from agents.evaluation.scorecard_regret import mean_ci


@pytest.fixture(scope="module")
def penta_optimal():
    return agents.make("optimal", "penta")


@pytest.fixture(scope="module")
def fivethousand_optimal():
    return agents.make("optimal", "fivethousand")


class RerollFirst:
    """The optimal player, except that it rerolls all five dice at the first decision of
    every game; records the exact loss of that decision from its observation."""

    def __init__(self, optimal, n_boxes: int) -> None:
        self.optimal = optimal
        self.n_boxes = n_boxes
        self.losses: list[float] = []

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions = self.optimal.act_batch(obs, masks)
        from dice_env.scorecard.observation import decode_observation

        d = decode_observation(self.optimal.rules, obs)
        first = (d["open"].all(axis=1)) & (d["rolls_left"] == self.optimal.rules.rolls_per_turn - 1)
        for i in np.flatnonzero(first):
            values = self.optimal.action_values(obs[i])
            best = values[masks[i].astype(bool)].max()
            self.losses.append(best - values[0])
            actions[i] = 0  # hold nothing: reroll all five (always legal after the first roll)
        return actions


def test_optimal_player_has_zero_regret(penta_optimal):
    r = optimality_gap(penta_optimal, "penta", games=60, seed=3, optimal=penta_optimal)
    assert r.gap == 0.0 and r.per_game.max() == 0.0
    assert r.mistakes.sum() == 0
    assert np.all(r.paired_diff == 0)
    assert r.decisions.sum() > 60 * 13


def test_one_deviation_costs_exactly_its_q_gap(penta_optimal):
    agent = RerollFirst(penta_optimal, 13)
    r = optimality_gap(agent, "penta", games=40, seed=5, optimal=penta_optimal, paired=False)
    assert len(agent.losses) == 40
    np.testing.assert_allclose(r.per_game, np.where(np.array(agent.losses) > 1e-9,
                                                    agent.losses, 0.0), atol=1e-9)
    # all of it at the first decision kind, in the first turn
    assert r.by_kind[:, 1:].sum() == 0 and r.by_turn[:, 1:].sum() == 0
    assert r.gap > 0


def test_regret_minus_luck_is_the_final_score_gap():
    r = optimality_gap(agents.make("greedy", "penta"), "penta", games=100, seed=1,
                       paired=False)
    np.testing.assert_allclose(r.realized - r.luck, r.optimal_value - r.stats.total, atol=1e-7)


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "ppo"])
def test_regret_agrees_with_paired_final_scores(name, penta_optimal):
    """Both estimate the same gap: their game-by-game difference has a CI containing 0."""
    n = 150 if name == "heuristic" else 400
    r = optimality_gap(agents.make(name, "penta"), "penta", games=n, seed=11,
                       optimal=penta_optimal)
    # at a 99.9 % level, so that the test is not a coin toss over seeds
    _, low, high = mean_ci(r.paired_diff - r.per_game, z=3.29)
    assert low <= 0 <= high
    assert r.variance_reduction() > 3
    assert r.ci[0] <= r.gap <= r.ci[1]


def test_dice_averaged_regret_is_unbiased_and_steadier(penta_optimal):
    """Averaging each decision's loss over the throw before it estimates the same gap as the
    losses as taken, with a smaller variance; the first decision's average is the same in
    every game."""
    agent = agents.make("greedy", "penta")
    r = optimality_gap(agent, "penta", games=120, seed=6, optimal=penta_optimal,
                       dice_averaged=True)
    assert r.estimator == "dice-averaged regret"
    _, low, high = mean_ci(r.realized - r.per_game, z=3.29)
    assert low <= 0 <= high
    assert r.per_game.var() < r.realized.var()
    assert np.allclose(r.by_kind.sum(axis=1), r.per_game)
    # the first decision of a game always follows the same throw: one expectation for all
    first = RerollFirst(penta_optimal, 13)
    q = optimality_gap(first, "penta", games=3, seed=0, optimal=penta_optimal, paired=False,
                       dice_averaged=True)
    assert np.ptp(q.by_kind[:, 0]) < 1e-9 and q.by_kind[0, 0] > 0
    assert q.by_kind[:, 1:].sum() == pytest.approx(0.0, abs=1e-9)


def test_decomposition_adds_up_and_reports(penta_optimal):
    r = optimality_gap(agents.make("greedy", "penta"), "penta", games=80, seed=2,
                       optimal=penta_optimal)
    np.testing.assert_allclose(r.by_kind.sum(axis=1), r.per_game)
    np.testing.assert_allclose(r.by_turn.sum(axis=1), r.per_game)
    # the box table holds every decision where the player or the optimum scored a box
    assert r.box_counts[:-1].sum() == 80 * 13
    assert r.box_loss.sum() <= r.per_game.sum() + 1e-9
    assert r.kinds == ["hold after roll 1", "hold after roll 2", "box after roll 3"]
    summary = json.loads(json.dumps(r.summary(), default=float))
    assert summary["gap"] == pytest.approx(r.gap)
    text = r.format_text()
    assert "gap to the optimum" in text and "box after roll 3" in text
    assert r.rates()["upper bonus"][1] is not None


def test_dice_poker_and_bad_arguments():
    r = optimality_gap(agents.make("heuristic", "dice-poker"), "dice-poker", games=20, seed=0,
                       paired=False)
    assert r.by_turn.shape == (20, 15) and r.gap > 0
    with pytest.raises(ValueError, match="at least 2"):
        optimality_gap(agents.make("greedy", "penta"), "penta", games=1)
    with pytest.raises(ValueError, match="not 'penta'"):
        optimality_gap(agents.make("greedy", "penta"), "penta", games=4,
                       optimal=agents.make("optimal", "yahtzee-official"))


def test_mean_ci():
    m, low, high = mean_ci(np.array([1.0, 2.0, 3.0, 4.0]))
    assert m == 2.5 and low < m < high


# -- 5000 --------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["two-player", "solo"])
def test_fivethousand_optimal_has_zero_regret(mode, fivethousand_optimal):
    r = fivethousand_gap(fivethousand_optimal, games=200, seed=1, mode=mode,
                         optimal=fivethousand_optimal)
    assert r.gap == 0.0 and r.mistakes.sum() == 0 and r.decisions.sum() > 200


class AlwaysBank:
    """Banks whenever allowed; sums the exact loss of each of its decisions from its own
    observations (the optimal agent's observation path, not the game-state path)."""

    def __init__(self, optimal, solo: bool) -> None:
        self.optimal, self.solo, self.total = optimal, solo, 0.0

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = masks.astype(bool)
        actions = np.where(masks[:, 1], 1, 0)
        values = self.optimal.action_values(obs)
        sign = -1.0 if self.solo else 1.0
        key = np.where(masks & np.isfinite(values), sign * values, -np.inf)
        loss = key.max(axis=1) - key[np.arange(len(obs)), actions]
        self.total += float(np.where(loss > 1e-9, loss, 0.0).sum())
        return actions


@pytest.mark.parametrize("mode", ["two-player", "solo"])
def test_fivethousand_losses_match_the_observation_path(mode, fivethousand_optimal):
    agent = AlwaysBank(fivethousand_optimal, mode == "solo")
    r = fivethousand_gap(agent, games=100, seed=2, mode=mode, optimal=fivethousand_optimal)
    assert r.per_game.sum() == pytest.approx(agent.total, rel=1e-9)
    assert r.gap > 0
    assert r.action_counts[1, 0] > 0  # banked where the optimum rolls on


def test_fivethousand_regret_agrees_with_outcomes(fivethousand_optimal):
    r = fivethousand_gap(agents.make("threshold", "fivethousand"), games=1000, seed=4,
                         optimal=fivethousand_optimal)
    low, high = r.agreement()[1:]
    assert low <= 0 <= high
    assert r.variance_reduction() > 3
    est = r.estimate()
    assert 0.3 < est[0] < 0.5
    json.dumps(r.summary(), default=float)
    assert "win rate vs optimal" in r.format_text()
    with pytest.raises(ValueError, match="unknown mode"):
        fivethousand_gap(fivethousand_optimal, games=4, mode="three")
