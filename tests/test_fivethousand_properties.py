"""Property tests (hypothesis) of 5000: invariants of random legal play, in every env."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.bots import RandomBot
from dice_env.fivethousand.env import FiveThousandEnv
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.solo import FiveThousandSoloEnv
from dice_env.multi import five_thousand_v0

STEP_LIMIT = 50_000  # far above any random game; reaching it means the game did not end


def check_scores(scores, rules):
    for s in np.asarray(scores).ravel().tolist():
        assert s == 0 or (s % 100 == 0 and rules.entry <= s <= rules.target), s


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n_games=st.integers(1, 16), players=st.integers(1, 8),
       choose=st.booleans())
def test_batched_core_random_play(seed, n_games, players, choose):
    """Random legal play on a batch: scores stay valid, rolls follow the dice, games end."""
    rules = FiveThousandRules(choose_scoring_dice=choose)
    rng = np.random.default_rng(seed)
    policy = np.random.default_rng(seed + 1)
    state = G.FiveThousandState.empty(n_games, players)
    G.start_games(rules, state, np.ones(n_games, dtype=bool), rng)
    throws_since_five = np.ones(n_games, dtype=np.int64)
    for _ in range(STEP_LIMIT):
        live = ~state.finished()
        if not live.any():
            break
        mask = G.action_mask(rules, state)
        assert mask[live].any(axis=1).all() and not mask[~live].any()
        keys = np.where(mask, policy.random(mask.shape), -1.0)
        actions = np.argmax(keys, axis=1)
        player_before = state.current.copy()
        expected_next = R.dice_left_after(R.ROLL_SIZE[state.roll],
                                          R.decode_actions(rules, state.roll, actions)[2])
        turns_before = state.turns.sum(axis=1)
        record = G.step_games(rules, state, actions, rng)
        check_scores(state.scores, rules)
        assert (state.scores == rules.target).sum(axis=1).max() <= 1
        # a roll-on throws exactly the dice the set-aside leaves (five after hot dice)
        rolled_on = live & ~record.bank & ~record.busted
        assert np.array_equal(R.ROLL_SIZE[state.roll[rolled_on]], expected_next[rolled_on])
        assert np.all(state.current[rolled_on] == player_before[rolled_on])
        fresh = R.ROLL_SIZE[state.roll] == 5
        continued = rolled_on & ~fresh
        throws_since_five = np.where(continued, throws_since_five + 1,
                                     np.where(live, 1, throws_since_five))
        assert throws_since_five.max() <= 5  # 5 dice, at least one set aside per throw
        ended = live & (record.bank | record.busted)
        assert np.all(state.turns.sum(axis=1)[ended] >= turns_before[ended] + 1)
    else:
        raise AssertionError("random legal play did not end")
    assert np.all(state.scores[np.arange(n_games), state.winner] == rules.target)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), players=st.integers(2, 6), choose=st.booleans(),
       entry=st.sampled_from([0, 500, 1000]), target=st.sampled_from([2000, 5000]))
def test_single_env_random_play(seed, players, choose, entry, target):
    env = FiveThousandEnv(num_players=players, opponents=RandomBot(), choose_scoring_dice=choose,
                          entry=entry, target=target, illegal_action="raise", max_steps=None)
    rules = env.rules
    obs, info = env.reset(seed=seed)
    policy = np.random.default_rng(seed)
    twin = FiveThousandEnv(num_players=players, rules=rules)
    for step in range(STEP_LIMIT):
        check_scores(info["scores"], rules)
        assert env.observation_space.contains(obs)
        mask = info["action_mask"]
        assert mask.any() and np.array_equal(mask.astype(bool), env.action_masks())
        if step % 7 == 0:  # the state dict restores the same decision
            tobs, tinfo = twin.reset(options={"state": env.get_state()})
            assert np.array_equal(tobs, obs)
            assert np.array_equal(tinfo["action_mask"], mask)
        obs, reward, term, trunc, info = env.step(int(policy.choice(np.flatnonzero(mask))))
        assert not trunc
        if term:
            assert reward == (1.0 if info["winner"] == info["agent_seat"] else -1.0)
            assert info["scores"][info["winner"]] == rules.target
            break
        assert reward == 0.0
    else:
        raise AssertionError("random legal play did not end")


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), choose=st.booleans())
def test_solo_random_play_return_counts_turns(seed, choose):
    env = FiveThousandSoloEnv(choose_scoring_dice=choose, max_turns=None, max_steps=None)
    obs, info = env.reset(seed=seed)
    policy = np.random.default_rng(seed)
    total = 0.0
    for _ in range(STEP_LIMIT):
        obs, reward, term, trunc, info = env.step(
            int(policy.choice(np.flatnonzero(info["action_mask"]))))
        total += reward
        check_scores(info["scores"], env.rules)
        if term:
            break
    else:
        raise AssertionError("random legal play did not end")
    assert info["scores"] == [5000] and total == -info["turns"]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 8))
def test_aec_random_play(seed, players):
    env = five_thousand_v0.env(num_players=players)
    env.reset(seed=seed)
    policy = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(STEP_LIMIT):
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        check_scores(env.unwrapped.get_state()["scores"], env.unwrapped.rules)
        if term or trunc:
            env.step(None)
            continue
        env.step(int(policy.choice(np.flatnonzero(obs["action_mask"]))))
    assert not env.agents, "random legal play did not end"
    assert sorted(returns.values()) == [-1.0] * (players - 1) + [1.0]
