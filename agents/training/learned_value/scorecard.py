"""Training of the learned turn-start value (:mod:`agents.scorecard.learned_value`) by fitted
value iteration, backwards over the number of filled boxes.

Pass 0 (the backward sweep): for ``k = n_boxes - 1`` down to ``0``, sample turn-start states
with ``k`` boxes filled (:func:`sample_states`), value each one by the exact turn expectimax
with the already-fitted layers ``k + 1 ..`` valuing the next turn (:func:`turn_start_values`),
and fit layer ``k``'s network to these targets.  Refinement passes then play games with the
current player, and sweep backwards again over the states it met at the start of its turns and
their successors (the states it compares when it scores), together with fresh samples, so the
fit is best where the play goes.

Nothing here reads the exact DP tables: the only "teacher" is the rules engine and the dice.
Every pass records a learning-curve row per layer (states solved so far, wall seconds, the
held-out fit error) and a row per pass with the mean score of the games played.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.scorecard.learned_value import (
    LearnedValueAgent,
    ValueModel,
    _slots,
    turn_start_values,
)
from agents.training.learned_value.files import write_model_and_curve
from agents.training.threads import set_torch_threads
from dice_env.scorecard import game as G
from dice_env.scorecard.rules import FIVE_FIFTY, FIVE_OPEN, FIVE_ZERO, Rules, coerce_rules

#: columns of the learning-curve CSV
CURVE_COLUMNS = ("pass", "layer", "states", "steps", "games", "states_solved", "seconds",
                 "solve_seconds", "fit_seconds", "mean_value", "train_rmse", "val_rmse",
                 "mean_score", "score_se", "predicted_score")

__all__ = ["TrainConfig", "TrainResult", "sample_states", "train", "train_seed", "write_outputs"]

#: How many dice of its face a filled upper box holds, in the synthetic states (0..5).
UPPER_COUNT_PROBS = (0.06, 0.10, 0.22, 0.34, 0.20, 0.08)


@dataclass
class TrainConfig:
    """Knobs of :func:`train`.

    Attributes:
        game: a scorecard preset name (or Gymnasium id).
        seed: seeds the state sampling, the games and the network initialisation.
        hidden: hidden widths of each layer's MLP.
        states_per_layer: synthetic states sampled per layer (duplicates dropped).
        uniform_upper: share of synthetic states whose upper total is uniform over the
            feasible range (the rest add plausible dice counts per filled upper box).
        steps, batch_size, lr: the fit of one layer: ``steps`` Adam steps on minibatches,
            the learning rate decayed to 0 on a cosine.
        max_epochs: caps the steps of small layers at this many passes over their states.
        refine_passes: on-policy passes after the backward sweep.
        refine_games: games played per refinement pass.
        refine_successors: successors of each visited state added to the next layer's set.
        refine_fresh: share of ``states_per_layer`` freshly sampled in a refinement pass.
        refine_steps, refine_lr: steps and learning rate of a refinement fit (it fine-tunes
            the layer's current network).
        max_minutes: wall-clock budget (None: no limit).  The backward sweep always
            completes, with fewer steps per layer if the time runs short; refinement passes
            are shortened or skipped to stay within it.
        sweep_share: the share of the budget the backward sweep may use when refinement
            passes follow.
        threads: torch threads (1 is fastest for these small nets, and much faster than 2
            when the cores are shared).
        progress: show a progress bar.
    """

    game: str = "penta"
    seed: int = 0
    hidden: tuple[int, ...] = (64, 64)
    states_per_layer: int = 12_000
    uniform_upper: float = 0.25
    steps: int = 16_000
    max_epochs: int = 1_000
    batch_size: int = 256
    lr: float = 6e-3
    refine_passes: int = 1
    refine_games: int = 2_000
    refine_successors: int = 4
    refine_fresh: float = 0.5
    refine_steps: int = 2_000
    refine_lr: float = 1e-3
    sweep_share: float = 0.8
    max_minutes: float | None = None
    threads: int = 1
    progress: bool = True


@dataclass
class TrainResult:
    """What :func:`train` returns: the model, its learning curve and the run's summary."""

    model: ValueModel
    config: TrainConfig
    curve: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def meta(self) -> dict:
        """The run's summary, stored inside the model file."""
        games = [r for r in self.curve if r["layer"] == "all"]
        return {"config": asdict(self.config), "seconds": round(self.seconds, 1),
                "states_solved": self.curve[-1]["states_solved"] if self.curve else 0,
                "self_play": games[-1] if games else None}


# -- states --------------------------------------------------------------------------------------


def reachable_upper(rules: Rules) -> np.ndarray:
    """``(2**6, T + 1)`` bool: the capped upper totals reachable with each set of filled upper
    boxes (bit ``f`` = the box of face ``f + 1``), from the dice alone."""
    t = rules.upper_bonus_threshold
    out = np.zeros((64, t + 1), dtype=bool)
    for mask in range(64):
        totals = {0}
        for f in range(6):
            if mask >> f & 1:
                totals = {min(x + c * (f + 1), t) for x in totals for c in range(6)}
        out[mask, sorted(totals)] = True
    return out


def _upper_masks(open_: np.ndarray) -> np.ndarray:
    return (~open_[:, :6]).astype(np.int64) @ (1 << np.arange(6, dtype=np.int64))


def _five_options(rules: Rules, open_: np.ndarray) -> np.ndarray:
    return np.where(open_[:, rules.five_kind_box], 1, 2)


def layer_size(rules: Rules, filled: int) -> int:
    """How many turn-start states (reachable upper totals only) have ``filled`` boxes filled."""
    sets = _filled_sets(rules.n_boxes, filled)
    reach = reachable_upper(rules).sum(axis=1)
    return int((reach[_upper_masks(sets)] * _five_options(rules, sets)).sum())


def _filled_sets(n_boxes: int, filled: int) -> np.ndarray:
    """``(C(n, filled), n)`` bool open-box masks of every way to fill ``filled`` boxes."""
    combos = list(itertools.combinations(range(n_boxes), filled))
    open_ = np.ones((len(combos), n_boxes), dtype=bool)
    if filled:
        idx = np.array(combos)
        open_[np.arange(len(combos))[:, None], idx] = False
    return open_


def all_states(rules: Rules, filled: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every turn-start state with ``filled`` boxes filled (reachable upper totals only)."""
    sets = _filled_sets(rules.n_boxes, filled)
    reach = reachable_upper(rules)[_upper_masks(sets)]
    rows, upper = np.nonzero(reach)
    open_ = sets[rows]
    five_filled = ~open_[:, rules.five_kind_box]
    fives = [np.where(five_filled, FIVE_FIFTY, FIVE_OPEN), np.full(len(rows), FIVE_ZERO)]
    keep = [np.ones(len(rows), dtype=bool), five_filled]
    return (np.concatenate([open_[k] for k in keep]), np.concatenate([upper[k] for k in keep]),
            np.concatenate([f[k] for f, k in zip(fives, keep)]))


def sample_states(rules: Rules, filled: int, n: int, rng: np.random.Generator,
                  uniform_upper: float = 0.25) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(open, upper, five)``: up to ``n`` distinct turn-start states with ``filled`` boxes
    filled -- all of them when the layer has no more than ``n``.

    The filled boxes are a uniform random subset; each filled upper box holds ``c`` dice of its
    face with ``c ~`` :data:`UPPER_COUNT_PROBS` (or, for a share ``uniform_upper`` of the states,
    the upper total is uniform over the totals those boxes can reach); a filled
    five-of-a-kind box holds 50 or 0 with equal odds.
    """
    if layer_size(rules, filled) <= n:
        return all_states(rules, filled)
    b, t = rules.n_boxes, rules.upper_bonus_threshold
    order = np.argsort(rng.random((n, b)), axis=1)
    open_ = np.ones((n, b), dtype=bool)
    np.put_along_axis(open_, order[:, :filled], False, axis=1)
    upper_faces = np.arange(1, 7)
    filled_upper = ~open_[:, :6]
    counts = rng.choice(len(UPPER_COUNT_PROBS), size=filled_upper.shape, p=UPPER_COUNT_PROBS)
    upper = np.minimum((filled_upper * counts * upper_faces).sum(axis=1), t)
    uniform = np.flatnonzero(rng.random(n) < uniform_upper)
    reach = reachable_upper(rules)[_upper_masks(open_[uniform])]  # (m, T + 1)
    cum = np.cumsum(reach, axis=1)
    pick = rng.random(len(uniform)) * cum[:, -1]
    upper[uniform] = np.argmax(cum > pick[:, None], axis=1)
    five_filled = ~open_[:, rules.five_kind_box]
    five = np.where(five_filled, np.where(rng.random(n) < 0.5, FIVE_FIFTY, FIVE_ZERO), FIVE_OPEN)
    return unique_states(rules, open_, upper, five)


def unique_states(rules: Rules, open_: np.ndarray, upper: np.ndarray,
                  five: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct states among ``(open, upper, five)`` (in key order)."""
    bits = open_.astype(np.int64) @ (1 << np.arange(rules.n_boxes, dtype=np.int64))
    keys = (bits * (rules.upper_bonus_threshold + 1) + upper) * 3 + five
    _, first = np.unique(keys, return_index=True)
    return open_[first], upper[first], five[first]


def successor_states(rules: Rules, open_: np.ndarray, upper: np.ndarray, five: np.ndarray,
                     per_state: int, rng: np.random.Generator
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Up to ``per_state`` random successors of each state (one box scored, all its possible
    upper totals / five-of-a-kind outcomes equally likely), full cards left out."""
    sl = _slots(rules)
    usable = open_[:, sl.box]  # (S, n_slots)
    weights = rng.random(usable.shape) * usable
    pick = np.argsort(-weights, axis=1)[:, :per_state]
    rows = np.repeat(np.arange(len(open_)), pick.shape[1])
    cols = pick.reshape(-1)
    keep = usable[rows, cols]
    rows, cols = rows[keep], cols[keep]
    o2 = open_[rows].copy()
    o2[np.arange(len(rows)), sl.box[cols]] = False
    u2 = np.minimum(upper[rows] + sl.upper_add[cols], rules.upper_bonus_threshold)
    f2 = np.where(sl.five_after[cols] >= 0, sl.five_after[cols], five[rows])
    live = o2.any(axis=1)
    return o2[live], u2[live], f2[live]


def play_turn_states(agent: LearnedValueAgent, n_games: int, rng: np.random.Generator
                     ) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray]], np.ndarray]:
    """Play ``n_games`` games with ``agent``; return the turn-start states met, grouped by the
    number of filled boxes, and the final totals."""
    rules = agent.rules
    state = G.ScorecardState.empty(rules, n_games)
    G.start_games(rules, state, np.ones(n_games, dtype=bool), rng)
    seen: list[list] = [[] for _ in range(rules.n_boxes)]
    new_turn = np.ones(n_games, dtype=bool)
    while True:
        active = ~state.finished()
        if not active.any():
            break
        starts = np.flatnonzero(new_turn & active)
        if len(starts):
            k = rules.n_boxes - state.open_boxes()[starts].sum(axis=1)
            for layer in np.unique(k):
                rows = starts[k == layer]
                seen[layer].append((state.open_boxes()[rows],
                                    np.minimum(state.upper_total[rows],
                                               rules.upper_bonus_threshold),
                                    state.five_state(rules)[rows]))
        rows = np.flatnonzero(active)
        sub = state.take(rows)
        actions = np.zeros(n_games, dtype=np.int64)
        actions[rows] = agent.act_states(sub, G.action_mask(rules, sub))
        new_turn = actions >= G.N_HOLD_ACTIONS
        G.apply_actions(rules, state, actions, rng, active=active)
    grouped = []
    for parts in seen:
        grouped.append(tuple(np.concatenate([p[i] for p in parts]) for i in range(3)))
    return grouped, state.total(rules)


def _concat_states(*groups) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    groups = [g for g in groups if len(g[0])]
    return tuple(np.concatenate([g[i] for g in groups]) for i in range(3))


# -- fitting --------------------------------------------------------------------------------------


def fit_layer(net: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int,
              batch_size: int, lr: float, generator: torch.Generator,
              holdout: float = 0.1, rescale: bool = True) -> dict:
    """Fit one layer's network to targets ``y`` (points): ``steps`` Adam steps on the
    squared error over minibatches, a share ``holdout`` of the states held out (none when
    there are fewer than 50).  ``rescale`` first sets the net's output offset and scale to the
    targets' mean and spread (keep them to fine-tune a fitted net).  Returns the train and
    held-out RMSE in points."""
    n = len(y)
    perm = torch.randperm(n, generator=generator)
    n_val = int(n * holdout) if n >= 50 else 0
    val, tr = perm[:n_val], perm[n_val:]
    if rescale:
        net.offset.fill_(float(y.mean()))
        net.scale.fill_(max(float(y.std()) if n > 1 else 1.0, 1.0))
    yn = (y - net.offset) / net.scale
    opt = torch.optim.Adam(net.mlp.parameters(), lr=lr, fused=True)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(steps, 1))
    net.train()
    order, pos = tr, len(tr)
    for _ in range(steps):
        if pos >= len(order):  # a new epoch
            order, pos = tr[torch.randperm(len(tr), generator=generator)], 0
        idx = order[pos:pos + batch_size]
        pos += batch_size
        loss = torch.mean((net.mlp(x[idx]).squeeze(-1) - yn[idx]) ** 2)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    net.eval()
    with torch.no_grad():
        err = net(x) - y
    rmse = lambda idx: float(err[idx].pow(2).mean().sqrt()) if len(idx) else float("nan")  # noqa
    return {"train_rmse": rmse(tr), "val_rmse": rmse(val)}


# -- the trainer ----------------------------------------------------------------------------------


class _Run:
    """The state of one training run: model, generators, clock, time budget, learning curve."""

    def __init__(self, config: TrainConfig, clock: Callable[[], float]) -> None:
        self.cfg = config
        self.clock = clock
        self.rules = coerce_rules(config.game)
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        self.gen = torch.Generator().manual_seed(config.seed)
        self.model = ValueModel(self.rules, config.hidden)
        self.start = clock()
        self.budget = None if config.max_minutes is None else 60.0 * config.max_minutes
        self.solved = 0
        self.fits = self.steps_done = 0
        self.fit_seconds = self.solve_seconds = 0.0
        self.curve: list[dict] = []

    def seconds(self) -> float:
        return self.clock() - self.start

    def affordable_steps(self, wanted: int, fits: int, until: float) -> int:
        """The steps each of the next ``fits`` layers may take to end by ``until`` seconds
        (``wanted`` with no budget or before anything was measured; at least 1)."""
        if self.budget is None or self.steps_done == 0:
            return wanted
        per_step = self.fit_seconds / self.steps_done
        per_fit = (until - self.seconds()) / fits - self.solve_seconds / self.fits
        return int(min(wanted, max(1, per_fit / per_step)))

    def fit(self, pass_no: int, layer: int, states, steps: int, warm_from: int | None,
            lr: float, bar=None) -> None:
        """Solve the turn of ``states`` with the next layers, fit ``layer`` to the values
        (holding 10 % out, unless ``states`` are the whole layer)."""
        open_, upper, five = states
        t0 = self.clock()
        y = turn_start_values(self.rules, open_, upper, five, self.model.value)
        t1 = self.clock()
        net = self.model.layers[layer]
        if warm_from is not None:
            net.mlp.load_state_dict(self.model.layers[warm_from].mlp.state_dict())
        x = self.model.features(open_, upper, five)
        whole = len(y) >= layer_size(self.rules, layer)
        steps = min(steps, self.cfg.max_epochs * -(-len(y) // self.cfg.batch_size))
        stats = fit_layer(net, x, torch.from_numpy(y).float(), steps, self.cfg.batch_size,
                          lr, self.gen, holdout=0.0 if whole else 0.1, rescale=pass_no == 0)
        t2 = self.clock()
        self.solved += len(y)
        self.fits += 1
        self.steps_done += steps
        self.solve_seconds += t1 - t0
        self.fit_seconds += t2 - t1
        self.curve.append({
            "pass": pass_no, "layer": layer, "states": len(y), "steps": steps,
            "states_solved": self.solved, "seconds": round(self.seconds(), 2),
            "solve_seconds": round(t1 - t0, 2), "fit_seconds": round(t2 - t1, 2),
            "mean_value": round(float(y.mean()), 3),
            "train_rmse": round(stats["train_rmse"], 4),
            "val_rmse": round(stats["val_rmse"], 4)})
        if bar is not None:
            bar.set_postfix(layer=layer, states=len(y), steps=steps,
                            rmse=f"{stats['val_rmse' if not whole else 'train_rmse']:.3f}")
            bar.update(1)

    def backward_sweep(self, until: float, bar=None) -> None:
        """Pass 0: synthetic states, layers from the last box back to the empty card, each
        warm-started from the layer after it; done by ``until`` seconds if a budget is set."""
        n_boxes = self.rules.n_boxes
        for layer in range(n_boxes - 1, -1, -1):
            states = sample_states(self.rules, layer, self.cfg.states_per_layer, self.rng,
                                   self.cfg.uniform_upper)
            # a budget may shorten the sweep's fits, never below a quarter of their steps:
            # a layer fitted with a handful of steps values the whole card wrongly
            steps = max(self.affordable_steps(self.cfg.steps, layer + 1, until),
                        self.cfg.steps // 4)
            warm = layer + 1 if layer + 1 < n_boxes else None
            self.fit(0, layer, states, steps, warm, self.cfg.lr, bar)

    def self_play(self, pass_no: int, n_games: int) -> list:
        """Play ``n_games`` games with the current model; record their mean score (the quality
        proxy of the curve); return the turn-start states met."""
        agent = LearnedValueAgent(self.rules, model=self.model)
        visited, totals = play_turn_states(agent, n_games, self.rng)
        self.solved += sum(len(v[0]) for v in visited)
        predicted = float(self.model.value(np.ones((1, self.rules.n_boxes), dtype=bool),
                                           np.zeros(1, dtype=np.int64),
                                           np.zeros(1, dtype=np.int64))[0])
        self.curve.append({
            "pass": pass_no, "layer": "all", "games": len(totals),
            "states_solved": self.solved, "seconds": round(self.seconds(), 2),
            "mean_score": round(float(totals.mean()), 3),
            "score_se": round(float(totals.std() / np.sqrt(max(len(totals), 1))), 3),
            "predicted_score": round(predicted, 3)})
        return visited

    def refine(self, pass_no: int, visited: list, steps: int, bar=None) -> None:
        """One on-policy pass over the states ``visited`` by the games of the previous model,
        their successors and fresh samples."""
        cfg, rules = self.cfg, self.rules
        n_fresh = int(cfg.states_per_layer * cfg.refine_fresh)
        for layer in range(rules.n_boxes - 1, -1, -1):
            groups = [visited[layer]]
            if layer > 0 and len(visited[layer - 1][0]):
                groups.append(successor_states(rules, *visited[layer - 1],
                                               cfg.refine_successors, self.rng))
            if n_fresh:
                groups.append(sample_states(rules, layer, n_fresh, self.rng, cfg.uniform_upper))
            states = unique_states(rules, *_concat_states(*groups))
            self.fit(pass_no, layer, states, steps, None, cfg.refine_lr, bar)

    def result(self) -> TrainResult:
        return TrainResult(self.model, self.cfg, self.curve, self.seconds())


def train(config: TrainConfig, clock: Callable[[], float] = time.perf_counter) -> TrainResult:
    """Train a learned-value model (see the module doc).  Returns it with its learning curve.

    With ``max_minutes``, the backward sweep gets the budget's ``sweep_share`` (all of it
    without refinement) and scales its steps down if it runs short (to a quarter of ``steps``
    at the least, so it may overrun the budget on a slow machine); a refinement pass runs
    with fewer steps, or not at all, when the rest of the budget cannot hold it.  Refinement
    games are played with each model before its pass, and once more at the end, so the curve
    ends with the final model's mean score.  ``clock`` (seconds) measures the budget; a
    test passes a fake one to make the budget's decisions independent of the machine.
    """
    if config.threads:
        set_torch_threads(config.threads)
    run = _Run(config, clock)
    n_boxes = run.rules.n_boxes
    bar = None
    if config.progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=n_boxes * (1 + config.refine_passes),
                   desc=f"learned-value {run.rules.name}", unit="layer")
    budget = run.budget if run.budget is not None else float("inf")
    reserve = 0.05 * budget  # the closing self-play games
    try:
        share = config.sweep_share if config.refine_passes else 1.0
        run.backward_sweep(share * (budget - reserve), bar)
        measured = False  # whether the curve's last games were played by the final model
        for p in range(1, config.refine_passes + 1):
            visited = run.self_play(p - 1, config.refine_games)
            steps = run.affordable_steps(config.refine_steps, n_boxes, budget - reserve)
            if steps < config.refine_steps // 4:  # not worth a pass
                measured = True
                break
            run.refine(p, visited, steps, bar)
        if config.refine_games and not measured:
            run.self_play(config.refine_passes, config.refine_games)
    finally:
        if bar is not None:
            bar.close()
    return run.result()


def write_outputs(result: TrainResult, model_path: str | Path) -> dict[str, Path]:
    """Write the model and, next to it, its learning curve as JSON and CSV (atomically).

    Returns the paths written: ``model``, ``curve_json``, ``curve_csv``.
    """
    return write_model_and_curve(result, model_path, CURVE_COLUMNS)


def train_seed(game: Any, seed: int, minutes: float, folder: str | Path, **options: Any) -> Path:
    """Train one seed for ``minutes`` into ``folder/model.pt`` (and its curve), with fields of
    :class:`TrainConfig` in ``options``; returns the model's path (the family's
    ``train_learned_value`` hook, for the seed studies)."""
    config = TrainConfig(game=getattr(game, "spec", game), seed=seed, max_minutes=minutes,
                         progress=False, **options)
    result = train(config)
    paths = write_outputs(result, Path(folder) / "model.pt")
    print(f"trained {config.game} seed {seed} in {result.seconds:.0f} s; model {paths['model']}")
    return paths["model"]
