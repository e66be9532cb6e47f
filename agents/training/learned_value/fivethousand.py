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

**N players** (:func:`train_n`, ``--players N`` for 3 to 6): the network
``W(s_0, ..., s_{N-1})`` of :class:`~agents.fivethousand.learned_value.NValueModel` (every
seat's win probability at a turn start, the scores in turn order from the mover) is trained
the same way, but the score tuples are too many to back up all at once (97,336 for three
players, 4.5 million for four), so every iteration backs up a fresh sample of them
(:func:`sample_states`) by the exact N-player turn solve
(:func:`~agents.fivethousand.learned_value.solve_n_turns`, each mover maximising its own win
probability) and fits the network on the latest few iterations' targets with minibatches.
Each iteration draws its states and minibatches from ``(seed, iteration)``; with a
checkpoint (the CLI's run folder ``model.ckpt``) a run resumes exactly where it stopped
(``--resume``).  The learning curve has the Bellman residual on the fresh states, the fit
error and the network's win probability of every seat at the opening.

Its command line is ``dice-env train learned-value fivethousand [--players N]``
(:mod:`agents.cli.train_learned_value_fivethousand`).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.fivethousand.learned_value import (
    NValueModel,
    ValueModel,
    check_model_players,
    rules_of,
    solve_n_turns,
    turn_start_values,
)
from agents.training.learned_value.files import write_model_and_curve
from agents.training.threads import set_torch_threads
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.io import atomic_write_bytes

__all__ = ["NTrainConfig", "NTrainResult", "TrainConfig", "TrainResult", "load_n_checkpoint",
           "n_curve_columns", "sample_states", "train", "train_n", "train_seed", "write_n_outputs",
           "write_outputs"]

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
        set_torch_threads(config.threads)
    rules = rules_of(config.rules)
    model = ValueModel(rules, config.hidden, seed=config.seed, device=config.device)
    tm = model.turn_model
    n_pairs = tm.n_scores ** 2
    opt = torch.optim.Adam(model.net.parameters(), lr=config.lr)
    budget = None if config.minutes is None else 60.0 * config.minutes
    curve: list[dict] = []
    bar = None
    if config.progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=config.max_iterations, desc="learned-value fivethousand",
                           unit="it")
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


# ----------------------------------------------------------------------------------------------
# N players
# ----------------------------------------------------------------------------------------------
def n_curve_columns(num_players: int) -> tuple[str, ...]:
    """The learning-curve columns of an ``N``-player run (``w_start_k``: the network's win
    probability of seat ``k`` at the opening, all scores 0, seat 0 to move)."""
    return N_CURVE_COLUMNS + tuple(f"w_start_{k}" for k in range(num_players))


N_CURVE_COLUMNS = ("iteration", "phase", "states_solved", "seconds", "solve_seconds",
                   "fit_seconds", "bellman_residual", "bellman_rms", "mover_rms", "fit_rmse")
#: config fields that may change when a run is resumed (a longer budget, more iterations)
RESUMABLE_CHANGES = ("minutes", "min_iterations", "max_iterations", "checkpoint_every",
                     "progress", "threads")


@dataclass
class NTrainConfig:
    """The knobs of :func:`train_n` (the N-player value network).

    Attributes:
        num_players: ``N``, 3 to 6.
        seed: seeds the initial weights, the sampled states and the minibatches (each
            iteration its own generators, drawn from ``(seed, iteration)``).
        rules: the 5000 rule knobs (literal rules; default the standard game).
        hidden: the network's hidden widths (the first one is the embedding width).
        lr: Adam's learning rate during the iterations.
        states: turn-start states sampled and solved per iteration.
        zero_prob: the chance that a sampled seat holds 0 (not entered or bumped: frequent in
            play); the other scores are uniform on the grid.
        replay: the fits draw from the targets of this many latest iterations.
        batch: minibatch size of the fits.
        fit_steps: Adam steps per iteration.
        final_states, final_steps: the final polishing fit: that many fresh states' targets
            (one more backup of the final network), fitted for that many steps with the
            learning rate decaying from ``lr`` to ``lr / 100`` (0 steps: no polish).
        min_iterations, max_iterations: bounds on the fixed-point iterations.
        patience: stop when the Bellman RMS has not improved by ``min_improvement``
            (relative) for this many iterations.
        min_improvement: see ``patience``.
        minutes: wall-clock budget of the whole run (the polish included; a resumed run
            counts the time already spent), None for none.
        checkpoint_every: with a checkpoint path, write it every this many iterations (and
            when the iterations end).
        threads: torch threads (0: leave torch's default).
        device: torch device.
        progress: show a tqdm bar.
    """

    num_players: int = 3
    seed: int = 0
    rules: dict = field(default_factory=lambda: FiveThousandRules().knobs())
    hidden: tuple[int, ...] = (128, 128)
    lr: float = 1e-3
    states: int = 16384
    zero_prob: float = 0.25
    replay: int = 4
    batch: int = 1024
    fit_steps: int = 60
    final_states: int = 32768
    final_steps: int = 3000
    min_iterations: int = 150
    max_iterations: int = 600
    patience: int = 60
    min_improvement: float = 0.02
    minutes: float | None = 30.0
    checkpoint_every: int = 10
    threads: int = 1
    device: str = "cpu"
    progress: bool = True


@dataclass
class NTrainResult(TrainResult):
    """A trained N-player model with its learning curve (one dict per iteration, keys
    :func:`n_curve_columns`) and the wall-clock seconds of the run (resumed parts included);
    its checkpoint ``meta`` is :meth:`TrainResult.meta`."""

    model: NValueModel
    config: NTrainConfig


def sample_states(rng: np.random.Generator, n: int, num_players: int, n_scores: int,
                  zero_prob: float) -> np.ndarray:
    """``(n, N)`` turn-start states (grid indices, mover first): each seat 0 with probability
    ``zero_prob``, else a score uniform on the entered part of the grid."""
    entered = rng.integers(1, n_scores, size=(n, num_players))
    zero = rng.random((n, num_players)) < zero_prob
    return np.where(zero, 0, entered).astype(np.int64)


def _generator(seed: int, it: int) -> torch.Generator:
    return torch.Generator().manual_seed(int(np.random.SeedSequence([seed, it, 1])
                                             .generate_state(1)[0]))


class _Buffer:
    """The latest iterations' states (encoded) and targets."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.parts: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]] = []

    def add(self, model: NValueModel, idx: np.ndarray, targets: np.ndarray) -> None:
        dense, cat = model.tensors(idx)
        self.parts.append((torch.as_tensor(idx), dense, cat,
                           torch.as_tensor(targets, dtype=torch.float32)))
        del self.parts[:-self.size]

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return tuple(torch.cat([p[i] for p in self.parts]) for i in (1, 2, 3))

    def state(self) -> list[dict]:
        return [{"idx": p[0], "targets": p[3]} for p in self.parts]

    def restore(self, model: NValueModel, parts: list[dict]) -> None:
        self.parts = []
        for p in parts:
            self.add(model, p["idx"].numpy(), p["targets"].numpy())


def _fit_n(model: NValueModel, opt: torch.optim.Optimizer, data, steps: int, batch: int,
           gen: torch.Generator,
           sched: torch.optim.lr_scheduler.LRScheduler | None = None) -> None:
    """Minibatch Adam steps on the squared error of the seats' win probabilities."""
    dense, cat, targets = data
    n = len(targets)
    model.net.train()
    for _ in range(steps):
        rows = torch.randint(0, n, (min(batch, n),), generator=gen)
        opt.zero_grad(set_to_none=True)
        p = torch.softmax(model.net(dense[rows], cat[rows]), dim=1)
        loss = torch.mean(torch.sum((p - targets[rows]) ** 2, dim=1))
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
    model.net.eval()


def _save_n_checkpoint(path: Path, model: NValueModel, opt: torch.optim.Optimizer,
                       config: NTrainConfig, curve: list[dict], iteration: int, seconds: float,
                       buffer: _Buffer, stop: dict) -> None:
    buf = io.BytesIO()
    torch.save({"kind": "learned-value-fivethousand-n-train", "config": asdict(config),
                "iteration": iteration, "seconds": seconds, "curve": curve,
                "net": {k: v.detach().cpu() for k, v in model.net.state_dict().items()},
                "opt": opt.state_dict(), "buffer": buffer.state(), "stop": stop}, buf)
    atomic_write_bytes(path, buf.getvalue())


def load_n_checkpoint(path: str | Path) -> dict:
    """An N-player training checkpoint (``ValueError`` if it is not one)."""
    path = Path(path)
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
        if blob.get("kind") != "learned-value-fivethousand-n-train":
            raise ValueError("not an N-player training checkpoint")
        return blob
    except (EOFError, RuntimeError, AttributeError, ValueError) as exc:
        raise ValueError(f"{path} is not a usable N-player training checkpoint ({exc}); delete "
                         "it to train from scratch") from None


def _comparable(config: dict) -> dict:
    out = dict(config)
    for key in RESUMABLE_CHANGES:
        out.pop(key, None)
    out["hidden"] = [int(h) for h in out["hidden"]]
    return out


def train_n(config: NTrainConfig, checkpoint: str | Path | None = None, resume: bool = False,
            clock: Callable[[], float] = time.perf_counter) -> NTrainResult:
    """Train the N-player value network by fitted value iteration on sampled score tuples.

    Every iteration samples ``config.states`` turn-start states (:func:`sample_states`),
    solves their turns exactly with the current network at the leaves
    (:func:`~agents.fivethousand.learned_value.solve_n_turns`: each mover maximises its own
    win probability) -- the targets, a Bellman backup of every seat's win probability -- and
    fits the network to the targets of the latest ``replay`` iterations.  The residual
    ``|T(W) - W|`` on the fresh states is the learning curve's Bellman residual.  It stops as
    the two-player trainer does (patience on the Bellman RMS, ``max_iterations``, the time
    budget), then polishes the network on a larger fresh sample.

    With ``checkpoint``, the training state (network, optimizer, replay, curve) is written there
    every ``checkpoint_every`` iterations and when the iterations end; with ``resume`` an
    existing one is continued (its config must match but for :data:`RESUMABLE_CHANGES`), and
    the result is the one an uninterrupted run would have given (the budget aside).
    ``clock`` (seconds) measures the budget.
    """
    n_players = check_model_players(config.num_players)
    if config.threads:
        set_torch_threads(config.threads)
    rules = rules_of(config.rules)
    model = NValueModel(rules, n_players, config.hidden, seed=config.seed, device=config.device)
    tm = model.turn_model
    opt = torch.optim.Adam(model.net.parameters(), lr=config.lr)
    buffer = _Buffer(config.replay)
    curve: list[dict] = []
    start_it, done_seconds = 1, 0.0
    stop = {"best": float("inf"), "since_best": 0, "solve_seconds": 0.0, "step_seconds": 0.0}
    ckpt = None if checkpoint is None else Path(checkpoint)
    if resume and ckpt is not None and ckpt.is_file():
        blob = load_n_checkpoint(ckpt)
        if _comparable(blob["config"]) != _comparable(asdict(config)):
            raise ValueError(f"{ckpt} was written with another config ({blob['config']}); use "
                             f"the same settings (only {', '.join(RESUMABLE_CHANGES)} may "
                             "change) or delete it")
        model.net.load_state_dict(blob["net"])
        opt.load_state_dict(blob["opt"])
        buffer.restore(model, blob["buffer"])
        curve = list(blob["curve"])
        start_it, done_seconds = int(blob["iteration"]) + 1, float(blob["seconds"])
        stop = dict(blob["stop"])
    model.net.eval()
    t0 = clock() - done_seconds
    budget = None if config.minutes is None else 60.0 * config.minutes
    start_idx = np.zeros((1, n_players), dtype=np.int64)
    bar = None
    if config.progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=config.max_iterations, initial=start_it - 1, unit="it",
                   desc=f"learned-value fivethousand {n_players}p")

    def row(it: int, phase: str, solved: int, solve_s: float, fit_s: float, w_before, v,
            fit_err) -> dict:
        diff = v - w_before
        w0 = model.probabilities(start_idx)[0]
        out = {"iteration": it, "phase": phase, "states_solved": solved,
               "seconds": round(clock() - t0, 2), "solve_seconds": round(solve_s, 3),
               "fit_seconds": round(fit_s, 3), "bellman_residual": float(np.abs(diff).max()),
               "bellman_rms": float(np.sqrt(np.mean(diff ** 2))),
               "mover_rms": float(np.sqrt(np.mean(diff[:, 0] ** 2))),
               "fit_rmse": float(np.sqrt(np.mean(fit_err ** 2)))}
        out.update({f"w_start_{k}": float(w0[k]) for k in range(n_players)})
        return out

    solved = curve[-1]["states_solved"] if curve else 0
    it = start_it - 1
    try:
        for it in range(start_it, config.max_iterations + 1):
            ta = clock()
            idx = sample_states(np.random.default_rng([config.seed, it]), config.states,
                                n_players, tm.n_scores, config.zero_prob)
            w_before = model.probabilities(idx)
            v = solve_n_turns(tm, idx, model.probabilities).start
            solved += len(idx)
            buffer.add(model, idx, v)
            tb = clock()
            _fit_n(model, opt, buffer.tensors(), config.fit_steps, config.batch,
                   _generator(config.seed, it))
            tc = clock()
            curve.append(row(it, "iterate", solved, tb - ta, tc - tb, w_before, v,
                             model.probabilities(idx) - v))
            rms = curve[-1]["bellman_rms"]
            if rms < stop["best"] * (1.0 - config.min_improvement):
                stop["best"], stop["since_best"] = rms, 0
            else:
                stop["since_best"] += 1
            stop["solve_seconds"] = max(stop["solve_seconds"], tb - ta)
            stop["step_seconds"] = max(stop["step_seconds"], (tc - tb) / config.fit_steps)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(rms=f"{rms:.1e}", w0=f"{curve[-1]['w_start_0']:.3f}")
            last = (it == config.max_iterations
                    or (it >= config.min_iterations and stop["since_best"] >= config.patience))
            if budget is not None and not last:
                step, solve = stop["step_seconds"], stop["solve_seconds"]
                polish = (solve * config.final_states / config.states
                          + step * config.final_steps) if config.final_steps else 0.0
                last = clock() - t0 + solve + step * config.fit_steps + polish > budget
            if ckpt is not None and (last or it % config.checkpoint_every == 0):
                _save_n_checkpoint(ckpt, model, opt, config, curve, it, clock() - t0, buffer,
                                   stop)
            if last:
                break
    finally:
        if bar is not None:
            bar.close()
    if config.final_steps and curve and curve[-1]["phase"] == "iterate":
        ta = clock()
        idx = sample_states(np.random.default_rng([config.seed, 10**9]), config.final_states,
                            n_players, tm.n_scores, config.zero_prob)
        w_before = model.probabilities(idx)
        v = solve_n_turns(tm, idx, model.probabilities).start
        solved += len(idx)
        buffer.add(model, idx, v)
        tb = clock()
        for group in opt.param_groups:
            group["lr"] = config.lr
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, config.final_steps,
                                                           eta_min=config.lr / 100)
        _fit_n(model, opt, buffer.tensors(), config.final_steps, config.batch,
               _generator(config.seed, 10**9), sched)
        tc = clock()
        curve.append(row(it + 1, "polish", solved, tb - ta, tc - tb, w_before, v,
                         model.probabilities(idx) - v))
    return NTrainResult(model, config, curve, clock() - t0)


def write_n_outputs(result: NTrainResult, model_path: str | Path) -> dict[str, Path]:
    """Write an N-player model and, next to it, its learning curve (as :func:`write_outputs`)."""
    return write_model_and_curve(result, model_path, n_curve_columns(result.model.num_players))


def train_seed(game: Any, seed: int, minutes: float, folder: str | Path, **options: Any) -> Path:
    """Train one seed of two-player 5000 for ``minutes`` into ``folder/model.pt`` (and its
    curve), with fields of :class:`TrainConfig` in ``options``; returns the model's path (the
    family's ``train_learned_value`` hook, for the seed studies)."""
    config = TrainConfig(seed=seed, minutes=minutes, progress=False, **options)
    result = train(config)
    paths = write_outputs(result, Path(folder) / "model.pt")
    print(f"trained 5000 seed {seed} in {result.seconds:.0f} s; model {paths['model']}")
    return paths["model"]
