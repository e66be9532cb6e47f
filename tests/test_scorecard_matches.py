"""Seat-balanced two-player scorecard matches (agents.evaluation.scorecard_matches)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.evaluation import play_scorecard_games
from agents.evaluation.scorecard_matches import matches_from_games, play_scorecard_matches
from dice_env.scorecard.match.observation import match_observation_size, match_observation_slices
from dice_env.scorecard.observation import observation_slices
from dice_env.scorecard.rules import get_rules


@pytest.mark.parametrize("game", ["penta", "dice-poker"])
def test_matches_of_card_players_replay_their_solitaire_games(game):
    """A card-view player's card in a match is its solitaire game on its stream, in both seat
    orders: the identity matches_from_games (and the benchmark) relies on."""
    greedy, heuristic = agents.make("greedy", game), agents.make("heuristic", game)
    played = play_scorecard_matches([greedy, heuristic], game, 30, seed=4)
    solo_g = play_scorecard_games(greedy, game, 60, seed=4)
    solo_h = play_scorecard_games(heuristic, game, 60, seed=4)
    np.testing.assert_array_equal(played.totals[:30, 0], solo_g[0::2])
    np.testing.assert_array_equal(played.totals[30:, 0], solo_g[0::2])
    np.testing.assert_array_equal(played.totals[:, 1], np.tile(solo_h[1::2], 2))
    derived = matches_from_games(solo_g, solo_h)
    np.testing.assert_array_equal(derived.totals, played.totals)
    np.testing.assert_array_equal(derived.a_first, played.a_first)
    assert played.first_seat() == (0.0, 0.0)  # neither reads the other card


def test_rates_score_and_margin_of_known_totals():
    totals = np.array([[10, 5], [5, 10], [7, 7], [10, 5], [5, 10], [7, 7]])
    m = matches_from_games(np.array([10, 0, 5, 0, 7, 0]), np.array([0, 5, 0, 10, 0, 7]))
    np.testing.assert_array_equal(m.totals, totals)
    assert m.rates() == pytest.approx({"win": 1 / 3, "tie": 1 / 3, "loss": 1 / 3})
    score, half = m.score()
    assert score == pytest.approx(0.5) and half > 0
    assert m.mean_margin()[0] == pytest.approx(0.0)
    np.testing.assert_array_equal(m.outcome, [1, -1, 0, 1, -1, 0])


def test_a_match_view_player_sees_the_opponent_and_the_seat_can_matter():
    """A player reading the match observation gets it, and one that plays well only from the
    second seat (it knows its seat from the opponent's card) makes the seat matter."""
    rules = get_rules("penta")
    s = match_observation_slices(rules, 2)
    greedy = agents.make("greedy", "penta")

    class SecondSeatOnly:
        """Greedy from seat 1 (the opponent has filled more boxes), first legal box from 0."""

        def act_batch(self, obs, masks):
            assert obs.shape[1] == match_observation_size(rules, 2)
            own_open = obs[:, observation_slices(rules)["open"]].sum(axis=1)
            their_open = obs[:, s["opponents"]][:, 5:].sum(axis=1)
            second = their_open < own_open
            out = np.asarray(greedy.act_batch(obs[:, s["card"]], masks))
            first_box = 32 + np.argmax(masks[:, 32:], axis=1)
            return np.where(second, out, first_box)

    result = play_scorecard_matches([SecondSeatOnly(), greedy], "penta", 200, seed=1,
                                    views=("match", "card"))
    effect, half = result.first_seat()
    assert effect + half < 0  # seat 0 is worth less: A plays badly there
    assert result.totals.shape == (400, 2)


def test_bad_arguments():
    g = agents.make("random", "penta")
    with pytest.raises(ValueError, match="two players"):
        play_scorecard_matches([g], "penta", 2)
    with pytest.raises(ValueError, match="unknown view"):
        play_scorecard_matches([g, g], "penta", 2, views=("card", "seat"))
    with pytest.raises(ValueError, match="pairs must be at least 1"):
        play_scorecard_matches([g, g], "penta", 0)

    def illegal(obs, mask):
        return 31

    with pytest.raises(ValueError, match=r"player A .*illegal action 31"):
        play_scorecard_matches([illegal, g], "penta", 2)
