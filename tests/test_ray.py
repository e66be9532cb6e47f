"""Scaling out on Ray (the optional ``ray`` extra): Tune sweeps of our trainer, RLlib with masks.

The tests that need Ray share one local 2-CPU Ray session (module-scoped fixture; under
pytest-xdist, ``--dist loadgroup`` keeps them in one worker: ``xdist_group("ray")``) and are
skipped when Ray is not installed; the argument checks run without it.  Ray's start-up costs
~15 s on a 2-core machine, a Tune trial's worker ~5-10 s more, so the budgets are tiny.
"""

import csv
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import need

from agents.cli.train_rllib import main as train_rllib_main
from agents.cli.tune import main as tune_main
from agents.evaluation.reports.tune import to_markdown
from agents.training.ray.grid import grid_points, parse_grid, point_slug, split_values
from agents.training.ray.rllib import make_env
from agents.training.ray.trial import CRASH_ENV
from agents.training.ray.tune import summarize

#: a Penta trial of seconds: 64 envs x 64 steps per rollout, a checkpoint each rollout
TINY = ["--set", "num_envs=64", "--set", "ppo.batch_size=1024", "--set", "eval.games=20",
        "--set", "eval.every_timesteps=8192", "--set", "checkpoint_every_timesteps=4096"]


@pytest.fixture(scope="module")
def ray_session():
    """One local Ray for the module (reused if this process already has one)."""
    ray = need("ray", "pip install -e '.[ray]'")
    need("ray.tune", "pip install -e '.[ray]'")
    if ray.is_initialized():
        yield ray
        return
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray.init: {time.perf_counter() - start:.1f} s")
    yield ray
    ray.shutdown()


def test_grid_parsing():
    assert split_values('0.1,[1,2],{"a": 1, "b": 2},"x,y"') == \
        ["0.1", "[1,2]", '{"a": 1, "b": 2}', '"x,y"']
    grid = parse_grid(["ppo.ent_coef=0.003,0.01", "ppo.n_epochs=2,4"])
    points = grid_points(grid)
    assert len(points) == 4 and points[0] == ["ppo.ent_coef=0.003", "ppo.n_epochs=2"]
    assert grid_points([]) == [[]]
    assert point_slug([]) == "base"
    assert point_slug(["ppo.ent_coef=0.01"]) == "ppo.ent_coef=0.01"
    assert "/" not in point_slug(['policy_kwargs={"net_arch": [64, 64]}'])


@pytest.mark.parametrize(("argv", "message"), [
    (["penta", "--seeds", "0"], "at least 1"),
    (["penta", "--grid", "ppo.ent_coef"], "KEY=V1,V2"),
    (["penta", "--grid", "a=1,2", "--grid", "a=3"], "twice"),
    (["penta", "--set", "oops"], "key=value"),
    (["fivethousand"], "lean trainer"),
    (["nonesuch"], "no training config"),
    (["penta", "--first-seed", "-1"], "argument --first-seed: must be at least 0, got -1"),
    (["penta", "--name", "a/b"], "argument --name"),
])
def test_bad_arguments_are_one_line_errors(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        tune_main([*argv, "--out", str(tmp_path)], prog="dice-env tune")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err


def test_rllib_env_raises_on_an_illegal_action():
    from agents.training.ppo import load_config

    env = make_env({"config": load_config("penta")})
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observations", "action_mask"}
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(Exception, match="(?i)illegal"):
        env.step(illegal)


def test_summary_aggregates_seeds_per_grid_point():
    trials = [{"index": i, "point": p, "seed": s, "total": 100, "run_dir": f"r{i}"}
              for i, (p, s) in enumerate([("a=1", 0), ("a=1", 1), ("a=2", 0), ("a=2", 1)])]
    done = {"timesteps": 100, "eval_timesteps": 100, "train_seconds": 2.0, "wall_seconds": 3.0}
    results = {0: {**done, "mean_score": 10.0, "attempts": 2, "starts": "0,40"},
               1: {**done, "mean_score": 14.0},
               2: {**done, "mean_score": 20.0},
               3: {"timesteps": 60, "eval_timesteps": 0, "mean_score": 5.0}}  # unfinished
    rows, points = summarize(trials, results)
    assert [r["status"] for r in rows] == ["done", "done", "done", "unfinished"]
    assert rows[0]["restarts"] == 1 and rows[0]["steps_per_s"] == 50
    assert points[0] == {**points[0], "point": "a=1", "done": 2, "mean": 12.0, "min": 10.0,
                         "max": 14.0}
    assert points[1]["done"] == 1 and points[1]["mean"] == 20.0
    md = to_markdown(rows, points, {
        "command": "x", "game": "penta", "trials": 4, "seeds": 2, "total_timesteps": "100",
        "ray": "?", "cpus_per_trial": 1, "max_failures": 3, "wall_seconds": 1.0,
        "eval_games": 10, "eval_seed": 0})
    assert "| a=1 | 2/2 | **12.00** | 10.00 | 14.00 |" in md and "| 1 (40) |" in md


@pytest.mark.xdist_group("ray")
def test_tune_sweep_writes_its_table_and_resumes_a_dead_worker(ray_session, tmp_path,
                                                               monkeypatch):
    """Two trials of seed 0 that differ only in when they checkpoint; the worker of the first
    dies right after its first checkpoint (4,096 steps): Tune restarts it, it continues from that
    checkpoint (not from 0) and ends exactly where the uninterrupted one does."""
    monkeypatch.setenv(CRASH_ENV, "0")
    handler = signal.getsignal(signal.SIGINT)
    start = time.perf_counter()
    status = tune_main(["penta", "--seeds", "1", "--timesteps", "8192", *TINY,
                        "--grid", "checkpoint_every_timesteps=4096,8192",
                        "--max-failures", "2", "--out", str(tmp_path)])
    print(f"tune sweep: {time.perf_counter() - start:.1f} s")
    assert signal.getsignal(signal.SIGINT) is handler  # Tune's Ctrl-C handler is gone
    crashed, steady = csv.DictReader((tmp_path / "tune_trials.csv").open())
    for r in (crashed, steady):
        assert r["status"] == "done" and int(r["timesteps"]) == 8192
        assert float(r["final"]) > 0 and float(r["wall_seconds"]) > 0
        assert (Path(r["run_dir"]) / "final.zip").exists()
    assert crashed["restarts"] == "1" and crashed["starts"] == "0,4096"  # resumed, not redone
    assert steady["restarts"] == "0" and steady["starts"] == "0"
    curves = [[(row["timesteps"], row["mean_score"]) for row in
               csv.DictReader((Path(r["run_dir"]) / "eval.csv").open())]
              for r in (crashed, steady)]
    assert curves[0] == curves[1] and [int(t) for t, _ in curves[0]] == [0, 8192]
    assert crashed["final"] == steady["final"]
    points = list(csv.DictReader((tmp_path / "tune_points.csv").open()))
    assert [p["point"] for p in points] == ["checkpoint_every_timesteps=4096",
                                            "checkpoint_every_timesteps=8192"]
    assert "| checkpoint_every_timesteps=4096 | 1/1 |" in (tmp_path / "tune.md").read_text()
    assert status == 0  # every trial finished


@pytest.mark.xdist_group("ray")
def test_rllib_ppo_with_masks_trains_on_penta(ray_session, tmp_path):
    """RLlib's PPO with the action-masking RLModule: a few iterations on Penta-v0 created with
    illegal_action="raise" (an illegal action would fail the run), then the fixed evaluation
    games (which refuse an illegal action too) and the lean trainer's timing."""
    need("ray.rllib.algorithms.ppo", "pip install -e '.[ray]'")
    start = time.perf_counter()
    summary = train_rllib_main(["penta", "--timesteps", "1500", "--train-batch", "500",
                                "--envs-per-runner", "8", "--threads", "1",
                                "--lean-iterations", "1", "--set", "num_envs=64",
                                "--set", "eval.games=50", "--out", str(tmp_path)])
    print(f"rllib: {time.perf_counter() - start:.1f} s")
    assert summary["rllib"]["iterations"] >= 3 and summary["rllib"]["env_steps"] >= 1500
    assert summary["rllib"]["steps_per_s"] > 0 and summary["lean"]["steps_per_s"] > 0
    assert summary["eval"]["mean_score"] > 0
    assert (tmp_path / "rllib.md").exists() and (tmp_path / "checkpoint").is_dir()
    assert len(list(csv.DictReader((tmp_path / "rllib.csv").open()))) == \
        summary["rllib"]["iterations"]
