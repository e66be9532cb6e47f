"""The scorecard turn's two forms play the same games (hypothesis differential test).

:mod:`dice_env.scorecard.game` holds the turn twice, side by side: batched in numpy
(:class:`~dice_env.scorecard.game.ScorecardState`, :func:`~dice_env.scorecard.game.action_mask`,
:func:`~dice_env.scorecard.game.apply_actions`) and for one game in plain Python
(:class:`~dice_env.scorecard.game.ScorecardGame`); :mod:`dice_env.scorecard.match.core` does
the same for the match.  Hypothesis draws a preset of ``PRESETS`` and the rule knobs (the Joker
modes, ``joker_when_scratched``, ``five_kind_bonus`` 0, 1 to 4 rolls per turn, the scoring
knobs, canonical holds on or off), a seed and a playing style; the game is played through both
forms with the same dice, and every step compares the events (reward, box points,
five-of-a-kind bonus, upper bonus), the box options, the mask, the observations and the state.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dice_env import dice as D
from dice_env.scorecard import game as G
from dice_env.scorecard.match import core as M
from dice_env.scorecard.match.observation import (
    encode_match_observation,
    encode_match_observation_one,
)
from dice_env.scorecard.observation import (
    OBSERVATION_KINDS,
    encode_observation,
    encode_observation_one,
)
from dice_env.scorecard.rules import (
    FULL_HOUSE_SCORING_MODES,
    JOKER_MODES,
    KIND_SCORING_MODES,
    PRESETS,
    STRAIGHT_MODES,
    get_rules,
)
from dice_env.scorecard.state import possible_box_scores

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def rule_sets(draw):
    """A preset, each knob either left as the preset has it or drawn."""
    preset = draw(st.sampled_from(sorted(PRESETS)))
    choices = {
        "joker": st.sampled_from(JOKER_MODES),
        "joker_when_scratched": st.booleans(),
        "five_kind_bonus": st.sampled_from([0, 100]),
        "rolls_per_turn": st.integers(1, 4),
        "penta_counts_as_full": st.booleans(),
        "four_kind_is_two_pairs": st.booleans(),
        "kind_scoring": st.sampled_from(KIND_SCORING_MODES),
        "full_house_scoring": st.sampled_from(FULL_HOUSE_SCORING_MODES),
        "straights": st.sampled_from(STRAIGHT_MODES),
    }
    knobs = {k: draw(v) for k, v in choices.items() if draw(st.booleans())}
    return get_rules(preset, **knobs)


@st.composite
def cards(draw, rules):
    """A game part-way through: any box filled with a score some roll gives it (the
    five-of-a-kind box often with 50, bonuses earned), the dice and the rerolls left."""
    possible = possible_box_scores(rules)
    n, five = rules.n_boxes, rules.five_kind_box
    scores = [draw(st.sampled_from([G.OPEN, *sorted(possible[k])])) for k in range(n)]
    scores[five] = draw(st.sampled_from([G.OPEN, rules.five_kind, rules.five_kind, 0]))
    if G.OPEN not in scores:
        scores[draw(st.integers(0, n - 1))] = G.OPEN
    state = G.ScorecardState.empty(rules, 1)
    five_kinds = np.flatnonzero(rules.tables.is_five_kind).tolist()
    state.roll[0] = draw(st.sampled_from(five_kinds) | st.integers(0, D.N_ROLLS - 1))
    state.dice[0] = D.ROLLS[state.roll[0]]
    state.rolls_left[0] = draw(st.integers(0, rules.rolls_per_turn - 1))
    state.scores[0] = scores
    state.upper_total[0] = sum(s for s, u in zip(scores, rules.tables.is_upper) if u and s > 0)
    if scores[five] == rules.five_kind:
        state.five_bonus[0] = rules.five_kind_bonus * draw(st.integers(0, 2))
    return state


@st.composite
def games(draw):
    """Rules and where the game starts: a new game (None) or a game part-way through."""
    rules = draw(rule_sets())
    return rules, draw(st.one_of(st.none(), cards(rules)))


class Player:
    """Random legal actions; with probability ``greed`` it holds the most common face, and
    scores a five of a kind at once (the Joker and bonus cases); with ``scratch`` it scores the
    five-of-a-kind box when it may (a scratched box: the FIVE_ZERO cases)."""

    def __init__(self, seed: int, greed: float, scratch: float, five_box: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.greed, self.scratch, self.five_box = greed, scratch, five_box

    def act(self, dice, mask) -> int:
        mask = np.asarray(mask, dtype=bool)
        five = G.N_HOLD_ACTIONS + self.five_box
        if mask[five] and self.rng.random() < self.scratch:
            return five
        legal = np.flatnonzero(mask)
        if self.rng.random() < self.greed:
            face = max(set(dice), key=list(dice).count)
            hold = D.hold_bits(i for i, d in enumerate(dice) if d == face)
            if hold == D.ALL_HELD:
                return int(self.rng.choice(legal[legal >= G.N_HOLD_ACTIONS]))
            if mask[hold]:
                return hold
        return int(self.rng.choice(legal))


players = st.tuples(st.integers(0, 2**31), st.sampled_from([0.8, 0.0, 0.95]),
                    st.sampled_from([0.0, 0.05, 0.3]))


def assert_same_card(state: G.ScorecardState, row: int, game: G.ScorecardGame) -> None:
    twin = game.to_state()
    for name in ("dice", "roll", "rolls_left", "scores", "upper_total", "five_bonus"):
        assert getattr(twin, name)[0].tolist() == getattr(state, name)[row].tolist(), name
    assert game.finished() == bool(state.finished()[row])
    assert game.five_state() == int(state.five_state(game.rules)[row])
    assert game.open_boxes() == state.open_boxes()[row].tolist()
    assert game.total() == int(state.total(game.rules)[row])
    assert game.score_breakdown() == {k: int(v[row]) for k, v in
                                      state.score_breakdown(game.rules).items()}


@SETTINGS
@given(game_start=games(), seed=st.integers(0, 2**31), canonical=st.booleans(),
       player=players)
def test_one_game_is_the_batched_turn(game_start, seed, canonical, player):
    rules, start = game_start
    game = G.ScorecardGame(rules)
    if start is None:  # both forms throw the first roll
        state = G.ScorecardState.empty(rules, 1)
        G.start_games(rules, state, np.ones(1, dtype=bool), np.random.default_rng(seed))
        game.start(np.random.default_rng(seed))
    else:
        state = start
        game.load(state)
    rng, twin_rng = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    policy = Player(*player, rules.five_kind_box)
    scored = int((state.scores[0] != G.OPEN).sum())
    while True:
        assert_same_card(state, 0, game)
        legal, points, bonus = G.box_options(rules, state)
        t_legal, t_points, t_bonus = game.options()
        assert (t_legal, t_points, t_bonus) == (legal[0].tolist(), points[0].tolist(),
                                                int(bonus[0]))
        assert game.must_scratch(t_legal, t_points) == bool(G.must_scratch(legal, points)[0])
        mask = G.action_mask(rules, state, canonical, legal)[0]
        t_mask = game.action_mask(t_legal, canonical)
        assert [bool(m) for m in t_mask] == mask.tolist()
        for kind in OBSERVATION_KINDS:
            obs = encode_observation(rules, state.dice, state.roll, state.rolls_left,
                                     state.open_boxes(), points, state.upper_total,
                                     state.five_state(rules), kind)[0]
            t_obs = encode_observation_one(rules, game.roll, game.rolls_left, game.open_boxes(),
                                           t_points, game.upper_total, game.five_state(), kind)
            assert t_obs.tobytes() == obs.tobytes()
        if state.finished()[0]:
            assert not mask.any()
            break
        assert mask.any()
        action = policy.act(game.dice, t_mask)
        events = G.apply_actions(rules, state, np.array([action]), rng,
                                 options=(legal, points, bonus))
        t_events = game.apply(action, twin_rng, t_points, t_bonus)
        assert t_events == tuple(int(e[0]) for e in events)
        scored += action >= G.N_HOLD_ACTIONS
    assert scored == rules.n_boxes


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), num_players=st.integers(M.MIN_PLAYERS, 4), seed=st.integers(0, 2**31),
       canonical=st.booleans(), player=players)
def test_one_match_is_the_batched_match(rules, num_players, seed, canonical, player):
    state = M.MatchState.empty(rules, 1, num_players)
    match = M.ScorecardMatch(rules, num_players)
    rng, twin_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    M.start_matches(rules, state, np.ones(1, dtype=bool), rng)
    match.start(twin_rng)
    policy = Player(*player, rules.five_kind_box)
    while True:
        assert match.current == int(state.current[0])
        for seat, card in enumerate(match.cards):
            assert_same_card(state.cards, seat, card)
        assert match.totals() == state.totals(rules)[0].tolist()
        legal, points, _ = M.mover_options(rules, state)
        t_legal, t_points, t_bonus = match.mover.options()
        assert (t_legal, t_points) == (legal[0].tolist(), points[0].tolist())
        mask = M.match_action_mask(rules, state, canonical, box_legal=legal)[0]
        t_mask = match.action_mask(t_legal, canonical)
        assert [bool(m) for m in t_mask] == mask.tolist()
        for seat in range(num_players):
            obs = encode_match_observation(rules, state, np.array([seat]), mover_points=points)
            t_obs = encode_match_observation_one(rules, match.cards, match.current, seat,
                                                 t_points)
            assert t_obs.tobytes() == obs[0].tobytes()
        if match.finished():
            assert bool(state.finished()[0]) and not mask.any()
            break
        action = policy.act(match.mover.dice, t_mask)
        earned, scored = M.apply_match_actions(rules, state, np.array([action]), rng)
        t_events = match.apply(action, twin_rng, t_points, t_bonus)
        assert t_events[0] == int(earned[0])
        assert bool(scored[0]) == (action >= G.N_HOLD_ACTIONS)
