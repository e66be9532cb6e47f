"""Playing to win (``dice-env report win``): the win-value players against score-optimal
tables, their training seeds, and the 5000 sections for three and N players.

1. **Seeds**: each game's win-value runs ``runs/win-value-<GAME>-seed<S>/model.pt`` (trained as
   ``dice-env train win-value GAME --seed S`` trains them when missing, unless told not to) are
   measured by their paired gain over the score-optimal player in two-player matches; the
   **median** seed (never the best) can be exported with its learning curve
   (:func:`export`).
2. **Tables**: the player (the exported model, else the committed one) against score-optimal
   opponents at tables of several sizes, in every seat on common dice
   (:func:`agents.evaluation.scorecard_tables.play_scorecard_tables`).
3. **5000 for three** and **5000 for N players** come from :mod:`agents.evaluation`.

The report is written by :mod:`agents.evaluation.reports.win` (:func:`save` merges it with an
earlier one of the same folder, under a lock).
"""

from __future__ import annotations

import fcntl
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dice_env.io import atomic_write_bytes

__all__ = ["GAMES", "QUICK_SETS", "SETS", "TURNS_PLOTTED", "WinStudy", "export",
           "learning_curves", "lead_profile", "measure_tables", "median_seed", "merge_earlier",
           "run_study", "save", "seed_rows"]

GAMES = ["penta", "dice-poker"]
#: dice sets per table size in the full run: two players, enough for a CI half-width of the raw
#: win share of about 0.004 (the paired estimate 1/N + gain is narrower still)
SETS = {2: 60_000, 3: 8_000, 4: 8_000, 5: 5_000, 6: 5_000}
QUICK_SETS = 60
TURNS_PLOTTED = (6, 9, 11, 12)  # filled boxes at the start of the turn (turn k + 1)
MODEL_SUFFIXES = (".pt", ".curve.json", ".curve.csv")


def run_folder(game: str, seed: int, runs: str | Path = Path("runs")) -> Path:
    """A seed's run folder (:func:`agents.training.win_value.run_folder`; imported lazily, so
    that the command line starts without torch)."""
    from agents.training.win_value import run_folder as folder

    return folder(game, seed, runs)


@dataclass(frozen=True)
class WinStudy:
    """What a run measures (the options of ``dice-env report win``)."""

    games: tuple[str, ...] = tuple(GAMES)
    players: tuple[int, ...] = (2, 4)
    sets: int | None = None  # None: SETS by table size
    seeds: tuple[int, ...] = (0, 1, 2)
    seed_sets: int = 4_000
    train: bool = True
    measure_seeds: bool = True
    only_fivethousand: bool = False
    fivethousand_matches: int = 20_000
    fivethousand_players: tuple[int, ...] = (3, 4)
    fivethousand_n_matches: int = 12_000
    seed: int = 0
    quick: bool = False
    jobs: int = 1
    progress: bool = True


def _ci(pair: tuple[float, float]) -> list[float]:
    return [round(pair[0], 5), round(pair[1], 5)]


def _play_chunk(task: tuple) -> tuple:
    """Worker: dice sets ``first .. first + sets - 1`` of one table, with the win-value player
    (``who="win"``) or a score-optimal player (``who="optimal"``) as identity 0."""
    game, players, first, sets, seed, model, who, progress = task
    from agents.evaluation.scorecard_tables import play_scorecard_tables
    from agents.registry import make
    from agents.scorecard.win_value import WinValueAgent

    optimal = make("optimal", game)
    me = WinValueAgent(game, model_path=model) if who == "win" else optimal
    view = "match" if who == "win" else "card"
    t = play_scorecard_tables([me] + [optimal] * (players - 1), game, sets, seed=seed,
                              views=[view] + ["card"] * (players - 1), progress=progress,
                              first_set=first, record_leads=True)
    return t.totals, t.leads


def _play(game: str, players: int, sets: int, seed: int, model: Path | None, who: str,
          jobs: int, progress: bool) -> Any:
    """The tables of ``sets`` dice sets, split over ``jobs`` worker processes."""
    import numpy as np

    from agents.evaluation.scorecard_tables import TableMatches

    bounds = np.linspace(0, sets, max(1, min(jobs, sets)) + 1).astype(int)
    tasks = [(game, players, int(a), int(b - a), seed, model, who, progress and i == 0)
             for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    if len(tasks) == 1:
        parts = [_play_chunk(tasks[0])]
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(len(tasks)) as pool:
            parts = pool.map(_play_chunk, tasks)
    return TableMatches(np.concatenate([p[0] for p in parts]),
                        np.concatenate([p[1] for p in parts]))


def measure_tables(game: str, players: int, sets: int, seed: int, progress: bool,
                   model: Path | None = None, jobs: int = 1) -> tuple[dict, Any, Any]:
    """One table size: the win-value player (identity 0; ``model``, else the committed one)
    against score-optimal opponents, and a score-optimal player in its place on the same dice;
    returns (the table's row, the player's tables, the reference's)."""
    start = time.perf_counter()
    tables = _play(game, players, sets, seed, model, "win", jobs, progress)
    seconds = time.perf_counter() - start
    reference = _play(game, players, sets, seed, model, "optimal", jobs, False)
    diff = tables.difference(reference)
    row = {"game": game, "players": players, "sets": sets, "matches": sets * players,
           "share": _ci(tables.share()), "reference_share": _ci(reference.share()),
           "gain": _ci(diff["share"]), "total_cost": _ci(diff["total"]),
           "mean_total": _ci(tables.mean_total()),
           "reference_total": _ci(reference.mean_total()),
           "rates": {k: round(v, 5) for k, v in tables.rates().items()},
           "seats": [_ci(s) for s in tables.seat_values()],
           "reference_seats": [_ci(s) for s in reference.seat_values()],
           "seconds": round(seconds, 1)}
    # N score-optimal players are exchangeable, so the reference is worth exactly 1/N in
    # expectation and 1/N + the paired gain estimates the share without the dice's noise
    row["paired_share"] = _ci((1 / players + diff["share"][0], diff["share"][1]))
    return row, tables, reference


def seed_rows(game: str, study: WinStudy, runs: Path = Path("runs")) -> list[dict]:
    """Train (if needed and ``study.train``) and measure every seed of ``game``."""
    from agents.training.win_value import TrainConfig, checkpoint_path, train_run

    rows = []
    for seed in study.seeds:
        folder = run_folder(game, seed, runs)
        model = folder / "model.pt"
        if not model.exists():
            if not study.train:
                print(f"no run {model}; skipping (train it, or do not turn training off)",
                      file=sys.stderr)
                continue
            config = TrainConfig(game=game, seed=seed, threads=1, progress=False)
            result, _ = train_run(config, folder, resume=checkpoint_path(model).exists())
            print(f"trained {game} seed {seed} in {result.seconds:.0f} s; model {model}")
        row, _, _ = measure_tables(game, 2, study.seed_sets, study.seed + 1000, False, model,
                                   study.jobs)
        curve = json.loads(model.with_suffix(".curve.json").read_text())
        rows.append({"seed": seed, "gain": row["gain"], "total_cost": row["total_cost"],
                     "train_seconds": curve["seconds"]})
        print(f"{game} seed {seed}: gain {row['gain'][0]:+.4f} +- {row['gain'][1]:.4f}",
              flush=True)
    return rows


def median_seed(rows: list[dict]) -> int:
    """The seed whose gain is the median (the lower middle one for an even count)."""
    gains = sorted(r["gain"][0] for r in rows)
    target = statistics.median_low(gains)
    return next(r["seed"] for r in rows if r["gain"][0] == target)


def export(game: str, seed: int, models: Path, runs: Path = Path("runs")) -> Path:
    """Copy seed ``seed``'s model and learning curve to ``models/win-value-<game>.*``
    (atomically); returns the model's path."""
    source = run_folder(game, seed, runs)
    for suffix in MODEL_SUFFIXES:
        atomic_write_bytes(Path(models) / f"win-value-{game}{suffix}",
                           (source / f"model{suffix}").read_bytes())
    return Path(models) / f"win-value-{game}.pt"


def lead_profile(tables: Any, reference: Any, turns: tuple[int, ...] = TURNS_PLOTTED,
                 width: int = 10) -> dict:
    """Win share by lead at the start of selected turns, for the player and the reference:
    ``{turn: {"win-value" | "score-optimal": {lead bin: [share, matches]}}}``."""
    import numpy as np

    out = {}
    for k in turns:
        rows = {}
        for name, t in (("win-value", tables), ("score-optimal", reference)):
            lead = t.leads[..., k].ravel()
            pts = t.points().ravel()
            ok = np.isfinite(lead)
            bins = np.clip(np.round(lead[ok] / width), -8, 8).astype(int) * width
            rows[name] = {int(b): [round(float(pts[ok][bins == b].mean()), 4),
                                   int((bins == b).sum())] for b in np.unique(bins)}
        out[k] = rows
    return out


def run_study(study: WinStudy, command: str, models: Path | None = None) -> dict:
    """Run the study (see the module doc); with ``models``, export each game's median seed
    there and measure the tables with it.  Returns the report (what ``win.json`` holds)."""
    start = time.perf_counter()
    report: dict = {"command": command.strip(), "seed": study.seed,
                    "seed_sets": study.seed_sets, "seeds": {}, "committed": {}, "tables": [],
                    "leads": {}}
    for game in () if study.only_fivethousand else study.games:
        model = None
        if study.measure_seeds and not study.quick:
            report["seeds"][game] = seed_rows(game, study)
            if report["seeds"][game] and models is not None:
                seed = median_seed(report["seeds"][game])
                model = export(game, seed, models)
                print(f"{game}: exported the median seed {seed} to {model}")
                report["committed"][game] = seed
        for players in study.players:
            sets = QUICK_SETS if study.quick else (study.sets or SETS[players])
            row, tables, reference = measure_tables(game, players, sets, study.seed,
                                                    study.progress, model, study.jobs)
            report["tables"].append(row)
            print(f"{game} {players}p: share {100 * row['share'][0]:.2f} % ± "
                  f"{100 * row['share'][1]:.2f}, gain {100 * row['gain'][0]:+.2f} pp ± "
                  f"{100 * row['gain'][1]:.2f}", flush=True)
            if players == 2:
                report["leads"][game] = lead_profile(tables, reference)
    if study.fivethousand_matches:
        from agents.evaluation.fivethousand_three import three_player_report

        report["fivethousand"] = three_player_report(
            matches=QUICK_SETS if study.quick else study.fivethousand_matches, seed=study.seed)
    if study.fivethousand_n_matches:
        from agents.evaluation.fivethousand_n_players import learned_value_n_player_report

        report["fivethousand_n"] = learned_value_n_player_report(
            tuple(study.fivethousand_players), seed=study.seed,
            matches=QUICK_SETS if study.quick else study.fivethousand_n_matches)
    report["seconds"] = round(time.perf_counter() - start, 1)
    return report


def _int_keys(leads: dict) -> dict:
    return {g: {int(k): {name: {int(b): v for b, v in bins.items()}
                         for name, bins in per.items()} for k, per in turns.items()}
            for g, turns in leads.items()}


def merge_earlier(report: dict, path: Path) -> dict:
    """``report`` with what an earlier run wrote at ``path`` for the games, table sizes and
    5000 this run did not measure (so the games can be run one at a time, in any order)."""
    if not path.exists():
        return report
    try:
        old = json.loads(path.read_text())
        done = {(r["game"], r["players"]) for r in report["tables"]}
        kept = [r for r in old.get("tables", []) if (r["game"], r["players"]) not in done]
        report["tables"] = sorted(kept + report["tables"],
                                  key=lambda r: (GAMES.index(r["game"]), r["players"]))
        for key in ("seeds", "committed"):
            report[key] = {**old.get(key, {}), **report[key]}
        report["leads"] = {**_int_keys(old.get("leads", {})), **report["leads"]}
        for key in ("fivethousand", "fivethousand_n"):
            if key not in report and key in old:
                report[key] = old[key]
        commands = old.get("commands", [old.get("command", "")])
        report["commands"] = [c for c in commands if c and c != report["command"]] + \
            [report["command"]]
        report["seconds"] = round(report["seconds"] + float(old.get("seconds", 0.0)), 1)
    except (ValueError, KeyError, TypeError) as exc:
        print(f"{path} is not a win report ({exc}); writing this run's results alone",
              file=sys.stderr)
    return report


def learning_curves(seeds: dict, runs: Path = Path("runs")) -> dict[str, list[tuple[int, list]]]:
    """``{game: [(seed, curve rows), ...]}`` of the seeds in ``seeds`` (a report's ``"seeds"``)
    whose run folders still hold their learning curve."""
    curves: dict[str, list[tuple[int, list]]] = {}
    for game in GAMES:
        for row in seeds.get(game, []):
            f = run_folder(game, row["seed"], runs) / "model.curve.json"
            if f.exists():
                curves.setdefault(game, []).append((row["seed"],
                                                    json.loads(f.read_text())["curve"]))
    return curves


def save(report: dict, out: Path, merge: bool = True) -> dict:
    """Write the report into ``out`` (``win.md``, ``win.json``, ``win_leads.png``,
    ``win_curves.png``), merged with the one already there unless ``merge`` is false; runs of
    other games may end at the same time, so it holds ``out/.win.lock`` meanwhile.  Returns
    the report written."""
    from agents.evaluation.reports.win import write_report

    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".win.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if merge:
            report = merge_earlier(report, out / "win.json")
        write_report(out, report, GAMES, learning_curves(report["seeds"]))
    return report
