"""The probe of a scorecard policy (agents/evaluation/scorecard_probes.py): positions where
scoring now earns the five-of-a-kind bonus and a reroll is left."""

import numpy as np
import pytest

import agents
from agents.evaluation.scorecard_probes import bonus_giveaway, bonus_states
from dice_env import dice as D
from dice_env.scorecard.observation import decode_observation
from dice_env.scorecard.rules import FIVE_FIFTY, UPPER_KINDS, get_rules


@pytest.mark.parametrize("game", ["penta", "yahtzee-official"])
def test_the_positions_are_ones_a_game_reaches_and_the_optimum_always_scores(game):
    """Every position has five of a kind, the box at 50, a reroll left, a legal box and an
    upper total its filled upper boxes can make; the optimal player (whose tables refuse an
    unreachable position) scores in every one, as does the heuristic."""
    rules = get_rules(game)
    obs, mask = bonus_states(rules, 300, seed=4)
    for o, m in zip(obs, mask, strict=True):
        state = decode_observation(rules, o)
        assert rules.tables.is_five_kind[state["roll"]]
        assert state["five_state"] == FIVE_FIFTY and state["rolls_left"] >= 1
        assert m[D.N_HOLDS:].any() and m[:D.N_HOLDS].any()
        filled = [k + 1 for k, kind in enumerate(UPPER_KINDS)
                  if not state["open"][rules.boxes.index(kind)]]
        assert state["upper_capped"] <= 5 * sum(filled)
    for name in ("optimal", "heuristic"):
        probe = bonus_giveaway(agents.make(name, game), game, states=300, seed=4)
        assert probe.rerolls == 0 and probe.states == 300 and probe.bonus == 100


class _AlwaysRerolls:
    def act_batch(self, observations, masks):
        return np.argmax(masks[:, :D.N_HOLDS], axis=1)


def test_a_policy_that_rerolls_gives_the_bonus_up_every_time_and_other_games_have_none():
    probe = bonus_giveaway(_AlwaysRerolls(), "penta", states=50)
    assert probe.rate == 1.0 and "rerolls in 100.0% of 50 positions" in probe.format_text()
    assert bonus_giveaway(_AlwaysRerolls(), "yatzy") is None  # no five-of-a-kind bonus
    from agents.games import resolve

    assert bonus_giveaway(_AlwaysRerolls(), resolve("fivethousand")) is None
    assert bonus_giveaway(_AlwaysRerolls(), "pig") is None


def test_evaluate_regret_prints_the_probe(capsys):
    from agents.cli import evaluate

    rows = evaluate.main(["--agent", "heuristic", "--game", "penta", "--regret",
                          "--games", "10"])
    assert rows[0]["bonus_giveaway"] == 0.0
    assert "bonus probe: with five of a kind, the bonus live (100 points for scoring now) and " \
           "a reroll left, it rerolls in 0.0% of 4,000 positions" in capsys.readouterr().out
