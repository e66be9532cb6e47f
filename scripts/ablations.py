#!/usr/bin/env python
"""PPO ablations at a fixed budget, each measured by its exact gap to the optimum.

Every variant is the game's committed config (``agents/training/ppo/configs/<GAME>.json``) with
a few overrides (``scripts/train.py --set``), trained for ``--timesteps`` from the same seed, then
evaluated with the exact per-decision regret (``agents.evaluation.optimality_gap``, 2,000
games, seed 0): the gap to the optimum with its 95 % CI, where it is lost, the upper-bonus
rate, the wall-clock time and the trainer's env steps per second.  Runs live in
``runs/ablations/<GAME>/<VARIANT>-seed<SEED>/``; a variant already trained is only evaluated
again, one that was stopped is resumed, so the script can be run across sessions.

The documented run (``python scripts/ablations.py penta``, the default budget) writes
``results/ablations.md`` and ``.json``; other runs write ``runs/ablations/<GAME>/``.  A run of
some ``--variants`` keeps the earlier table's rows of the others while they are still valid
(same base config, overrides, budget and seed), so a new lever costs one training run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

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
DEFAULT_TIMESTEPS = 2_000_000
EVAL_GAMES = 2000


def _fail(parser: argparse.ArgumentParser, message: str) -> None:
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def config_digest(game: str) -> str:
    """A short digest of the game's committed config (what every variant starts from)."""
    from agents.training.ppo import load_config

    return hashlib.sha256(json.dumps(load_config(game), sort_keys=True).encode()).hexdigest()[:8]


def config_run_dir(root: Path, game: str, name: str, seed: int) -> Path:
    """``root/<name>-seed<seed>-<digest>``: the base config's digest is part of the name, so
    after the committed config changes a run is trained afresh instead of resumed or reused."""
    return root / f"{name}-seed{seed}-{config_digest(game)}"


def train_run(game: str, run_dir: Path, overrides: list[str], timesteps: int, seed: int,
              max_minutes: float | None, threads: int | None = None) -> tuple[dict, float] | None:
    """Train (or resume) ``scripts/train.py``'s run in ``run_dir``: its summary and training
    seconds, or ``None`` if it stopped before ``timesteps``."""
    import train

    from agents.training.ppo import read_checkpoint

    args = [game, "--seed", str(seed), "--timesteps", str(timesteps), "--run-dir",
            str(run_dir), "--no-progress"]
    if (run_dir / "checkpoint.pkl").exists():
        args.append("--resume")
    else:
        for o in overrides:
            args += ["--set", o]
    if max_minutes:
        args += ["--max-minutes", str(max_minutes)]
    if threads:
        args += ["--threads", str(threads)]
    start = time.perf_counter()
    summary = train.main(args)
    if summary["timesteps"] < timesteps:
        return None
    extra = read_checkpoint(run_dir)["extra"]
    return summary, extra.get("train_seconds", time.perf_counter() - start)


def planned_timesteps(game: str, overrides: list[str], timesteps: int) -> int:
    """The steps a variant's run ends at: ``timesteps`` rounded up to its whole rollouts."""
    from agents.training.ppo.config import apply_overrides, load_config, whole_rollouts

    return whole_rollouts(apply_overrides(load_config(game), overrides), timesteps)


def run_variant(game: str, name: str, overrides: list[str], timesteps: int, seed: int,
                root: Path, max_minutes: float | None, threads: int | None = None
                ) -> dict | None:
    """Train (or resume) one variant and measure it; ``None`` if it stopped early."""
    import agents
    from agents.evaluation import optimality_gap

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
    agent = agents.load(str(run_dir / "final.zip"), game)
    r = optimality_gap(agent, game, EVAL_GAMES, seed=0, name=name)
    measured = {k: v for k, v in r.summary().items() if k not in ("agent", "game")}
    out = {"variant": name, "overrides": overrides, "timesteps": summary["timesteps"],
           "config_digest": config_digest(game), "train_seconds": train_seconds,
           "steps_per_second": summary["timesteps"] / max(train_seconds, 1e-9),
           **measured, "seed": seed, "eval_seed": measured.get("seed", 0)}  # training seed
    from dice_env.io import atomic_write_text

    atomic_write_text(result_path, json.dumps(out, indent=1, default=float) + "\n")
    return out


def merge_earlier_rows(rows: list[dict], path: Path, digest: str) -> list[dict]:
    """``rows`` plus the rows of ``path`` (an earlier ``ablations.json``) for the variants not
    run this time, where the earlier row is still valid: the same base config (digest),
    overrides, budget and seed as this run's.  In the order of :data:`VARIANTS`."""
    by_name = {r["variant"]: r for r in rows}
    if path.exists() and rows:
        ref = rows[0]
        for old in json.loads(path.read_text()):
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
    for path in root.glob(f"{row['variant']}-seed*-{row['config_digest']}/ablation.json"):
        r = json.loads(path.read_text())
        if (r.get("variant") == row["variant"] and r.get("overrides") == row["overrides"]
                and r.get("timesteps") == row["timesteps"]):
            found[int(r["seed"])] = r["gap"]
    return {str(s): found[s] for s in sorted(found)}


def _merged(earlier: dict[str, float], found: dict[str, float]) -> dict[str, float]:
    """A kept row's earlier seed gaps with those found on disk now (the runs may be gone)."""
    both = {**earlier, **found}
    return {s: both[s] for s in sorted(both, key=int)}


def _seeds_cell(gaps: dict[str, float]) -> str:
    if len(gaps) < 2:
        return "—"
    values = list(gaps.values())
    return (" / ".join(f"{g:.2f}" for g in values) +
            f" (mean {sum(values) / len(values):.2f}, seeds {', '.join(gaps)})")


def to_markdown(game: str, rows: list[dict], command: str, kept: list[str] | None = None
                ) -> str:
    """The table; ``kept`` names the rows taken over from an earlier run."""
    source = f"Generated by `{command}`."
    if kept:
        source += (f" The rows of {', '.join(kept)} are kept from an earlier run with the same "
                   f"base config, budget and seed (`python scripts/ablations.py {game} "
                   f"--variants {' '.join(kept)}`).")
    lines = ["# PPO ablations", "", f"{source} Do not edit by hand.", "",
             f"Game **{game}**; each variant changes one lever of the committed config "
             f"(`agents/training/ppo/configs/{game}.json`), is trained from the same seed for the "
             "same budget, and is measured by its exact gap to the optimum "
             f"(`agents.evaluation.optimality_gap`, {EVAL_GAMES:,} games, seed 0; the gap is in "
             "points of expected final score, lower is better). The gap and its columns are "
             "those of training seed 0; *every seed* lists the gaps of every training seed run "
             "(`--seeds`): the spread an idea's gain must clear. Wall-clock time and steps/s "
             "depend on the machine's load when each variant ran; the gaps do not.", "",
             "| variant | change | steps | gap to the optimum (95 % CI) | after roll 1 | after "
             "roll 2 | box choice | upper bonus rate | every seed | train wall-clock | "
             "env steps/s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        kinds = list(r["by_kind"].values())
        low, high = r["gap_ci"]
        lines.append(f"| {r['variant']} | {VARIANTS[r['variant']][0]} | {r['timesteps']:,} | "
                     f"**{r['gap']:.2f}** [{low:.2f}, {high:.2f}] | " +
                     " | ".join(f"{k:.2f}" for k in kinds) +
                     f" | {r['rates']['upper bonus'][0]:.3f} | "
                     f"{_seeds_cell(r.get('seed_gaps', {}))} | "
                     f"{r['train_seconds'] / 60:.1f} min | {r['steps_per_second']:,.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("game", nargs="?", default="penta",
                        help="a game with a PPO config (default %(default)s)")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), metavar="NAME",
                        help=f"which variants (default: all of {list(VARIANTS)})")
    parser.add_argument("--timesteps", type=int, default=DEFAULT_TIMESTEPS,
                        help="training budget of every variant (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="training seed of the table's rows (default %(default)s)")
    parser.add_argument("--seeds", type=int, nargs="+", default=None, metavar="SEED",
                        help="train and measure these seeds of every variant; the first is the "
                             "table's, all fill its 'every seed' column")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop each run after this long (a later call resumes it)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: results/ for the documented run, else "
                             "runs/ablations/GAME/)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.variants) - set(VARIANTS))
    if unknown:
        _fail(parser, f"unknown variants {unknown}; known: {list(VARIANTS)}")
    if args.timesteps < 1:
        _fail(parser, f"--timesteps must be positive, got {args.timesteps}")
    if args.threads < 1:
        _fail(parser, f"--threads must be positive, got {args.threads}")
    seeds = list(dict.fromkeys(args.seeds)) if args.seeds else [args.seed]
    from agents.training.ppo import CONFIG_DIR

    if not (CONFIG_DIR / f"{args.game}.json").exists():
        _fail(parser, f"no PPO config for {args.game!r}; configs exist for "
                      f"{sorted(p.stem for p in CONFIG_DIR.glob('*.json'))}")
    root = ROOT / "runs" / "ablations" / args.game
    documented = args.timesteps == DEFAULT_TIMESTEPS and seeds[0] == 0
    out = args.out or (ROOT / "results" if documented else root)
    rows = []
    for name in args.variants:
        print(f"== {name}: {VARIANTS[name][0]}", flush=True)
        for seed in seeds:
            row = run_variant(args.game, name, VARIANTS[name][1], args.timesteps, seed, root,
                              args.max_minutes, args.threads)
            if row is None:
                print(f"{name} seed {seed} stopped before {args.timesteps:,} steps; run again "
                      "to resume")
                continue
            print(f"{name} seed {seed}: gap {row['gap']:.2f} [{row['gap_ci'][0]:.2f}, "
                  f"{row['gap_ci'][1]:.2f}]", flush=True)
            if seed == seeds[0]:
                rows.append(row)
    if rows:
        from dice_env.io import atomic_write_text

        ran = {r["variant"] for r in rows}
        rows = merge_earlier_rows(rows, out / "ablations.json", config_digest(args.game))
        kept = [r["variant"] for r in rows if r["variant"] not in ran]
        rows = [{**r, "seed_gaps": _merged(r.get("seed_gaps", {}), seed_gaps(root, r))}
                for r in rows]
        command = "python scripts/ablations.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        atomic_write_text(out / "ablations.md",
                          to_markdown(args.game, rows, command.strip(), kept))
        atomic_write_text(out / "ablations.json", json.dumps(rows, indent=1, default=float))
        print(f"written: {out / 'ablations.md'}")
    return rows


if __name__ == "__main__":
    main()
