"""Training of the learned turn-start win probability of 5000 by fitted value iteration.

The network ``W(my, opp)`` of :mod:`agents.fivethousand.learned_value` is trained to be a fixed
point of the exact within-turn solve: every iteration

1. evaluates the network on every turn-start pair of the score grid (``K * K`` = 2116 pairs
   for 5000) -- the leaves ``W``;
2. solves one turn exactly from every pair with those leaves
   (:func:`~agents.fivethousand.learned_value.turn_start_values`, about 0.1 s) -- the targets
   ``V = T(W)``, a full Bellman backup;
3. fits the network to ``V`` by a hundred full-batch Adam steps, warm-started.

``W`` appears on both sides (a bust or a bank hands the turn to the opponent, a bump sends a
score back to 0), so this is a fixed-point iteration (Jacobi style), not a backward sweep; it
takes about a hundred iterations for the end game's values to reach the opening.  It stops
when the Bellman residual ``max |T(W) - W|`` has not improved for ``patience`` iterations
(after ``min_iterations``), at ``max_iterations``, or when the time budget is spent; a last,
longer fit at a lower learning rate polishes the network on the final targets.

Nothing here reads the exact solver's tables: the only teacher is the rules module.  Every
iteration records a learning-curve row (iteration, states solved so far, wall seconds, the
Bellman residual, the change of ``W``, the fit error, and ``W(0, 0)``: the opener's win
probability as the network sees it); the final fit adds a row of phase ``"polish"``.

CLI: :func:`main` (``scripts/train_learned_value.py fivethousand``, or ``python -m
agents.training.learned_value.fivethousand``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from agents.fivethousand.learned_value import ValueModel, rules_of, turn_start_values
from agents.training.learned_value.files import write_model_and_curve
from dice_env.fivethousand.rules import FiveThousandRules

__all__ = ["TrainConfig", "TrainResult", "main", "train", "write_outputs"]

CURVE_COLUMNS = ("iteration", "phase", "states_solved", "seconds", "bellman_residual",
                 "bellman_rms", "w_change", "fit_rmse", "fit_max", "w_start")


@dataclass
class TrainConfig:
    """The knobs of :func:`train`.

    Attributes:
        seed: seeds the network's initial weights (the training is otherwise deterministic).
        rules: the 5000 rule knobs (literal rules; default the standard game).
        hidden: the MLP's hidden widths.
        lr: Adam's learning rate during the iterations.
        fit_steps: full-batch Adam steps per iteration.
        final_steps: steps of the final polishing fit (learning rate decaying from ``lr`` to
            ``lr / 100``), 0 to skip.
        min_iterations, max_iterations: bounds on the fixed-point iterations.
        patience: stop when the Bellman residual has not improved by ``min_improvement``
            (relative) for this many iterations.
        min_improvement: see ``patience``.
        minutes: wall-clock budget of the whole run (the final fit included), None for none.
        threads: torch threads (0: leave torch's default).
        device: torch device.
        progress: show a tqdm bar.
    """

    seed: int = 0
    rules: dict = field(default_factory=lambda: FiveThousandRules().knobs())
    hidden: tuple[int, ...] = (64, 64)
    lr: float = 3e-3
    fit_steps: int = 100
    final_steps: int = 3000
    min_iterations: int = 60
    max_iterations: int = 400
    patience: int = 25
    min_improvement: float = 0.02
    minutes: float | None = 10.0
    threads: int = 1
    device: str = "cpu"
    progress: bool = True


@dataclass
class TrainResult:
    """A trained model with its learning curve (one dict per iteration, keys
    :data:`CURVE_COLUMNS`) and the wall-clock seconds of the run."""

    model: ValueModel
    config: TrainConfig
    curve: list[dict]
    seconds: float

    def meta(self) -> dict:
        """What the checkpoint records about its training."""
        last = self.curve[-1] if self.curve else {}
        return {"config": asdict(self.config), "seconds": round(self.seconds, 1),
                "iterations": len(self.curve), "final": last}


def _fit(model: ValueModel, opt: torch.optim.Optimizer, targets: torch.Tensor, steps: int,
         sched: torch.optim.lr_scheduler.LRScheduler | None = None) -> None:
    """Full-batch Adam steps on the squared error of the win probability."""
    x = model.grid_features
    model.net.train()
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = torch.mean((torch.sigmoid(model.net(x)) - targets) ** 2)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
    model.net.eval()


def train(config: TrainConfig) -> TrainResult:
    """Train a learned-value model by fitted value iteration (see the module doc)."""
    t0 = time.perf_counter()
    if config.threads:
        torch.set_num_threads(config.threads)
    rules = rules_of(config.rules)
    model = ValueModel(rules, config.hidden, seed=config.seed, device=config.device)
    tm = model.turn_model
    n_pairs = tm.n_scores ** 2
    opt = torch.optim.Adam(model.net.parameters(), lr=config.lr)
    budget = None if config.minutes is None else 60.0 * config.minutes
    curve: list[dict] = []
    bar = None
    if config.progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=config.max_iterations, desc="learned-value fivethousand", unit="it")
    w = model.w_table()
    best, since_best = np.inf, 0
    targets = None
    iter_seconds = 0.0
    try:
        for it in range(1, config.max_iterations + 1):
            ti = time.perf_counter()
            v = turn_start_values(tm, w)
            residual = float(np.abs(v - w).max())
            rms = float(np.sqrt(np.mean((v - w) ** 2)))
            targets = torch.as_tensor(v.ravel(), dtype=torch.float32, device=model.device)
            _fit(model, opt, targets, config.fit_steps)
            w_new = model.w_table()
            err = w_new - v
            curve.append({"iteration": it, "phase": "iterate", "states_solved": it * n_pairs,
                          "seconds": round(time.perf_counter() - t0, 2),
                          "bellman_residual": residual, "bellman_rms": rms,
                          "w_change": float(np.abs(w_new - w).max()),
                          "fit_rmse": float(np.sqrt(np.mean(err ** 2))),
                          "fit_max": float(np.abs(err).max()),
                          "w_start": float(w_new[0, 0])})
            w = w_new
            if bar is not None:
                bar.update(1)
                bar.set_postfix(residual=f"{residual:.1e}", fit=f"{curve[-1]['fit_rmse']:.1e}")
            if residual < best * (1.0 - config.min_improvement):
                best, since_best = residual, 0
            else:
                since_best += 1
            iter_seconds = max(iter_seconds, time.perf_counter() - ti)
            if it >= config.min_iterations and since_best >= config.patience:
                break
            if budget is not None:
                final_cost = iter_seconds * config.final_steps / max(config.fit_steps, 1)
                if time.perf_counter() - t0 + iter_seconds + final_cost > budget:
                    break
    finally:
        if bar is not None:
            bar.close()
    if config.final_steps and targets is not None:
        # polish: fit the last targets (one more backup of the current W) at a decaying rate
        v = turn_start_values(tm, w)
        targets = torch.as_tensor(v.ravel(), dtype=torch.float32, device=model.device)
        for group in opt.param_groups:
            group["lr"] = config.lr
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, config.final_steps,
                                                           eta_min=config.lr / 100)
        _fit(model, opt, targets, config.final_steps, sched)
        w_new = model.w_table()
        v2 = turn_start_values(tm, w_new)
        err = w_new - v
        done = len(curve)
        curve.append({"iteration": done + 1, "phase": "polish",
                      "states_solved": (done + 2) * n_pairs,
                      "seconds": round(time.perf_counter() - t0, 2),
                      "bellman_residual": float(np.abs(v2 - w_new).max()),
                      "bellman_rms": float(np.sqrt(np.mean((v2 - w_new) ** 2))),
                      "w_change": float(np.abs(w_new - w).max()),
                      "fit_rmse": float(np.sqrt(np.mean(err ** 2))),
                      "fit_max": float(np.abs(err).max()), "w_start": float(w_new[0, 0])})
    return TrainResult(model, config, curve, time.perf_counter() - t0)


def write_outputs(result: TrainResult, model_path: str | Path) -> dict[str, Path]:
    """Write the model and, next to it, its learning curve as JSON and CSV (atomically).

    Returns the paths written: ``model``, ``curve_json``, ``curve_csv`` (``<stem>.curve.json``
    and ``<stem>.curve.csv``).
    """
    return write_model_and_curve(result, model_path, CURVE_COLUMNS)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI: train a 5000 learned-value model and write it.

    Writes ``model.pt`` and ``model.curve.{csv,json}`` under ``--out`` (default
    ``runs/learned-value-fivethousand-seed<seed>/``) and, with ``--export PATH``, the same
    model and curve at ``PATH`` (e.g. ``results/models/learned-value-fivethousand.pt``).
    Returns the exit code (2 with a one-line message for bad arguments).
    """
    parser = _Parser(prog="train_learned_value.py fivethousand",
                     description="Train the 5000 learned-value player (fitted value iteration).")
    parser.add_argument("--seed", type=int, default=0, help="seed of the initial weights")
    parser.add_argument("--out", type=Path, default=None,
                        help="run folder (default runs/learned-value-fivethousand-seed<seed>/)")
    parser.add_argument("--export", type=Path, default=None,
                        help="also write the model here (and its curve next to it)")
    parser.add_argument("--minutes", type=float, default=10.0, help="wall-clock budget")
    parser.add_argument("--max-iterations", type=int, default=TrainConfig.max_iterations)
    parser.add_argument("--fit-steps", type=int, default=TrainConfig.fit_steps,
                        help="Adam steps per iteration")
    parser.add_argument("--final-steps", type=int, default=TrainConfig.final_steps,
                        help="steps of the final polishing fit")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: default)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if not args.minutes > 0:
        parser.error(f"--minutes must be positive, got {args.minutes}")
    if args.max_iterations < 1:
        parser.error(f"--max-iterations must be at least 1, got {args.max_iterations}")
    if args.fit_steps < 1 or args.final_steps < 0:
        parser.error("--fit-steps must be at least 1 and --final-steps at least 0")
    if args.threads < 0:
        parser.error(f"--threads must be 0 or more, got {args.threads}")
    out = args.out or Path("runs") / f"learned-value-fivethousand-seed{args.seed}"
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} exists and is not a folder")
    if args.export is not None and args.export.is_dir():
        parser.error(f"--export {args.export} is a folder; give a file path such as "
                     f"results/models/learned-value-fivethousand.pt")
    config = TrainConfig(seed=args.seed, minutes=args.minutes,
                         max_iterations=args.max_iterations, fit_steps=args.fit_steps,
                         final_steps=args.final_steps,
                         min_iterations=min(TrainConfig.min_iterations, args.max_iterations),
                         threads=args.threads, progress=not args.no_progress)
    result = train(config)
    paths = write_outputs(result, out / "model.pt")
    if args.export is not None:
        paths = write_outputs(result, args.export)
    last = result.curve[-1]
    print(f"trained in {result.seconds:.0f} s, {len(result.curve)} iterations; Bellman "
          f"residual {last['bellman_residual']:.2e}, W(0, 0) = {last['w_start']:.4f}; "
          f"model {paths['model']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
