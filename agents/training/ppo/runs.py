"""A training run in its run folder: evaluation, checkpoints on a schedule, and stopping.

* :func:`make_callback` -- the SB3 trainer's callback: periodic evaluation (fixed seed,
  deterministic policy; the learning curve goes to ``eval.csv``) and checkpoints;
* :class:`LeanRun` -- the same schedule and files around the lean trainer (:mod:`.lean`);
* :func:`open_run_logger` -- SB3's CSV and TensorBoard logger in ``<run_dir>/logs/``, one
  ``segment-<n>`` folder per session (both trainers);
* :class:`StopRequest` -- a wall-clock budget and Ctrl-C / SIGTERM, answered with a checkpoint;
* :func:`take_snapshots` -- the model at the steps of the config's ``snapshots_at`` (both
  trainers), each once;
* :func:`checkpoint_model` / :func:`run_folder_agent` -- the policy of a run's latest
  checkpoint, whichever trainer wrote it (what ``agents.load(run_folder, game)`` plays).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from agents.training.ppo.checkpoints import (
    CHECKPOINT_NAME,
    load_checkpoint,
    read_checkpoint,
    read_learning_curve,
    save_checkpoint,
    write_checkpoint,
    write_learning_curve,
    write_snapshot,
)
from agents.training.ppo.envs import build_sb3_model, make_batched_env, shaping_potential
from agents.training.ppo.lean import rng_states, set_rng_states

__all__ = ["LeanRun", "StopRequest", "SnapshotHook", "checkpoint_model", "checkpoint_timesteps",
           "due_snapshots", "evaluate_policy_score", "make_callback", "open_run_logger",
           "record_evaluation", "run_folder_agent", "take_snapshots"]

#: called with each snapshot a run writes: its path and its record (``at``, ``timesteps``,
#: ``train_seconds``, ``train_cpu_seconds``), between an update and the next rollout
SnapshotHook = Callable[[Path, dict], None]

#: where a run folder's logs go: ``logs/segment-<n>/`` (``progress.csv`` and TensorBoard events)
LOGS_NAME = "logs"


def open_run_logger(run_dir: Path):
    """SB3's logger (``stable_baselines3.common.logger``) writing CSV (``progress.csv``) and
    TensorBoard events to a new folder ``run_dir/logs/segment-<n>`` (``n`` one above the
    highest there; 0 at first).

    SB3's CSV writer opens its file for writing, so every session of a run -- the start and each
    ``--resume`` -- gets its own segment and never overwrites an earlier one's rows; TensorBoard
    shows the segments as runs of one folder (``tensorboard --logdir RUN_DIR/logs``).  Both
    trainers use it, so their logs have the same files and keys.
    """
    from stable_baselines3.common.logger import configure

    logs = Path(run_dir) / LOGS_NAME
    taken = [int(p.name[len("segment-"):]) for p in logs.glob("segment-*")
             if p.name[len("segment-"):].isdigit()]
    folder = logs / f"segment-{max(taken, default=-1) + 1}"
    return configure(str(folder), ["csv", "tensorboard"])


def checkpoint_timesteps(run_dir: Path) -> int | None:
    """The step count of ``run_dir``'s checkpoint (either trainer); None when there is none
    or it cannot be read."""
    try:
        state = read_checkpoint(run_dir)
        steps = state["lean"]["num_timesteps"] if state.get("trainer") == "lean" \
            else state["num_timesteps"]
        return int(steps)
    except Exception:  # missing, damaged or of another layout: the caller says less
        return None


def evaluate_policy_score(model: Any, config: dict) -> dict:
    """Evaluate ``model`` deterministically on the config's fixed evaluation games, as its
    game's family says (the family's ``ppo_evaluation`` hook, see
    :mod:`agents.training.ppo.evaluation`): the scorecard games by their mean final score over
    ``eval.games`` games (common random numbers, ``eval.seed``), 5000 and Pig by the
    seat-balanced win rate against ``eval.opponent``; with ``eval.regret``, the exact regret
    against the optimal player too."""
    from agents.games import resolve
    from agents.policies.sb3_models import SB3Agent
    from agents.training.ppo.evaluation import evaluate

    player = SB3Agent.from_model(model, config["game"])
    return evaluate(player, resolve(config["env_id"]), config["eval"])


def record_evaluation(run_dir: Path, config: dict, extra: dict, num_timesteps: int,
                      model: Callable[[], Any]) -> dict | None:
    """Evaluate the policy at ``num_timesteps`` (``model()`` gives it) and append the row to the
    run's learning curve (``extra["history"]``, written to ``eval.csv``), unless the curve ends
    at that step already (a resumed or finished run); returns the result, or None."""
    history = extra.setdefault("history", [])
    if history and history[-1]["timesteps"] == num_timesteps:
        return None
    result = evaluate_policy_score(model(), config)
    cpu = {"train_cpu_seconds": round(extra["train_cpu_seconds"], 1)} \
        if "train_cpu_seconds" in extra else {}
    history.append({"timesteps": num_timesteps, **result,
                    "train_seconds": round(extra.get("train_seconds", 0.0), 1), **cpu})
    write_learning_curve(run_dir, history)
    return result


def due_snapshots(config: dict, extra: dict, num_timesteps: int, start: int) -> list[int]:
    """The points of the config's ``snapshots_at`` a run at ``num_timesteps`` owes a snapshot:
    reached (at most ``num_timesteps``), not taken yet (``extra["snapshots"]``), and after the
    step the run started at (``start``: a run continuing another model's training with
    ``--init-from`` leaves the points that model had passed to the run that trained it)."""
    taken = {s["at"] for s in extra.get("snapshots", [])}
    return sorted({int(t) for t in config.get("snapshots_at") or []
                   if start < t <= num_timesteps} - taken)


def take_snapshots(run_dir: Path, config: dict, extra: dict, num_timesteps: int, start: int,
                   model: Callable[[], Any], on_snapshot: SnapshotHook | None = None
                   ) -> list[dict]:
    """Write the snapshots due at ``num_timesteps`` (:func:`due_snapshots`): ``model()`` as
    ``snapshot-<T>.zip`` for each point ``T``, recorded in ``extra["snapshots"]`` (saved with
    the next checkpoint: a resumed run neither repeats nor skips one) with the training time so
    far; then ``on_snapshot(path, record)`` for each, the random generators left as they were
    (the training continues exactly as without it).  Returns the new records."""
    records = []
    for at in due_snapshots(config, extra, num_timesteps, start):
        record = {"at": at, "timesteps": int(num_timesteps),
                  "train_seconds": round(extra.get("train_seconds", 0.0), 1)}
        if "train_cpu_seconds" in extra:
            record["train_cpu_seconds"] = round(extra["train_cpu_seconds"], 1)
        path = write_snapshot(run_dir, model(), record)
        extra.setdefault("snapshots", []).append(record)
        records.append(record)
        if on_snapshot is not None:
            states = rng_states()
            try:
                on_snapshot(path, dict(record))
            finally:
                set_rng_states(states)
    return records


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


def run_folder_agent(path: Path, game: Any, algorithm: str | None = None,
                     deterministic: bool = True, seed: int | None = None, device: str = "cpu",
                     env_kwargs: dict | None = None) -> Any:
    """The policy of a ``dice-env train`` run folder's latest checkpoint as a player (its
    spaces checked against ``game``'s env, as for a model file)."""
    from agents.policies.sb3_models import SB3Agent, normalise_algorithm

    path = Path(path)
    if not (path / CHECKPOINT_NAME).is_file():
        raise ValueError(f"{path} is a directory without a training checkpoint "
                         f"({CHECKPOINT_NAME}); expected a stable-baselines3 model .zip or a "
                         "dice-env train run folder")
    if algorithm and normalise_algorithm(algorithm) != "maskableppo":
        raise ValueError(f"{path} is a dice-env train run folder, which holds a MaskablePPO "
                         f"policy, not {algorithm!r}")
    model = checkpoint_model(path, device=device)
    agent = SB3Agent.from_model(model, game, deterministic=deterministic, source=path,
                                env_kwargs=env_kwargs)
    agent.seed(seed)
    return agent


def make_callback(run_dir: Path, config: dict, extra: dict, deadline: float | None = None,
                  should_stop: Callable[[], bool] | None = None,
                  on_snapshot: SnapshotHook | None = None):
    """A callback evaluating, taking snapshots (:func:`take_snapshots`; ``on_snapshot`` is
    called with each) and checkpointing between PPO updates (see module doc).

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
            self._tick()
            result = record_evaluation(run_dir, config, self.extra, self.model.num_timesteps,
                                       lambda: self.model)
            for k, v in (result or {}).items():
                self.logger.record(f"eval/{k}", v)
            self._clock = time.perf_counter()  # evaluation time is not training time

        def snapshot(self) -> None:
            """The snapshots due now (an SB3 run counts its steps from 0, even one started
            from another model)."""
            if due_snapshots(config, self.extra, self.model.num_timesteps, 0):
                self._tick()
                take_snapshots(run_dir, config, self.extra, self.model.num_timesteps, 0,
                               lambda: self.model, on_snapshot)
                self._clock = time.perf_counter()  # nor is the snapshots' (or their hook's)

        def _on_rollout_start(self) -> None:
            if self.model.num_timesteps >= self.extra["next_eval"]:
                self.evaluate()
                self.extra["next_eval"] += config["eval"]["every_timesteps"]
            self.snapshot()
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
    """A run of the lean trainer (:mod:`agents.training.ppo.lean`) in a run directory.

    The same files and schedule as the SB3 runs: ``checkpoint.pkl`` (atomic, between an update
    and the next rollout), ``eval.csv`` (the learning curve, with wall-clock training seconds)
    and the periodic evaluation of the config's ``eval`` section.  The network is copied into a
    MaskablePPO model for evaluation and export (:meth:`sb3_model`), so the exported ``.zip``
    is an ordinary SB3 model.  Given a logger (:func:`open_run_logger`), :meth:`run` writes
    SB3's keys to it once per iteration (see :meth:`log_values`).
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
        self._logger = None  # set while run() writes logs
        self._log_pending = False

    @classmethod
    def start(cls, run_dir: Path, config: dict, extra: dict, seed: int, total: int,
              init_from: Path | None = None) -> LeanRun:
        """A new run; ``init_from`` (a ``.zip`` this trainer exported) continues that model's
        training: its weights (a fresh optimizer), its step count, and its learning curve
        (``<model>.eval.csv`` beside it, or the run folder's ``eval.csv`` beside a
        ``final.zip``) as the start of this run's curve.  A linear learning rate decays over
        this run's own steps (from the model's count to the total)."""
        from agents.training.ppo.lean import LeanTrainer

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
                last = self.extra["history"][-1]
                self.extra["train_seconds"] = float(last.get("train_seconds", 0.0))
                if "train_cpu_seconds" in last:
                    self.extra["train_cpu_seconds"] = float(last["train_cpu_seconds"])
                write_learning_curve(self.run_dir, self.extra["history"])
        every_eval = self.config["eval"]["every_timesteps"]
        self.extra["next_eval"] = done + every_eval
        self.extra["next_checkpoint"] = done + self.config["checkpoint_every_timesteps"]

    @classmethod
    def resume(cls, run_dir: Path) -> LeanRun:
        from agents.training.ppo.lean import LeanTrainer

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
        self._shell.policy.load_state_dict(self.trainer.policy_state_dict())
        self._shell.num_timesteps = self.trainer.num_timesteps
        return self._shell

    def save(self) -> Path:
        return write_checkpoint(self.run_dir, {"trainer": "lean", "lean": self.trainer.state(),
                                               "extra": self.extra})

    def evaluate(self) -> None:
        result = record_evaluation(self.run_dir, self.config, self.extra, self.num_timesteps,
                                   self.sb3_model)
        if result is not None:
            self._record({f"eval/{k}": v for k, v in result.items()})

    def log_values(self, stats: dict, iterations: int, elapsed: float, steps: int) -> dict:
        """SB3's log keys for an iteration with ``stats`` (:meth:`LeanTrainer.train_iteration`
        's): the ``iterations`` of this session so far, its wall-clock seconds ``elapsed`` and
        the ``steps`` it trained.

        As in SB3: ``rollout/ep_rew_mean`` and ``rollout/ep_len_mean`` over the last 100
        episodes, the reward unshaped and scaled by ``reward_scale``; ``train/loss`` of the last
        minibatch, the other losses averaged over the update; ``train/entropy_loss`` is minus the
        entropy; ``time/fps`` and ``time/time_elapsed`` since the session started.
        """
        trainer = self.trainer
        values = {"time/iterations": iterations, "time/fps": int(steps / max(elapsed, 1e-9)),
                  "time/time_elapsed": int(elapsed),
                  "time/total_timesteps": self.num_timesteps,
                  "train/learning_rate": stats["learning_rate"], "train/loss": stats["loss"],
                  "train/entropy_loss": -stats["entropy"],
                  "train/policy_gradient_loss": stats["policy_loss"],
                  "train/value_loss": stats["value_loss"], "train/approx_kl": stats["approx_kl"],
                  "train/clip_fraction": stats["clip_fraction"],
                  "train/clip_range": float(trainer.ppo["clip_range"]),
                  "train/explained_variance": stats["explained_variance"],
                  "train/n_updates": trainer.updates * int(trainer.ppo["n_epochs"])}
        if "teacher_agreement" in stats:  # imitation (config "teacher")
            values["train/teacher_agreement"] = stats["teacher_agreement"]
        if trainer.episode_returns:
            values["rollout/ep_rew_mean"] = \
                float(np.mean(trainer.episode_returns[-100:])) * trainer.reward_scale
            values["rollout/ep_len_mean"] = float(np.mean(trainer.episode_lengths[-100:])) \
                if trainer.episode_lengths else float("nan")
        return values

    def _record(self, values: dict) -> None:
        if self._logger is not None:
            for key, value in values.items():
                self._logger.record(key, value)
            self._log_pending = True

    def _dump(self) -> None:
        """Write what was recorded since the last dump as one row at the current step."""
        if self._logger is not None and self._log_pending:
            self._logger.record("time/total_timesteps", self.num_timesteps)
            self._logger.dump(step=self.num_timesteps)
            self._log_pending = False

    def snapshot(self, on_snapshot: SnapshotHook | None = None) -> list[dict]:
        """The snapshots due now (:func:`take_snapshots`; points at or before the step this
        run started from are not its own)."""
        return take_snapshots(self.run_dir, self.config, self.extra, self.num_timesteps,
                              int(getattr(self.trainer, "start_timesteps", 0)), self.sb3_model,
                              on_snapshot)

    def run(self, total: int, should_stop: Callable[[], bool] | None = None,
            progress: bool = True, logger: Any = None,
            on_snapshot: SnapshotHook | None = None) -> bool:
        """Train to ``total`` timesteps; True when stopped early (with a checkpoint) because
        ``should_stop()`` said so (checked before every rollout).  Between an update and the
        next rollout: the evaluation when due, the snapshots of ``snapshots_at`` when due
        (``on_snapshot`` is called with each: :func:`take_snapshots`), the checkpoint when due.

        With ``logger`` (an SB3 logger, e.g. :func:`open_run_logger`'s; closed at the end),
        each iteration writes one row at the step it ended at: its rollout, update and time
        statistics (:meth:`log_values`) and, when the policy is evaluated there, ``eval/*``.
        Logging reads the run's state only: the training numbers are the same without it.
        """
        from agents.progress import progress_bar

        self.trainer.total_timesteps = int(total)
        self._logger, self._log_pending = logger, False
        session_start, session_steps, iterations = time.perf_counter(), self.num_timesteps, 0
        bar = progress_bar(total=total, initial=self.num_timesteps, unit="step",
                           enabled=progress, smoothing=0.1)
        try:
            while self.num_timesteps < total:
                if self.num_timesteps >= self.extra["next_eval"]:
                    self.evaluate()
                    self.extra["next_eval"] += self.config["eval"]["every_timesteps"]
                self.snapshot(on_snapshot)
                if self.num_timesteps >= self.extra["next_checkpoint"]:
                    self.extra["next_checkpoint"] += self.config["checkpoint_every_timesteps"]
                    self.save()
                self._dump()  # the last iteration's row, with the evaluation at its end
                if should_stop is not None and should_stop():
                    self.save()
                    return True
                before, clock = self.num_timesteps, time.perf_counter()
                cpu = time.process_time()
                stats = self.trainer.train_iteration()
                self.extra["train_seconds"] += time.perf_counter() - clock
                # this process's CPU time: what the wall-clock would be on an idle core (one
                # torch thread), whatever else the machine runs
                self.extra["train_cpu_seconds"] = self.extra.get("train_cpu_seconds", 0.0) \
                    + time.process_time() - cpu
                iterations += 1
                if self._logger is not None:
                    self._record(self.log_values(stats, iterations,
                                                 time.perf_counter() - session_start,
                                                 self.num_timesteps - session_steps))
                bar.update(self.num_timesteps - before)
                bar.set_postfix(ret=f"{stats['mean_return']:.1f}",
                                sps=f"{stats['steps_per_s']:.0f}")
            self.evaluate()
            self.snapshot(on_snapshot)
            self.save()
            return False
        finally:
            bar.close()
            self._dump()
            if self._logger is not None:
                self._logger.close()
            self._logger = None


class StopRequest:
    """When a run should stop early: a wall-clock budget and/or SIGINT / SIGTERM.

    Calling it says whether to stop now (checked between an update and the next rollout, where a
    checkpoint is exact).  Inside :meth:`installed`, the first SIGINT or SIGTERM only sets
    :attr:`reason`; a second SIGINT aborts at once (exit status 130) and says what is left
    (:meth:`abort_message`): the last checkpoint of ``run_dir``, written atomically, if there
    is one, and ``resume_command``; else ``start_command``.
    """

    def __init__(self, max_minutes: float | None = None, run_dir: Path | None = None,
                 resume_command: str | None = None, start_command: str | None = None) -> None:
        self.deadline = time.monotonic() + 60 * max_minutes if max_minutes else None
        self.reason: str | None = None
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.resume_command = resume_command
        self.start_command = start_command

    def __call__(self) -> bool:
        if self.reason is None and self.deadline is not None \
                and time.monotonic() >= self.deadline:
            self.reason = "time budget"
        return self.reason is not None

    def abort_message(self) -> str:
        """What an abort leaves: the run folder's last checkpoint (its step count and when it
        was written) and the command that resumes it, or that there is none and the command
        that starts the run again."""
        if self.run_dir is None:
            return "aborted; the last checkpoint, if any, is intact"
        path = self.run_dir / CHECKPOINT_NAME
        try:
            written = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(path.stat().st_mtime))
        except OSError:  # no checkpoint
            message = "aborted before the first checkpoint; nothing was saved"
            if self.start_command:
                message += f", start again with: {self.start_command}"
            return message
        steps = checkpoint_timesteps(self.run_dir)
        what = f"{steps:,} timesteps, written at {written}" if steps is not None \
            else f"written at {written}"
        message = f"aborted; the last checkpoint ({what}) is intact"
        if self.resume_command:
            message += f", resume with: {self.resume_command}"
        return message

    def _handle(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self.reason in ("SIGINT", "SIGTERM") and signum == signal.SIGINT:
            try:
                message = self.abort_message()
            except Exception:  # never keep an abort from happening
                message = "aborted"
            print(f"\n{message}", file=sys.stderr, flush=True)
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
