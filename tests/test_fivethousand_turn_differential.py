"""The turn of 5000 (``dice_env/fivethousand/rules/turn.py``) run both ways: as plain Python
(one game, :class:`~dice_env.fivethousand.single.FiveThousandGame`) and compiled by numba (the
row kernels of the batched core and the vector envs).  Random games of random knobs and every
player count are played through both, comparing states, masks, events and observations step
by step; the scalar functions are also compared with their kernels on random positions that
games rarely reach (bumps, gifts, scores near the target)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import encode_observation, encode_observation_one
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.rules import turn as T
from dice_env.fivethousand.single import FiveThousandGame

STATE_FIELDS = ("scores", "current", "turn_total", "dice", "roll", "turns", "winner")
MAX_STEPS = 150
SETTINGS = settings(max_examples=8, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def knobs(draw):
    """Any rules: a target from 100 to 5000, an entry up to it, either action encoding."""
    target = 100 * draw(st.integers(1, 50))
    entry = 100 * draw(st.integers(0, target // 100))
    return FiveThousandRules(target=target, entry=entry,
                             choose_scoring_dice=draw(st.booleans()))


def assert_same_position(rules, game, state, max_turns):
    for field in STATE_FIELDS:
        assert np.array_equal(getattr(game.to_state(), field), getattr(state, field)), field
    mask = G.action_mask(rules, state)[0]
    assert game.action_mask() == mask.astype(int).tolist()
    for seat in range(game.num_players):
        one = encode_observation_one(rules, game.scores, game.current, game.turn_total,
                                     game.roll, game.turns, game.winner, seat, max_turns)
        assert np.array_equal(one, encode_observation(rules, state, seat, max_turns)[0])
    return mask


@pytest.mark.parametrize("players", range(1, 9))
@SETTINGS
@given(rules=knobs(), seed=st.integers(0, 2**32 - 1), max_turns=st.sampled_from([None, 30]))
def test_one_game_in_python_is_the_compiled_turn(players, rules, seed, max_turns):
    """The same dice and actions through the plain-Python turn (one game) and the numba
    kernels (the batched core, a batch of one): identical at every decision."""
    game = FiveThousandGame(rules, players)
    state = G.FiveThousandState.empty(1, players)
    rng_one, rng_batch = np.random.default_rng(seed), np.random.default_rng(seed)
    policy = np.random.default_rng(seed + 1)
    first = seed % players
    opening = G.start_games(rules, state, np.ones(1, dtype=bool), rng_batch, first)
    assert game.start(rng_one, first) == int(opening[0])
    for _ in range(MAX_STEPS):
        mask = assert_same_position(rules, game, state, max_turns)
        if game.finished():
            assert not mask.any()
            break
        action = int(policy.choice(np.flatnonzero(mask)))
        events = game.step(action, rng_one)
        record = G.step_games(rules, state, np.array([action]), rng_batch)
        assert events == G.step_events(record, 0)
    assert rng_one.bit_generator.state == rng_batch.bit_generator.state


@st.composite
def positions(draw):
    """A random decision: scores (0 or entered, some near the target), the player to move, a
    roll that scores, a turn total and one of the legal actions."""
    rules = draw(knobs())
    players = draw(st.integers(1, 8))
    lo, hi = rules.min_entered_score // 100, rules.target // 100 - 1  # entered scores
    hundreds = (st.one_of(st.just(0), st.integers(lo, hi), st.integers(max(hi - 4, lo), hi))
                if lo <= hi else st.just(0))
    scores = [100 * draw(hundreds) for _ in range(players)]
    scoring = np.flatnonzero(R.ROLL_POINTS > 0)
    roll = int(draw(st.sampled_from(scoring.tolist())))
    turn_total = 50 * draw(st.integers(0, rules.target // 50))
    current = draw(st.integers(0, players - 1))
    mask = R.legal_action_mask(rules, scores[current], turn_total, roll)[0]
    action = draw(st.sampled_from(np.flatnonzero(mask).tolist()))
    return rules, scores, current, roll, turn_total, action


@settings(max_examples=300, deadline=None)
@given(position=positions(), faces=st.lists(st.integers(1, 6), min_size=5, max_size=5))
def test_turn_functions_in_python_are_their_kernels(position, faces):
    """:func:`action_mask_into`, :func:`set_aside`, :func:`bank`, :func:`land` and
    :func:`end_turn` as plain Python over lists and tuples give what their kernels give over
    arrays, on one decision and the throw after it."""
    rules, scores, current, roll, turn_total, action = position
    players = len(scores)
    t, tp = T.turn_tables(rules), T.python_tables(rules)

    mask = [0] * rules.n_actions
    T.action_mask_into(mask, rules.min_entered_score, scores[current], turn_total, roll,
                       tp.points, tp.legal, tp.n_legal)
    out = np.zeros((1, rules.n_actions), dtype=np.int8)
    T.mask_rows(rules.min_entered_score, np.array([scores[current]]), np.array([turn_total]),
                np.array([roll]), t.points, t.legal, t.n_legal, out)
    assert mask == out[0].tolist() and any(mask)

    # the decision, in Python (as FiveThousandGame.step) and through decide_rows
    py_scores, py_turns, py_bumped = list(scores), [3] * players, [False] * players
    points, total, throw_n = T.set_aside(action, roll, turn_total, tp.points, tp.left)
    if action & 1:
        outcome, receiver, winner, seat, tt, throw_n = T.bank(
            rules.target, py_scores, py_turns, py_bumped, current, total)
    else:
        outcome, receiver, winner, seat, tt = R.NO_BANK, -1, -1, current, total
    a = {"roll": np.array([roll]), "turn_total": np.array([turn_total]),
         "current": np.array([current]), "scores": np.array([scores]),
         "turns": np.full((1, players), 3), "winner": np.array([-1])}
    rec = [np.zeros(1, dtype=np.int64) for _ in range(3)] + [np.array([R.NO_BANK]),
                                                            np.array([-1])]
    bumped = np.zeros((1, players), dtype=bool)
    won = T.decide_rows(np.array([0]), np.array([action]), rules.target, t.points, t.left,
                        a["roll"], a["turn_total"], a["current"], a["scores"], a["turns"],
                        a["winner"], *rec, bumped)
    assert (throw_n, points, total, outcome, receiver) == tuple(int(x[0]) for x in rec)
    assert (winner, seat, tt) == (a["winner"][0], a["current"][0], a["turn_total"][0])
    assert won.tolist() == ([0] if winner >= 0 else [])
    assert (py_scores, py_turns, py_bumped) == (a["scores"][0].tolist(), a["turns"][0].tolist(),
                                                bumped[0].tolist())

    # the throw that follows, from the faces drawn (as FiveThousandGame does, and land_rows)
    if not throw_n:
        return
    r, bust = T.land(faces, throw_n, tt, T.INDEX_BY_CODE_PY, T.POINTS_OF_ROLL_PY)
    after = (seat, tt, 0)
    if bust != T.NO_BUST:
        after = T.end_turn(py_turns, seat)
    dice = np.zeros((1, R.N_DICE), dtype=np.int8)
    roll_out, bust_roll, opening_busts = np.zeros(1, np.int64), np.array([-1]), np.zeros(1, int)
    again = T.land_rows(np.array([0]), np.array([faces], dtype=np.int8), rec[0], dice, roll_out,
                        a["current"], a["turn_total"], a["turns"], bust_roll, opening_busts,
                        T.INDEX_BY_CODE, T.POINTS_OF_ROLL, R.ROLL_DICE)
    assert after == (a["current"][0], a["turn_total"][0], rec[0][0])
    assert r == roll_out[0] and dice[0].tolist() == list(T.ROLL_DICE_PY[r])
    assert sorted(faces[:throw_n]) == [d for d in T.ROLL_DICE_PY[r] if d]
    assert (bust == T.NO_BUST) == (R.ROLL_POINTS[r] > 0)
    assert py_turns == a["turns"][0].tolist()
    assert again.tolist() == ([] if bust == T.NO_BUST else [0])
    assert (bust_roll[0] == r) == (bust == T.BUST)
    assert opening_busts[0] == (bust == T.OPENING_BUST)
