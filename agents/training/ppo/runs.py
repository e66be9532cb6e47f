"""MaskablePPO training on the batched envs, with exact checkpoint / resume.

The pieces behind ``scripts/train.py``:

* :func:`load_config` -- the committed per-game hyperparameters (``agents/ppo_configs/``).
* :func:`make_training_env` -- the natively batched vector env of the game (SAME_STEP
  autoreset), wrapped for Stable-Baselines3 (:class:`dice_env.sb3.SB3VecEnv`) and
  ``VecMonitor``; 5000 opponents come from :func:`agents.make`.
* :class:`TrainingCallback` -- periodic evaluation (fixed seed, deterministic policy; the
  learning curve goes to ``eval.csv``) and checkpoints.
* :func:`save_checkpoint` / :func:`load_checkpoint` -- one file holding the model (weights and
  optimizer), the batched env with its generator, the last observations, the episode
  statistics and every random generator (torch, numpy, python), written atomically.  A run
  resumed from it continues exactly as if it had never stopped: checkpoints are taken between
  a PPO update and the next rollout, and nothing random happens in between.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from agents.lean_ppo import rng_states, set_rng_states
from dice_env.io import atomic_write_bytes, atomic_write_text

CONFIG_DIR = Path(__file__).resolve().parent / "ppo_configs"
#: version 2 wraps the pickled state with its sha256 (a damaged file is refused, not half-read);
#: version 1 files (no checksum) are still read
CHECKPOINT_VERSION = 2
CHECKPOINT_NAME = "checkpoint.pkl"
#: a finished run's model (a stopped run has none)
FINAL_NAME = "final.zip"


def load_config(game: str, path: str | Path | None = None) -> dict:
    """The training config of ``game`` (``agents/ppo_configs/<game>.json`` unless ``path``)."""
    path = Path(path) if path is not None else CONFIG_DIR / f"{game}.json"
    if not path.exists():
        known = sorted(p.stem for p in CONFIG_DIR.glob("*.json"))
        raise ValueError(f"no training config {path}; configs exist for {known}")
    config = json.loads(path.read_text())
    for key in ("env_id", "num_envs", "total_timesteps", "ppo", "eval"):
        if key not in config:
            raise ValueError(f"config {path} misses {key!r}")
    config.setdefault("game", game)
    return config


def apply_overrides(config: dict, overrides: list[str]) -> dict:
    """A copy of ``config`` with ``"a.b=value"`` overrides applied (``value`` parsed as JSON,
    else kept as a string).  ``ValueError`` for a malformed override."""
    config = copy.deepcopy(config)
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"override {item!r} should look like key=value, e.g. "
                             "ppo.ent_coef=0.01")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        *path, last = key.split(".")
        node = config
        for part in path:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"override {item!r}: {part!r} is not a section of the config")
        node[last] = value
    return config


def rollout_size(config: dict) -> int:
    """Steps in one rollout of a config: ``num_envs x ppo.n_steps`` (SB3's default 2048)."""
    return int(config["num_envs"]) * int(config["ppo"].get("n_steps", 2048))


def whole_rollouts(config: dict, timesteps: int) -> int:
    """``timesteps`` rounded up to whole rollouts of ``config``: the total a run trains."""
    rollout = rollout_size(config)
    return -(-int(timesteps) // rollout) * rollout


def make_batched_env(config: dict, seed: int | None = None):
    """The config's natively batched Gymnasium vector env (SAME_STEP autoreset; the
    opponents of 5000 built with :func:`agents.make`)."""
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    import agents

    kwargs = dict(config.get("env_kwargs", {}))
    if "opponent" in config:
        opponent = agents.make(config["opponent"], "fivethousand", seed=seed)
        kwargs["opponents"] = [opponent] * (kwargs.get("num_players", 2) - 1)
    return gym.make_vec(config["env_id"], num_envs=config["num_envs"],
                        vectorization_mode="vector_entry_point",
                        autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)


def make_training_env(config: dict, seed: int):
    """``VecMonitor(SB3VecEnv(batched env))`` for a config (opponents built for 5000)."""
    from stable_baselines3.common.vec_env import VecMonitor

    from dice_env.sb3 import SB3VecEnv

    sb3 = SB3VecEnv(make_batched_env(config, seed), reward_scale=config.get("reward_scale", 1.0))
    sb3.seed(seed)
    return shaped(VecMonitor(sb3), config)


def _shaping_settings(config: dict) -> dict | None:
    shaping = config.get("shaping")
    if not shaping:
        return None
    unknown = sorted(set(shaping) - {"upper_bonus", "scale"})
    if unknown:
        raise ValueError(f"unknown shaping options {unknown}; known: ['upper_bonus', 'scale']")
    from dice_env import SCORECARD_IDS
    from dice_env.scorecard.rules import get_rules

    return {"rules": get_rules(SCORECARD_IDS[config["env_id"]]),
            "weight": float(shaping.get("upper_bonus", 1.0)),
            "scale": float(shaping.get("scale", 6.0))}


def shaped(monitor, config: dict):
    """``monitor`` wrapped in the config's reward shaping, if it has one.

    ``"shaping": {"upper_bonus": w}`` adds ``w`` times the potential-based upper-bonus shaping
    of :mod:`agents.shaping` (the monitor below it still records the true returns).
    """
    settings = _shaping_settings(config)
    if settings is None:
        return monitor
    from agents.shaping import BonusShapingVecEnv

    return BonusShapingVecEnv(monitor, settings["rules"], weight=settings["weight"],
                              reward_scale=config.get("reward_scale", 1.0),
                              scale=settings["scale"])


def shaping_potential(config: dict):
    """``obs -> (N,)`` the config's shaping potential in points (for the lean trainer), or
    None when the config has no shaping."""
    settings = _shaping_settings(config)
    if settings is None:
        return None
    from agents.shaping import bonus_potential

    rules, weight, scale = settings["rules"], settings["weight"], settings["scale"]
    return lambda obs: weight * bonus_potential(rules, obs, scale)


def build_sb3_model(config: dict, seed: int, device: str = "cpu", num_envs: int | None = None):
    """A fresh MaskablePPO model for a config (``num_envs`` overrides the config's)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import LinearSchedule

    if num_envs is not None:
        config = {**config, "num_envs": num_envs}
    env = make_training_env(config, seed)
    ppo = dict(config["ppo"])
    if ppo.pop("learning_rate_schedule", "constant") == "linear":  # decays to 0 at the end
        ppo["learning_rate"] = LinearSchedule(ppo["learning_rate"], 0.0, 1.0)
    return MaskablePPO("MlpPolicy", env, seed=seed, device=device, verbose=0,
                       policy_kwargs=config.get("policy_kwargs"), **ppo)


def evaluate_policy_score(model: Any, config: dict) -> dict:
    """Evaluate ``model`` deterministically on the config's fixed evaluation games.

    Scorecard games: mean final score over ``eval.games`` games (common random numbers,
    ``eval.seed``).  5000: seat-balanced win rate against ``eval.opponent``.
    """
    from agents.ppo import PPOAgent

    player = PPOAgent.from_model(model, config["game"])
    ev = config["eval"]
    if config.get("family", "scorecard") == "scorecard":
        from agents.evaluation import play_scorecard_games

        totals = play_scorecard_games(player, config["env_id"], ev["games"], seed=ev["seed"])
        return {"mean_score": float(totals.mean()),
                "sem": float(totals.std(ddof=1) / np.sqrt(len(totals)))}
    import agents
    from agents.fivethousand_matches import play_fivethousand_matches

    opponent = agents.make(ev.get("opponent", "heuristic"), "fivethousand", seed=ev["seed"])
    result = play_fivethousand_matches([player, opponent], ev["games"], seed=ev["seed"])
    p = result.win_rate(0)
    return {"win_rate": p, "sem": float(np.sqrt(p * (1 - p) / ev["games"]))}


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
    buf = io.BytesIO()
    model.save(buf)
    path = Path(run_dir) / FINAL_NAME
    atomic_write_bytes(path, buf.getvalue())
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
                         "with scripts/train.py, which picks the trainer")
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


def checkpoint_model(run_dir: Path, device: str = "cpu"):
    """The policy of a training run's latest checkpoint as a MaskablePPO model, whichever
    trainer wrote it (for evaluating a run that is still going or was stopped).

    Leaves the global random generators as they were.  Raises ``ValueError`` (with a hint)
    for a missing or damaged checkpoint.
    """
    states = rng_states()
    try:
        if read_checkpoint(run_dir).get("trainer", "sb3") == "lean":
            return LeanRun.resume(Path(run_dir)).sb3_model()
        return load_checkpoint(run_dir, device=device)[0]
    finally:
        set_rng_states(states)


def write_learning_curve(run_dir: Path, history: list[dict]) -> None:
    """``run_dir/eval.csv``: one row per evaluation (timesteps, metric, sem, wall time)."""
    if not history:
        return
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(history[0]))
    writer.writeheader()
    writer.writerows(history)
    atomic_write_text(run_dir / "eval.csv", buf.getvalue())


def read_learning_curve(path: Path) -> list[dict]:
    """The rows of an ``eval.csv`` (:func:`write_learning_curve`): ``timesteps`` as int, every
    other column as float."""
    with Path(path).open(newline="") as fh:
        return [{k: int(v) if k == "timesteps" else float(v) for k, v in row.items()}
                for row in csv.DictReader(fh)]


def make_callback(run_dir: Path, config: dict, extra: dict, deadline: float | None = None,
                  should_stop: Callable[[], bool] | None = None):
    """A callback evaluating and checkpointing between PPO updates (see module doc).

    With ``deadline`` (a ``time.monotonic()`` value) or ``should_stop`` (e.g. a
    :class:`StopRequest`), the first rollout that starts once it is due writes a checkpoint and
    stops the run, so that ``--resume`` continues exactly.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    def due() -> bool:
        if should_stop is not None and should_stop():
            return True
        return deadline is not None and time.monotonic() >= deadline

    class TrainingCallback(BaseCallback):
        """Evaluate every ``eval.every_timesteps``; checkpoint every
        ``checkpoint_every_timesteps`` -- both between an update and the next rollout."""

        def __init__(self) -> None:
            super().__init__()
            self.extra = extra
            self.extra.setdefault("history", [])
            self.extra.setdefault("next_eval", 0)
            self.extra.setdefault("next_checkpoint", config["checkpoint_every_timesteps"])
            self.extra.setdefault("train_seconds", 0.0)
            self._clock = time.perf_counter()
            self.stopped_at_deadline = False

        def _tick(self) -> None:
            now = time.perf_counter()
            self.extra["train_seconds"] += now - self._clock
            self._clock = now

        def evaluate(self) -> None:
            history = self.extra["history"]
            if history and history[-1]["timesteps"] == self.model.num_timesteps:
                return  # already evaluated at this point (a resumed run)
            self._tick()
            result = evaluate_policy_score(self.model, config)
            row = {"timesteps": self.model.num_timesteps, **result,
                   "train_seconds": round(self.extra["train_seconds"], 1)}
            self.extra["history"].append(row)
            for k, v in result.items():
                self.logger.record(f"eval/{k}", v)
            write_learning_curve(run_dir, self.extra["history"])
            self._clock = time.perf_counter()

        def _on_rollout_start(self) -> None:
            if self.model.num_timesteps >= self.extra["next_eval"]:
                self.evaluate()
                self.extra["next_eval"] += config["eval"]["every_timesteps"]
            if self.model.num_timesteps >= self.extra["next_checkpoint"]:
                self._tick()
                self.extra["next_checkpoint"] += config["checkpoint_every_timesteps"]
                save_checkpoint(run_dir, self.model, self.extra)
            if due():
                self._tick()
                save_checkpoint(run_dir, self.model, self.extra)
                self.stopped_at_deadline = True

        def _on_step(self) -> bool:
            return not self.stopped_at_deadline

    return TrainingCallback()


class LeanRun:
    """A run of the lean trainer (:mod:`agents.lean_ppo`) in a run directory.

    The same files and schedule as the SB3 runs: ``checkpoint.pkl`` (atomic, between an update
    and the next rollout), ``eval.csv`` (the learning curve, with wall-clock training seconds)
    and the periodic evaluation of the config's ``eval`` section.  The network is copied into a
    MaskablePPO model for evaluation and export (:meth:`sb3_model`), so the exported ``.zip``
    is an ordinary SB3 model.
    """

    def __init__(self, run_dir: Path, trainer: Any, config: dict, extra: dict) -> None:
        self.run_dir = Path(run_dir)
        self.trainer = trainer
        self.config = config
        self.extra = extra
        self.extra.setdefault("history", [])
        self.extra.setdefault("next_eval", 0)
        self.extra.setdefault("next_checkpoint", config["checkpoint_every_timesteps"])
        self.extra.setdefault("train_seconds", 0.0)
        self._shell = None

    @classmethod
    def start(cls, run_dir: Path, config: dict, extra: dict, seed: int, total: int,
              init_from: Path | None = None) -> LeanRun:
        """A new run; ``init_from`` (a ``.zip`` this trainer exported) continues that model's
        training: its weights (a fresh optimizer), its step count, and its learning curve
        (``<model>.eval.csv`` beside it, or the run folder's ``eval.csv`` beside a
        ``final.zip``) as the start of this run's curve.  A linear learning rate decays over
        this run's own steps (from the model's count to the total)."""
        from agents.lean_ppo import LeanTrainer

        trainer = LeanTrainer(make_batched_env(config, seed), config, seed, total,
                              potential=shaping_potential(config))
        run = cls(run_dir, trainer, config, extra)
        if init_from is not None:
            run._init_from(Path(init_from))
        return run

    def _init_from(self, path: Path) -> None:
        from sb3_contrib import MaskablePPO

        states = rng_states()  # loading must not move the run's random streams
        try:
            model = MaskablePPO.load(path, device="cpu")
            self.trainer.net.load_state_dict(model.policy.state_dict())
        except (RuntimeError, ValueError, KeyError) as err:
            raise ValueError(f"cannot start from {path}: its network does not fit this "
                             f"config ({err})") from None
        finally:
            set_rng_states(states)
        done = int(model.num_timesteps)
        self.trainer.num_timesteps = self.trainer.start_timesteps = done
        curve = path.with_suffix(".eval.csv")
        if not curve.exists() and path.name == "final.zip":  # a run folder's final model
            curve = path.parent / "eval.csv"
        if curve.exists():
            self.extra["history"] = [r for r in read_learning_curve(curve)
                                     if r["timesteps"] <= done]
            if self.extra["history"]:
                self.extra["train_seconds"] = float(
                    self.extra["history"][-1].get("train_seconds", 0.0))
                write_learning_curve(self.run_dir, self.extra["history"])
        every_eval = self.config["eval"]["every_timesteps"]
        self.extra["next_eval"] = done + every_eval
        self.extra["next_checkpoint"] = done + self.config["checkpoint_every_timesteps"]

    @classmethod
    def resume(cls, run_dir: Path) -> LeanRun:
        from agents.lean_ppo import LeanTrainer

        state = read_checkpoint(run_dir)
        if state.get("trainer") != "lean":
            raise ValueError(f"the checkpoint in {run_dir} is not a lean-trainer run")
        config = state["extra"]["config"]
        try:
            trainer = LeanTrainer.from_state(state["lean"], config,
                                             potential=shaping_potential(config))
        except (KeyError, RuntimeError, TypeError) as err:
            raise ValueError(f"checkpoint {Path(run_dir) / CHECKPOINT_NAME} is damaged ({err!r});"
                             " delete it to start over or restore a backup") from None
        return cls(run_dir, trainer, config, state["extra"])

    @property
    def num_timesteps(self) -> int:
        return self.trainer.num_timesteps

    def sb3_model(self):
        """A MaskablePPO model holding the current network (built once, then refreshed)."""
        if self._shell is None:  # SB3 seeds the global generators: keep the run's streams
            states = rng_states()
            self._shell = build_sb3_model(self.config, self.extra.get("seed", 0), num_envs=1)
            set_rng_states(states)
        self._shell.policy.load_state_dict(self.trainer.net.state_dict())
        self._shell.num_timesteps = self.trainer.num_timesteps
        return self._shell

    def save(self) -> Path:
        return write_checkpoint(self.run_dir, {"trainer": "lean", "lean": self.trainer.state(),
                                               "extra": self.extra})

    def evaluate(self) -> None:
        history = self.extra["history"]
        if history and history[-1]["timesteps"] == self.num_timesteps:
            return
        result = evaluate_policy_score(self.sb3_model(), self.config)
        history.append({"timesteps": self.num_timesteps, **result,
                        "train_seconds": round(self.extra["train_seconds"], 1)})
        write_learning_curve(self.run_dir, history)

    def run(self, total: int, should_stop: Callable[[], bool] | None = None,
            progress: bool = True) -> bool:
        """Train to ``total`` timesteps; True when stopped early (with a checkpoint) because
        ``should_stop()`` said so (checked before every rollout)."""
        from tqdm import tqdm

        self.trainer.total_timesteps = int(total)
        bar = tqdm(total=total, initial=self.num_timesteps, unit="step", disable=not progress,
                   smoothing=0.1)
        try:
            while self.num_timesteps < total:
                if self.num_timesteps >= self.extra["next_eval"]:
                    self.evaluate()
                    self.extra["next_eval"] += self.config["eval"]["every_timesteps"]
                if self.num_timesteps >= self.extra["next_checkpoint"]:
                    self.extra["next_checkpoint"] += self.config["checkpoint_every_timesteps"]
                    self.save()
                if should_stop is not None and should_stop():
                    self.save()
                    return True
                before, clock = self.num_timesteps, time.perf_counter()
                stats = self.trainer.train_iteration()
                self.extra["train_seconds"] += time.perf_counter() - clock
                bar.update(self.num_timesteps - before)
                bar.set_postfix(ret=f"{stats['mean_return']:.1f}",
                                sps=f"{stats['steps_per_s']:.0f}")
        finally:
            bar.close()
        self.evaluate()
        self.save()
        return False


class StopRequest:
    """When a run should stop early: a wall-clock budget and/or SIGINT / SIGTERM.

    Calling it says whether to stop now (checked between an update and the next rollout, where a
    checkpoint is exact).  Inside :meth:`installed`, the first SIGINT or SIGTERM only sets
    :attr:`reason`; a second SIGINT aborts at once (exit status 130; the last checkpoint, written
    atomically, stays intact).
    """

    def __init__(self, max_minutes: float | None = None) -> None:
        self.deadline = time.monotonic() + 60 * max_minutes if max_minutes else None
        self.reason: str | None = None

    def __call__(self) -> bool:
        if self.reason is None and self.deadline is not None \
                and time.monotonic() >= self.deadline:
            self.reason = "time budget"
        return self.reason is not None

    def _handle(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self.reason in ("SIGINT", "SIGTERM") and signum == signal.SIGINT:
            print("\naborted; the last checkpoint is intact", file=sys.stderr, flush=True)
            os._exit(130)
        self.reason = name
        print(f"\n{name}: finishing the current rollout and update, then writing a checkpoint "
              "(Ctrl-C again aborts at once)", file=sys.stderr, flush=True)

    @contextmanager
    def installed(self) -> Iterator[StopRequest]:
        """Handle SIGINT and SIGTERM while inside (restores the previous handlers after)."""
        previous = {sig: signal.signal(sig, self._handle)
                    for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
