"""A training run of ``dice-env train`` from start to finish: set up, train, finish, export.

:func:`open_session` checks a run's options and builds its trainer (a new run, or ``resume``
from the run folder's checkpoint), raising ``ValueError`` with a one-line message for anything
that cannot train -- before a new run folder is left behind.  :meth:`TrainingSession.run` then
trains to the total (whole rollouts), answering a wall-clock budget and Ctrl-C / SIGTERM with a
checkpoint and the command that resumes; a run that reaches its total writes ``final.zip`` and,
with ``export``, copies it and its learning curve.  :func:`train` does both.

The ``command`` a session is given renders a ``train`` command line for the user (``dice-env
train ...``): the front end decides, this module only says
which arguments.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.progress import on_terminal
from agents.training.ppo.checkpoints import (
    CHECKPOINT_NAME,
    FINAL_NAME,
    load_checkpoint,
    read_checkpoint,
    read_learning_curve,
    save_checkpoint,
    write_final_model,
)
from agents.training.ppo.config import (
    apply_overrides,
    check_config,
    load_config,
    rollout_size,
    whole_rollouts,
)
from agents.training.ppo.envs import build_sb3_model, check_env_kwargs
from agents.training.ppo.runs import (
    LeanRun,
    SnapshotHook,
    StopRequest,
    make_callback,
    open_run_logger,
    record_evaluation,
    take_snapshots,
)
from dice_env.io import atomic_write_bytes

__all__ = ["TrainOptions", "TrainingSession", "checked_config", "default_command",
           "default_run_dir", "open_session", "options_args", "shown_path", "train"]

#: renders the arguments of a ``train`` command as the line a user runs
CommandLine = Callable[[Sequence[object]], str]


@dataclass(frozen=True)
class TrainOptions:
    """What a ``train`` run is asked to do (the options of ``dice-env train``).

    ``game`` is a config name (``agents/training/ppo/configs/<game>.json``, or ``config``);
    ``run_dir`` defaults to :func:`default_run_dir`; ``overrides`` are ``--set KEY=VALUE``
    entries (a resumed run keeps the settings it was started with).
    """

    game: str
    seed: int = 0
    config: Path | None = None
    timesteps: int | None = None
    run_dir: Path | None = None
    resume: bool = False
    export: Path | None = None
    init_from: Path | None = None
    device: str = "cpu"
    threads: int | None = None
    progress: bool = True
    max_minutes: float | None = None
    overrides: tuple[str, ...] = ()

    @property
    def folder(self) -> Path:
        """The run folder: ``run_dir``, else :func:`default_run_dir`."""
        return Path(self.run_dir) if self.run_dir is not None else \
            default_run_dir(self.game, self.seed)


def default_run_dir(game: str, seed: int) -> Path:
    """``runs/<game>-seed<seed>``, relative to the working directory."""
    return Path("runs") / f"{game}-seed{seed}"


def default_command(args: Sequence[object]) -> str:
    """``dice-env train ARGS`` (shell-quoted)."""
    return shlex.join(["dice-env", "train", *map(str, args)])


def shown_path(path: Path | str, cwd: Path | None = None) -> str:
    """``path`` as the user reaches it from ``cwd`` (default: the current directory): a
    relative path as given (it is relative to ``cwd`` already), an absolute one relative to
    ``cwd`` when inside it, else absolute."""
    path = Path(path)
    if not path.is_absolute():
        return str(path)
    base = Path(os.path.realpath(cwd if cwd is not None else Path.cwd()))
    for candidate in (path, Path(os.path.realpath(path))):
        try:
            return str(candidate.relative_to(base))
        except ValueError:
            continue
    return str(path)


def options_args(options: TrainOptions, runtime: bool = True) -> list[str]:
    """The ``train`` arguments of ``options``; with ``runtime=False`` without those that do not
    change the results (progress bar, threads, time budget, device)."""
    args = [options.game, "--seed", str(options.seed)]
    if options.run_dir is not None:
        args += ["--run-dir", str(options.run_dir)]
    if options.timesteps is not None:
        args += ["--timesteps", str(options.timesteps)]
    if options.init_from is not None:
        args += ["--init-from", str(options.init_from)]
    if options.config is not None:
        args += ["--config", str(options.config)]
    for override in options.overrides:
        args += ["--set", override]
    if options.export is not None:
        args += ["--export", str(options.export)]
    if options.resume:
        args.append("--resume")
    if runtime:
        if not options.progress:
            args.append("--no-progress")
        if options.threads is not None:
            args += ["--threads", str(options.threads)]
        if options.max_minutes is not None:
            args += ["--max-minutes", f"{options.max_minutes:.6g}"]
        if options.device != "cpu":
            args += ["--device", options.device]
    return args


def _checked_options(options: TrainOptions) -> None:
    if options.seed < 0:
        raise ValueError(f"argument --seed: must be at least 0, got {options.seed}")
    if options.timesteps is not None and options.timesteps < 1:
        raise ValueError(f"argument --timesteps: must be positive, got {options.timesteps}")
    if options.threads is not None and options.threads < 1:
        raise ValueError(f"argument --threads: must be positive, got {options.threads}")
    if options.max_minutes is not None and not options.max_minutes > 0:
        raise ValueError(f"argument --max-minutes: must be positive, got {options.max_minutes}")
    if options.init_from is not None and not Path(options.init_from).is_file():
        raise ValueError(f"--init-from {options.init_from}: no such model file")


def checked_config(game: str, path: Path | str | None = None,
                   overrides: Sequence[str] = ()) -> dict:
    """The config of ``game`` (or the file ``path``) with the ``--set`` ``overrides``, every
    entry checked (:func:`~agents.training.ppo.config.check_config`, and the env's options by
    building a small env): ``ValueError`` with one line naming the file or ``argument --set``
    and the entry."""
    base = load_config(game, path)
    source = path if path is not None else f"{game}.json"
    try:
        check_config(base)
        check_env_kwargs(base)
    except ValueError as err:
        raise ValueError(f"config {source}: {err}") from None
    try:
        config = apply_overrides(base, list(overrides))
        check_config(config)
        env_entries = ("env_kwargs", "env_id", "opponent")
        if [config.get(k) for k in env_entries] != [base.get(k) for k in env_entries]:
            check_env_kwargs(config)
    except ValueError as err:
        raise ValueError(f"argument --set: {err}") from None
    return config


def _config_of(options: TrainOptions) -> dict:
    """The run's config: the game's (or ``options.config``) with the overrides, checked."""
    return checked_config(options.game, options.config, options.overrides)


@dataclass
class TrainingSession:
    """A run set up by :func:`open_session`, ready to :meth:`run`."""

    options: TrainOptions
    config: dict
    run_dir: Path
    total: int
    extra: dict
    trainer: Any  # a LeanRun, or SB3's MaskablePPO model

    @property
    def lean(self) -> bool:
        return isinstance(self.trainer, LeanRun)

    @property
    def num_timesteps(self) -> int:
        return int(self.trainer.num_timesteps)

    def resume_args(self) -> list[str]:
        """The ``train`` arguments that continue this run from its checkpoint."""
        o = self.options
        args = [o.game, "--seed", str(o.seed), "--run-dir", shown_path(self.run_dir), "--resume"]
        if o.export:
            args += ["--export", shown_path(o.export)]
        return args

    def run(self, command: CommandLine = default_command,
            start_args: Sequence[object] | None = None,
            on_snapshot: SnapshotHook | None = None) -> dict:
        """Train to the total; returns the summary (``game``, ``seed``, ``timesteps``,
        ``total_timesteps``, ``stopped``: the reason or None, ``last_eval``: see
        :meth:`last_eval`, ``run_dir``).  ``on_snapshot(path, record)`` is called with each
        snapshot the run writes (config ``snapshots_at``), as soon as it is written.

        A stopped run says on stderr where its checkpoint is and the ``command`` that resumes
        it; a second Ctrl-C aborts at once (exit status 130), saying what is left and, before
        the first checkpoint, the command that starts the run again (``start_args``, by default
        those of the options)."""
        o, run_dir, total = self.options, self.run_dir, self.total
        resume = command(self.resume_args())
        start = None if o.resume else command(
            options_args(o) if start_args is None else start_args)
        stop = StopRequest(max_minutes=o.max_minutes, run_dir=run_dir, resume_command=resume,
                           start_command=start)
        with stop.installed():
            if self.lean:
                run = self.trainer
                training = run.num_timesteps < total
                stopped = run.run(total, stop, progress=training and o.progress,
                                  logger=open_run_logger(run_dir) if training else None,
                                  on_snapshot=on_snapshot)
                model = run.sb3_model()
            else:
                model, stopped = self._train_sb3(stop, on_snapshot)
        final = run_dir / FINAL_NAME
        if not stopped:
            write_final_model(run_dir, model)
            if o.export:  # the model and its learning curve, side by side
                atomic_write_bytes(o.export, final.read_bytes())
                curve = run_dir / "eval.csv"
                if curve.exists():
                    atomic_write_bytes(Path(o.export).with_suffix(".eval.csv"),
                                       curve.read_bytes())
        summary = {"game": o.game, "seed": o.seed, "timesteps": model.num_timesteps,
                   "total_timesteps": total, "stopped": stop.reason if stopped else None,
                   **self.last_eval(), "run_dir": str(run_dir)}
        if stopped:
            print(f"stopped ({stop.reason}) at {model.num_timesteps:,} of {total:,} timesteps; "
                  f"the checkpoint is in {shown_path(run_dir)}; continue with: {resume}",
                  file=sys.stderr)
        return summary

    def last_eval(self) -> dict:
        """The summary's ``last_eval``: the last evaluation in the run's ``eval.csv`` of a policy
        that has trained (more than 0 timesteps), or None -- then with ``last_eval_note``
        saying when the next one is due (a run stopped before it has only the untrained
        policy's, at 0 timesteps, which would read as though nothing was learned)."""
        curve = self.run_dir / "eval.csv"
        rows = [r for r in read_learning_curve(curve) if r["timesteps"] > 0] \
            if curve.exists() else []
        if rows:
            return {"last_eval": rows[-1]}
        every = self.config["eval"]["every_timesteps"]
        due = self.extra.get("next_eval", every)
        return {"last_eval": None,
                "last_eval_note": f"no evaluation since training began (eval.csv holds only "
                                  f"the untrained policy's, at 0 timesteps); the policy is "
                                  f"evaluated every {every:,} timesteps (eval.every_timesteps), "
                                  f"next at {due:,}"}

    def _train_sb3(self, should_stop: StopRequest,
                   on_snapshot: SnapshotHook | None = None) -> tuple[Any, bool]:
        """Train with SB3's MaskablePPO.learn; ``(model, stopped)`` at the last checkpoint."""
        model, run_dir, config, extra = self.trainer, self.run_dir, self.config, self.extra
        if self.total - model.num_timesteps <= 0:  # nothing to train: end where it is
            record_evaluation(run_dir, config, extra, model.num_timesteps, lambda: model)
            take_snapshots(run_dir, config, extra, model.num_timesteps, 0, lambda: model,
                           on_snapshot)
            save_checkpoint(run_dir, model, extra)
            return model, False
        model.set_logger(open_run_logger(run_dir))
        callback = make_callback(run_dir, config, extra, should_stop=should_stop,
                                 on_snapshot=on_snapshot)
        model.learn(self.total - model.num_timesteps, callback=callback,
                    reset_num_timesteps=False,
                    progress_bar=self.options.progress and on_terminal())
        if callback.stopped_at_deadline:
            # the checkpoint was written at the last update; the partial rollout after it
            # is dropped, so load it back before exporting
            model, _ = load_checkpoint(run_dir, device=self.options.device)
            return model, True
        callback.evaluate()
        callback.snapshot()
        save_checkpoint(run_dir, model, extra)
        return model, False


def open_session(options: TrainOptions) -> TrainingSession:
    """Check ``options`` and build the run's trainer: ``ValueError`` (one line, naming the
    argument or file) for options, configs and checkpoints that cannot train; a new run folder
    that could not be set up is removed again.  Prints the rounding of the total to whole
    rollouts, where a resumed run starts, and that a resumed run has nothing left to train."""
    _checked_options(options)
    run_dir = options.folder
    extra: dict = {}
    started_total = None
    if options.resume:
        extra = read_checkpoint(run_dir).get("extra", {})
        if extra.get("seed") != options.seed or extra.get("game") != options.game:
            raise ValueError(f"the checkpoint in {run_dir} is for game {extra.get('game')!r} "
                             f"seed {extra.get('seed')}; pass the same game and --seed")
        # A resumed run keeps the config it started with: the game need not have a config
        # file of its own (yahtzee-official trains from yahtzee-official-structured.json).
        config = extra["config"] if "config" in extra else _config_of(options)
        started_total = extra.get("total_timesteps")
    elif (run_dir / CHECKPOINT_NAME).exists():
        raise ValueError(f"{run_dir} already holds a run: pass --resume to continue it, or "
                         "choose another --run-dir")
    else:
        config = _config_of(options)
    lean = config.get("trainer", "sb3") == "lean"
    requested = options.timesteps or started_total or config["total_timesteps"]
    total = whole_rollouts(config, requested)
    if total != requested:
        print(f"training runs in whole rollouts of {rollout_size(config):,} steps: "
              f"{requested:,} requested, {total:,} to run")
    if options.threads:  # (numba's threads, started later, would undo a plain set_num_threads)
        from agents.training.threads import set_torch_threads

        set_torch_threads(options.threads)
    trainer, extra = _build(options, config, run_dir, extra, lean, total)
    done = int(trainer.num_timesteps)
    if options.resume and done < total:
        print(f"resuming {run_dir} at {done:,} timesteps, toward {total:,}")
    if options.resume and done >= total:  # nothing to train: the run ends where it is
        if started_total is None:  # (a checkpoint from before totals were kept)
            started_total = whole_rollouts(config, config["total_timesteps"])
        print(_nothing_to_train(options, done, started_total, run_dir), file=sys.stderr,
              flush=True)
        total = done
    extra["total_timesteps"] = total
    # Only a finished run has a final model (train-stages relies on it): one left from a
    # shorter total would be stale once training goes on, finished or not.
    (run_dir / FINAL_NAME).unlink(missing_ok=True)
    return TrainingSession(options, config, run_dir, total, extra, trainer)


def _build(options: TrainOptions, config: dict, run_dir: Path, extra: dict, lean: bool,
           total: int) -> tuple[Any, dict]:
    """The run's trainer (resumed, or new in a new run folder) and its ``extra`` state."""
    if options.resume:
        if lean:
            run = LeanRun.resume(run_dir)
            return run, run.extra
        return load_checkpoint(run_dir, device=options.device)
    created = not run_dir.exists()
    extra = {"game": options.game, "seed": options.seed, "config": config,
             "init_from": str(options.init_from) if options.init_from else None}
    # The trainer is built first: a config or model it refuses leaves no run folder behind
    # (a model to start from may write its learning curve into it, then it is kept).
    try:
        if lean:
            trainer: Any = LeanRun.start(run_dir, config, extra, options.seed, total,
                                         init_from=options.init_from)
        else:
            trainer = build_sb3_model(config, options.seed, options.device)
            if options.init_from:
                from sb3_contrib import MaskablePPO

                try:
                    trainer.policy.load_state_dict(MaskablePPO.load(
                        options.init_from, device=options.device).policy.state_dict())
                except (RuntimeError, KeyError) as err:  # a network of another shape
                    raise ValueError(f"cannot start from {options.init_from}: its network "
                                     f"does not fit this config ({err})") from None
    except ValueError:
        if created:  # no empty run folder left behind
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    run_dir.mkdir(parents=True, exist_ok=True)
    return trainer, extra


def _nothing_to_train(options: TrainOptions, done: int, started_total: int,
                      run_dir: Path) -> str:
    if options.timesteps is None:
        return (f"the run is already at {done:,} timesteps, its total: nothing to train; pass "
                "a larger --timesteps to continue")
    note = (f"the run is already at {done:,} timesteps, which is at least --timesteps "
            f"{options.timesteps:,}: nothing to train; pass a larger --timesteps to continue "
            f"(the run's total was {started_total:,})")
    if started_total > done:
        note += f"; it ends here, its final model in {shown_path(run_dir / FINAL_NAME)}"
    return note


def train(options: TrainOptions, command: CommandLine = default_command,
          start_args: Sequence[object] | None = None,
          on_snapshot: SnapshotHook | None = None) -> dict:
    """Open a session and run it (:func:`open_session`, :meth:`TrainingSession.run`, which
    calls ``on_snapshot`` with each snapshot); returns the run's summary."""
    return open_session(options).run(command, start_args, on_snapshot)
