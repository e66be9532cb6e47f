"""A run folder's files: ``checkpoint.pkl``, ``final.zip``, ``eval.csv`` and the snapshots.

:func:`save_checkpoint` / :func:`load_checkpoint` hold the whole state of an SB3 run -- the
model (weights and optimizer), the batched env with its generator, the last observations, the
episode statistics and every random generator (torch, numpy, python) -- in one file written
atomically with its checksum.  A run resumed from it continues exactly as if it had never
stopped: checkpoints are taken between a PPO update and the next rollout, and nothing random
happens in between.  The lean trainer's checkpoints (:class:`~.runs.LeanRun`) use the same file
through :func:`write_checkpoint` / :func:`read_checkpoint`.  With the config's
``snapshots_at``, a run also keeps ``snapshot-<T>.zip`` (:func:`write_snapshot`): its model the
first time it reaches ``T`` steps, saved as ``final.zip`` is, with ``snapshot-<T>.json``
beside it.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import pickle
from pathlib import Path
from typing import Any

from agents.training.ppo.envs import shaped
from agents.training.ppo.lean import rng_states, set_rng_states
from dice_env.io import atomic_write_bytes, atomic_write_text

#: version 2 wraps the pickled state with its sha256 (a damaged file is refused, not half-read);
#: version 1 files (no checksum) are still read
CHECKPOINT_VERSION = 2
CHECKPOINT_NAME = "checkpoint.pkl"
#: a finished run's model (a stopped run has none)
FINAL_NAME = "final.zip"


def save_checkpoint(run_dir: Path, model: Any, extra: dict) -> Path:
    """Write the whole training state to ``run_dir/checkpoint.pkl`` atomically."""
    env = model.get_env()
    monitor = env.venv if hasattr(env, "_phi") else env  # below the reward shaping, if any
    sb3 = monitor.venv
    buf = io.BytesIO()
    model.save(buf)
    state = {
        "model_zip": buf.getvalue(),
        "venv": sb3.venv,
        "reward_scale": sb3.reward_scale,
        "monitor": {k: copy.deepcopy(getattr(monitor, k))
                    for k in ("episode_returns", "episode_lengths", "episode_count", "t_start")},
        "last_obs": model._last_obs,
        "last_episode_starts": model._last_episode_starts,
        "ep_info_buffer": model.ep_info_buffer,
        "ep_success_buffer": model.ep_success_buffer,
        "num_timesteps": model.num_timesteps,
        "rng": rng_states(),
        "extra": extra,
        "shaping_phi": getattr(env, "_phi", None),
    }
    return write_checkpoint(run_dir, state)


def write_final_model(run_dir: Path, model: Any) -> Path:
    """Save ``model`` (a stable-baselines3 model) to ``run_dir/final.zip`` atomically."""
    return write_model(Path(run_dir) / FINAL_NAME, model)


def write_model(path: Path, model: Any) -> Path:
    """Save ``model`` (a stable-baselines3 model) to the ``.zip`` ``path`` atomically."""
    buf = io.BytesIO()
    model.save(buf)
    atomic_write_bytes(Path(path), buf.getvalue())
    return Path(path)


def snapshot_name(at: int) -> str:
    """The file of a run's snapshot at ``at`` steps (config ``snapshots_at``):
    ``snapshot-<at>.zip``; its record is the ``.json`` of the same name."""
    return f"snapshot-{int(at)}.zip"


def write_snapshot(run_dir: Path, model: Any, record: dict) -> Path:
    """Save ``model`` as ``run_dir/snapshot-<at>.zip`` (``at``: ``record["at"]``; the model as
    ``final.zip`` would be saved, so :class:`~agents.policies.sb3_models.SB3Agent` loads it),
    then ``record`` as ``snapshot-<at>.json`` beside it; both atomically, the record last (a
    snapshot without its record is unfinished)."""
    path = write_model(Path(run_dir) / snapshot_name(record["at"]), model)
    atomic_write_text(path.with_suffix(".json"), json.dumps(record, indent=1) + "\n")
    return path


def write_checkpoint(run_dir: Path, state: dict) -> Path:
    """Pickle ``state`` with its checksum to ``run_dir/checkpoint.pkl``, atomically."""
    payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    wrapped = {"version": CHECKPOINT_VERSION, "sha256": hashlib.sha256(payload).hexdigest(),
               "payload": payload}
    path = Path(run_dir) / CHECKPOINT_NAME
    atomic_write_bytes(path, pickle.dumps(wrapped, protocol=pickle.HIGHEST_PROTOCOL))
    return path


def read_checkpoint(run_dir: Path) -> dict:
    """The raw checkpoint dict of ``run_dir`` (either trainer).

    Raises ``ValueError`` with a hint when the file is missing, truncated or of another version.
    """
    path = Path(run_dir) / CHECKPOINT_NAME
    if not path.exists():
        raise ValueError(f"no checkpoint at {path}; start the run without --resume")
    damaged = (f"checkpoint {path} is damaged ({{}}); delete it to start over or restore a "
               "backup")
    try:
        state = pickle.loads(path.read_bytes())
    except Exception as err:  # a truncated or garbled pickle raises many kinds of errors
        raise ValueError(damaged.format(f"unreadable: {err}")) from None
    if isinstance(state, dict) and state.get("version") == 2:
        payload = state.get("payload")
        if not isinstance(payload, bytes) or \
                hashlib.sha256(payload).hexdigest() != state.get("sha256"):
            raise ValueError(damaged.format("checksum mismatch"))
        try:
            state = pickle.loads(payload)
        except Exception as err:
            raise ValueError(damaged.format(f"unreadable: {err}")) from None
    elif not isinstance(state, dict) or state.get("version") != 1:
        raise ValueError(f"checkpoint {path} has an unknown format; it was written by another "
                         "version of dice-env")
    return state


def load_checkpoint(run_dir: Path, device: str = "cpu"):
    """Rebuild ``(model, extra)`` from ``run_dir/checkpoint.pkl`` (see :func:`save_checkpoint`).

    Raises ``ValueError`` with a hint when the file is missing, truncated or of another version.
    """
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from dice_env.sb3 import SB3VecEnv

    state = read_checkpoint(run_dir)
    if state.get("trainer", "sb3") != "sb3":
        raise ValueError(f"the checkpoint in {run_dir} is a {state['trainer']!r} run; resume it "
                         "with dice-env train, which picks the trainer")
    sb3 = SB3VecEnv(state["venv"], reward_scale=state["reward_scale"])
    monitor = VecMonitor(sb3)
    for k, v in state["monitor"].items():
        setattr(monitor, k, v)
    env = shaped(monitor, state["extra"].get("config", {}))
    if env is not monitor:
        env._phi = state.get("shaping_phi")
    try:
        model = MaskablePPO.load(io.BytesIO(state["model_zip"]), env=env, device=device)
    except Exception as err:  # a damaged version-1 file (no checksum) fails here
        raise ValueError(f"checkpoint {Path(run_dir) / CHECKPOINT_NAME} is damaged (its model "
                         f"does not load: {err}); delete it to start over or restore a backup"
                         ) from None
    model._last_obs = state["last_obs"]
    model._last_episode_starts = state["last_episode_starts"]
    model.ep_info_buffer = state["ep_info_buffer"]
    model.ep_success_buffer = state["ep_success_buffer"]
    model.num_timesteps = state["num_timesteps"]
    set_rng_states(state["rng"])
    return model, state["extra"]


def write_learning_curve(run_dir: Path, history: list[dict]) -> None:
    """``run_dir/eval.csv``: one row per evaluation (timesteps, metric, sem, wall time)."""
    if not history:
        return
    buf = io.StringIO()
    # (a curve continued by a newer trainer may gain a column: earlier rows leave it empty)
    writer = csv.DictWriter(buf, fieldnames=list(dict.fromkeys(k for r in history for k in r)),
                            restval="")
    writer.writeheader()
    writer.writerows(history)
    atomic_write_text(run_dir / "eval.csv", buf.getvalue())


def read_learning_curve(path: Path) -> list[dict]:
    """The rows of an ``eval.csv`` (:func:`write_learning_curve`): ``timesteps`` as int, every
    other column as float."""
    with Path(path).open(newline="") as fh:
        return [{k: int(v) if k == "timesteps" else float(v) for k, v in row.items()
                 if v != ""}
                for row in csv.DictReader(fh)]
