"""The runnable examples (examples/*.py) the guides include: each runs as a user runs it, as a
subprocess with a tiny budget, and prints what its guide says it prints.

* ``my_bot.py``: its policy plays only legal actions in Penta and Dice Poker, ``python
  examples/my_bot.py`` prints its exact gap, and ``dice-env evaluate --agent
  examples/my_bot.py:policy --regret`` measures it from the command line;
* ``sb3_maskable_ppo.py``: MaskablePPO trains (budget from ``DICE_ENV_EXAMPLE_STEPS``), saves
  a zip that ``agents.load`` plays, and prints the model's exact gap;
* ``pettingzoo_loop.py``: one AEC match of Penta and one of 5000 to the end;
* ``rllib_run.py``: RLlib's PPO with masks, a few hundred steps (about 11 s, most of it Ray's
  start-up; skipped without the ``ray`` extra, in the ``ray`` xdist group with the other Ray
  tests).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from conftest import need

import agents
import dice_env  # noqa: F401  (registers the env ids)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DICE_ENV = str(Path(sys.executable).with_name("dice-env"))


def run(*args: str, cwd: Path, env: dict | None = None, timeout: float = 300) -> str:
    """Run a command from ``cwd``; its stdout (the test fails on a non-zero exit)."""
    proc = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "MPLBACKEND": "Agg", **(env or {})})
    assert proc.returncode == 0, f"{args} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n" \
                                 f"{proc.stderr[-4000:]}"
    return proc.stdout


def gap_of(report: str) -> float:
    match = re.search(r"gap to the optimum +([\d.]+) points", report)
    assert match, report
    return float(match.group(1))


def test_every_example_is_tested():
    tested = {"my_bot.py", "sb3_maskable_ppo.py", "pettingzoo_loop.py", "rllib_run.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


@pytest.mark.parametrize("game", ["dice_env/Penta-v0", "dice_env/DicePoker-v0"])
def test_my_bot_plays_only_legal_actions(game):
    bot = agents.load(f"{EXAMPLES}/my_bot.py:policy", game)
    env = gym.make(game, illegal_action="raise")
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = bot.act(obs, info["action_mask"])
            assert info["action_mask"][action], (seed, action)
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert info["score"]["total"] > 0


def test_my_bot_measures_itself_and_dice_env_measures_it(tmp_path):
    own = run(sys.executable, str(EXAMPLES / "my_bot.py"), "--games", "20", cwd=tmp_path)
    assert own.startswith("policy on penta: 20 games, seed 0, regret"), own
    # worse than the heuristic (2.3 points), better than random play (208)
    assert 10 < gap_of(own) < 200
    cli = run(DICE_ENV, "evaluate", "--agent", "examples/my_bot.py:policy", "--regret",
              "--games", "20", cwd=ROOT)
    assert gap_of(cli) == gap_of(own)  # the same games, the same policy


def test_sb3_maskable_ppo_trains_saves_and_measures(tmp_path):
    out = run(sys.executable, str(EXAMPLES / "sb3_maskable_ppo.py"), "--games", "20",
              "--out", "model.zip", cwd=tmp_path, env={"DICE_ENV_EXAMPLE_STEPS": "2048"})
    # a rollout is 64 envs x 64 steps: 2,048 steps round up to one rollout
    assert "trained 4,096 steps; saved model.zip" in out, out
    assert 0 < gap_of(out) < 254.5
    player = agents.load(str(tmp_path / "model.zip"), "penta")
    obs, info = gym.make("dice_env/Penta-v0").reset(seed=0)
    assert info["action_mask"][player.act(obs, info["action_mask"])]


def test_pettingzoo_loop_plays_both_games_to_the_end(tmp_path):
    out = run(sys.executable, str(EXAMPLES / "pettingzoo_loop.py"), cwd=tmp_path)
    lines = out.splitlines()
    rewards = {game: ast.literal_eval(next(x for x in lines if x.startswith(f"{game} rewards:"))
                                      .split(":", 1)[1])
               for game in ("penta", "5000")}
    for game, by_agent in rewards.items():
        assert sorted(by_agent) == ["player_0", "player_1", "player_2"], game
        assert sorted(by_agent.values()) in ([-1.0, -1.0, 1.0], [-1.0, 0.0, 0.0],
                                            [0.0, 0.0, 0.0]), (game, by_agent)
    totals = re.search(r"penta totals: +\[(\d+), (\d+), (\d+)\]", out)
    assert totals, out
    # the heuristic bot (player_0) beats two random players by far
    assert int(totals.group(1)) > max(int(totals.group(2)), int(totals.group(3)))
    assert rewards["penta"]["player_0"] == 1.0


@pytest.mark.xdist_group("ray")
def test_rllib_run_trains_and_evaluates(tmp_path):
    need("ray.rllib.algorithms.ppo", "pip install -e '.[ray]'")
    out = run(sys.executable, str(EXAMPLES / "rllib_run.py"), "--timesteps", "600",
              "--eval-games", "10", cwd=tmp_path, timeout=600)
    steps = [int(s.replace(",", "")) for s in re.findall(r"^([\d,]+) env steps", out, re.M)]
    assert steps and steps[-1] >= 600 and steps == sorted(steps), out
    score = re.search(r"deterministic policy: mean score ([\d.]+) .* over 10 games", out)
    assert score and float(score.group(1)) > 0, out


def test_the_examples_set_one_torch_thread():
    for name in ("sb3_maskable_ppo.py", "rllib_run.py"):
        assert "torch.set_num_threads(1)" in (EXAMPLES / name).read_text(), name
