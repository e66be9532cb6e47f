"""Opponents given by name (``opponents=["heuristic"]``), built through the ``dice_env.players``
entry point (``agents:make``) or a registered factory, without ``dice_env`` importing ``agents``."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import dice_env  # noqa: F401  (registers the ids)
from dice_env import player_names
from dice_env.player_names import (
    player_from_name,
    register_player_factory,
    resolve_opponents,
    unregister_player_factory,
)


def _play(env, steps: int = 40) -> None:
    _, info = env.reset(seed=0)
    for _ in range(steps):
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            _, info = env.reset()


def _play_vec(env, steps: int = 20) -> None:
    _, infos = env.reset(seed=0)
    for _ in range(steps):
        actions = np.argmax(infos["action_mask"], axis=1)
        _, _, _, _, infos = env.step(actions)


# -- names through the agents entry point -------------------------------------------------------
@pytest.mark.parametrize("env_id,game", [("dice_env/PentaMatch-v0", "penta"),
                                         ("dice_env/DicePokerMatch-v0", "dice-poker")])
def test_scorecard_match_opponents_by_name(env_id, game):
    import agents

    env = gym.make(env_id, opponents=["heuristic"])
    player = env.unwrapped.opponents.players[0]
    assert type(player) is type(agents.make("heuristic", game))
    _play(env)
    # a single name, names mixed with players, and one name twice (one shared player)
    bot = agents.make("greedy", game)
    env = gym.make(env_id, num_players=4, opponents=["heuristic", bot, "heuristic"])
    a, b, c = env.unwrapped.opponents.players
    assert b is bot and a is c and type(a) is type(player)
    _play(env)
    env = gym.make(env_id, num_players=3, opponents="random")
    x, y = env.unwrapped.opponents.players
    assert x is y and x is not None
    _play(env)


@pytest.mark.parametrize("env_id", ["dice_env/PentaMatch-v0", "dice_env/DicePokerMatch-v0"])
def test_scorecard_match_vector_opponents_by_name(env_id):
    env = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point",
                       num_players=3, opponents=["heuristic", "random"])
    assert len(env.opponents.players) == 2
    _play_vec(env)


def test_fivethousand_opponents_by_name():
    import agents

    env = gym.make("dice_env/FiveThousand-v0", num_players=3, opponents=["heuristic", "threshold"])
    a, b = env.unwrapped.opponents
    assert type(a) is type(agents.make("heuristic", "fivethousand"))
    assert type(b) is type(agents.make("threshold", "fivethousand"))
    _play(env, 60)
    env = gym.make("dice_env/FiveThousand-v0", opponents="heuristic")
    assert type(env.unwrapped.opponents[0]) is type(a)
    _play(env, 20)


def test_fivethousand_vector_opponents_by_name():
    env = gym.make_vec("dice_env/FiveThousand-v0", num_envs=4,
                       vectorization_mode="vector_entry_point", num_players=3,
                       opponents=["heuristic", "random"])
    assert len(env.opponents) == 2 and not any(isinstance(o, str) for o in env.opponents)
    _play_vec(env, 30)


# -- unknown names ------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id,kwargs", [
    ("dice_env/PentaMatch-v0", {}),
    ("dice_env/DicePokerMatch-v0", {}),
    ("dice_env/FiveThousand-v0", {}),
])
def test_an_unknown_name_is_a_one_line_value_error_naming_the_fix(env_id, kwargs):
    with pytest.raises(ValueError) as err:
        gym.make(env_id, opponents=["heuristc"], **kwargs)
    msg = str(err.value)
    assert "\n" not in msg
    assert "opponents=['heuristc']" in msg and "'heuristc'" in msg
    assert "agents.make(" in msg
    assert "known players" in msg and "heuristic" in msg  # agents.make's list, passed through
    assert err.value.__cause__ is None and err.value.__suppress_context__
    with pytest.raises(ValueError, match="no player named 'heuristc'"):
        gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point",
                     opponents="heuristc")


def test_the_unknown_name_traceback_has_one_part():
    code = ("import gymnasium as gym, dice_env\n"
            "gym.make('dice_env/PentaMatch-v0', opponents=['nobody'])\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0
    assert run.stderr.count("Traceback") == 1, run.stderr
    assert "During handling" not in run.stderr and "direct cause" not in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: opponents=['nobody']: no player named 'nobody'")
    assert "agents.make(" in last


def test_no_factory_at_all_says_how_to_pass_players(monkeypatch):
    monkeypatch.setattr(player_names, "_registered", [])
    monkeypatch.setattr(player_names, "_entry_points", [])
    with pytest.raises(ValueError) as err:
        gym.make("dice_env/PentaMatch-v0", opponents=["heuristic"])
    msg = str(err.value)
    assert "\n" not in msg and "no player factory is registered" in msg
    assert "opponents=[agents.make('heuristic', 'penta')]" in msg


# -- registered factories (no agents needed) ----------------------------------------------------
class _Bot:
    def __init__(self, name, game):
        self.name, self.game = name, game

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def test_a_registered_factory_is_asked_first_and_gets_the_game():
    def factory(name, game):
        if name != "first-legal":
            raise ValueError(f"unknown player {name!r}; known players: ['first-legal']")
        return _Bot(name, game)

    register_player_factory(factory)
    try:
        env = gym.make("dice_env/DicePokerMatch-v0", opponents=["first-legal"])
        assert env.unwrapped.opponents.players[0].game == "dice-poker"
        _play(env)
        env = gym.make("dice_env/FiveThousand-v0", opponents="first-legal")
        assert env.unwrapped.opponents[0].game == "fivethousand"
        _play(env)
        # rule knobs changed: the factory gets the rules, not a preset name
        env = gym.make("dice_env/PentaMatch-v0", opponents=["first-legal"],
                       upper_bonus_threshold=50)
        assert env.unwrapped.opponents.players[0].game is env.unwrapped.rules
        env = gym.make("dice_env/FiveThousand-v0", opponents="first-legal", target=3000)
        assert env.unwrapped.opponents[0].game is env.unwrapped.rules
        # names the factory refuses fall through to the next one; its message is kept
        with pytest.raises(ValueError, match=r"known players: \['first-legal'\]"):
            player_from_name("nobody", "penta")
    finally:
        unregister_player_factory(factory)


def test_resolve_opponents_leaves_players_alone():
    bot = _Bot("x", "penta")
    assert resolve_opponents(None, "penta") is None
    assert resolve_opponents(bot, "penta") is bot
    both = [bot, bot]
    assert resolve_opponents(both, "penta") is both


def test_a_factory_error_other_than_value_error_propagates():
    def broken(name, game):
        raise RuntimeError("boom")

    register_player_factory(broken)
    try:
        with pytest.raises(RuntimeError, match="boom"):
            player_from_name("anything", "penta")
    finally:
        unregister_player_factory(broken)


# -- the layering -------------------------------------------------------------------------------
def test_dice_env_does_not_import_agents_until_a_name_is_used():
    code = (
        "import sys\n"
        "import gymnasium as gym\n"
        "import dice_env, dice_env.player_names\n"
        "gym.make('dice_env/PentaMatch-v0').reset(seed=0)\n"
        "gym.make('dice_env/FiveThousand-v0').reset(seed=0)\n"
        "gym.make_vec('dice_env/FiveThousand-v0', num_envs=2,\n"
        "             vectorization_mode='vector_entry_point').reset(seed=0)\n"
        "assert 'agents' not in sys.modules, 'imported agents'\n"
        "gym.make('dice_env/PentaMatch-v0', opponents=['heuristic']).reset(seed=0)\n"
        "assert 'agents' in sys.modules\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
