"""The scorecard bots: legal actions only, the computer's choice, batched evaluation, strength."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agents
from agents.evaluation import play_scorecard_games, scorecard_observations
from agents.scorecard.heuristic import GreedyAgent, HeuristicAgent, computer_choice
from dice_env import dice as D
from dice_env.scorecard import game as G
from dice_env.scorecard.observation import decode_observation
from dice_env.scorecard.rules import PRESETS, get_rules

BOTS = ("random", "greedy", "heuristic")
PENTA = get_rules("penta")
BOX = {label: k for k, label in enumerate(PENTA.labels)}


def random_states(rules, n: int, rng: np.random.Generator) -> G.ScorecardState:
    """``n`` reachable-looking mid-game states: random filled boxes, many five-of-a-kinds."""
    s = G.ScorecardState.empty(rules, n)
    t = rules.tables
    dice = rng.integers(1, 7, size=(n, 5))
    five = rng.random(n) < 0.3
    dice[five] = rng.integers(1, 7, size=(five.sum(), 1))
    s.dice = np.sort(dice, axis=1).astype(np.int8)
    s.roll = D.ROLL_INDEX_BY_CODE[D.dice_code(s.dice)].astype(np.int64)
    s.rolls_left = rng.integers(0, rules.rolls_per_turn, size=n)
    filled = rng.random((n, rules.n_boxes)) < rng.random((n, 1))
    filled[np.arange(n), rng.integers(0, rules.n_boxes, size=n)] = False  # one box stays open
    values = t.score[rng.integers(0, D.N_ROLLS, size=(n, rules.n_boxes)),
                     np.arange(rules.n_boxes)]
    k5 = rules.five_kind_box
    values[:, k5] = np.where(rng.random(n) < 0.5, rules.five_kind, 0)
    s.scores = np.where(filled, values, G.OPEN).astype(np.int64)
    s.upper_total = np.where(filled & t.is_upper, s.scores, 0).sum(axis=1)
    return s


def observe(rules, state, canonical_holds=True):
    legal, points, _ = G.box_options(rules, state)
    return (scorecard_observations(rules, state, points),
            G.action_mask(rules, state, canonical_holds, legal))


@pytest.mark.parametrize("game", sorted(PRESETS))
@pytest.mark.parametrize("name", BOTS)
def test_bots_only_choose_legal_actions(game, name):
    rules = get_rules(game)
    rng = np.random.default_rng(hash((game, name)) % 2**32)
    bot = agents.make(name, game, seed=1)
    for canonical in (True, False):
        state = random_states(rules, 400, rng)
        obs, masks = observe(rules, state, canonical)
        actions = bot.act_batch(obs, masks)
        assert actions.shape == (400,)
        assert masks[np.arange(400), actions].all()
        for i in range(0, 400, 40):  # the one-game path too
            a = bot.act(obs[i], masks[i].astype(np.int8))
            assert isinstance(a, int) and masks[i, a]


@pytest.mark.parametrize("cls", [GreedyAgent, HeuristicAgent])
def test_batched_and_single_decisions_agree(cls):
    rng = np.random.default_rng(5)
    for game in ("penta", "dice-poker"):
        rules = get_rules(game)
        bot = cls(game)
        state = random_states(rules, 60, rng)
        obs, masks = observe(rules, state)
        batch = bot.act_batch(obs, masks)
        single = [bot.act(o, m) for o, m in zip(obs, masks, strict=True)]
        assert batch.tolist() == single


@settings(max_examples=60, deadline=None)
@given(
    dice=st.lists(st.integers(1, 6), min_size=5, max_size=5),
    open_bits=st.integers(1, 2**13 - 1),
    rolls_left=st.integers(0, 2),
    five_filled=st.sampled_from([None, 0, 50]),
    upper=st.integers(0, 80),
)
def test_heuristic_legal_on_any_penta_state(dice, open_bits, rolls_left, five_filled, upper):
    rules = PENTA
    s = G.ScorecardState.empty(rules, 1)
    s.dice[0] = sorted(dice)
    s.roll[0] = D.roll_index(s.dice[0])
    s.rolls_left[0] = rolls_left
    open_boxes = (open_bits >> np.arange(rules.n_boxes)) & 1 == 1
    s.scores[0] = np.where(open_boxes, G.OPEN, 0)
    k5 = rules.five_kind_box
    if five_filled is not None:
        s.scores[0, k5] = five_filled
    elif not open_boxes[k5]:
        s.scores[0, k5] = G.OPEN
    if not (s.scores[0] == G.OPEN).any():
        s.scores[0, 0] = G.OPEN
    s.upper_total[0] = upper
    obs, masks = observe(rules, s)
    for name in BOTS:
        a = agents.make(name, "penta", seed=0).act(obs[0], masks[0])
        assert masks[0, a]


def test_bots_read_the_env_observation_layout():
    rng = np.random.default_rng(2)
    state = random_states(PENTA, 50, rng)
    obs, _ = observe(PENTA, state)
    d = decode_observation(PENTA, obs)
    assert (d["roll"] == state.roll).all()
    assert (d["open"] == state.open_boxes()).all()


# -- greedy ------------------------------------------------------------------------------------


def _single_state(rules, dice, rolls_left=0, scores=None):
    s = G.ScorecardState.empty(rules, 1)
    s.dice[0] = sorted(dice)
    s.roll[0] = D.roll_index(s.dice[0])
    s.rolls_left[0] = rolls_left
    if scores is not None:
        s.scores[0] = [G.OPEN if v is None else v for v in scores]
        s.upper_total[0] = sum(v for k, v in enumerate(scores)
                               if v is not None and rules.tables.is_upper[k])
    return s


def test_greedy_rerolls_toward_the_most_common_face_then_takes_the_most_points():
    bot = GreedyAgent("penta")
    obs, masks = observe(PENTA, _single_state(PENTA, [2, 2, 3, 5, 6], rolls_left=2))
    assert bot.act(obs[0], masks[0]) == 0b00011  # hold the two 2s
    obs, masks = observe(PENTA, _single_state(PENTA, [3, 3, 5, 5, 6], rolls_left=1))
    assert bot.act(obs[0], masks[0]) == 0b01100  # tie: the higher face
    obs, masks = observe(PENTA, _single_state(PENTA, [5, 5, 5, 5, 5], rolls_left=2))
    assert bot.act(obs[0], masks[0]) == 32 + BOX["Penta"]
    obs, masks = observe(PENTA, _single_state(PENTA, [2, 3, 4, 5, 6], rolls_left=0))
    assert bot.act(obs[0], masks[0]) == 32 + BOX["Grande suite"]


# -- the computer's choice ---------------------------------------------------------------------


def _scores(**filled):
    scores = [None] * PENTA.n_boxes
    for label, v in filled.items():
        scores[BOX[label.replace("_", " ")]] = v
    return scores


def _all_but(*open_labels, **filled):
    """Every box filled with 0 except ``open_labels``, and ``filled`` (label: points)."""
    scores = [0] * PENTA.n_boxes
    for label in open_labels:
        scores[BOX[label]] = None
    for label, v in filled.items():
        scores[BOX[label.replace("_", " ")]] = v
    return scores


@pytest.mark.parametrize("dice,scores,expected", [
    ([4, 4, 4, 4, 4], _scores(), "Penta"),
    ([1, 2, 3, 4, 5], _scores(), "Grande suite"),
    ([2, 3, 4, 5, 6], _scores(), "Grande suite"),
    ([3, 3, 3, 5, 5], _scores(), "Full"),
    ([6, 6, 6, 6, 2], _scores(Sixes=24), "Carré"),
    ([6, 6, 6, 1, 2], _all_but("Sixes", "Aces"), "Sixes"),
    ([1, 1, 1, 1, 1], _all_but("Aces", "Chance", "Penta"), "Penta"),
    ([1, 2, 3, 4, 6], _scores(), "Petite suite"),
    # Joker: the Penta box holds 50, the Fours are open -> the Fours are forced
    ([4, 4, 4, 4, 4], _scores(Penta=50), "Fours"),
    # Joker: Fours filled, a lower box open -> a lower box, the Full at full value
    ([4, 4, 4, 4, 4], _all_but("Aces", "Full", Penta=50), "Full"),
    # the last open box takes anything
    ([1, 1, 2, 3, 6], _all_but("Grande suite"), "Grande suite"),
])
def test_computer_choice_picks_the_sensible_box(dice, scores, expected):
    box = computer_choice("penta", {"dice": dice, "scores": scores})
    assert PENTA.labels[box] == expected


def test_computer_choice_is_always_legal_and_accepts_every_state_form():
    rng = np.random.default_rng(11)
    for game in sorted(PRESETS):
        rules = get_rules(game)
        state = random_states(rules, 300, rng)
        legal = G.box_options(rules, state)[0]
        boxes = computer_choice(rules, state)
        assert boxes.shape == (300,) and legal[np.arange(300), boxes].all()
        obs, _ = observe(rules, state)
        decoded = decode_observation(rules, obs)
        assert (computer_choice(game, decoded) == boxes).all()
        row = 7
        d = {"dice": state.dice[row].tolist(), "rolls_left": 0, "penta_bonus": 0,
             "scores": [None if v == G.OPEN else int(v) for v in state.scores[row]]}
        assert computer_choice(game, d) == boxes[row]
        assert computer_choice(game, decode_observation(rules, obs[row])) == boxes[row]


def test_computer_choice_rejects_bad_states():
    with pytest.raises(ValueError, match="dice"):
        computer_choice("penta", {"scores": _scores()})
    with pytest.raises(ValueError, match="13 boxes"):
        computer_choice("penta", {"dice": [1, 2, 3, 4, 5], "scores": [None] * 15})
    with pytest.raises(ValueError, match="no box is open"):
        computer_choice("penta", {"dice": [1, 2, 3, 4, 5], "scores": [0] * 13})
    with pytest.raises(ValueError, match="unknown scorecard game"):
        computer_choice("yahtzee", {"dice": [1, 2, 3, 4, 5], "scores": _scores()})


# -- evaluation and strength -------------------------------------------------------------------


class _OneAtATime:
    """Wraps a bot, hiding its act_batch (the per-game path of play_scorecard_games)."""

    def __init__(self, bot):
        self.bot = bot

    def act(self, observation, action_mask):
        return self.bot.act(observation, action_mask)

    def seed(self, seed=None):
        pass


def test_play_scorecard_games_is_reproducible_and_uses_act_when_no_batch():
    greedy = agents.make("greedy", "penta")
    a = play_scorecard_games(greedy, "penta", 30, seed=3)
    assert a.shape == (30,)
    b = play_scorecard_games(_OneAtATime(greedy), "dice_env/Penta-v0", 30, seed=3)
    assert (a == b).all()
    c = play_scorecard_games(greedy, "penta", 30, seed=3, batch_size=7)
    d = play_scorecard_games(_OneAtATime(greedy), "penta", 30, seed=3, batch_size=7)
    assert (c == d).all()
    assert (play_scorecard_games(greedy, "penta", 30, seed=4) != a).any()


def test_play_scorecard_games_rejects_illegal_actions():
    class Bad:
        def act(self, observation, action_mask):
            return 31  # holding all five dice is never legal

    with pytest.raises(ValueError, match="illegal action 31"):
        play_scorecard_games(Bad(), "penta", 2, seed=0)


@pytest.mark.parametrize("game", ["penta", "dice-poker"])
def test_heuristic_beats_greedy_beats_random(game):
    means = {name: play_scorecard_games(agents.make(name, game, seed=0), game, 300,
                                        seed=12).mean() for name in BOTS}
    assert means["heuristic"] > means["greedy"] + 40 > means["random"] + 80
    if game == "penta":
        assert means["heuristic"] > 215


def test_heuristic_plays_the_gymnasium_env():
    import gymnasium as gym

    env = gym.make("dice_env/Penta-v0")
    bot = agents.make("heuristic", "dice_env/Penta-v0")
    obs, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        action = bot.act(obs, info["action_mask"])
        assert info["action_mask"][action]
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    assert terminated and total == info["score"]["total"]


@pytest.mark.parametrize("autoreset_mode", ["SameStep", "NextStep"])
def test_bots_play_every_sub_env_of_the_vector_env(autoreset_mode):
    import gymnasium as gym

    env = gym.make_vec("dice_env/DicePoker-v0", num_envs=16,
                       vectorization_mode="vector_entry_point", autoreset_mode=autoreset_mode,
                       illegal_action="raise")
    obs, info = env.reset(seed=1)
    for name in BOTS:
        bot = agents.make(name, "dice_env/DicePoker-v0", seed=0)
        ended = np.zeros(16, dtype=bool)
        for _ in range(70):  # a whole game of 15 turns and then some (autoresets included)
            obs, _, terminated, _, info = env.step(bot.act_batch(obs, info["action_mask"]))
            ended |= terminated
        assert ended.all()
    env.close()
