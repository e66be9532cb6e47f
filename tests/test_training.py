"""Training: a stopped and resumed run equals an uninterrupted one, bit for bit."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parent.parent
TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "policy_kwargs": {"net_arch": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 2,
                "gamma": 1.0},
        "eval": {"every_timesteps": 256, "games": 20, "seed": 1},
        "checkpoint_every_timesteps": 256}


def train(*args):
    out = subprocess.run([sys.executable, "scripts/train.py", "penta", "--no-progress",
                          "--threads", "1", *map(str, args)], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_resume_is_exact(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(TINY))
    a, b = tmp_path / "a", tmp_path / "b"
    full = train("--config", config, "--timesteps", 768, "--run-dir", a)
    train("--config", config, "--timesteps", 256, "--run-dir", b)   # "killed" after 256
    resumed = train("--config", config, "--timesteps", 768, "--run-dir", b, "--resume")
    assert full["timesteps"] == resumed["timesteps"] == 768
    pa = MaskablePPO.load(a / "final.zip").policy.state_dict()
    pb = MaskablePPO.load(b / "final.zip").policy.state_dict()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert (a / "eval.csv").read_text().splitlines()[1:] != []
    rows_a = [r.split(",")[:2] for r in (a / "eval.csv").read_text().splitlines()]
    rows_b = [r.split(",")[:2] for r in (b / "eval.csv").read_text().splitlines()]
    assert rows_a == rows_b  # the same learning curve, no duplicated point


def test_resume_refuses_a_missing_or_corrupt_checkpoint(tmp_path):
    from agents.training import load_checkpoint

    with pytest.raises(ValueError, match="no checkpoint"):
        load_checkpoint(tmp_path)
    (tmp_path / "checkpoint.pkl").write_bytes(b"\x80\x05garbage")
    with pytest.raises(ValueError, match="unreadable"):
        load_checkpoint(tmp_path)


def test_ppo_agent_needs_a_model(tmp_path):
    from agents.ppo import PPOAgent

    with pytest.raises(FileNotFoundError, match="train"):
        PPOAgent("penta", model_path=tmp_path / "none.zip")
