"""Differential test: the same dice through OpenSpiel's ``pig`` (pyspiel) and our rules, for
several parameter settings: legal moves, scores, turn totals, observation tensors, ends and
returns must agree at every step."""

import re
import zlib

import numpy as np
import pytest
from conftest import need

from dice_env.pig import rules as R
from dice_env.pig.observation import openspiel_observation_tensor
from dice_env.pig.rules import HOLD, ROLL, PigRules

pyspiel = need("pyspiel", "pip install -e '.[dev]': open_spiel")

SETTINGS = [
    {},
    {"num_players": 3, "win_score": 30, "die_sides": 4},
    {"num_players": 10, "win_score": 20, "die_sides": 6, "horizon": 60},
    {"num_players": 2, "win_score": 10, "die_sides": 2, "piglet": True},
    {"num_players": 4, "win_score": 15, "die_sides": 3, "piglet": True, "horizon": 200},
    {"num_players": 2, "win_score": 50, "horizon": 7},
]


def parse(text):
    """Scores, turn total and current seat from OpenSpiel's ``ToString``."""
    m = re.match(r"Scores: ([\d ]+), Turn total: (\d+)\nCurrent player: (\d+)", text)
    assert m, text
    return tuple(int(x) for x in m.group(1).split()), int(m.group(2)), int(m.group(3))


def chance_action(rules, face):
    """OpenSpiel's chance outcome for a face: ``face - 1``; under piglet 0 (a 1) or 1."""
    return int(face != 1) if rules.piglet else face - 1


@pytest.mark.parametrize("knobs", SETTINGS, ids=lambda k: R.PigRules(**k).name)
def test_the_same_dice_through_openspiel_and_ours(knobs):
    rules = PigRules(**knobs)
    game = pyspiel.load_game("pig", rules.openspiel_parameters())
    assert game.num_players() == rules.num_players
    assert game.num_distinct_actions() == R.N_ACTIONS
    assert game.observation_tensor_shape() == [1 + rules.num_players, rules.win_score + 1]
    rng = np.random.default_rng(zlib.crc32(repr(sorted(knobs.items())).encode()))
    outcomes = set()
    n_games = 60 if rules.num_players <= 4 else 25
    for _ in range(n_games):
        hold_prob = rng.uniform(0.05, 0.5)
        ours = R.initial_state(rules)
        theirs = game.new_initial_state()
        while True:
            assert theirs.is_terminal() == R.is_terminal(rules, ours)
            scores, turn_total, _ = parse(str(theirs))
            assert scores == ours.scores and turn_total == ours.turn_total
            for p in range(rules.num_players):
                assert np.array_equal(np.array(theirs.observation_tensor(p), dtype=np.float32),
                                      openspiel_observation_tensor(rules, ours))
            if theirs.is_terminal():
                break
            assert theirs.current_player() == ours.current
            legal = R.legal_actions(rules, ours)
            assert list(theirs.legal_actions()) == list(legal)
            a = HOLD if HOLD in legal and (ROLL not in legal or rng.random() < hold_prob) else ROLL
            theirs.apply_action(a)
            if a == HOLD:
                ours = R.apply_hold(rules, ours)
                continue
            face = int(rng.integers(1, rules.die_sides + 1))
            ours = R.apply_roll(rules, ours, face)
            if theirs.is_terminal():  # the roll reached the horizon: no chance node
                continue
            assert theirs.is_chance_node()
            probs = dict(theirs.chance_outcomes())
            if rules.piglet:
                assert probs == pytest.approx({0: 1 / rules.die_sides,
                                               1: 1 - 1 / rules.die_sides})
            else:
                assert probs == pytest.approx({f: 1 / rules.die_sides
                                               for f in range(rules.die_sides)})
            theirs.apply_action(chance_action(rules, face))
        assert theirs.returns() == pytest.approx(list(R.returns(rules, ours)))
        outcomes.add(R.winner(rules, ours) >= 0)
    if rules.horizon < 20:
        assert False in outcomes  # some games ended at the horizon
    assert True in outcomes or rules.horizon < 10
