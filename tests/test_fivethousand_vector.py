"""The batched 5000 VectorEnvs: same game as the single envs, Gymnasium and SB3 plumbing."""

import gymnasium as gym
import numpy as np
import pytest
from conftest import need
from gymnasium.vector import AutoresetMode

import dice_env
from dice_env.errors import IllegalActionError
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.bots import RandomBot, ThresholdBot
from dice_env.fivethousand.env import FiveThousandEnv
from dice_env.fivethousand.observation import encode_observation
from dice_env.fivethousand.scripted import ScriptedDice
from dice_env.fivethousand.solo import FiveThousandSoloEnv
from dice_env.fivethousand.vector import FiveThousandSoloVectorEnv, FiveThousandVectorEnv

# (single env, batched env) factories with the same arguments
PAIRS = {
    "two-player": (lambda **k: FiveThousandEnv(**k), lambda n, **k: FiveThousandVectorEnv(n, **k),
                   {}),
    "three-players-choose": (lambda **k: FiveThousandEnv(**k),
                             lambda n, **k: FiveThousandVectorEnv(n, **k),
                             {"num_players": 3, "choose_scoring_dice": True, "max_turns": 30}),
    "solo-truncated": (lambda **k: FiveThousandSoloEnv(**k),
                       lambda n, **k: FiveThousandSoloVectorEnv(n, **k), {"max_turns": 15}),
    "solo-choose": (lambda **k: FiveThousandSoloEnv(**k),
                    lambda n, **k: FiveThousandSoloVectorEnv(n, **k),
                    {"choose_scoring_dice": True, "entry": 0}),
}


def random_legal(rng, mask):
    return int(rng.choice(np.flatnonzero(mask)))


def assert_same_decision(single, obs_s, info_s, batch, obs_b, info_b, i=0):
    assert np.array_equal(obs_s, obs_b[i])
    assert np.array_equal(info_s["action_mask"], info_b["action_mask"][i])
    assert single.get_state() == batch.get_state(i)


@pytest.mark.parametrize("mode", ["SameStep", "NextStep"])
@pytest.mark.parametrize("pair", list(PAIRS))
def test_batch_of_one_replays_the_single_env_die_for_die(pair, mode):
    """Same seed, same actions: every observation, mask, reward, end and state agree, across
    autoresets (opponents, seats and dice are drawn identically)."""
    make_single, make_batch, kwargs = PAIRS[pair]
    single, batch = make_single(**kwargs), make_batch(1, autoreset_mode=mode, **kwargs)
    policy = np.random.default_rng(5)
    for seed in (0, 1):
        obs_s, info_s = single.reset(seed=seed)
        obs_b, info_b = batch.reset(seed=seed)
        games = 0
        while games < 3:
            assert_same_decision(single, obs_s, info_s, batch, obs_b, info_b)
            action = random_legal(policy, info_s["action_mask"])
            obs_s, r_s, term_s, trunc_s, info_s = single.step(action)
            obs_b, r_b, term_b, trunc_b, info_b = batch.step(np.array([action]))
            assert (r_s, term_s, trunc_s) == (r_b[0], term_b[0], trunc_b[0])
            if term_s or trunc_s:
                final = info_b["final_info"] if mode == "SameStep" else info_b
                end_obs = info_b["final_obs"][0] if mode == "SameStep" else obs_b[0]
                assert np.array_equal(obs_s, end_obs)
                assert final["winner"][0] == info_s.get("winner", -1)
                assert final["turns"][0] == info_s["turns"]
                assert final["scores"][0].tolist() == info_s["scores"]
                assert final["agent_seat"][0] == info_s["agent_seat"]
                if mode == "SameStep":
                    assert np.array_equal(final["action_mask"][0], info_s["action_mask"])
                obs_s, info_s = single.reset()
                if mode == "NextStep":
                    assert info_b["action_mask"][0].tolist()[0] == 1  # never an empty mask
                    obs_b, r_b, term_b, trunc_b, info_b = batch.step(np.array([0]))
                    assert r_b[0] == 0 and not term_b[0] and not trunc_b[0]
                games += 1


def walk_into_games(n, rng, **kwargs):
    """``n`` state dicts of single envs played randomly to some point of a game."""
    states = []
    env = FiveThousandEnv(**kwargs)
    for i in range(n):
        _, info = env.reset(seed=i)
        for _ in range(int(rng.integers(0, 40))):
            _, _, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
            if term or trunc:
                _, info = env.reset()
        states.append(env.get_state())
    return states


class ConstantDice:
    """A generator that throws the same faces every time (and draws 0 for anything else), so
    that single games and a batch see the same dice whatever the order of their throws."""

    def __init__(self, faces):
        self.faces = np.array(faces)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if low == 1 and high == 7 and isinstance(size, tuple) and size[1:] == (5,):
            return np.tile(self.faces, (size[0], 1)).astype(dtype)
        return np.zeros(size, dtype=dtype) if size is not None else dtype(0)


# Constant dice must make every turn end whatever the players do (no hot dice): a throw of
# n dice shows the first n faces.
@pytest.mark.parametrize("faces", [[3, 1, 1, 1, 2],   # 1100, then 100, then a bust
                                   [2, 5, 1, 3, 1],   # 250, then 50, then a bust
                                   [2, 3, 4, 6, 1]])  # 100, then every roll-on busts
def test_injected_states_with_the_same_dice_match_single_envs(faces):
    """32 games restored from single envs' states, stepped with the same dice and actions as
    32 single envs: every reward, mask, observation, end and state agree."""
    rng = np.random.default_rng(len(faces) + faces[0])
    kwargs = {"num_players": 3, "max_turns": 60}
    states = walk_into_games(32, rng, **kwargs)
    singles = [FiveThousandEnv(**kwargs) for _ in states]
    batch = FiveThousandVectorEnv(len(states), **kwargs)
    obs_b, info_b = batch.reset(seed=0, options={"states": states})
    batch.np_random = ConstantDice(faces)
    obs_s, info_s = [], []
    for env, st in zip(singles, states):
        o, inf = env.reset(seed=0, options={"state": st})
        env.np_random = ConstantDice(faces)
        obs_s.append(o)
        info_s.append(inf)
    ended = 0
    for _ in range(40):
        for i, env in enumerate(singles):
            assert_same_decision(env, obs_s[i], info_s[i], batch, obs_b, info_b, i)
        actions = [random_legal(rng, inf["action_mask"]) for inf in info_s]
        obs_b, r_b, term_b, trunc_b, info_b = batch.step(np.array(actions))
        for i, env in enumerate(singles):
            o, r, term, trunc, inf = env.step(actions[i])
            assert (r, term, trunc) == (r_b[i], term_b[i], trunc_b[i])
            if term or trunc:
                ended += 1
                assert np.array_equal(o, info_b["final_obs"][i])
                o, inf = env.reset()
            obs_s[i], info_s[i] = o, inf
    assert ended > 0


def test_observation_kernel_matches_encode_observation():
    rng = np.random.default_rng(0)
    for players, max_turns in [(2, None), (4, 25)]:
        batch = FiveThousandVectorEnv(64, num_players=players, max_turns=max_turns)
        obs, info = batch.reset(seed=players)
        for _ in range(30):
            s = batch._state
            assert np.array_equal(obs, encode_observation(batch.rules, s, batch._seat, max_turns))
            seats = rng.integers(players, size=64)
            got, mask = batch._observe(np.arange(64), seats)
            assert np.array_equal(got, encode_observation(batch.rules, s, seats, max_turns))
            assert np.array_equal(mask, G.action_mask(batch.rules, s))
            m = info["action_mask"]
            obs, _, _, _, info = batch.step((rng.random(m.shape) * m).argmax(axis=1))
        s.winner[:3] = 0  # finished games: no turn entries, empty masks
        got, mask = batch._observe(np.arange(64), batch._seat)
        assert np.array_equal(got, encode_observation(batch.rules, s, batch._seat, max_turns))
        assert not mask[:3].any()


def ks_statistic(a, b):
    grid = np.union1d(a, b)
    cdf_a = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    cdf_b = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return np.abs(cdf_a - cdf_b).max()


def ks_critical(n, m):
    """Two-sample KS critical value at alpha = 0.001."""
    return 1.95 * np.sqrt((n + m) / (n * m))


def single_games(env, n_games, rng):
    """``(turns, won)`` of ``n_games`` random legal games of a single env."""
    turns, won = [], []
    for g in range(n_games):
        _, info = env.reset(seed=20_000 + g)
        done = False
        while not done:
            _, _, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
            done = term or trunc
        assert term
        turns.append(info["turns"])
        won.append(info.get("winner") == info["agent_seat"])
    return np.array(turns), np.array(won)


def batched_games(env, n_games, rng):
    """``(turns, won, returns)`` of the first ``n_games`` games of random legal play."""
    _, info = env.reset(seed=3)
    turns, won, returns = [], [], []
    ret = np.zeros(env.num_envs)
    while len(turns) < n_games:
        m = info["action_mask"]
        _, r, term, trunc, info = env.step((rng.random(m.shape) * m).argmax(axis=1))
        ret += r
        assert not trunc.any()
        if term.any():
            f = info["final_info"]
            turns.extend(f["turns"][term].tolist())
            won.extend((f["winner"] == f["agent_seat"])[term].tolist())
            returns.extend(ret[term].tolist())
            ret[term] = 0
    return np.array(turns[:n_games]), np.array(won[:n_games]), np.array(returns[:n_games])


def test_solo_turns_to_finish_distributions_match():
    """A random legal player: turns to reach 5000, 500 single games vs 4,000 batched ones."""
    rng = np.random.default_rng(11)
    single_turns, _ = single_games(FiveThousandSoloEnv(max_turns=None), 500, rng)
    batch = FiveThousandSoloVectorEnv(1000, max_turns=None)
    turns, _, returns = batched_games(batch, 4000, rng)
    assert np.array_equal(returns, -turns)  # an episode's return is minus its turns
    assert ks_statistic(single_turns, turns) < ks_critical(500, 4000)
    assert abs(single_turns.mean() - turns.mean()) < 4 * np.sqrt(
        single_turns.var() / 500 + turns.var() / 4000)


def test_two_player_win_rate_and_game_length_against_the_threshold_bot_match():
    """A random legal agent against the default threshold bot: 350 single games vs 4,000
    batched ones; win rates and the agent's turns per game agree."""
    rng = np.random.default_rng(12)
    single_turns, single_won = single_games(FiveThousandEnv(), 350, rng)
    batch = FiveThousandVectorEnv(1000)
    turns, won, returns = batched_games(batch, 4000, rng)
    assert np.array_equal(returns, np.where(won, 1.0, -1.0))
    p1, p2 = single_won.mean(), won.mean()
    pooled = (single_won.sum() + won.sum()) / (350 + 4000)
    assert abs(p1 - p2) < 4 * np.sqrt(pooled * (1 - pooled) * (1 / 350 + 1 / 4000))
    assert 0.05 < p2 < 0.5  # a random player mostly loses to the bot
    assert ks_statistic(single_turns, turns) < ks_critical(350, 4000)


def test_make_vec_registration_spaces_and_autoreset_modes():
    for env_id in dice_env.FIVE_THOUSAND_IDS:
        v = gym.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point")
        assert isinstance(v.unwrapped, (FiveThousandVectorEnv, FiveThousandSoloVectorEnv))
        assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        obs, info = v.reset(seed=0)
        single = gym.make(env_id)
        assert v.single_observation_space == single.observation_space
        assert v.single_action_space == single.action_space
        assert obs.shape == v.observation_space.shape == (8, single.observation_space.shape[0])
        assert v.observation_space.contains(obs)
        assert info["action_mask"].shape == (8, 2) and info["action_mask"].dtype == np.int8
        assert info["_action_mask"].all() and info["action_mask"].any(axis=1).all()
        assert np.array_equal(v.unwrapped.action_masks(), info["action_mask"].astype(bool))
        obs, r, term, trunc, info = v.step(info["action_mask"].argmax(axis=1))
        assert obs.dtype == np.float32 and r.shape == term.shape == trunc.shape == (8,)
        v.close()
        v.close()
    nxt = FiveThousandVectorEnv(2, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert nxt.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert nxt.action_masks().any(axis=1).all()  # never an empty mask, even before reset
    with pytest.raises(RuntimeError, match="before reset"):
        nxt.step(np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="autoreset_mode"):
        FiveThousandVectorEnv(2, autoreset_mode="Sometimes")
    with pytest.raises(ValueError, match="num_envs"):
        FiveThousandSoloVectorEnv(0)
    with pytest.raises(ValueError, match="num_players"):  # validated as by the single env
        FiveThousandVectorEnv(2, num_players=9)


def state(scores, dice, turn_total=0, current=0, **extra):
    return dict(scores=scores, dice=dice, turn_total=turn_total, current_player=current,
                **extra)


def test_wins_losses_and_autoreset_from_chosen_states():
    v = FiveThousandVectorEnv(3, agent_seat=0)
    v.reset(seed=0, options={"states": [
        state([3900, 0], [1, 1, 1, 2, 3]),           # banking 1100 wins
        state([4800, 3900], [1, 1, 1, 2, 3]),        # overshoot: the gift wins for seat 1
        None]})
    before = v.get_state(2)
    obs, r, term, trunc, info = v.step(np.array([R.BANK, R.BANK, R.ROLL]))
    assert r[:2].tolist() == [1.0, -1.0] and term.tolist()[:2] == [True, True]
    f = info["final_info"]
    assert info["_final_obs"].tolist()[:2] == [True, True]
    assert f["winner"][:2].tolist() == [0, 1] and f["scores"][0].tolist() == [5000, 0]
    assert f["scores"][1].tolist() == [4800, 5000] and not f["action_mask"][:2].any()
    assert v.get_state(0)["scores"] == [0, 0] and v.get_state(1)["scores"] == [0, 0]
    assert v.get_state(2) != before and info["action_mask"].any(axis=1).all()


def test_next_step_autoreset_ignores_the_action_after_the_end():
    v = FiveThousandSoloVectorEnv(2, autoreset_mode="NextStep")
    v.reset(seed=1, options={"states": [state([3900], [1, 1, 1, 2, 3]), None]})
    obs, r, term, trunc, info = v.step(np.array([R.BANK, R.ROLL]))
    assert term[0] and not term[1] and info["winner"][0] == 0 and info["_winner"].tolist() == [
        True, False]
    assert info["action_mask"][0].tolist() == [1, 0]  # any action resets; never empty
    obs, r, term, trunc, info = v.step(np.array([R.BANK, R.ROLL]))  # BANK is ignored in game 0
    assert r[0] <= 0 and not term[0] and v.get_state(0)["scores"] == [0]


def test_illegal_actions_in_a_batch():
    s = state([1000, 0], [5, 2, 3, 6, 6], 200)  # a total ending in 50: no bank
    raising = FiveThousandVectorEnv(3, agent_seat=0, illegal_action="raise")
    raising.reset(seed=0, options={"states": [None, s, None]})
    before = [raising.get_state(i) for i in range(3)]
    with pytest.raises(IllegalActionError, match=r"sub-env 1: illegal action 1 \(bank\).*ends in "
                                                 r"50.*legal actions: \[0\]"):
        raising.step(np.array([R.ROLL, R.BANK, R.ROLL]))
    assert [raising.get_state(i) for i in range(3)] == before  # no game moved
    with pytest.raises(IllegalActionError, match="sub-env 0: illegal action 5 .*not an action"):
        raising.step(np.array([5, 0, 0]))
    with pytest.raises(ValueError, match="expected 3 actions"):
        raising.step(np.array([0, 0]))

    pen = FiveThousandVectorEnv(3, agent_seat=0)
    pen.reset(seed=0, options={"states": [None, s, None]})
    _, r, term, _, info = pen.step(np.array([R.ROLL, R.BANK, R.ROLL]))
    assert r[1] == -1.0 and not term[1] and info["illegal_action"].tolist() == [False, True, False]
    assert pen.get_state(1) == before[1]

    ter = FiveThousandSoloVectorEnv(2, illegal_action="terminate", illegal_penalty=-2.0)
    ter.reset(seed=0, options={"states": [state([1000], [5, 2, 3, 6, 6], 200), None]})
    _, r, term, _, info = ter.step(np.array([R.BANK, R.ROLL]))
    assert r[0] == -2.0 and term[0] and info["final_info"]["illegal_action"][0]
    assert ter.get_state(0)["scores"] == [0]  # a new game


def test_reset_options():
    v = FiveThousandVectorEnv(3, agent_seat=1)
    v.reset(seed=0)
    kept = v.get_state(0)
    s = state([700, 1200], [1, 2, 3, 4, 6], 300, current=1)
    obs, info = v.reset(options={"reset_mask": np.array([False, True, True]),
                                 "states": [None, s, None]})
    assert v.get_state(0) == kept
    assert v.get_state(1) == s | {"version": 1, "rules": v.rules.knobs(), "num_players": 2,
                                  "turns": [0, 0], "agent_seat": 1}
    assert info["action_mask"][1].tolist() == [1, 1]
    with pytest.raises(ValueError, match="sub-env 2: .*bust"):
        v.reset(options={"states": [None, None, state([0, 0], [2, 2, 3, 4, 6])]})
    with pytest.raises(ValueError, match="sub-env 0: .*agent_seat"):
        v.reset(options={"states": [state([0, 0], [1, 2, 3, 4, 6], agent_seat=1), None, None]})
    with pytest.raises(ValueError, match="unknown reset options"):
        v.reset(options={"state": s})
    with pytest.raises(ValueError, match="3 entries"):
        v.reset(options={"states": [s]})


def test_seeded_batches_are_reproducible_random_opponents_included():
    def run(seed):
        v = FiveThousandVectorEnv(32, num_players=3, opponents=RandomBot())
        obs, info = v.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = [obs]
        for _ in range(50):
            m = info["action_mask"]
            obs, r, term, _, info = v.step((rng.random(m.shape) * m).argmax(axis=1))
            trace += [obs, r, term]
        return trace

    a, b, c = run(4), run(4), run(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


class CountingBot(ThresholdBot):
    def __init__(self):
        super().__init__()
        self.calls = self.rows = 0

    def act_batch(self, observations, masks):
        self.calls += 1
        self.rows += len(observations)
        assert masks.dtype == np.int8 and observations.dtype == np.float32
        return super().act_batch(observations, masks)


def test_opponents_are_asked_in_batches_and_callables_row_by_row():
    bot = CountingBot()
    v = FiveThousandVectorEnv(256, opponents=bot)
    _, info = v.reset(seed=0)
    for _ in range(5):
        v.step(info["action_mask"].argmax(axis=1))
    assert bot.calls and bot.rows > 5 * bot.calls  # many games per call

    seen = []

    def plain(obs, mask):  # no act_batch: asked game by game, from its own seat
        seen.append(obs[4:6].tolist())
        return R.BANK if mask[R.BANK] else R.ROLL

    v = FiveThousandVectorEnv(8, agent_seat=1, opponents=plain)
    _, info = v.reset(seed=1)
    for _ in range(5):
        v.step(info["action_mask"].argmax(axis=1))
    assert seen and all(s == [1.0, 0.0] for s in seen)

    bots = [CountingBot(), CountingBot()]
    v = FiveThousandVectorEnv(64, num_players=3, agent_seat="random", opponents=bots)
    _, info = v.reset(seed=2)
    for _ in range(5):
        v.step(info["action_mask"].argmax(axis=1))
    assert all(b.rows for b in bots)

    bad = FiveThousandVectorEnv(4, agent_seat=1, opponents=lambda obs, mask: 7)
    with pytest.raises(RuntimeError, match=r"sub-env 0: opponent 0 .*seat 0.*illegal action 7"):
        bad.reset(seed=0)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("env_id", list(dice_env.FIVE_THOUSAND_IDS))
def test_maskable_ppo_trains_on_the_sb3_adapter(env_id):
    need("sb3_contrib", "pip install -e '.[train]'")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from dice_env.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env(env_id, num_envs=32, seed=0)
    masks = get_action_masks(venv)
    assert masks.shape == (32, 2) and masks.dtype == bool and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=512, n_epochs=1, seed=0)
    model.learn(32 * 32)
    obs = venv.reset()
    done_seen = False
    for _ in range(300):
        action, _ = model.predict(obs, action_masks=get_action_masks(venv))
        assert get_action_masks(venv)[np.arange(32), action].all()
        obs, _, dones, infos = venv.step(action)
        for i in np.flatnonzero(dones):
            done_seen = True
            assert infos[i]["terminal_observation"].shape == obs.shape[1:]
            assert infos[i]["TimeLimit.truncated"] is False
        if done_seen:
            break
    assert done_seen


def test_render_and_scripted_dice_for_a_batch_of_one():
    v = FiveThousandVectorEnv(1, agent_seat=0, render_mode="ansi")
    v.reset(seed=0, options={"states": [state([900, 600], [1, 1, 2, 3, 4], 300)]})
    assert "(you)" in v.render() and "Turn total 500" in v.render()
    v.np_random = ScriptedDice([[1, 5, 5, 5, 4], [2, 3, 4, 6, 6], [3, 3, 3, 4, 6],
                                [1, 2, 3, 4, 6]])
    v.step(np.array([R.BANK]))  # the same script as test_opponents_play_inside_step...
    assert v.get_state(0)["scores"] == [1400, 1500] and v.get_state(0)["dice"] == [1, 2, 3, 4, 6]
    assert v.np_random.remaining == 0
