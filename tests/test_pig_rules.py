"""Pig's rules (dice_env/pig/rules.py): knobs, hand-checked turns, and the batched twins against
the one-game functions (hypothesis)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dice_env.pig import game as G
from dice_env.pig import rules as R
from dice_env.pig.observation import (
    decode_observation,
    encode_observation,
    encode_observation_batch,
    openspiel_observation_tensor,
)
from dice_env.pig.rules import HOLD, ROLL, PigBatch, PigRules, PigState


# -- knobs -------------------------------------------------------------------------------------
def test_defaults_are_openspiels():
    r = PigRules()
    assert r.knobs() == {"num_players": 2, "win_score": 100, "die_sides": 6, "horizon": 1000,
                         "piglet": False}
    assert r.openspiel_parameters() == {"players": 2, "winscore": 100, "diceoutcomes": 6,
                                        "horizon": 1000, "piglet": False}
    assert r.name == "pig" and r.n_actions == 2
    assert PigRules(win_score=50).name == "pig(win_score=50)"
    assert (ROLL, HOLD) == (0, 1)


@pytest.mark.parametrize("knobs, message", [
    ({"num_players": 1}, "num_players must be an integer from 2 to 10"),
    ({"num_players": 11}, "from 2 to 10"),
    ({"num_players": True}, "num_players"),
    ({"win_score": 0}, "win_score must be an integer from 1 to 10,000"),
    ({"die_sides": 1}, "die_sides must be an integer from 2 to 1,000"),
    ({"horizon": 0}, "horizon must be an integer from 1"),
    ({"win_score": 10.0}, "win_score"),
    ({"piglet": "yes"}, "piglet must be a bool"),
])
def test_bad_knobs_name_the_allowed_range(knobs, message):
    with pytest.raises(ValueError, match=message):
        PigRules(**knobs)


def test_unknown_knob_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown Pig rule knobs \['target'\]; known knobs"):
        PigRules.from_knobs({"target": 5})


def test_coerce_rules():
    r = PigRules(num_players=3, win_score=30)
    assert R.coerce_rules(r) is r
    assert R.coerce_rules({"win_score": 30, "num_players": 3}) == r
    assert R.coerce_rules("pig") == R.coerce_rules("PIG") == PigRules()
    assert R.coerce_rules("dice_env/Pig-v0") == R.coerce_rules(None) == PigRules()

    from dice_env.families import resolve_game

    resolved = resolve_game("pig")  # what agents.make passes: the resolved game
    assert R.coerce_rules(resolved) is resolved.rules and resolved.rules == PigRules()
    custom = dataclasses.replace(resolved, rules=r)
    assert R.coerce_rules(custom) is r

    class DuckTyped:  # only the one parser's GameRef is trusted, never a look-alike
        rules = r
        spec = "pig"

    with pytest.raises(ValueError, match="rules must be a PigRules"):
        R.coerce_rules(DuckTyped())
    with pytest.raises(ValueError, match="'penta' is not a Pig game"):
        R.coerce_rules("penta")
    with pytest.raises(ValueError, match="rules must be a PigRules"):
        R.coerce_rules(3.5)


# -- turns by hand -----------------------------------------------------------------------------
def test_a_turn_by_hand():
    r = PigRules()
    s = R.initial_state(r)
    assert R.legal_actions(r, s) == (ROLL, HOLD)  # hold is legal even with nothing to bank
    s = R.apply_roll(r, s, 5)
    assert s == PigState((0, 0), 5, 0, 1)
    s = R.apply_roll(r, s, 6)
    assert s == PigState((0, 0), 11, 0, 2)
    s = R.apply_hold(r, s)
    assert s == PigState((11, 0), 0, 1, 3)
    s = R.apply_roll(r, s, 4)
    s = R.apply_roll(r, s, 1)  # a 1: the turn total is lost, the die passes
    assert s == PigState((11, 0), 0, 0, 5)
    assert not R.is_terminal(r, s) and R.returns(r, s) == (0.0, 0.0)


def test_only_hold_at_the_win_and_the_returns():
    r = PigRules(num_players=3)
    s = PigState((90, 50, 20), 8, 0, 40)
    assert R.legal_actions(r, s) == (ROLL, HOLD)
    s = R.apply_roll(r, s, 2)
    assert s.turn_total == 10 and R.legal_actions(r, s) == (HOLD,)
    assert R.action_mask(r, s) == [0, 1]
    assert "must hold" in R.illegal_reason(r, s, ROLL)
    s = R.apply_hold(r, s)
    assert s.scores == (100, 50, 20) and R.is_terminal(r, s) and R.winner(r, s) == 0
    assert R.legal_actions(r, s) == ()
    assert R.returns(r, s) == (1.0, -0.5, -0.5)  # zero-sum, as OpenSpiel
    assert R.illegal_reason(r, s, HOLD) == "the game is over"


def test_the_horizon_ends_a_roll_before_its_face_is_read():
    r = PigRules(horizon=3)
    s = R.apply_roll(r, R.apply_roll(r, R.initial_state(r), 6), 6)
    assert s.turn_total == 12 and s.moves == 2
    end = R.apply_roll(r, s, 6)
    assert end == PigState((0, 0), 12, 0, 3)  # the face is not added
    assert R.is_terminal(r, end) and R.winner(r, end) == -1 and R.returns(r, end) == (0.0, 0.0)
    # a hold that reaches the win on the last move wins
    r = PigRules(horizon=1, win_score=5)
    won = R.apply_hold(r, PigState((0, 0), 7, 0, 0))
    assert R.returns(r, won) == (1.0, -1.0)


def test_piglet_adds_one():
    r = PigRules(piglet=True, die_sides=2, win_score=10)
    assert R.apply_roll(r, R.initial_state(r), 2).turn_total == 1
    assert R.gain(r, 2) == 1 and R.gain(r, 1) == 0 and R.gain(PigRules(), 5) == 5


def test_observation_layout():
    r = PigRules(num_players=3, win_score=100, horizon=1000)
    s = PigState((10, 40, 70), 15, 1, 100)
    o = encode_observation(r, s, 1)
    assert np.allclose(o, [0.4, 0.7, 0.1, 0.15, 1, 0, 0, 0.1])
    d = decode_observation(r, o[None, :])
    assert d["scores"].tolist() == [[40, 70, 10]] and d["turn_total"].tolist() == [15]
    assert d["to_move"].tolist() == [0] and d["moves"].tolist() == [100]
    t = openspiel_observation_tensor(r, s).reshape(4, 101)
    assert t.sum() == 4 and t[0, 15] == t[1, 10] == t[2, 40] == t[3, 70] == 1


# -- the batched twins against the one-game functions ------------------------------------------
rules_strategy = st.builds(
    PigRules, num_players=st.integers(2, 10), win_score=st.integers(1, 60),
    die_sides=st.integers(2, 8), horizon=st.integers(1, 150), piglet=st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), n_games=st.integers(1, 6),
       hold_prob=st.floats(0.05, 0.6))
def test_batched_rules_play_the_same_games(rules, seed, n_games, hold_prob):
    """Random games through the one-game functions and, side by side, through the batched
    twins: states, masks, observations (every seat), events, ends and returns agree."""
    rng = np.random.default_rng(seed)
    states = [R.initial_state(rules) for _ in range(n_games)]
    batch = PigBatch.empty(n_games, rules.num_players)
    for _ in range(400):
        live = [i for i, s in enumerate(states) if not R.is_terminal(rules, s)]
        assert R.is_terminal_batch(rules, batch).tolist() == [
            R.is_terminal(rules, s) for s in states]
        mask = R.action_mask_batch(rules, batch)
        for i, s in enumerate(states):
            assert batch.state(i) == s
            assert mask[i].astype(int).tolist() == R.action_mask(rules, s)
            assert bool(mask[i].any()) == (not R.is_terminal(rules, s))  # never empty before
            for seat in range(rules.num_players):
                one = encode_observation(rules, s, seat)
                many = encode_observation_batch(rules, batch, np.full(n_games, seat))[i]
                assert np.array_equal(one, many)
        if not live:
            break
        actions = np.array([HOLD if rng.random() < hold_prob or mask[i, ROLL] == 0 else ROLL
                            for i in live])
        faces = rng.integers(1, rules.die_sides + 1, size=len(live))
        before = batch.copy()
        rows = np.array(live)
        R.apply_roll_batch(rules, batch, rows[actions == ROLL], faces[actions == ROLL])
        R.apply_hold_batch(rules, batch, rows[actions == HOLD])
        for j, i in enumerate(live):
            prev = states[i]
            states[i] = R.apply_action(rules, prev, int(actions[j]), int(faces[j]))
            assert G.events_of(rules, prev, int(actions[j]), int(faces[j]), states[i]) == \
                G.events_of(rules, before.state(i), int(actions[j]), int(faces[j]),
                            batch.state(i))
    assert R.winner_batch(rules, batch).tolist() == [R.winner(rules, s) for s in states]
    assert np.array_equal(R.returns_batch(rules, batch),
                          np.array([R.returns(rules, s) for s in states]))
    for s in states:
        assert abs(sum(R.returns(rules, s))) < 1e-12  # zero-sum


@settings(max_examples=30, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1))
def test_step_and_step_batch_throw_the_same_dice(rules, seed):
    """A batch of one with the same generator plays the same dice and events as one game."""
    r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
    choose = np.random.default_rng(seed + 1)
    s = R.initial_state(rules)
    batch = PigBatch.empty(1, rules.num_players)
    while not R.is_terminal(rules, s):
        legal = R.legal_actions(rules, s)
        a = legal[int(choose.integers(len(legal)))]
        before = batch.copy()
        after, events = G.step(rules, s, a, r1)
        faces = G.step_batch(rules, batch, np.array([0]), np.array([a]), r2)
        assert batch.state(0) == after
        assert G.events_of(rules, before.state(0), a, int(faces[0]), batch.state(0)) == events
        s = after
    assert R.is_terminal_batch(rules, batch)[0]


def test_state_dicts_round_trip_and_refuse_bad_fields():
    r = PigRules(num_players=3)
    s = PigState((10, 20, 30), 5, 2, 17)
    d = G.state_to_dict(r, s, agent_seat=2)
    assert G.state_from_dict(r, d) == (s, 2)
    with pytest.raises(ValueError, match="state\\['scores'\\] must be a list of 3 scores"):
        G.state_from_dict(r, {"scores": [1, 2]})
    with pytest.raises(ValueError, match="current_player.*from 0 to 2"):
        G.state_from_dict(r, {"scores": [0, 0, 0], "current_player": 3})
    with pytest.raises(ValueError, match="unknown Pig state fields"):
        G.state_from_dict(r, {"scores": [0, 0, 0], "dice": [1]})
