"""5000 players of the factory and batched head-to-head games."""

import numpy as np
import pytest

import agents
from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.fivethousand.bots import HEURISTIC_THRESHOLDS, HeuristicAgent, ThresholdAgent
from dice_env.fivethousand.bots import ThresholdBot
from dice_env.fivethousand.env import FiveThousandEnv


@pytest.mark.parametrize("name", ["random", "threshold", "heuristic"])
def test_factory_players_play_the_env_legally(name):
    player = agents.make(name, "fivethousand", seed=0)
    env = FiveThousandEnv(opponents=[agents.make("heuristic", "fivethousand")],
                          illegal_action="raise")
    for g in range(20):
        obs, info = env.reset(seed=g)
        done = False
        while not done:
            action = player.act(obs, info["action_mask"])
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated


def test_threshold_family():
    assert ThresholdAgent(threshold=400).thresholds[1:].tolist()[:3] == [400, 400, 400]
    assert HeuristicAgent().thresholds[1:].tolist() == list(HEURISTIC_THRESHOLDS)
    with pytest.raises(ValueError, match="one value per dice left"):
        ThresholdAgent(thresholds=[300, 300])


def test_matches_are_seat_balanced_and_reproducible():
    players = [ThresholdAgent(threshold=300), ThresholdBot()]  # the same strategy twice
    a = play_fivethousand_matches(players, 2000, seed=3)
    b = play_fivethousand_matches(players, 2000, seed=3)
    assert np.array_equal(a.winner, b.winner)
    assert (a.first == 0).mean() == 0.5
    p, low, high = a.win_rate_ci(0)
    assert low < 0.5 < high  # identical players: no edge once seats are balanced
    assert (a.winner >= 0).all()


def test_heuristic_beats_random_and_the_default_bot():
    result = play_fivethousand_matches([agents.make("heuristic", "fivethousand"),
                                        agents.make("random", "fivethousand", seed=1)],
                                       1000, seed=0)
    assert result.win_rate(0) > 0.7
    result = play_fivethousand_matches([HeuristicAgent(), ThresholdBot()], 6000, seed=5)
    assert result.win_rate_ci(0)[1] > 0.5


def test_illegal_player_is_reported():
    with pytest.raises(ValueError, match="illegal action"):
        play_fivethousand_matches([lambda obs, mask: 7, ThresholdBot()], 4, seed=0)
