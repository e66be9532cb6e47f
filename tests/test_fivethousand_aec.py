"""The PettingZoo AEC env of 5000: API and seed tests, reward attribution, illegal actions."""

import json
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from dice_env.errors import IllegalActionError
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.scripted import ScriptedDice
from dice_env.multi import five_thousand_v0


@pytest.mark.parametrize("kwargs", [{}, {"num_players": 4, "choose_scoring_dice": True}])
def test_api_test(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(five_thousand_v0.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", [{}, {"num_players": 3, "choose_scoring_dice": True}])
def test_seed_test(kwargs):
    seed_test(lambda: five_thousand_v0.env(**kwargs), num_cycles=200)


def state(scores, dice, turn_total=0, current=0):
    return dict(scores=scores, dice=dice, turn_total=turn_total, current_player=current)


def finish(env):
    """Step the dead agents out; return each agent's reward from last()."""
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term or trunc
        seen[agent] = reward
        env.step(None)
    return seen


def test_reward_goes_to_the_agents_it_concerns_not_the_actor():
    # player_0 overshoots; the gift lands player_1 on exactly 5000: player_1 wins
    env = five_thousand_v0.env(num_players=3)
    env.reset(seed=0, options={"state": state([4800, 3900, 0], [1, 1, 1, 2, 3])})
    assert env.agent_selection == "player_0"
    env.step(R.BANK)
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0}
    assert all(env.terminations.values())
    assert finish(env) == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0}


def test_reward_of_a_bank_win_and_of_the_steps_before():
    env = five_thousand_v0.env(num_players=2)
    env.reset(seed=0, options={"state": state([1000, 3900], [1, 1, 1, 2, 3], current=1)})
    assert env.agent_selection == "player_1"
    env.step(R.ROLL)  # no reward for anybody yet
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    env.reset(seed=0, options={"state": state([1000, 3900], [1, 1, 1, 2, 3], current=1)})
    env.step(R.BANK)
    assert finish(env) == {"player_1": 1.0, "player_0": -1.0}


def test_the_same_agent_acts_again_during_its_turn_and_turns_pass():
    env = five_thousand_v0.env(num_players=2)
    env.reset(options={"state": state([0, 0], [1, 2, 3, 4, 6])})
    env.unwrapped.np_random = ScriptedDice([[1, 5, 2, 2], [2, 3], [2, 3, 4, 6, 6],
                                            [1, 1, 5, 5, 5]])
    env.step(R.ROLL)
    assert env.agent_selection == "player_0"        # 4 dice thrown, 150 more
    obs = env.observe("player_1")
    assert obs["action_mask"].tolist() == [0, 0]    # not player_1's decision
    assert obs["observation"][4:6].tolist() == [0, 1]  # player_1 sees player_0 to move
    env.step(R.ROLL)                                 # 2 dice [2, 3]: bust
    # player_1 opens with a bust, player_0 throws [1, 1, 5, 5, 5]
    assert env.agent_selection == "player_0"
    info = env.infos["player_0"]
    assert [e["type"] for e in info["events"]] == ["roll", "bust", "bust"]
    assert env.unwrapped.get_state()["turns"] == [1, 1]


def test_events_accumulate_since_each_agents_last_decision():
    env = five_thousand_v0.env(num_players=2)
    env.reset(options={"state": state([0, 600], [1, 1, 1, 2, 3])})
    env.unwrapped.np_random = ScriptedDice([[1, 2, 3, 4, 6], [2, 3, 4, 6, 6], [1, 1, 2, 3, 4]])
    env.step(R.BANK)          # player_0 enters with 1100; player_1 throws [1 ...]
    assert env.agent_selection == "player_1"
    env.step(R.ROLL)          # player_1 busts with 4 dice; player_0 throws [1, 1, ...]
    assert env.agent_selection == "player_0"
    types = [e["type"] for e in env.infos["player_0"]["events"]]
    assert types == ["bank", "roll", "bust"]
    assert [e["type"] for e in env.infos["player_1"]["events"]] == ["roll", "bust"]


@pytest.mark.parametrize("mode", ["terminate", "penalize", "raise"])
def test_illegal_actions(mode):
    env = five_thousand_v0.env(num_players=2, illegal_action=mode)
    env.reset(options={"state": state([1000, 0], [5, 2, 3, 6, 6], 200)})
    before = env.unwrapped.get_state()
    if mode == "raise":
        with pytest.raises(IllegalActionError, match=r"bank.*player_0.*legal actions: \[0\]"):
            env.step(R.BANK)
        assert env.unwrapped.get_state() == before
        env.step(R.ROLL)
        return
    env.step(R.BANK)
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert env.infos["player_0"]["illegal_action"]
    if mode == "terminate":
        assert all(env.terminations.values())
        assert finish(env) == {"player_0": -1.0, "player_1": 0.0}
    else:
        assert env.agent_selection == "player_0" and not any(env.terminations.values())
        assert env.unwrapped.get_state() == before
        _, reward, *_ = env.last()
        assert reward == -1.0


def test_state_round_trip_unknown_options_and_render():
    env = five_thousand_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=4)
    for _ in range(15):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        if not mask.any():
            break
        env.step(int(np.flatnonzero(mask)[0]))
    got = env.unwrapped.get_state()
    assert json.loads(json.dumps(got)) == got
    twin = five_thousand_v0.env(num_players=3)
    twin.reset(options={"state": got})
    assert twin.unwrapped.get_state() == got
    for a in twin.possible_agents:
        assert np.array_equal(twin.observe(a)["observation"], env.observe(a)["observation"])
    with pytest.warns(UserWarning, match="unknown reset options"):
        twin.reset(options={"colour": 1})
    with pytest.raises(ValueError, match="impossible"):
        twin.reset(options={"state": state([120, 0, 0], [1, 2, 3, 4, 6])})
    text = env.render()
    assert "player_0" in text and "Turn total" in text or "Game over" in text
