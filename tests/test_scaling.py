"""The scaling study (``dice-env scaling``, issue 45): snapshots at given steps (config
``snapshots_at``), the study's runs carried across sessions, and its report.  Tiny configs
(a few hundred steps of a tiny network) and, where the real measurement is not the point, a
stand-in for the exact gap."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: a rollout is 8 envs x 32 steps = 256 steps
TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "trainer": "lean", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "policy_kwargs": {"net_arch": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 2,
                "gamma": 1.0},
        "eval": {"every_timesteps": 256, "games": 10, "seed": 1},
        "checkpoint_every_timesteps": 256}


def _config(tmp_path, **changes) -> Path:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({**TINY, **changes}))
    return path


def _train(config, run_dir, timesteps, points=None, resume=False, init_from=None, hook=None):
    from agents.training.ppo.session import TrainOptions, train

    overrides = () if points is None else (f"snapshots_at={json.dumps(points)}",)
    options = TrainOptions(game="penta", config=None if resume else config, run_dir=run_dir,
                           timesteps=timesteps, resume=resume, init_from=init_from,
                           overrides=() if resume else overrides, progress=False, threads=1)
    return train(options, on_snapshot=hook)


def _weights(path):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu").policy.state_dict()


def _same(a, b) -> bool:
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_snapshots_are_taken_once_at_the_first_update_at_or_past_each_point(tmp_path):
    """snapshot-<T>.zip at the first update boundary at or past T, loadable as a player; a run
    stopped and resumed takes the same snapshots (the same weights), none twice; the hook sees
    each once and may use the random generators without changing the training; a run started
    from another model (--init-from) leaves the points that model had passed."""
    import numpy as np
    import torch

    import agents
    from agents.training.ppo.checkpoints import read_checkpoint

    config = _config(tmp_path)
    points = [300, 512, 600, 1024]
    seen = []

    def hook(path, record):
        seen.append((path.name, record["timesteps"]))
        torch.rand(3), np.random.rand(3)  # a measurement may draw: the run must not notice

    full, plain, part = tmp_path / "full", tmp_path / "plain", tmp_path / "part"
    _train(config, full, 1024, points, hook=hook)
    assert seen == [("snapshot-300.zip", 512), ("snapshot-512.zip", 512),
                    ("snapshot-600.zip", 768), ("snapshot-1024.zip", 1024)]
    assert sorted(p.name for p in full.glob("snapshot-*")) == sorted(
        [f"snapshot-{t}.{s}" for t in points for s in ("zip", "json")])
    record = json.loads((full / "snapshot-600.json").read_text())
    assert record["at"] == 600 and record["timesteps"] == 768 and record["train_seconds"] >= 0
    assert [s["at"] for s in read_checkpoint(full)["extra"]["snapshots"]] == points
    assert _same(_weights(full / "snapshot-1024.zip"), _weights(full / "final.zip"))
    player = agents.load(str(full / "snapshot-600.zip"), "penta")
    assert player is not None

    _train(config, plain, 1024)  # no snapshots, no hook: the same training
    assert not list(plain.glob("snapshot-*"))
    assert _same(_weights(plain / "final.zip"), _weights(full / "final.zip"))

    seen.clear()
    _train(config, part, 512, points, hook=hook)  # stopped at 512 ...
    first = {p.name: p.stat().st_mtime_ns for p in part.glob("snapshot-*.zip")}
    assert sorted(first) == ["snapshot-300.zip", "snapshot-512.zip"]
    _train(config, part, 1024, resume=True, hook=hook)  # ... and resumed
    assert seen == [("snapshot-300.zip", 512), ("snapshot-512.zip", 512),
                    ("snapshot-600.zip", 768), ("snapshot-1024.zip", 1024)]
    assert {n: (part / n).stat().st_mtime_ns for n in first} == first  # none written again
    for t in (600, 1024):
        assert _same(_weights(part / f"snapshot-{t}.zip"), _weights(full / f"snapshot-{t}.zip"))

    seen.clear()
    _train(config, tmp_path / "next", 1536, [512, 1024, 1280], init_from=full / "final.zip",
           hook=hook)
    assert seen == [("snapshot-1280.zip", 1280)]


def test_sb3_trainer_takes_snapshots_too(tmp_path):
    config = _config(tmp_path, trainer="sb3")
    run = tmp_path / "sb3"
    _train(config, run, 512, [256, 512])
    assert sorted(p.name for p in run.glob("snapshot-*.zip")) == ["snapshot-256.zip",
                                                                  "snapshot-512.zip"]
    assert json.loads((run / "snapshot-256.json").read_text())["timesteps"] == 256


@pytest.mark.parametrize("value", ["[0]", "5", "[1.5]", '["a"]'])
def test_snapshots_at_must_be_positive_steps(tmp_path, value):
    out = subprocess.run([sys.executable, "scripts/train.py", "penta", "--config",
                          str(_config(tmp_path)), "--run-dir", str(tmp_path / "r"), "--set",
                          f"snapshots_at={value}"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "snapshots_at must be a list of positive integers" in out.stderr
    assert not (tmp_path / "r").exists()
