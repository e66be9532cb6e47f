"""PPO on Pig through the family plug-in: the committed model plays, the config trains.

The trainer knows Pig only through its family object: the opponent (``hold-20``) is one of
Pig's players, and the evaluation during training is Pig's ``ppo_evaluation`` hook (the
seat-balanced win rate against ``eval.opponent``) plus its exact regret (``eval.regret``).
"""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import need

need("sb3_contrib", "pip install -e '.[train]'")

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "agents" / "models" / "pig.zip"
#: a run of a second or two: the committed config with a small rollout and evaluation
TINY = ["--set", "num_envs=8", "--set", "ppo.n_steps=16", "--set", "ppo.batch_size=64",
        "--set", "eval.every_timesteps=128", "--set", "eval.games=40",
        "--set", "checkpoint_every_timesteps=128"]


def test_the_committed_model_is_small_loads_and_plays_only_legal_moves():
    import agents
    from agents.pig.matches import play_matches
    from dice_env.pig import rules as R

    assert MODEL.is_file() and MODEL.stat().st_size < 1_000_000
    player = agents.make("ppo", "pig")
    assert "ppo" in agents.available("pig")
    # every decision of a real game is legal (play_matches raises on an illegal action) ...
    result = play_matches([player, agents.make("hold-20", "pig")], 20, seed=3)
    assert result["games"] == 40 and sum(result["wins"]) + result["draws"] == 40
    # ... and so is every decision where the mask forbids the roll (score + turn >= 100)
    rng = np.random.default_rng(0)
    obs = rng.random((64, 6)).astype(np.float32)
    masks = np.tile(np.array([0, 1], dtype=np.int8), (64, 1))
    assert (player.act_batch(obs, masks) == R.HOLD).all()
    assert all(player.act(o, m) == R.HOLD for o, m in zip(obs[:8], masks[:8], strict=True))
    # it plays the single-agent env to the end through the mask
    import gymnasium as gym

    env = gym.make("dice_env/Pig-v0")
    obs1, info = env.reset(seed=5)
    done = False
    while not done:
        action = player.act(obs1, info["action_mask"])
        assert info["action_mask"][action]
        obs1, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert reward in (-1.0, 1.0)


def test_the_committed_model_learned_to_hold(tmp_path):
    """Not a random policy: it rolls on a turn total of 0 and holds a turn total of 40 early in
    the game (what every good Pig policy does)."""
    import agents
    from dice_env.pig import rules as R

    player = agents.make("ppo", "pig")
    obs = np.array([[0.1, 0.1, 0.0, 1, 0, 0.02], [0.1, 0.1, 0.4, 1, 0, 0.04]], np.float32)
    masks = np.ones((2, 2), dtype=np.int8)
    assert player.act_batch(obs, masks).tolist() == [R.ROLL, R.HOLD]


def test_a_short_run_of_the_pig_config_trains_evaluates_resumes_and_exports(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    import agents
    from agents.cli import train as train_cli
    from agents.pig.matches import play_matches

    a, b, export = tmp_path / "a", tmp_path / "b", tmp_path / "pig.zip"
    common = ["pig", "--no-progress", "--threads", "1", "--timesteps", "384", *TINY]
    full = train_cli.main([*common, "--run-dir", str(a), "--export", str(export)])
    assert full["timesteps"] == 384 and full["stopped"] is None
    row = full["last_eval"]
    assert set(row) >= {"win_rate", "sem", "regret", "regret_ci_low", "regret_ci_high"}
    assert 0 <= row["win_rate"] <= 1 and 0 <= row["regret"] <= 1
    assert row["regret_ci_low"] <= row["regret"] <= row["regret_ci_high"]
    # stopped after its first rollout and resumed: the same weights and learning curve
    stopped = train_cli.main([*common, "--run-dir", str(b), "--max-minutes", "0.000001"])
    assert stopped["stopped"] and stopped["timesteps"] < 384
    train_cli.main(["pig", "--no-progress", "--threads", "1", "--run-dir", str(b), "--resume"])
    pa = MaskablePPO.load(a / "final.zip").policy.state_dict()
    pb = MaskablePPO.load(b / "final.zip").policy.state_dict()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert (a / "eval.csv").read_text().splitlines()[0].startswith("timesteps,win_rate,sem")
    rows = lambda d: [r.split(",")[:2] for r in (d / "eval.csv").read_text().splitlines()]  # noqa: E731
    assert rows(a) == rows(b) and len(rows(a)) == 5  # header + 0, 128, 256, 384
    assert export.is_file() and export.with_suffix(".eval.csv").is_file()
    player = agents.load(str(export), "pig")
    assert play_matches([player, agents.make("optimal", "pig")], 4, seed=0)["games"] == 8


def test_the_config_is_checked_against_the_game_of_its_env_id():
    from agents.training.ppo.config import config_family
    from agents.training.ppo.session import checked_config

    config = checked_config("pig")
    assert config_family(config) == "pig" and config["opponent"] == "hold-20"
    assert config_family({k: v for k, v in config.items() if k != "family"}) == "pig"
    with pytest.raises(ValueError, match=r"opponent must be a player of Pig \(.*hold-20.*\), "
                                         r"got 'threshold'"):
        checked_config("pig", overrides=['opponent="threshold"'])  # a 5000 bot
    with pytest.raises(ValueError, match=r"eval\.opponent must be a player of Pig"):
        checked_config("pig", overrides=['eval.opponent="greedy"'])
    with pytest.raises(ValueError, match=r"eval\.regret must be true or false"):
        checked_config("pig", overrides=["eval.regret=1"])
    with pytest.raises(ValueError, match="is not a game of family 'fivethousand'"):
        checked_config("pig", overrides=['family="fivethousand"'])
    with pytest.raises(ValueError, match="family must be a game family's name"):
        checked_config("pig", overrides=['family="farkle"'])
    # a game played alone takes no opponent
    with pytest.raises(ValueError, match=r"opponent: dice_env/Penta-v0 is played alone"):
        checked_config("penta", overrides=['opponent="heuristic"'])


def test_the_evaluation_during_training_is_the_familys_hook():
    """Every family names its evaluation; the win-rate one plays Pig's seat-balanced deals."""
    import agents
    from agents.families import families
    from agents.games import resolve
    from agents.training.ppo.evaluation import evaluate

    assert all(f.has_hook("ppo_evaluation") for f in families())
    game = resolve("pig")
    ev = {"games": 200, "seed": 7, "opponent": "hold-20", "regret": True}
    optimal = evaluate(agents.make("optimal", "pig"), game, ev)
    assert optimal["regret"] == 0.0  # the optimal player gives nothing up
    hold = evaluate(agents.make("hold-20", "pig"), game, ev)
    assert hold["win_rate"] == pytest.approx(0.5)  # itself, from both seats on the same dice
    assert hold["regret"] > 0.0
    assert json.loads(json.dumps(hold)) == hold
