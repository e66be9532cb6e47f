#!/usr/bin/env python
"""Ray Tune sweeps of the lean PPO trainer: several seeds and/or a grid of config overrides.

Each trial is one run of ``scripts/train.py``'s training
(:class:`agents.training.ppo.runs.LeanRun`, so configs with ``"trainer": "lean"``, such as
the committed ``penta`` and ``dice-poker``) in its
own run directory ``<runs>/trials/<grid point>/seed<SEED>/``, with the same files as a
``train.py`` run: ``checkpoint.pkl`` (our exact checkpoint, written between an update and the
next rollout), ``eval.csv`` (the learning curve on the config's fixed evaluation games) and
``final.zip`` (an SB3 model).  Every checkpoint is also handed to Tune, so that a trial whose
worker dies (a crash, a lost node) is restarted by Tune (``--max-failures``) and continues with
``LeanRun.resume`` from its last checkpoint -- the run directory's, or Tune's copy on another
node -- instead of starting over.  Running the same command again continues an interrupted
sweep the same way (a finished trial is not trained again).

``--seeds N`` runs seeds ``--first-seed`` .. ``+N-1`` of every grid point; ``--grid KEY=V1,V2``
(repeatable; the grid is the product of all of them) and ``--set KEY=VALUE`` (every trial) take
``train.py``'s override syntax (values are JSON).  The results -- each trial's final evaluation
(mean score on the fixed evaluation games), timesteps, training and wall-clock seconds,
restarts; and per grid point the mean and range across seeds -- go to ``tune.md``,
``tune_trials.csv`` and ``tune_points.csv`` in ``--out`` (default ``runs/tune/<name>/``, where
the trial runs and Tune's own state also live; the committed ``results/`` only with an explicit
``--out results``, and then the runs stay under ``runs/tune/<name>/``).

Ray runs locally by default (``ray.init(num_cpus=--num-cpus)``); ``--address auto`` (or
``ray://HOST:10001``) joins a running cluster, whose every node needs this checkout installed
(``pip install -e ".[train,ray]"``) and, for restarts on another node, a shared ``--storage``.

Example: ``python scripts/tune.py penta --seeds 3 --timesteps 200000 --grid
ppo.ent_coef=0.003,0.01``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _cli_args import at_least

from agents.training.ppo import (
    CHECKPOINT_NAME,
    LeanRun,
    apply_overrides,
    load_config,
    read_checkpoint,
    whole_rollouts,
    write_final_model,
)
from dice_env.io import atomic_write_bytes, atomic_write_text

ROOT = Path(__file__).resolve().parent.parent
#: test hook: comma-separated trial numbers (0-based, table order) whose worker dies
#: (``os._exit``) right after the first checkpoint of their first attempt
CRASH_ENV = "DICE_ENV_TUNE_TEST_CRASH"
INSTALL_HINT = 'pip install -e ".[ray]"'


# -- the grid ----------------------------------------------------------------------------------
def split_values(text: str) -> list[str]:
    """``"a,[1,2],{"x": 3}"`` -> ``["a", "[1,2]", '{"x": 3}']``: commas inside brackets,
    braces or quotes do not split."""
    values, depth, quote, current = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            values.append("".join(current))
            current = []
            continue
        current.append(ch)
    values.append("".join(current))
    return values


def parse_grid(items: list[str]) -> list[tuple[str, list[str]]]:
    """``["ppo.ent_coef=0.003,0.01"]`` -> ``[("ppo.ent_coef", ["0.003", "0.01"])]``;
    ``ValueError`` for a malformed item or a key given twice."""
    grid: list[tuple[str, list[str]]] = []
    for item in items:
        key, sep, raw = item.partition("=")
        values = split_values(raw)
        if not sep or not key or any(not v for v in values):
            raise ValueError(f"--grid {item!r} should look like KEY=V1,V2,..., e.g. "
                             "ppo.ent_coef=0.003,0.01")
        if key in (k for k, _ in grid):
            raise ValueError(f"--grid gives {key!r} twice; list all its values in one --grid")
        if len(set(values)) != len(values):
            raise ValueError(f"--grid {item!r} repeats a value")
        grid.append((key, values))
    return grid


def grid_points(grid: list[tuple[str, list[str]]]) -> list[list[str]]:
    """Every combination of the grid as a list of ``KEY=VALUE`` overrides (one empty point
    without a grid)."""
    keys = [k for k, _ in grid]
    return [[f"{k}={v}" for k, v in zip(keys, combo)]
            for combo in itertools.product(*(values for _, values in grid))]


def point_slug(point: list[str]) -> str:
    """A folder name for a grid point: ``ppo.ent_coef=0.01`` (long ones shortened + hash)."""
    if not point:
        return "base"
    text = ",".join(point)
    slug = re.sub(r"[^A-Za-z0-9._=,+-]+", "_", text)
    if len(slug) > 80 or slug != text:
        slug = slug[:70] + "-" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return slug


# -- one trial (runs in a Ray worker) ----------------------------------------------------------
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


# -- the driver --------------------------------------------------------------------------------
def plan_trials(args: argparse.Namespace, parser: argparse.ArgumentParser,
                runs: Path) -> list[dict]:
    """The trials of the sweep (grid point x seed), checked; one-line errors via ``parser``."""
    try:
        grid = parse_grid(args.grid)
        base = apply_overrides(load_config(args.game, args.config), args.set)
        points = grid_points(grid)
        configs = [apply_overrides(base, point) for point in points]
    except ValueError as err:
        parser.error(str(err))
    if base.get("trainer", "sb3") != "lean":
        parser.error(f"tune.py runs the lean trainer; the {args.game!r} config uses "
                     f"{base.get('trainer', 'sb3')!r} (pass a config with \"trainer\": \"lean\")")
    crash = {int(i) for i in os.environ.get(CRASH_ENV, "").split(",") if i.strip().isdigit()}
    slugs = [point_slug(p) for p in points]
    if len(set(slugs)) != len(slugs):
        parser.error("two grid points map to the same folder name; simplify the --grid values")
    trials = []
    for point, slug, config in zip(points, slugs, configs):
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            try:
                total = whole_rollouts(config, args.timesteps or config["total_timesteps"])
            except (KeyError, TypeError, ValueError) as err:
                parser.error(f"grid point {','.join(point) or 'base'}: bad config ({err!r})")
            label = f"{slug}/seed{seed}"
            run_dir = (runs / "trials" / slug / f"seed{seed}").resolve()
            if (run_dir / CHECKPOINT_NAME).exists():
                try:
                    extra = read_checkpoint(run_dir).get("extra", {})
                except ValueError as err:
                    parser.error(str(err))
                if (extra.get("game"), extra.get("seed"), extra.get("config")) != \
                        (args.game, seed, config):
                    parser.error(f"{run_dir} holds a run of other settings; choose another "
                                 "--out / --name, or delete it")
            trials.append({"index": len(trials), "label": label, "point": ",".join(point),
                           "game": args.game, "seed": seed, "config": config, "total": total,
                           "run_dir": str(run_dir), "threads": args.cpus_per_trial,
                           "crash_once": len(trials) in crash})
    return trials


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


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def to_markdown(rows: list[dict], points: list[dict], meta: dict) -> str:
    """The sweep's tables: per grid point (mean and range across seeds), then per trial."""
    metric = rows[0]["metric"] if rows else "mean_score"
    what = "mean score" if metric == "mean_score" else "win rate"
    lines = ["# Tune sweep", "", f"Generated by `{meta['command']}`.", "",
             f"Game **{meta['game']}**, {meta['trials']} trials ({meta['seeds']} seeds per grid "
             f"point), {meta['total_timesteps']} timesteps each; Ray {meta['ray']}, "
             f"{meta['cpus_per_trial']} CPU per trial, max {meta['max_failures']} restarts; "
             f"{meta['wall_seconds']:.0f} s wall-clock in all.  The final {what} is the "
             f"deterministic policy's on the config's fixed evaluation games "
             f"({meta['eval_games']:,} games, seed {meta['eval_seed']}).", "",
             f"| grid point | seeds done | {what}: mean | min | max | mean wall-clock s |",
             "|---|---:|---:|---:|---:|---:|"]
    for p in points:
        lines.append(f"| {p['point']} | {p['done']}/{p['seeds']} | **{_fmt(p['mean'])}** | "
                     f"{_fmt(p['min'])} | {_fmt(p['max'])} | {_fmt(p['mean_wall_seconds'], 0)} |")
    lines += ["", f"| grid point | seed | status | final {what} | ± sem | timesteps | train s | "
              "wall s | steps/s | restarts (resumed at) |",
              "|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        restarts = str(r["restarts"])
        if r["restarts"]:
            restarts += " (" + ", ".join(f"{int(s):,}" for s in str(r["starts"]).split(",")[1:]) \
                + ")"
        lines.append(f"| {r['point']} | {r['seed']} | {r['status']} | {_fmt(r['final'])} | "
                     f"{_fmt(r['sem'])} | {_fmt(r['timesteps'])} | {_fmt(r['train_seconds'], 0)} "
                     f"| {_fmt(r['wall_seconds'], 0)} | {_fmt(r['steps_per_s'])} | {restarts} |")
    return "\n".join(lines) + "\n"


def _csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in rows)
    return buf.getvalue()


def write_tables(out: Path, rows: list[dict], points: list[dict], meta: dict) -> list[Path]:
    """``tune.md``, ``tune_trials.csv`` and ``tune_points.csv`` in ``out``, atomically."""
    paths = [out / "tune.md", out / "tune_trials.csv", out / "tune_points.csv"]
    atomic_write_text(paths[0], to_markdown(rows, points, meta))
    atomic_write_text(paths[1], _csv(rows))
    atomic_write_text(paths[2], _csv(points))
    return paths


def _progress_callback(trials: list[dict], max_failures: int):
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


def default_name(args: argparse.Namespace) -> str:
    """``<game>-<hash of the settings>``: the same command reuses (and resumes) its folder."""
    key = json.dumps([args.game, str(args.config), args.set, args.grid, args.seeds,
                      args.first_seed, args.timesteps], sort_keys=True)
    return f"{args.game}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``scripts/tune.py``."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Runs of the same command continue where the last one stopped. The trials, Tune's "
               "state and (by default) the tables live in runs/tune/<name>/.")
    parser.add_argument("game", help="a config name (penta, dice-poker) with the lean trainer")
    parser.add_argument("--config", type=Path, default=None, help="config file to use instead")
    parser.add_argument("--seeds", type=at_least(1), default=3,
                        help="seeds per grid point (default %(default)s)")
    parser.add_argument("--first-seed", type=at_least(0), default=0,
                        help="the first seed (default %(default)s)")
    parser.add_argument("--timesteps", type=at_least(1), default=None,
                        help="timesteps per trial (default: the config's), rounded up to whole "
                             "rollouts")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config entry in every trial (as train.py; repeatable)")
    parser.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2",
                        help="a config entry to sweep (VALUEs are JSON; repeatable: the grid is "
                             "the product)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where the tables go (default runs/tune/<name>)")
    parser.add_argument("--name", default=None,
                        help="the sweep's name (default: <game>-<hash of the settings>)")
    parser.add_argument("--num-cpus", type=at_least(1), default=None,
                        help="CPUs of the local Ray (default: all); ignored with --address")
    parser.add_argument("--cpus-per-trial", type=at_least(1), default=1,
                        help="CPUs (and torch threads) per trial (default %(default)s)")
    parser.add_argument("--max-failures", type=at_least(0), default=3,
                        help="restarts of a trial whose worker fails (default %(default)s)")
    parser.add_argument("--address", default=None,
                        help="join this Ray cluster (e.g. auto, ray://HOST:10001) instead of "
                             "starting a local one")
    parser.add_argument("--storage", default=None,
                        help="Tune's storage (default <runs>/ray); a cluster needs a shared or "
                             "cloud path for restarts on another node")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Run the sweep; returns ``{"trials": rows, "points": points, "out": path}``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.name is not None and not re.fullmatch(r"[A-Za-z0-9._-]+", args.name):
        parser.error(f"--name {args.name!r}: use letters, digits, '.', '_' and '-' only")
    name = args.name or default_name(args)
    adhoc = Path("runs") / "tune" / name
    out = args.out if args.out is not None else adhoc
    committed = (ROOT / "results").resolve()
    runs = adhoc if out.resolve() == committed else out
    trials = plan_trials(args, parser, runs)
    # Tune warns about frequent experiment snapshots (a checkpoint each few seconds in a tiny
    # sweep); the trials' own output goes to files in Tune's trial folders, not the terminal
    os.environ.setdefault("TUNE_WARN_EXCESSIVE_EXPERIMENT_CHECKPOINT_SYNC_THRESHOLD_S", "0")
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # the classic output: verbose=0 is quiet
    try:
        import ray
        from ray import tune
    except ImportError:
        parser.error(f"tune.py needs Ray: {INSTALL_HINT}")
    storage = args.storage or str((runs / "ray").resolve())
    totals = sorted({t["total"] for t in trials})
    print(f"{len(trials)} trials ({len(trials) // args.seeds} grid points x {args.seeds} seeds) "
          f"of {' / '.join(f'{t:,}' for t in totals)} timesteps; runs in {runs}/trials, tables "
          f"in {out}", flush=True)
    started_ray = False
    clock = time.perf_counter()
    if not ray.is_initialized():
        if args.address:
            ray.init(address=args.address, log_to_driver=False)
        else:
            ray.init(num_cpus=args.num_cpus or os.cpu_count(), include_dashboard=False,
                     log_to_driver=False)
        started_ray = True
        print(f"Ray {ray.__version__} up in {time.perf_counter() - clock:.1f} s: "
              f"{ray.cluster_resources().get('CPU', 0):.0f} CPUs", flush=True)
    if __name__ != "__main__":  # imported (tests): ship this module's code to the workers
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        tuner = tune.Tuner(
            tune.with_resources(run_trial, {"cpu": args.cpus_per_trial}),
            param_space={"trial": tune.grid_search(trials)},
            tune_config=tune.TuneConfig(
                trial_name_creator=lambda t: t.config["trial"]["label"],
                trial_dirname_creator=lambda t: "trial{index:03d}-{label}".format(
                    **t.config["trial"]).replace("/", "-"),
                reuse_actors=False),
            run_config=tune.RunConfig(
                name="tune", storage_path=storage, verbose=0, log_to_file=True,
                failure_config=tune.FailureConfig(max_failures=args.max_failures),
                checkpoint_config=tune.CheckpointConfig(num_to_keep=1),
                callbacks=[_progress_callback(trials, args.max_failures)]))
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
    rows, points = summarize(trials, results)
    config = trials[0]["config"]
    meta = {"command": "python scripts/tune.py " + shlex.join(sys.argv[1:] if argv is None
                                                              else argv),
            "game": args.game, "trials": len(trials), "seeds": args.seeds,
            "total_timesteps": " / ".join(f"{t:,}" for t in totals), "ray": ray.__version__,
            "cpus_per_trial": args.cpus_per_trial, "max_failures": args.max_failures,
            "wall_seconds": time.perf_counter() - clock,
            "eval_games": config["eval"]["games"], "eval_seed": config["eval"]["seed"]}
    paths = write_tables(out, rows, points, meta)
    print(to_markdown(rows, points, meta))
    print("wrote " + ", ".join(str(p) for p in paths))
    unfinished = [r for r in rows if r["status"] != "done"]
    if unfinished:
        print(f"{len(unfinished)} of {len(rows)} trials did not finish; run the same command "
              "again to continue them from their checkpoints", file=sys.stderr)
    return {"trials": rows, "points": points, "out": str(out), "ok": not unfinished}


if __name__ == "__main__":
    sys.exit(0 if main()["ok"] else 1)
