"""PPO ablations at a fixed budget, each measured by its exact gap to the optimum.

Every variant is the game's committed config (``agents/training/ppo/configs/<GAME>.json``) with a
few overrides (``dice-env train --set``), trained for a budget from the same seed, then evaluated
with the exact per-decision regret (``agents.evaluation.optimality_gap``, :data:`EVAL_GAMES`
games, seed 0): the gap to the optimum with its 95 % CI, where it is lost, the upper-bonus rate,
the wall-clock time and the trainer's env steps per second.  Runs live in
``<root>/<VARIANT>-seed<SEED>-<config digest>/``; a variant already trained is only evaluated
again, one that was stopped is resumed.  The table is written by
:mod:`agents.evaluation.reports.ablations`.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from agents.evaluation.reports.ablations import ablations_markdown
from agents.training.ppo.config import apply_overrides, load_config, whole_rollouts
from agents.training.ppo.session import TrainOptions, train
from dice_env.io import atomic_write_text

__all__ = ["DEFAULT_TIMESTEPS", "EVAL_GAMES", "VARIANTS", "config_digest", "config_run_dir",
           "full_budget", "merge_earlier_rows", "merged_seed_gaps", "planned_timesteps",
           "run_ablations", "run_variant", "seed_gaps", "train_run", "write_table"]

#: variant -> (what it changes, config overrides); one lever at a time against "baseline"
VARIANTS: dict[str, tuple[str, list[str]]] = {
    "baseline": ("the committed config", []),
    "bonus-obs": ("the bonus observation (env option observation=\"bonus\": 11 entries on the "
                  "upper bonus)", ['env_kwargs={"observation": "bonus"}']),
    "no-shaping": ("no potential-based upper-bonus shaping (agents/training/ppo/shaping.py)",
                   ["shaping=null"]),
    "epochs-2": ("2 PPO epochs per rollout instead of 4 (half the learner's work)",
                 ["ppo.n_epochs=2"]),
    "epochs-8": ("8 PPO epochs per rollout instead of 4 (twice the learner's work)",
                 ["ppo.n_epochs=8"]),
    "lr-linear": ("learning rate decayed linearly to 0 instead of constant",
                  ['ppo.learning_rate_schedule="linear"']),
    "entropy-0.01": ("entropy coefficient 0.01 instead of 0.003", ["ppo.ent_coef=0.01"]),
    "entropy-0.001": ("entropy coefficient 0.001 instead of 0.003", ["ppo.ent_coef=0.001"]),
    "gae-0.6": ("GAE lambda 0.6 instead of 0.95 (less variance, more bias from the value net)",
                ["ppo.gae_lambda=0.6"]),
    "net-128": ("policy and value networks 128x128 instead of 256x256",
                ['policy_kwargs={"net_arch": {"pi": [128, 128], "vf": [128, 128]}}']),
}


def _structured(**options: object) -> list[str]:
    """Overrides training the structured policy (agents/policies/structured) on the bonus
    observation, with ``options`` over its defaults (``policy_kwargs``)."""
    return ['policy="structured"', 'env_kwargs={"observation": "bonus"}',
            f"policy_kwargs={json.dumps(options)}"]


#: the structured policy (issue 28): the policy itself, then one of its levers at a time
VARIANTS.update({
    "structured": ("the structured policy (agents/policies/structured: one hold head shared by "
                   "the 32 holds over the kept dice and what a reroll scores in each box, one box "
                   "head over each box's features) on the bonus observation",
                   _structured()),
    "structured-basic-obs": ("the structured policy on the basic observation (no bonus entries)",
                             ['policy="structured"', "policy_kwargs={}"]),
    "structured-dice-only": ("the structured policy, its holds described by the kept dice alone "
                             "(no expected points or scoring chances after a reroll)",
                             _structured(reroll_features=False)),
    "structured-heads-64": ("the structured policy with action heads 64 wide instead of 32",
                            _structured(action_hidden=[64])),
    "structured-trunk-2": ("the structured policy with a state trunk of two layers (256x256) "
                           "instead of one", _structured(state_hidden=[256, 256])),
    "structured-linear": ("the structured policy with the state-set linear term (G e) . f in its "
                          "action heads", _structured(linear_term=True)),
    "structured-tanh": ("the structured policy with tanh action heads instead of relu",
                        _structured(action_activation="tanh")),
    "structured-epochs-8": ("the structured policy with 8 PPO epochs per rollout instead of 4",
                            [*_structured(), "ppo.n_epochs=8"]),
})

#: the kept design (structured with the linear term, agents/training/ppo/configs/
#: <GAME>-structured.json) with one of its levers at a time
VARIANTS.update({
    "linear-dice-only": ("structured-linear, its holds described by the kept dice alone (no "
                         "expected points or scoring chances after a reroll)",
                         _structured(linear_term=True, reroll_features=False)),
    "linear-basic-obs": ("structured-linear on the basic observation (no bonus entries)",
                         ['policy="structured"', 'policy_kwargs={"linear_term": true}']),
    "linear-no-shaping": ("structured-linear without the upper-bonus shaping",
                          [*_structured(linear_term=True), "shaping=null"]),
    "linear-heads-64": ("structured-linear with action heads 64 wide instead of 32",
                        _structured(linear_term=True, action_hidden=[64])),
    "linear-epochs-8": ("structured-linear with 8 PPO epochs per rollout instead of 4",
                        [*_structured(linear_term=True), "ppo.n_epochs=8"]),
})
def _pure(**options: object) -> list[str]:
    """Overrides training the pure model-free agent (issue 45): the structured policy with only
    what a player sees at the table (policy_kwargs.pure, the linear term) on the basic
    observation, without the upper-bonus shaping, ``options`` over those."""
    return ['policy="structured"', 'env_kwargs={"observation": "basic"}', "shaping=null",
            f"policy_kwargs={json.dumps({'pure': True, 'linear_term': True, **options})}"]


#: the pure model-free agent (issue 45): how its holds are written, then one lever at a time
VARIANTS.update({
    "pure-counts": ("the pure agent (basic observation, no shaping, no hand-made feature): "
                    "each hold described by the face counts of the dice it keeps",
                    _pure(hold_encoding="counts")),
    "pure-count-onehot": ("the pure agent, its holds' face counts one-hot per face",
                          _pure(hold_encoding="count-onehot")),
    "pure-keep": ("the pure agent, each hold described by which of the 462 keeps it makes",
                  _pure(hold_encoding="keep")),
    "pure-keep-heads-64x64": ("pure-keep with action heads of two layers 64 wide instead of "
                              "one of 32", _pure(hold_encoding="keep", action_hidden=[64, 64])),
    "pure-keep-no-linear": ("pure-keep without the state-set linear term",
                            _pure(hold_encoding="keep", linear_term=False)),
    "pure-keep-shaping": ("pure-keep with the upper-bonus shaping (not pure: the shaping's "
                          "potential is a hand-made estimate of the bonus)",
                          [*_pure(hold_encoding="keep")[:2], "shaping={\"upper_bonus\": 1}",
                           _pure(hold_encoding="keep")[3]]),
})

DEFAULT_TIMESTEPS = 2_000_000
EVAL_GAMES = 2000


def config_digest(game: str) -> str:
    """A short digest of the game's committed config (what every variant starts from)."""
    return hashlib.sha256(json.dumps(load_config(game), sort_keys=True).encode()).hexdigest()[:8]


def config_run_dir(root: Path, game: str, name: str, seed: int) -> Path:
    """``root/<name>-seed<seed>-<digest>``: the base config's digest is part of the name, so
    after the committed config changes a run is trained afresh instead of resumed or reused."""
    return Path(root) / f"{name}-seed{seed}-{config_digest(game)}"


def train_run(game: str, run_dir: Path, overrides: list[str], timesteps: int, seed: int,
              max_minutes: float | None, threads: int | None = None) -> tuple[dict, float] | None:
    """Train (or resume) the ``train`` run of config ``game`` in ``run_dir``: its summary and
    training seconds, or ``None`` if it stopped before ``timesteps``."""
    from agents.training.ppo import read_checkpoint

    resume = (Path(run_dir) / "checkpoint.pkl").exists()
    options = TrainOptions(game=game, seed=seed, timesteps=timesteps, run_dir=Path(run_dir),
                           resume=resume, overrides=() if resume else tuple(overrides),
                           progress=False, max_minutes=max_minutes or None, threads=threads)
    start = time.perf_counter()
    summary = train(options)
    if summary["timesteps"] < timesteps:
        return None
    extra = read_checkpoint(run_dir)["extra"]
    return summary, extra.get("train_seconds", time.perf_counter() - start)


def planned_timesteps(game: str, overrides: list[str], timesteps: int) -> int:
    """The steps a variant's run ends at: ``timesteps`` rounded up to its whole rollouts."""
    return whole_rollouts(apply_overrides(load_config(game), overrides), timesteps)


def run_variant(game: str, name: str, overrides: list[str], timesteps: int, seed: int,
                root: Path, max_minutes: float | None, threads: int | None = None
                ) -> dict | None:
    """Train (or resume) one variant and measure it; ``None`` if it stopped early.  The
    measurement is kept in the run folder (``ablation.json``) and not repeated."""
    from agents.evaluation import optimality_gap
    from agents.policies.sb3_models import SB3Agent

    run_dir = config_run_dir(root, game, name, seed)
    result_path = run_dir / "ablation.json"
    if result_path.exists():
        cached = json.loads(result_path.read_text())
        if (cached.get("timesteps") == planned_timesteps(game, overrides, timesteps)
                and cached.get("overrides") == overrides):
            return cached
    trained = train_run(game, run_dir, overrides, timesteps, seed, max_minutes, threads)
    if trained is None:
        return None
    summary, train_seconds = trained
    agent = SB3Agent(game, model_path=run_dir / "final.zip")
    r = optimality_gap(agent, game, EVAL_GAMES, seed=0, name=name)
    measured = {k: v for k, v in r.summary().items() if k not in ("agent", "game")}
    out = {"variant": name, "overrides": overrides, "timesteps": summary["timesteps"],
           "config_digest": config_digest(game), "train_seconds": train_seconds,
           "steps_per_second": summary["timesteps"] / max(train_seconds, 1e-9),
           **measured, "seed": seed, "eval_seed": measured.get("seed", 0)}  # training seed
    atomic_write_text(result_path, json.dumps(out, indent=1, default=float) + "\n")
    return out


def merge_earlier_rows(rows: list[dict], path: Path, digest: str) -> list[dict]:
    """``rows`` plus the rows of ``path`` (an earlier ``ablations.json``) for the variants not
    run this time, where the earlier row is still valid: the same base config (digest),
    overrides, budget and seed as this run's (with no rows, as the earlier table's first).
    In the order of :data:`VARIANTS`."""
    by_name = {r["variant"]: r for r in rows}
    if path.exists():
        earlier = json.loads(path.read_text())
        ref = rows[0] if rows else next((r for r in earlier if r.get("seed") is not None), {})
        for old in earlier:
            name = old.get("variant")
            if (name in VARIANTS and name not in by_name
                    and old.get("config_digest") == digest
                    and old.get("overrides") == VARIANTS[name][1]
                    and old.get("timesteps") == ref["timesteps"]
                    and old.get("seed") == ref["seed"]):
                by_name[name] = old
    return [by_name[n] for n in VARIANTS if n in by_name]


def seed_gaps(root: Path, row: dict) -> dict[str, float]:
    """Seed -> gap of every measured run of ``row``'s variant under ``root`` with its
    overrides, budget and base config (``"0"``, ``"1"``, ... in order)."""
    found = {}
    for path in Path(root).glob(f"{row['variant']}-seed*-{row['config_digest']}/ablation.json"):
        r = json.loads(path.read_text())
        if (r.get("variant") == row["variant"] and r.get("overrides") == row["overrides"]
                and r.get("timesteps") == row["timesteps"]):
            found[int(r["seed"])] = r["gap"]
    return {str(s): found[s] for s in sorted(found)}


def merged_seed_gaps(earlier: dict[str, float], found: dict[str, float]) -> dict[str, float]:
    """A kept row's earlier seed gaps with those found on disk now (the runs may be gone)."""
    both = {**earlier, **found}
    return {s: both[s] for s in sorted(both, key=int)}


def run_ablations(game: str, variants: list[str], timesteps: int, seeds: list[int], root: Path,
                  max_minutes: float | None = None, threads: int | None = 1) -> list[dict]:
    """Train and measure every seed of every variant (printing each gap); returns the rows of
    the first seed (a variant whose run stopped early has none)."""
    rows = []
    for name in variants:
        print(f"== {name}: {VARIANTS[name][0]}", flush=True)
        for seed in seeds:
            row = run_variant(game, name, VARIANTS[name][1], timesteps, seed, root, max_minutes,
                              threads)
            if row is None:
                print(f"{name} seed {seed} stopped before {timesteps:,} steps; run again "
                      "to resume")
                continue
            print(f"{name} seed {seed}: gap {row['gap']:.2f} [{row['gap_ci'][0]:.2f}, "
                  f"{row['gap_ci'][1]:.2f}]", flush=True)
            if seed == seeds[0]:
                rows.append(row)
    return rows


def full_budget(out: Path, game: str) -> dict | None:
    """The full-budget rows of ``game`` beside the table in ``out``: the recipe's seeds
    (``ppo_recipe_seeds.json``) and its variants (``recipe_variants.json``, dice-env
    recipe-variants), or None when either is missing."""
    try:
        recipe = json.loads((out / "ppo_recipe_seeds.json").read_text())[game]
        variants = json.loads((out / "recipe_variants.json").read_text())[game]
    except (OSError, ValueError, KeyError):
        return None
    return {"recipe": recipe, "variants": variants}


def write_table(game: str, rows: list[dict], out: Path, root: Path, command: str) -> Path:
    """Write ``out/ablations.md`` and ``.json``: ``rows`` with the still valid rows of the
    earlier table there, and every seed's gap found under ``root``; returns the markdown's
    path."""
    ran = {r["variant"] for r in rows}
    rows = merge_earlier_rows(rows, out / "ablations.json", config_digest(game))
    kept = [r["variant"] for r in rows if r["variant"] not in ran]
    rows = [{**r, "seed_gaps": merged_seed_gaps(r.get("seed_gaps", {}), seed_gaps(root, r))}
            for r in rows]
    changes = {name: change for name, (change, _) in VARIANTS.items()}
    atomic_write_text(out / "ablations.md",
                      ablations_markdown(game, rows, command, changes, EVAL_GAMES, kept,
                                         full_budget(out, game)))
    atomic_write_text(out / "ablations.json", json.dumps(rows, indent=1, default=float))
    return out / "ablations.md"
