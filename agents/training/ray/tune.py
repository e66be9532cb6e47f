"""A Ray Tune sweep of the lean PPO trainer: the trials (grid point x seed) planned and checked,
run on Tune with restarts from their checkpoints, and summarized per trial and per grid point.

Each trial is one lean run (:mod:`.trial`) in ``<runs>/trials/<grid point>/seed<SEED>/``;
Tune's own state lives in ``--storage`` (default ``<runs>/ray``).  The tables are written by
:mod:`agents.evaluation.reports.tune`.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.training.ppo import (
    CHECKPOINT_NAME,
    apply_overrides,
    read_checkpoint,
    whole_rollouts,
)
from agents.training.ppo.config import check_config
from agents.training.ppo.envs import check_env_kwargs
from agents.training.ppo.session import checked_config
from agents.training.ray.grid import grid_points, parse_grid, point_slug
from agents.training.ray.trial import CRASH_ENV, run_trial

__all__ = ["INSTALL_HINT", "SweepSettings", "default_name", "plan_trials", "require_ray",
           "run_sweep", "summarize"]

INSTALL_HINT = 'pip install "dice-env[ray]" (in a checkout: pip install -e ".[ray]")'


@dataclass(frozen=True)
class SweepSettings:
    """What a sweep trains: a game's config (or ``config_file``) with ``overrides`` in every
    trial, the ``grid`` (``KEY=V1,V2`` items), ``seeds`` seeds from ``first_seed``, and
    ``timesteps`` per trial (None: the config's)."""

    game: str
    config_file: Path | None = None
    overrides: tuple[str, ...] = ()
    grid: tuple[str, ...] = ()
    seeds: int = 3
    first_seed: int = 0
    timesteps: int | None = None


def default_name(settings: SweepSettings) -> str:
    """``<game>-<hash of the settings>``: the same command reuses (and resumes) its folder."""
    key = json.dumps([settings.game, str(settings.config_file), list(settings.overrides),
                      list(settings.grid), settings.seeds, settings.first_seed,
                      settings.timesteps], sort_keys=True)
    return f"{settings.game}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def plan_trials(settings: SweepSettings, runs: Path, cpus_per_trial: int = 1) -> list[dict]:
    """The trials of the sweep (grid point x seed), their run folders under ``runs/trials``,
    checked against what those folders already hold; ``ValueError`` (one line) for a bad grid,
    override or config, or a folder holding a run of other settings."""
    grid = parse_grid(list(settings.grid))
    base = checked_config(settings.game, settings.config_file, settings.overrides)
    points = grid_points(grid)
    configs = [apply_overrides(base, point) for point in points]
    for config in configs:  # every value of the grid, checked as --set checks its values
        try:
            check_config(config)
            if config.get("env_kwargs") != base.get("env_kwargs"):
                check_env_kwargs(config)
        except ValueError as err:
            raise ValueError(f"argument --grid: {err}") from None
    if base.get("trainer", "sb3") != "lean":
        raise ValueError(f"tune runs the lean trainer; the {settings.game!r} config uses "
                         f"{base.get('trainer', 'sb3')!r} (pass a config with "
                         "\"trainer\": \"lean\")")
    crash = {int(i) for i in os.environ.get(CRASH_ENV, "").split(",") if i.strip().isdigit()}
    slugs = [point_slug(p) for p in points]
    if len(set(slugs)) != len(slugs):
        raise ValueError("two grid points map to the same folder name; simplify the --grid "
                         "values")
    trials = []
    for point, slug, config in zip(points, slugs, configs):
        for seed in range(settings.first_seed, settings.first_seed + settings.seeds):
            try:
                total = whole_rollouts(config, settings.timesteps or config["total_timesteps"])
            except (KeyError, TypeError, ValueError) as err:
                raise ValueError(f"grid point {','.join(point) or 'base'}: bad config "
                                 f"({err!r})") from None
            run_dir = (runs / "trials" / slug / f"seed{seed}").resolve()
            if (run_dir / CHECKPOINT_NAME).exists():
                extra = read_checkpoint(run_dir).get("extra", {})
                if (extra.get("game"), extra.get("seed"), extra.get("config")) != \
                        (settings.game, seed, config):
                    raise ValueError(f"{run_dir} holds a run of other settings; choose another "
                                     "--out / --name, or delete it")
            trials.append({"index": len(trials), "label": f"{slug}/seed{seed}",
                           "point": ",".join(point), "game": settings.game, "seed": seed,
                           "config": config, "total": total, "run_dir": str(run_dir),
                           "threads": cpus_per_trial, "crash_once": len(trials) in crash})
    return trials


def require_ray() -> str:
    """Ray's version; ``ImportError`` when Ray Tune is not installed."""
    import ray
    from ray import tune  # noqa: F401

    return ray.__version__


def _progress_callback(max_failures: int) -> Any:
    """A Tune callback printing one line per evaluation, restart, error and finished trial."""
    from ray import tune

    def label(trial) -> str:
        return trial.config["trial"]["label"]

    class Progress(tune.Callback):
        def __init__(self) -> None:
            self.start = time.perf_counter()
            self.seen: dict[str, tuple[int, float]] = {}

        def _say(self, text: str) -> None:
            print(f"[{time.perf_counter() - self.start:6.0f}s] {text}", flush=True)

        def on_trial_start(self, iteration, trials, trial, **info) -> None:
            self._say(f"{label(trial)}: started")

        def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
            at, now = result.get("eval_timesteps", -1), time.perf_counter()
            seen_at, said = self.seen.get(trial.trial_id, (None, 0.0))
            if seen_at == at and now - said < 60:  # a new evaluation, or once a minute
                return
            self.seen[trial.trial_id] = (at, now)
            metric = "win_rate" if "win_rate" in result else "mean_score"
            self._say(f"{label(trial)}: {result['timesteps']:,}/{result['total_timesteps']:,} "
                      f"steps, {metric} {result.get(metric, float('nan')):.2f} at {at:,} steps")

        def on_trial_recover(self, iteration, trials, trial, **info) -> None:
            self._say(f"{label(trial)}: its worker failed; restarting it from its last "
                      f"checkpoint (max {max_failures} restarts)")

        def on_trial_error(self, iteration, trials, trial, **info) -> None:
            self._say(f"{label(trial)}: FAILED (see {trial.path}/error.txt)")

        def on_trial_complete(self, iteration, trials, trial, **info) -> None:
            self._say(f"{label(trial)}: done")

    return Progress()


def run_sweep(trials: list[dict], storage: str, *, cpus_per_trial: int = 1,
              max_failures: int = 3, address: str | None = None,
              num_cpus: int | None = None) -> dict[int, dict]:
    """Run the trials on Tune (a local Ray of ``num_cpus`` CPUs, or the cluster at
    ``address``) and return each trial's last metrics by its index (``"error"`` for a failed
    one).  Running the same trials again continues them from their checkpoints; Ctrl-C stops
    them, each keeping its last checkpoint."""
    # Tune warns about frequent experiment snapshots (a checkpoint each few seconds in a tiny
    # sweep); the trials' own output goes to files in Tune's trial folders, not the terminal
    os.environ.setdefault("TUNE_WARN_EXCESSIVE_EXPERIMENT_CHECKPOINT_SYNC_THRESHOLD_S", "0")
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # the classic output: verbose=0 is quiet
    import ray
    from ray import tune

    started_ray = False
    if not ray.is_initialized():
        clock = time.perf_counter()
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=num_cpus or os.cpu_count(), include_dashboard=False,
                     log_to_driver=False)
        started_ray = True
        print(f"Ray {ray.__version__} up in {time.perf_counter() - clock:.1f} s: "
              f"{ray.cluster_resources().get('CPU', 0):.0f} CPUs", flush=True)
    try:
        tuner = tune.Tuner(
            tune.with_resources(run_trial, {"cpu": cpus_per_trial}),
            param_space={"trial": tune.grid_search(trials)},
            tune_config=tune.TuneConfig(
                trial_name_creator=lambda t: t.config["trial"]["label"],
                trial_dirname_creator=lambda t: "trial{index:03d}-{label}".format(
                    **t.config["trial"]).replace("/", "-"),
                reuse_actors=False),
            run_config=tune.RunConfig(
                name="tune", storage_path=storage, verbose=0, log_to_file=True,
                failure_config=tune.FailureConfig(max_failures=max_failures),
                checkpoint_config=tune.CheckpointConfig(num_to_keep=1),
                callbacks=[_progress_callback(max_failures)]))
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGUSR1)}
        try:  # Ctrl-C: Tune stops the trials (each keeps its last checkpoint) and returns
            grid = tuner.fit()
        finally:  # Tune leaves its handlers installed
            if threading.current_thread() is threading.main_thread():
                for sig, handler in handlers.items():
                    signal.signal(sig, handler)
        results: dict[int, dict] = {}
        for result in grid:
            index = result.config["trial"]["index"]
            results[index] = dict(result.metrics or {})
            if result.error is not None:
                results[index]["error"] = f"{type(result.error).__name__}: " + \
                    str(result.error).strip().splitlines()[-1][:200]
    finally:
        if started_ray:
            ray.shutdown()
    return results


def summarize(trials: list[dict], results: dict[int, dict]) -> tuple[list[dict], list[dict]]:
    """(one row per trial, one row per grid point: mean and range of the final evaluation)."""
    rows = []
    for trial in trials:
        m = results.get(trial["index"], {})
        done = m.get("timesteps", -1) >= trial["total"] and m.get("eval_timesteps") == \
            m.get("timesteps") and not m.get("error")
        metric = "win_rate" if "win_rate" in m else "mean_score"
        steps_per_s = m["timesteps"] / m["train_seconds"] if m.get("train_seconds") else None
        rows.append({"point": trial["point"] or "base", "seed": trial["seed"],
                     "status": "done" if done else ("error" if m.get("error") else "unfinished"),
                     "metric": metric, "final": m.get(metric), "sem": m.get("sem"),
                     "eval_timesteps": m.get("eval_timesteps"), "timesteps": m.get("timesteps"),
                     "total_timesteps": trial["total"], "train_seconds": m.get("train_seconds"),
                     "wall_seconds": m.get("wall_seconds"),
                     "steps_per_s": round(steps_per_s) if steps_per_s else None,
                     "restarts": max(0, m.get("attempts", 1) - 1),
                     "starts": m.get("starts", ""), "run_dir": trial["run_dir"],
                     "error": m.get("error", "")})
    points = []
    for point in dict.fromkeys(r["point"] for r in rows):
        mine = [r for r in rows if r["point"] == point]
        finals = [r["final"] for r in mine if r["status"] == "done" and r["final"] is not None]
        points.append({"point": point, "metric": mine[0]["metric"], "seeds": len(mine),
                       "done": len(finals),
                       "mean": sum(finals) / len(finals) if finals else None,
                       "min": min(finals) if finals else None,
                       "max": max(finals) if finals else None,
                       "mean_wall_seconds": (sum(r["wall_seconds"] or 0 for r in mine)
                                             / len(mine))})
    return rows, points
