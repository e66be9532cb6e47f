"""Train the win-value scorecard player (:mod:`agents.scorecard.win_value`).

The network ``W_k(card, D, S)`` is the probability that a player at the start of a turn with
``k`` boxes filled, ``D`` points behind or ahead of a threshold's mean ``M`` (``D = total -
M``), finishes above a threshold ``T ~ N(M, S)`` (a tie counting half).  It is fitted backwards
over the layers of the card, like the learned-value trainer; a card with one box open needs
no network (its last turn is solved exactly against the threshold), so layer ``n_boxes - 2``
comes first:

1. **Sample** ``states_per_layer`` turn starts of layer ``k``: a card uniformly among the
   reachable ones, a spread ``S`` like the ones play meets where layer ``k`` is read (at the
   leaves of our turn at layer ``k - 1``, when every opponent is at layer ``k - 1`` or ``k``:
   the exact spread of the rest of a random such card, scaled by ``U(0.4, 1.1)`` since the
   best of several opponents spreads less than one) and a lead ``D`` placing the normal
   approximation's ``z`` on ``N(0, 1.5^2)``.  (Our last turn is solved against the exact
   threshold, so no layer is read against a finished opponent.)
2. **Solve** each sampled turn exactly (:func:`~agents.scorecard.turn_policy.solve_turn`), the
   leaves valued by layer ``k + 1`` after the opponents' turns in between: the threshold's
   mean shifted by a normal of the variance their next turn resolves, its spread the one left
   after it (:func:`~agents.scorecard.win_value.next_turn_value`).
3. **Fit** layer ``k`` to the values (warm-started from layer ``k + 1``; 10 % held out for the
   curve's validation error).

The threshold of play is recomputed every turn and the last turn is exact, so what the network
must get right is the shape of ``W`` in ``(card, D, S)``, which synthetic samples cover.  A
checkpoint is written after every layer (``<out>.ckpt``); ``--resume`` continues from it.
Deterministic for a seed and thread count.  CLI: ``dice-env train win-value``
(:func:`train_run` trains into a run folder, as it and ``dice-env report win`` do).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from agents.scorecard.score_spread import ScoreMoments, load_or_compute_spread, reachable_states
from agents.scorecard.turn_policy import solve_turn, turn_leaves
from agents.scorecard.win_value import WinValueModel, next_turn_value
from agents.training.learned_value.files import write_model_and_curve
from agents.training.threads import set_torch_threads
from dice_env.io import atomic_write_bytes
from dice_env.scorecard.rules import Rules, coerce_rules

__all__ = ["CURVE_COLUMNS", "TrainConfig", "TrainResult", "checkpoint_path", "load_checkpoint",
           "run_folder", "sample_layer", "train", "train_rules", "train_run", "write_outputs"]

CURVE_COLUMNS = ("layer", "states", "steps", "seconds", "solve_seconds", "fit_seconds",
                 "mean_value", "train_rmse", "val_rmse")


@dataclass
class TrainConfig:
    """Settings of one training run (all recorded in the model file and the curve).

    Attributes:
        game: ``"penta"`` or ``"dice-poker"`` (any scorecard preset).
        seed: seeds the samples and the network.
        hidden: hidden widths of each layer's MLP.
        states_per_layer: sampled turn starts solved per layer.
        steps, batch_size, lr: Adam steps, minibatch and learning rate of each layer's fit.
        z_scale: spread of the sampled leads, in units of the normal approximation.
        threads: torch threads (None: torch's default).
        progress: show a progress bar.
    """

    game: str = "penta"
    seed: int = 0
    hidden: tuple[int, ...] = (64, 64)
    states_per_layer: int = 20_000
    steps: int = 3_000
    batch_size: int = 512
    lr: float = 1e-3
    z_scale: float = 1.5
    threads: int | None = None
    progress: bool = True


@dataclass
class TrainResult:
    """A trained model, its config, its learning curve (one row per layer) and seconds."""

    model: WinValueModel
    config: TrainConfig
    curve: list[dict]
    seconds: float

    def meta(self) -> dict:
        return {"config": asdict(self.config), "seconds": round(self.seconds, 1),
                "trainer": "agents.training.win_value"}


def sample_layer(moments: ScoreMoments, layer: int, n: int, rng: np.random.Generator,
                 z_scale: float = 1.5) -> tuple[np.ndarray, ...]:
    """``n`` turn starts of layer ``layer``: ``(open_, upper, five, delta, spread,
    spread_after)`` (see the module docstring; ``spread_after``: the threshold's spread once
    the opponents have played their next turn)."""
    sol = moments.solution
    open_, upper, five = reachable_states(sol, layer)
    pick = rng.integers(0, len(upper), n)
    open_, upper, five = open_[pick], upper[pick], five[pick]
    spread, after = np.zeros(n), np.zeros(n)
    opp_layer = np.maximum(layer - rng.integers(0, 2, n), 0)
    for k in np.unique(opp_layer):
        rows = np.flatnonzero(opp_layer == k)
        oo, ou, of = reachable_states(sol, int(k))
        j = rng.integers(0, len(ou), len(rows))
        spread[rows] = moments.std(oo[j], ou[j], of[j])
        after[rows] = moments.std_after_turn(oo[j], ou[j], of[j])
    scale = rng.uniform(0.4, 1.1, n)
    spread, after = spread * scale, after * scale
    mean, std = moments.mean(open_, upper, five), moments.std(open_, upper, five)
    delta = rng.normal(0.0, z_scale, n) * np.sqrt(spread ** 2 + std ** 2 + 1.0) - mean
    delta = np.where(spread > 0, delta, np.rint(delta))
    return open_, upper, five, delta, spread, after


def layer_targets(model: WinValueModel, moments: ScoreMoments, states: tuple,
                  chunk: int = 2_000) -> np.ndarray:
    """The exact turn values of sampled states with layer ``k + 1`` of ``model`` at the leaves."""
    open_, upper, five, delta, spread, after = states
    rules = model.rules
    out = []
    for i in range(0, len(upper), chunk):
        sl = slice(i, i + chunk)
        d, s_after = delta[sl], after[sl]
        shift = np.sqrt(np.maximum(spread[sl] ** 2 - s_after ** 2, 0.0))

        def leaf(r, o, u, f, gain, d=d, s_after=s_after, shift=shift):
            return next_turn_value(model, moments, o, u, f, d[r] + gain, s_after[r], shift[r])

        out.append(solve_turn(turn_leaves(rules, open_[sl], upper[sl], five[sl], leaf),
                              rules.rolls_per_turn).start_value)
    return np.concatenate(out)


def _fit(model: WinValueModel, layer: int, moments: ScoreMoments, states: tuple,
         y: np.ndarray, cfg: TrainConfig, gen: torch.Generator) -> dict:
    net = model.layers[layer]
    x, logit = model.features(moments, *states[:5])
    y_t = torch.from_numpy(y).float()
    n = len(y)
    perm = torch.randperm(n, generator=gen)
    n_val = max(1, n // 10)
    val, tr = perm[:n_val], perm[n_val:]
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg.steps)
    net.train()
    for _ in range(cfg.steps):
        idx = tr[torch.randint(0, len(tr), (cfg.batch_size,), generator=gen)]
        loss = torch.mean((net(x[idx], logit[idx]) - y_t[idx]) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    net.eval()
    with torch.no_grad():
        pred = net(x, logit)
        rmse = lambda rows: float(torch.sqrt(torch.mean((pred[rows] - y_t[rows]) ** 2)))  # noqa: E731
        return {"train_rmse": rmse(tr), "val_rmse": rmse(val)}


def checkpoint_path(out: str | Path) -> Path:
    """The checkpoint file of a run writing its model at ``out``: ``<out>.ckpt``."""
    out = Path(out)
    return out.with_name(out.name + ".ckpt")


def _save_checkpoint(path: Path, model: WinValueModel, config: TrainConfig, curve: list,
                     next_layer: int, seconds: float, rng: np.random.Generator,
                     gen: torch.Generator) -> None:
    import io
    import pickle

    buf = io.BytesIO()
    pickle.dump({"model": model.to_bytes(), "config": asdict(config), "curve": curve,
                 "next_layer": next_layer, "seconds": seconds,
                 "rng": rng.bit_generator.state, "torch_gen": gen.get_state().numpy()}, buf)
    atomic_write_bytes(path, buf.getvalue())


def load_checkpoint(path: str | Path) -> dict:
    """A training checkpoint (written after every layer), refused with a clear message when it
    is not one."""
    import pickle

    path = Path(path)
    try:
        blob = pickle.loads(path.read_bytes())
        model, _ = WinValueModel.from_bytes(blob["model"], str(path))
        blob["model"] = model
        return blob
    except (pickle.UnpicklingError, EOFError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path} is not a usable win-value training checkpoint ({exc}); "
                         "delete it to train from scratch") from None


def train(config: TrainConfig, out: str | Path | None = None, resume: bool = False,
          clock: Callable[[], float] = time.perf_counter) -> TrainResult:
    """Train (see the module doc).  With ``out``, a checkpoint ``<out>.ckpt`` is written after
    every layer and, with ``resume``, an existing one is continued (its config must match)."""
    return train_rules(coerce_rules(config.game), config, out=out, resume=resume, clock=clock)


def train_rules(rules: Rules, config: TrainConfig, *, moments: ScoreMoments | None = None,
                out: str | Path | None = None, resume: bool = False,
                clock: Callable[[], float] = time.perf_counter,
                on_layer: Callable[[int], None] | None = None) -> TrainResult:
    """:func:`train` on explicit ``rules`` (``config.game`` is only recorded), with the
    score-optimal ``moments`` if already loaded; ``on_layer(k)`` is called before each layer."""
    if config.threads:
        set_torch_threads(config.threads)
    if moments is None:
        moments = load_or_compute_spread(rules, progress=config.progress)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    model = WinValueModel(rules, config.hidden)
    curve: list[dict] = []
    start_layer, done_seconds = rules.n_boxes - 2, 0.0
    ckpt = None if out is None else checkpoint_path(out)
    if resume and ckpt is not None and ckpt.is_file():
        blob = load_checkpoint(ckpt)
        if blob["config"] != asdict(config) | {"progress": blob["config"]["progress"],
                                               "threads": blob["config"]["threads"]}:
            raise ValueError(f"{ckpt} was written with another config ({blob['config']}); "
                             "use the same settings or delete it")
        model, curve = blob["model"], blob["curve"]
        start_layer, done_seconds = blob["next_layer"], blob["seconds"]
        rng.bit_generator.state = blob["rng"]
        gen.set_state(torch.from_numpy(blob["torch_gen"]))
    t0 = clock() - done_seconds
    bar = None
    if config.progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=rules.n_boxes - 1, initial=rules.n_boxes - 2 - start_layer,
                   desc=f"win-value {rules.name}", unit="layer")
    try:
        for layer in range(start_layer, -1, -1):  # the last layer is exact: no network
            if on_layer is not None:
                on_layer(layer)
            ta = clock()
            states = sample_layer(moments, layer, config.states_per_layer, rng, config.z_scale)
            y = layer_targets(model, moments, states)
            tb = clock()
            if layer + 1 < rules.n_boxes - 1:
                model.layers[layer].load_state_dict(model.layers[layer + 1].state_dict())
            stats = _fit(model, layer, moments, states, y, config, gen)
            tc = clock()
            curve.append({"layer": layer, "states": len(y), "steps": config.steps,
                          "seconds": round(tc - t0, 2), "solve_seconds": round(tb - ta, 2),
                          "fit_seconds": round(tc - tb, 2), "mean_value": round(float(y.mean()), 4),
                          "train_rmse": round(stats["train_rmse"], 5),
                          "val_rmse": round(stats["val_rmse"], 5)})
            if ckpt is not None:
                _save_checkpoint(ckpt, model, config, curve, layer - 1, tc - t0, rng, gen)
            if bar is not None:
                bar.set_postfix(layer=layer, rmse=f"{stats['val_rmse']:.4f}")
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return TrainResult(model.eval(), config, curve, clock() - t0)


def write_outputs(result: TrainResult, model_path: str | Path) -> dict[str, Path]:
    """Write the model and, next to it, its learning curve as JSON and CSV (atomically)."""
    return write_model_and_curve(result, model_path, CURVE_COLUMNS)


def run_folder(game: str, seed: int, runs: str | Path = Path("runs")) -> Path:
    """The default run folder of a game and seed: ``runs/win-value-<game>-seed<seed>``
    (relative to the working directory unless ``runs`` says otherwise)."""
    return Path(runs) / f"win-value-{game}-seed{seed}"


def train_run(config: TrainConfig, folder: str | Path,
              resume: bool = False) -> tuple[TrainResult, dict[str, Path]]:
    """Train into the run folder ``folder``: ``model.pt`` and its learning curve, with the
    checkpoint ``model.pt.ckpt`` after every layer (``resume`` continues it; it is removed once
    the run is complete).  Returns the result and the paths written (:func:`write_outputs`).
    ``ValueError`` for a checkpoint of other settings; on Ctrl-C the checkpoint is kept."""
    model_path = Path(folder) / "model.pt"
    model_path.parent.mkdir(parents=True, exist_ok=True)
    result = train(config, out=model_path, resume=resume)
    paths = write_outputs(result, model_path)
    checkpoint_path(model_path).unlink(missing_ok=True)  # complete: nothing to resume
    return result, paths
