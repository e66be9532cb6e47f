"""One trial of a Tune sweep, run in a Ray worker: a lean PPO run (:class:`~agents.training.ppo.
LeanRun`) that hands every checkpoint it writes to Tune, and on a restart (a dead worker, a lost
node) continues from the furthest checkpoint, its run folder's or Tune's copy."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.training.ppo import CHECKPOINT_NAME, LeanRun, read_checkpoint, write_final_model
from dice_env.io import atomic_write_bytes

__all__ = ["CRASH_ENV", "TuneLeanRun", "report_to_tune", "restore_from_tune", "run_trial",
           "trial_metrics"]

#: test hook: comma-separated trial numbers (0-based, table order) whose worker dies
#: (``os._exit``) right after the first checkpoint of their first attempt
CRASH_ENV = "DICE_ENV_TUNE_TEST_CRASH"


class TuneLeanRun(LeanRun):
    """A :class:`LeanRun` that hands every checkpoint it writes to Tune with its metrics, and
    reports its progress every ``report_every`` seconds (checked between rollouts)."""

    attempt_start = 0.0
    wall_before = 0.0
    crash_after_checkpoint = False
    report_every = 30.0
    _last_report = 0.0

    def wall_seconds(self) -> float:
        """Wall-clock seconds of the run: earlier attempts (to their last checkpoint) + this."""
        return self.wall_before + time.perf_counter() - self.attempt_start

    def heartbeat(self) -> bool:
        """``LeanRun.run``'s ``should_stop``: reports progress now and then; never stops."""
        if time.perf_counter() - self._last_report >= self.report_every:
            report_to_tune(self)
        return False

    def save(self) -> Path:
        """Write our checkpoint (as :meth:`LeanRun.save`), then report it to Tune."""
        self.extra.setdefault("tune", {})["wall_seconds"] = self.wall_seconds()
        path = super().save()
        report_to_tune(self, checkpoint=path)
        if self.crash_after_checkpoint:  # the test hook: a worker dying mid-run
            print(f"{CRASH_ENV}: the worker of {self.run_dir} dies now", flush=True)
            os._exit(3)
        return path


def trial_metrics(run: LeanRun) -> dict[str, Any]:
    """What a trial reports: progress, the last evaluation, seconds, restarts."""
    extra = run.extra
    last = extra["history"][-1] if extra.get("history") else {}
    state = extra.get("tune", {})
    starts = state.get("starts", [0])
    wall = run.wall_seconds() if isinstance(run, TuneLeanRun) else state.get("wall_seconds", 0)
    metrics = {"timesteps": run.num_timesteps, "total_timesteps": extra["total_timesteps"],
               "eval_timesteps": last.get("timesteps", -1),
               "train_seconds": round(float(extra.get("train_seconds", 0.0)), 2),
               "wall_seconds": round(float(wall), 2),
               "attempts": len(starts), "resumed_at": int(starts[-1]),
               "starts": ",".join(str(s) for s in starts)}
    for key in ("mean_score", "win_rate", "sem"):
        if key in last:
            metrics[key] = float(last[key])
    return metrics


def report_to_tune(run: LeanRun, checkpoint: Path | None = None) -> None:
    """``tune.report`` the run's metrics, with a copy of ``checkpoint.pkl`` (and ``eval.csv``)
    as Tune's checkpoint when given (Tune persists it before returning)."""
    from ray import tune

    metrics = trial_metrics(run)
    if isinstance(run, TuneLeanRun):
        run._last_report = time.perf_counter()
    if checkpoint is None:
        tune.report(metrics)
        return
    with tempfile.TemporaryDirectory(prefix="dice-tune-") as tmp:
        for name in (CHECKPOINT_NAME, "eval.csv"):
            source = run.run_dir / name
            if source.exists():
                try:
                    os.link(source, Path(tmp) / name)
                except OSError:  # another file system
                    shutil.copy2(source, Path(tmp) / name)
        tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(tmp))


def _checkpoint_steps(run_dir: Path) -> int:
    try:
        return int(read_checkpoint(run_dir)["lean"]["num_timesteps"])
    except (ValueError, KeyError, TypeError):
        return -1


def restore_from_tune(run_dir: Path) -> None:
    """Put Tune's latest checkpoint of this trial into ``run_dir`` when it is further along
    than the run directory's own (a restart on another node); otherwise leave it."""
    from ray import tune

    checkpoint = tune.get_checkpoint()
    if checkpoint is None:
        return
    with checkpoint.as_directory() as folder:
        folder = Path(folder)
        if not (folder / CHECKPOINT_NAME).exists():
            return
        if _checkpoint_steps(folder) <= _checkpoint_steps(run_dir):
            return
        for name in ("eval.csv", CHECKPOINT_NAME):  # the checkpoint last: it marks a run
            if (folder / name).exists():
                atomic_write_bytes(run_dir / name, (folder / name).read_bytes())


def run_trial(params: dict) -> None:
    """Tune's function trainable: train (or resume) one ``(grid point, seed)`` run."""
    import torch

    spec = params["trial"]
    torch.set_num_threads(int(spec["threads"]))
    run_dir = Path(spec["run_dir"])
    run_dir.mkdir(parents=True, exist_ok=True)
    restore_from_tune(run_dir)
    total = int(spec["total"])
    if (run_dir / CHECKPOINT_NAME).exists():
        run = TuneLeanRun.resume(run_dir)
    else:
        extra = {"game": spec["game"], "seed": spec["seed"], "config": spec["config"],
                 "init_from": None}
        run = TuneLeanRun.start(run_dir, spec["config"], extra, spec["seed"], total)
    run.extra["total_timesteps"] = total
    state = run.extra.setdefault("tune", {})
    starts = state.setdefault("starts", [])
    if not starts or run.num_timesteps < total:  # (not a finished trial run again)
        starts.append(run.num_timesteps)
    run.attempt_start = run._last_report = time.perf_counter()
    run.wall_before = float(state.get("wall_seconds", 0.0))
    run.crash_after_checkpoint = bool(spec.get("crash_once")) and len(starts) == 1
    run.run(total, should_stop=run.heartbeat, progress=False)
    write_final_model(run_dir, run.sb3_model())
    report_to_tune(run)
