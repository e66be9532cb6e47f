"""PPO across training seeds at a reduced budget: every seed's exact gap, mean and range.

Each seed trains the config of the game's committed model (:data:`CONFIGS`, a file of
``agents/training/ppo/configs/``, with :data:`OVERRIDES`) for the game's reduced budget
(:data:`BUDGETS`), then the final model is measured by its exact gap to the optimum
(:func:`~agents.training.studies.measure.measure_agent`; 5000 with twice as many games).  Runs
live in ``<root>/<GAME>/ppo-seed<S>-<config digest>/``; a finished seed is only measured again
(its ``seed.json``), a stopped one is resumed.  The table is written by
:func:`agents.evaluation.reports.seeds.ppo_seeds_markdown`.
"""

from __future__ import annotations

import json
from pathlib import Path

from agents.evaluation.reports.seeds import ppo_seeds_markdown
from agents.games import resolve
from agents.training.studies.ablations import config_run_dir, train_run
from agents.training.studies.measure import measure_agent
from dice_env.io import atomic_write_text

__all__ = ["BUDGETS", "CONFIGS", "EVAL_GAMES", "GAMES", "OVERRIDES", "SEEDS", "run_seed",
           "run_seeds", "write_table"]

GAMES = ["penta", "dice-poker", "fivethousand"]
#: the reduced training budget of each game (env steps per seed)
BUDGETS = {"penta": 2_000_000, "dice-poker": 2_000_000, "fivethousand": 1_000_000}
#: the config of each game's committed model: the structured policy with the linear term
#: (issue 28; 5000 against the optimal player)
CONFIGS = {"penta": "penta-structured", "dice-poker": "dice-poker-structured",
           "fivethousand": "fivethousand-structured"}
#: overrides of those configs (none: they train with the lean trainer already)
OVERRIDES: dict[str, list[str]] = {"penta": [], "dice-poker": [], "fivethousand": []}
SEEDS = [0, 1, 2]
EVAL_GAMES = 2000


def run_seed(game: str, seed: int, timesteps: int, eval_games: int, root: Path,
             max_minutes: float | None, threads: int | None = None) -> dict | None:
    """Train (or resume) one seed and measure it; ``None`` if it stopped early."""
    from agents.policies.sb3_models import SB3Agent

    run_dir = config_run_dir(Path(root) / game, CONFIGS[game], "ppo", seed)
    result_path = run_dir / "seed.json"
    if result_path.exists():
        cached = json.loads(result_path.read_text())
        if cached.get("timesteps") == timesteps and cached.get("eval_games") == eval_games:
            return cached
    trained = train_run(CONFIGS[game], run_dir, OVERRIDES[game], timesteps, seed, max_minutes,
                        threads)
    if trained is None:
        return None
    summary, seconds = trained
    n = eval_games * resolve(game).family.seats_per_seed
    r = {"seed": seed, "timesteps": summary["timesteps"], "eval_games": eval_games,
         **measure_agent(SB3Agent(game, model_path=run_dir / "final.zip"), game, n),
         "train_seconds": seconds, "steps_per_second": summary["timesteps"] / max(seconds, 1e-9)}
    atomic_write_text(result_path, json.dumps(r, indent=1, default=float) + "\n")
    return r


def run_seeds(games: list[str], seeds: list[int], timesteps: int | None, eval_games: int,
              root: Path, max_minutes: float | None = None, threads: int | None = None
              ) -> tuple[dict[str, list[dict]], bool]:
    """Every seed of every game (``timesteps`` or the game's budget), printing each gap;
    returns the rows of the games with a measured seed, and whether a seed stopped early."""
    rows: dict[str, list[dict]] = {}
    stopped = False
    for game in games:
        rows[game] = []
        for seed in seeds:
            r = run_seed(game, seed, timesteps or BUDGETS[game], eval_games, root, max_minutes,
                         threads)
            if r is None:
                stopped = True
                print(f"{game} seed {seed}: stopped early; run the same command to resume")
                continue
            print(f"{game} seed {seed}: gap {r['gap']:.5g} [{r['ci'][0]:.5g}, {r['ci'][1]:.5g}]"
                  f" {r['unit']}", flush=True)
            rows[game].append(r)
    return {g: rs for g, rs in rows.items() if rs}, stopped


def write_table(rows: dict[str, list[dict]], out: Path, command: str, eval_games: int) -> Path:
    """Write ``out/ppo_seeds.md`` and ``.json``; returns the markdown's path."""
    configs = {g: (CONFIGS[g], OVERRIDES[g]) for g in CONFIGS}
    atomic_write_text(out / "ppo_seeds.md", ppo_seeds_markdown(rows, command, eval_games,
                                                               configs))
    atomic_write_text(out / "ppo_seeds.json", json.dumps(rows, indent=1, default=float) + "\n")
    return out / "ppo_seeds.md"
