"""Multi-player scorecard games: the AEC env (``scorecard_v0``), the single-agent matches
(``PentaMatch-v0``, ``DicePokerMatch-v0``) and their batched version."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from conftest import need
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from pettingzoo.test import api_test, seed_test

import agents
import dice_env
from dice_env import dice as D
from dice_env.errors import IllegalActionError
from dice_env.multi import scorecard_v0
from dice_env.scorecard.env import ScorecardEnv
from dice_env.scorecard.match import match_outcome, score_margin
from dice_env.scorecard.match.env import ScorecardMatchEnv
from dice_env.scorecard.match.observation import (
    TOTAL_SCALE,
    match_observation_size,
    match_observation_slices,
)
from dice_env.scorecard.match.vector import ScorecardMatchVectorEnv
from dice_env.scorecard.observation import observation_size, observation_slices
from dice_env.scorecard.rules import get_rules
from dice_env.scorecard.vector import ScorecardVectorEnv

PENTA = get_rules("penta")
S = observation_size(PENTA)  # 45
CHANCE, PENTA_BOX = 32 + 11, 32 + 12
GAMES = ["penta", "dice-poker", "yahtzee-official", "yahtzee-free-joker", "yahtzee-no-bonus"]


def card(scores, bonus=0):
    return {"scores": list(scores), "penta_bonus": bonus}


def match(cards, dice, current, rolls_left=2, **extra):
    return {"game": "penta", "current_player": current, "dice": dice,
            "rolls_left": rolls_left, "cards": cards, **extra}


FULL_41 = [1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 20, 0]      # TOTAL 41
LAST_CHANCE = [1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, None, 0]  # 21 + Chance to come


def last_turn(dice, players=2):
    """The last seat to move on its last turn, only Chance open; the others hold 41."""
    cards = [card(FULL_41) for _ in range(players - 1)] + [card(LAST_CHANCE)]
    return match(cards, dice, players - 1)


def finish(env):
    """Step the dead agents out; return each agent's reward from last()."""
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term or trunc
        seen[agent] = reward
        env.step(None)
    return seen


# ---------------------------------------------------------------------------------------------
# API conformance
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"game": "dice-poker", "num_players": 4},
                                    {"game": "yahtzee-official", "num_players": 6}])
def test_pettingzoo_api_and_seed_tests(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(scorecard_v0.env(**kwargs), num_cycles=200)
    seed_test(lambda: scorecard_v0.env(**kwargs), num_cycles=100)


@pytest.mark.parametrize("env_id", list(dice_env.SCORECARD_MATCH_IDS))
def test_gymnasium_check_env_and_make_vec(env_id):
    for kwargs in ({}, {"num_players": 3, "agent_seat": 2, "reward": "score_diff"}):
        env = gym.make(env_id, **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # check_env renders in "human" mode: no stdout noise
            check_env(env.unwrapped, skip_render_check=True)
    venv = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point")
    obs, info = venv.reset(seed=0)
    rules = venv.unwrapped.rules
    assert obs.shape == (4, match_observation_size(rules, 2)) and obs.dtype == np.float32
    assert venv.single_action_space.n == 32 + rules.n_boxes
    assert info["action_mask"].shape == (4, 32 + rules.n_boxes)
    assert isinstance(venv.unwrapped, ScorecardMatchVectorEnv)


@pytest.mark.parametrize("bad", [{"num_players": 1}, {"num_players": 7}, {"num_players": 2.0},
                                 {"agent_seat": 2}, {"reward": "points"},
                                 {"opponent_view": "all"}, {"opponents": "heuristc"},
                                 {"opponents": [None]}, {"illegal_action": "ignore"}])
def test_bad_arguments_are_refused(bad):
    with pytest.raises((ValueError, TypeError)):
        ScorecardMatchEnv("penta", **bad)


# ---------------------------------------------------------------------------------------------
# The rules core is the solitaire one
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["penta", "dice-poker"])
def test_two_player_match_replays_the_two_solitaire_games_die_for_die(game):
    """Same dice (one stream per player), same decisions: same observations and totals."""
    rules = get_rules(game)
    s = observation_size(rules)
    bot = agents.make("heuristic", game)
    empty = [None] * rules.n_boxes
    solo = []
    for g in range(2):
        env = ScorecardEnv(game)
        env.reset(seed=0)
        stream = D.DiceStream(11, [g])
        first = stream.draw(np.array([0]))[0]
        env.np_random = stream
        obs, info = env.reset(options={"state": {"dice": first, "rolls_left": 2,
                                                 "scores": empty, "penta_bonus": 0}})
        solo.append([env, obs, info])
    aec = scorecard_v0.raw_env(game=game)
    aec.reset(seed=0)
    stream = D.DiceStream(11, [0, 1])
    first = stream.draw(np.array([0]))[0]
    aec.np_random = stream
    aec.reset(options={"state": {"current_player": 0, "dice": first, "rolls_left": 2,
                                 "cards": [card(empty), card(empty)]}})
    steps = 0
    while not all(aec.terminations.values()):
        seat = int(aec.agent_selection[-1])
        env, obs, info = solo[seat]
        seen = aec.observe(aec.agent_selection)
        assert np.array_equal(seen["observation"][:s], obs)
        assert np.array_equal(seen["action_mask"], info["action_mask"])
        action = bot.act(seen["observation"][:s], seen["action_mask"])
        aec.step(action)
        obs, _, _, _, info = env.step(action)
        solo[seat][1:] = [obs, info]
        steps += 1
    totals = [x["total"] for x in aec.infos["player_0"]["scores"]]
    assert totals == [solo[0][2]["score"]["total"], solo[1][2]["score"]["total"]]
    assert aec.infos["player_0"]["scores"][1] == solo[1][2]["score"]
    assert steps >= 2 * rules.n_boxes


# ---------------------------------------------------------------------------------------------
# End-of-game rewards: win, loss, tie
# ---------------------------------------------------------------------------------------------
def test_outcome_and_margin_rules():
    totals = np.array([[10, 5, 7], [5, 10, 10], [7, 7, 7], [1, 2, 9]])
    assert match_outcome(totals).tolist() == [[1, -1, -1], [-1, 0, 0], [0, 0, 0],
                                              [-1, -1, 1]]
    assert score_margin(totals).tolist() == [[3, -5, -3], [-5, 0, 0], [0, 0, 0],
                                             [-8, -7, 7]]


@pytest.mark.parametrize("dice, rewards", [
    ([4, 4, 4, 4, 5], {"player_0": -1.0, "player_1": 1.0}),   # Chance 21: 42 against 41
    ([3, 4, 4, 4, 5], {"player_0": 0.0, "player_1": 0.0}),    # Chance 20: 41 all: a tie
    ([1, 2, 3, 4, 6], {"player_0": 1.0, "player_1": -1.0}),   # Chance 16: 37 against 41
])
def test_aec_rewards_at_the_end(dice, rewards):
    env = scorecard_v0.env()
    env.reset(seed=0, options={"state": last_turn(dice)})
    assert env.agent_selection == "player_1"
    env.step(CHANCE)
    assert env.rewards == rewards and all(env.terminations.values())
    info = env.infos["player_0"]
    assert [s["total"] for s in info["scores"]] == [41, 21 + sum(dice)]
    assert info["winners"] == [s for s in (0, 1) if rewards[f"player_{s}"] >= 0]
    assert finish(env) == rewards


def test_aec_tie_for_the_top_among_three_and_score_difference():
    env = scorecard_v0.env(num_players=3)
    env.reset(seed=0, options={"state": last_turn([1, 2, 3, 4, 6], players=3)})
    env.step(CHANCE)  # 37 against 41 and 41: the two leaders share the top
    assert finish(env) == {"player_2": -1.0, "player_0": 0.0, "player_1": 0.0}
    env = scorecard_v0.env(num_players=3, reward="score_diff")
    env.reset(seed=0, options={"state": last_turn([6, 6, 6, 6, 5], players=3)})
    env.step(CHANCE)  # 21 + 29 = 50
    assert env.rewards == {"player_0": -9.0, "player_1": -9.0, "player_2": 9.0}


@pytest.mark.parametrize("dice, reward, diff", [([4, 4, 4, 4, 5], 1.0, 1.0),
                                                ([3, 4, 4, 4, 5], 0.0, 0.0),
                                                ([1, 2, 3, 4, 6], -1.0, -4.0)])
def test_match_env_rewards_at_the_end(dice, reward, diff):
    for kind, expected in (("win_loss", reward), ("score_diff", diff)):
        env = ScorecardMatchEnv("penta", reward=kind)
        obs, info = env.reset(seed=0, options={"state": last_turn(dice)})
        assert info["agent_seat"] == 1
        _, r, term, trunc, info = env.step(CHANCE)
        assert (r, term, trunc) == (expected, True, False)
        assert info["winners"] == ([1] if reward > 0 else [0, 1] if reward == 0 else [0])
        assert info["scores"][0]["total"] == 41
    batch = ScorecardMatchVectorEnv(1, "penta")
    batch.reset(seed=0, options={"states": [last_turn(dice)]})
    _, r, term, _, infos = batch.step(np.array([CHANCE]))
    assert r[0] == reward and term[0]
    final = infos["final_info"]
    assert final["totals"][0].tolist() == [41, 21 + sum(dice)]
    assert final["score"]["total"][0] == 21 + sum(dice) and final["agent_seat"][0] == 1


def test_rewards_come_only_at_the_end():
    env = ScorecardMatchEnv("penta", opponents=agents.make("greedy", "penta"))
    obs, info = env.reset(seed=4)
    rewards = []
    done = False
    while not done:
        _, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        rewards.append(r)
        done = term or trunc
    assert term and all(r == 0 for r in rewards[:-1]) and rewards[-1] in (-1.0, 0.0, 1.0)
    assert len(rewards) == PENTA.n_boxes  # scoring at once: one step per turn


# ---------------------------------------------------------------------------------------------
# Observations
# ---------------------------------------------------------------------------------------------
def three_player_state():
    """Seat 1 to move in the second round."""
    seat0 = [3, None, None, None, None, None, None, None, None, None, None, None, 50]
    seat1 = [None] * 11 + [20, None]
    seat2 = [None] * 5 + [24] + [None] * 7
    return match([card(seat0), card(seat1), card(seat2)], [2, 2, 5, 5, 6], 1, rolls_left=1)


def test_observation_of_the_opponents():
    state = three_player_state()
    env = scorecard_v0.env(num_players=3)
    env.reset(seed=0, options={"state": state})
    sl = match_observation_slices(PENTA, 3)
    assert sl["opponents"].stop == S + 2 + 2 * 18 == match_observation_size(PENTA, 3)
    mover = env.observe("player_1")
    o = mover["observation"]
    assert o[sl["to_move"]].tolist() == [1.0] and mover["action_mask"].any()
    assert o[sl["own_total"]][0] == pytest.approx(20 / TOTAL_SCALE)
    blocks = o[sl["opponents"]].reshape(2, 18)
    # seat order after the observer: seat 2 first, then seat 0
    assert blocks[0, 0] == pytest.approx(24 / TOTAL_SCALE)
    assert blocks[0, 1] == pytest.approx(24 / 63)
    assert blocks[0, 2:5].tolist() == [1, 0, 0]                     # Penta box open
    assert blocks[0, 5:].tolist() == [1] * 5 + [0] + [1] * 7
    assert blocks[1, 0] == pytest.approx(53 / TOTAL_SCALE)
    assert blocks[1, 1] == pytest.approx(3 / 63)
    assert blocks[1, 2:5].tolist() == [0, 1, 0]                     # Penta holds 50
    assert blocks[1, 5:].tolist() == [0] + [1] * 11 + [0]
    # the card part is the single-player observation of the mover's card
    single = ScorecardEnv("penta")
    solo_obs, _ = single.reset(options={"state": {"dice": [2, 2, 5, 5, 6], "rolls_left": 1,
                                                  "scores": state["cards"][1]["scores"],
                                                  "penta_bonus": 0}})
    assert np.array_equal(o[sl["card"]], solo_obs)
    # another seat sees its own card with the dice on the table, and cannot act
    other = env.observe("player_0")
    assert other["action_mask"].tolist() == [0] * (32 + 13)
    assert other["observation"][sl["to_move"]].tolist() == [0.0]
    assert other["observation"][sl["own_total"]][0] == pytest.approx(53 / TOTAL_SCALE)
    solo_obs, _ = single.reset(options={"state": {"dice": [2, 2, 5, 5, 6], "rolls_left": 1,
                                                  "scores": state["cards"][0]["scores"],
                                                  "penta_bonus": 0}})
    assert np.array_equal(other["observation"][:S], solo_obs)
    first = other["observation"][sl["opponents"]].reshape(2, 18)[0]
    assert first[0] == pytest.approx(20 / TOTAL_SCALE)              # seat 1 comes first
    # the single-agent match env shows the agent the same vector
    match_env = ScorecardMatchEnv("penta", num_players=3)
    obs, info = match_env.reset(seed=0, options={"state": dict(state, agent_seat=1)})
    assert np.array_equal(obs, o) and info["agent_seat"] == 1
    assert match_env.observation_space.contains(obs)


def test_opponents_see_their_card_or_the_match():
    seen = {"card": [], "match": []}

    def spy(view):
        def policy(obs, mask):
            seen[view].append(obs.shape)
            return int(np.flatnonzero(mask)[-1])
        return policy

    for view in seen:
        env = ScorecardMatchEnv("penta", num_players=3, agent_seat=2, opponents=spy(view),
                                opponent_view=view)
        env.reset(seed=0)
    assert set(seen["card"]) == {(S,)}
    assert set(seen["match"]) == {(match_observation_size(PENTA, 3),)}
    assert len(seen["card"]) == 2  # both opponents scored at once before the agent's turn


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "optimal"])
def test_factory_players_are_opponents(name):
    bot = agents.make(name, "penta", **({"seed": 0} if name == "random" else {}))
    env = ScorecardMatchEnv("penta", num_players=3, opponents=bot)
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        done = term or trunc
    assert term and all(s["total"] >= 0 for s in info["scores"])
    assert sorted(info["winners"]) == info["winners"]


# ---------------------------------------------------------------------------------------------
# Bad actions
# ---------------------------------------------------------------------------------------------
ODD = [1.5, 32.0, "32", True, None, float("inf"), np.array([32]), 10_000, -1]


@pytest.mark.parametrize("mode", ["penalize", "raise", "terminate"])
def test_match_env_illegal_actions(mode):
    env = ScorecardMatchEnv("penta", illegal_action=mode, illegal_penalty=-2.0)
    obs, info = env.reset(seed=0, options={"state": last_turn([1, 2, 3, 4, 6])})
    before = env.get_state()
    for bad in [31, 32, *ODD]:  # hold all five / a filled box / values that are no action
        if mode == "raise":
            with pytest.raises(IllegalActionError, match="legal actions"):
                env.step(bad)
            assert env.get_state() == before
            continue
        env.reset(seed=0, options={"state": last_turn([1, 2, 3, 4, 6])})
        obs2, r, term, trunc, info = env.step(bad)
        assert r == -2.0 and info["illegal_action"] and env.get_state() == before
        assert np.array_equal(obs2, obs) and term == (mode == "terminate") and not trunc
    env.reset(seed=0, options={"state": last_turn([1, 2, 3, 4, 6])})
    assert env.step(np.int16(CHANCE))[2]  # numpy integers are actions


@pytest.mark.parametrize("mode", ["terminate", "penalize", "raise"])
def test_aec_illegal_actions(mode):
    env = scorecard_v0.env(illegal_action=mode)
    env.reset(seed=0, options={"state": last_turn([1, 2, 3, 4, 6])})
    before = env.unwrapped.get_state()
    if mode == "raise":
        with pytest.raises(IllegalActionError, match=r"player_1.*legal actions"):
            env.step(32)
        with pytest.raises(IllegalActionError, match="not an integer"):
            env.step(43.0)
        assert env.unwrapped.get_state() == before
        env.step(CHANCE)
        return
    env.step("43")
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}
    assert env.infos["player_1"]["illegal_action"]
    if mode == "terminate":
        assert finish(env) == {"player_1": -1.0, "player_0": 0.0}
    else:
        assert env.agent_selection == "player_1" and env.unwrapped.get_state() == before
        env.step(CHANCE)
        assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_batched_illegal_actions():
    states = [last_turn([1, 2, 3, 4, 6]), last_turn([4, 4, 4, 4, 5]), None]
    for mode in ("penalize", "terminate"):
        env = ScorecardMatchVectorEnv(3, "penta", illegal_action=mode)
        env.reset(seed=0, options={"states": states})
        before = env.get_state(0)
        _, r, term, _, infos = env.step(np.array([32, CHANCE, 31]))
        assert r[0] == -1.0 and r[1] == 1.0 and infos["illegal_action"].tolist() == [
            True, False, True]
        if mode == "penalize":
            assert env.get_state(0) == before and term.tolist() == [False, True, False]
        else:
            assert term.all() and infos["final_info"]["illegal_action"].tolist() == [
                True, False, True]
            assert infos["final_info"]["_score"].tolist() == [False, True, False]
    env = ScorecardMatchVectorEnv(3, "penta", illegal_action="raise")
    env.reset(seed=0, options={"states": states})
    with pytest.raises(IllegalActionError, match="sub-env 0"):
        env.step(np.array([32, CHANCE, 40]))
    last = int(np.flatnonzero(env.action_masks()[2])[-1])
    _, r, term, _, _ = env.step(np.array([CHANCE, CHANCE, last]))
    assert r[:2].tolist() == [-1.0, 1.0] and term[:2].all()
    with pytest.raises(ValueError):
        env.step(np.array([CHANCE, CHANCE]))


def test_illegal_opponent_actions_raise():
    env = ScorecardMatchEnv("penta", agent_seat=1, opponents=lambda obs, mask: 31)
    with pytest.raises(RuntimeError, match=r"opponent 0 .*seat 0.*illegal action 31"):
        env.reset(seed=0)
    env = ScorecardMatchVectorEnv(2, "penta", agent_seat=1, opponents=lambda obs, mask: 33.0)
    with pytest.raises(RuntimeError, match="illegal action"):
        env.reset(seed=0)


# ---------------------------------------------------------------------------------------------
# The batched env is the single env
# ---------------------------------------------------------------------------------------------
def last_legal(obs, mask):
    return int(np.flatnonzero(mask)[-1])


@pytest.mark.parametrize("players, opponents, mode", [
    (2, None, AutoresetMode.SAME_STEP), (3, None, AutoresetMode.NEXT_STEP),
    (4, last_legal, AutoresetMode.SAME_STEP)])
def test_batch_of_one_is_the_single_env_die_for_die(players, opponents, mode):
    single = ScorecardMatchEnv("penta", num_players=players, opponents=opponents)
    batch = ScorecardMatchVectorEnv(1, "penta", num_players=players, opponents=opponents,
                                    autoreset_mode=mode)
    policy = np.random.default_rng(7)
    obs_s, info_s = single.reset(seed=3)
    obs_b, info_b = batch.reset(seed=3)
    games = 0
    while games < 3:
        assert np.array_equal(obs_s, obs_b[0])
        assert np.array_equal(info_s["action_mask"], info_b["action_mask"][0])
        assert single.get_state() == batch.get_state(0)
        action = int(policy.choice(np.flatnonzero(info_s["action_mask"])))
        obs_s, r_s, term_s, trunc_s, info_s = single.step(action)
        obs_b, r_b, term_b, trunc_b, info_b = batch.step(np.array([action]))
        assert (r_s, term_s, trunc_s) == (r_b[0], term_b[0], trunc_b[0])
        if term_s:
            totals = [s["total"] for s in info_s["scores"]]
            if mode == AutoresetMode.SAME_STEP:
                assert np.array_equal(obs_s, infos_obs(info_b))
                assert info_b["final_info"]["totals"][0].tolist() == totals
            else:
                assert np.array_equal(obs_s, obs_b[0]) and info_b["totals"][0].tolist() == totals
                obs_b, _, _, _, info_b = batch.step(np.array([0]))  # the reset step
            obs_s, info_s = single.reset()
            games += 1


def infos_obs(infos):
    return infos["final_obs"][0]


class BestBoxNow:
    """Scores at once the legal box worth most now (reads the single-player observation)."""

    def __init__(self, rules):
        self.points = observation_slices(rules)["box_points"]

    def act_batch(self, obs, masks):
        pts = np.where(masks[:, 32:], obs[:, self.points] + 1, -1.0)
        return 32 + np.argmax(pts, axis=1)

    def act(self, obs, mask):
        return int(self.act_batch(obs[None], mask[None])[0])


def ks_statistic(a, b):
    grid = np.union1d(a, b)
    cdf_a = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    cdf_b = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return np.abs(cdf_a - cdf_b).max()


def test_distributions_at_scale():
    """The agent's card in a match is a solitaire game: same score distribution as the
    solitaire batched env; equal players win equally often; the single env agrees."""
    n = 2000
    bot = BestBoxNow(PENTA)
    batch = ScorecardMatchVectorEnv(n, "penta", opponents=bot, autoreset_mode="NextStep")
    obs, info = batch.reset(seed=0)
    for _ in range(PENTA.n_boxes):
        obs, r, term, _, info = batch.step(bot.act_batch(obs[:, :S], info["action_mask"]))
    assert term.all()
    totals = info["score"]["total"]
    rewards, seats = r, info["agent_seat"]
    solo = ScorecardVectorEnv(n, "penta", autoreset_mode="NextStep")
    obs, info = solo.reset(seed=1)
    for _ in range(PENTA.n_boxes):
        obs, _, term, _, info = solo.step(bot.act_batch(obs, info["action_mask"]))
    assert term.all()
    solo_totals = info["score"]["total"]
    assert ks_statistic(totals, solo_totals) < 0.07
    assert abs(rewards.mean()) < 0.08                      # equal players
    assert abs(seats.mean() - 0.5) < 0.05                  # the seat is drawn fairly
    ties = (rewards == 0).mean()
    assert 0.001 < ties < 0.05

    single = ScorecardMatchEnv("penta", opponents=bot)
    single_totals = []
    for g in range(60):
        obs, info = single.reset(seed=g)
        done = False
        while not done:
            obs, r, term, trunc, info = single.step(bot.act(obs[:S], info["action_mask"]))
            done = term or trunc
        single_totals.append(info["scores"][info["agent_seat"]]["total"])
    assert ks_statistic(np.array(single_totals), totals) < 0.23
    assert abs(np.mean(single_totals) - totals.mean()) < 4 * totals.std() / np.sqrt(60)


def test_seeded_batches_are_reproducible_random_opponents_included():
    runs = []
    for _ in range(2):
        env = ScorecardMatchVectorEnv(8, "dice-poker", num_players=3)
        obs, info = env.reset(seed=5)
        trace = [obs]
        policy = np.random.default_rng(0)
        for _ in range(30):
            m = info["action_mask"].astype(bool)
            obs, r, *_, info = env.step(np.argmax(np.where(m, policy.random(m.shape), -1), 1))
            trace += [obs, r]
        runs.append(trace)
    assert all(np.array_equal(a, b) for a, b in zip(*runs))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_maskable_ppo_trains_on_the_sb3_adapter():
    need("sb3_contrib", "pip install -e '.[train]'")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from dice_env.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env("dice_env/PentaMatch-v0", num_envs=16, seed=0,
                            opponents=agents.make("greedy", "penta"))
    masks = get_action_masks(venv)
    assert masks.shape == (16, 45) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=256, n_epochs=1, seed=0)
    model.learn(16 * 16)
    obs = venv.reset()
    for _ in range(40):
        action, _ = model.predict(obs, action_masks=get_action_masks(venv))
        assert get_action_masks(venv)[np.arange(16), action].all()
        obs, _, dones, infos = venv.step(action)
        if dones.any():
            i = int(np.flatnonzero(dones)[0])
            assert infos[i]["terminal_observation"].shape == obs.shape[1:]
            assert infos[i]["score"]["total"] >= 0
            break
    else:
        pytest.fail("no match ended in 40 steps")


# ---------------------------------------------------------------------------------------------
# State dicts and rendering
# ---------------------------------------------------------------------------------------------
def test_state_round_trip_and_refusals():
    env = ScorecardMatchEnv("penta", num_players=3)
    env.reset(seed=2)
    policy = np.random.default_rng(0)
    for _ in range(10):  # a match needs 13 turns: not over yet
        env.step(int(policy.choice(np.flatnonzero(env.action_masks()))))
    state = env.get_state()
    copy = ScorecardMatchEnv("penta", num_players=3)
    copy.reset(options={"state": state})
    assert copy.get_state() == state
    aec = scorecard_v0.env(num_players=3)
    aec.reset(options={"state": {k: v for k, v in state.items() if k != "agent_seat"}})
    assert aec.unwrapped.get_state() == {k: v for k, v in state.items() if k != "agent_seat"}
    good = three_player_state()
    bad_states = {
        "current_player": (dict(good, current_player=3), "current_player"),
        "turn order": (dict(good, current_player=2), "whole turns in seat order"),
        "cards": (dict(good, cards=good["cards"][:2]), "list of 3 cards"),
        "box value": (dict(good, cards=[card([7] + [None] * 11 + [50])] + good["cards"][1:]),
                      r"cards\[0\]"),
        "agent seat": (dict(good, agent_seat=0), "agent_seat"),
        "game": (dict(good, game="dice-poker"), "dice-poker"),
        "key": (dict(good, extra=1), "unknown state keys"),
    }
    for bad, message in bad_states.values():
        with pytest.raises(ValueError, match=message):
            env.reset(options={"state": bad})
    full_mover = match([card(FULL_41), card(FULL_41)], [1, 2, 3, 4, 5], 0)
    with pytest.raises(ValueError, match="no open box"):
        env = ScorecardMatchEnv("penta")
        env.reset(options={"state": full_mover})
    # a full card with every bonus possible is a valid card
    yahtzees = card([5, 10, 15, 20, 25, 30, 30, 30, 25, 30, 40, 30, 50], bonus=1200)
    env.reset(options={"state": last_turn([1, 1, 1, 1, 1]) | {
        "cards": [yahtzees, card(LAST_CHANCE)]}})
    assert env.score_breakdowns()[0]["penta_bonus"] == 1200


def test_render_shows_every_card_side_by_side():
    env = ScorecardMatchEnv("penta", num_players=3, render_mode="ansi", agent_seat=0)
    env.reset(seed=0, options={"state": dict(three_player_state(), agent_seat=1)})
    text = env.render()
    assert "seat 1 (you) to move" in text and "dice: [2] [2] [5] [5] [6]" in text
    header = text.splitlines()[1]
    assert header.index("seat 0 (opp 1)") < header.index("seat 1 (you)") < header.index(
        "seat 2 (opp 0)")
    chance = next(line for line in text.splitlines() if line.strip().startswith("Chance"))
    assert chance.split()[1:] == [".", "20", "."]
    aec = scorecard_v0.env(render_mode="ansi")
    aec.reset(seed=0, options={"state": last_turn([3, 4, 4, 4, 5])})
    aec.step(CHANCE)
    text = aec.render()
    assert "game over: tie: player_0, player_1 share the top (41)" in text
    assert text.count("41") >= 3
