#!/usr/bin/env python
"""Evaluate agents on the games: the benchmark tables, or any policy's exact gap to the optimum.

Without ``--agent`` / ``--regret``: every registered agent on every game, written to
``benchmark.csv``, ``benchmark.md`` and ``score_distributions.png`` in ``--out``.  Only the
documented full run, ``python scripts/evaluate.py --games 10000 --seed 0`` (all defaults),
writes ``results/`` by default; any other run writes ``runs/evaluate/`` unless ``--out`` says
where, so a quick or partial run never overwrites the committed benchmark.  Scorecard games:
each agent plays the same ``--games`` games with **common random numbers** (game ``i`` draws
its dice from its own stream seeded by ``(seed, i)``), so the differences between agents are
paired; reported: mean, SD, SEM, and the paired difference to the optimal agent with a 95 % CI.
Penta and Dice Poker also get a two-player head-to-head table (rows ``"<game> 2p"``): every
pairing's seat-balanced score (win 1, tie 1/2) with a 95 % CI, derived from the same games
(:func:`head_to_head`).  5000: two-player head-to-head games against each opponent,
seat-balanced (each player opens half the games), win rates with 95 % CIs.

``--agent SPEC`` (repeatable) evaluates any policy on one ``--game`` (default penta): a
registered name, a stable-baselines3 model zip (MaskablePPO, PPO, A2C, DQN), a
``scripts/train.py`` run folder (the policy of its latest checkpoint) or ``module:attr`` /
``path/to/file.py:attr`` (see ``agents.load``).  ``--regret`` measures the exact
per-decision regret against the optimum (``agents.evaluation.optimality_gap``): the gap with
its 95 % CI and where it is lost; for 5000, in win probability against the optimal player
(or in turns for ``dice_env/FiveThousandSolo-v0``).  These runs print their results and write
files only with ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import agents
from agents.evaluation import play_scorecard_games
from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.games import SCORECARD, resolve
from dice_env.io import atomic_write_figure, atomic_write_text

SCORECARD_GAMES = ["penta", "dice-poker", "yahtzee-official"]
SCORECARD_AGENTS = ["random", "greedy", "heuristic", "optimal", "ppo", "learned-value"]
FIVE_THOUSAND_AGENTS = ["random", "threshold", "heuristic", "optimal", "ppo", "learned-value"]
FIVE_THOUSAND_OPPONENTS = ["threshold", "heuristic", "optimal"]
COLUMNS = ["game", "agent", "opponent", "games", "mean", "std", "sem", "win_rate",
           "ci_low", "ci_high", "diff_to_optimal", "diff_ci_low", "diff_ci_high", "seconds",
           "tie_rate", "loss_rate", "first_seat", "margin"]
#: scorecard games with a two-player head-to-head table (rows ``"<game> 2p"``)
HEAD_TO_HEAD_GAMES = ["penta", "dice-poker"]
#: dice pairs replayed on the match core to check the derived head-to-head table
CHECK_PAIRS = 200
#: the committed PPO learning curves (``scripts/plot_results.py``), embedded in benchmark.md
LEARNING_CURVES = Path(__file__).resolve().parent.parent / "results" / "learning_curves.png"


def learning_curves_link(out: Path, image: Path = LEARNING_CURVES) -> str | None:
    """``image`` as a link relative to the folder ``out`` of benchmark.md, or ``None`` (leave
    it out) when it does not exist or ``out`` is outside the repository that holds it."""
    out, repo = Path(out).resolve(), image.resolve().parent.parent
    if not image.is_file() or not out.is_relative_to(repo):
        return None
    return Path(os.path.relpath(image.resolve(), out)).as_posix()


#: (agent, game) pairs this run left out for want of a trained model (:func:`try_make`)
MISSING_MODELS: list[tuple[str, str]] = []


def try_make(name: str, game: str, seed: int):
    """``agents.make(name, game)``, or ``None`` when that agent is unavailable: with a note,
    or for want of a trained model (not every game has one) in :data:`MISSING_MODELS`."""
    try:
        return agents.make(name, game, seed=seed)
    except FileNotFoundError:
        if (name, game) not in MISSING_MODELS:
            MISSING_MODELS.append((name, game))
        return None
    except (ImportError, ValueError) as err:
        tqdm.write(f"skipping {name} on {game}: {err}")
        return None


def missing_models_note(missing: list[tuple[str, str]]) -> str | None:
    """One line saying which agents have no trained model for which games, or ``None``."""
    by_game: dict[str, list[str]] = {}
    for name, game in missing:
        by_game.setdefault(game, []).append(name)
    if not by_game:
        return None
    return ("no trained model (expected: not every game has one), so not in the tables: "
            + "; ".join(f"{', '.join(names)} on {game}" for game, names in by_game.items()))


def evaluate_scorecard(game: str, names: list[str], games: int, seed: int,
                       players: dict | None = None) -> list[dict]:
    """Rows of the benchmark table for one scorecard game (``players``: name -> agent, else
    built from ``names``), and every agent's totals."""
    totals, seconds = {}, {}
    if players is None:
        players = {name: try_make(name, game, seed) for name in names}
    if "optimal" not in players:  # the reference of the paired differences
        players = {**players, "optimal": try_make("optimal", game, seed)}
    for name, agent in tqdm(players.items(), desc=game, leave=False):
        if agent is None:
            continue
        start = time.perf_counter()
        totals[name] = play_scorecard_games(agent, game, games, seed=seed).astype(np.float64)
        seconds[name] = time.perf_counter() - start
    rows = []
    for name, t in totals.items():
        row = {"game": game, "agent": name, "opponent": "", "games": games,
               "mean": t.mean(), "std": t.std(ddof=1), "sem": t.std(ddof=1) / np.sqrt(games),
               "seconds": seconds[name]}
        if "optimal" in totals and name != "optimal":
            d = t - totals["optimal"]
            half = 1.96 * d.std(ddof=1) / np.sqrt(games)
            row.update(diff_to_optimal=d.mean(), diff_ci_low=d.mean() - half,
                       diff_ci_high=d.mean() + half)
        rows.append(row)
    return rows, totals


def evaluate_fivethousand(names: list[str], opponents: list[str], games: int,
                          seed: int) -> list[dict]:
    rows = []
    players = {n: try_make(n, "fivethousand", seed) for n in dict.fromkeys(names + opponents)}
    pairs = []
    for a in names:
        for o in opponents:
            if a != o and (o, a) not in pairs:  # a mirrored pairing adds nothing
                pairs.append((a, o))
    for name, opp in tqdm(pairs, desc="fivethousand", leave=False):
        if players[name] is None or players[opp] is None:
            continue
        start = time.perf_counter()
        result = play_fivethousand_matches([players[name], players[opp]], games, seed=seed)
        p, low, high = result.win_rate_ci(0)
        rows.append({"game": "fivethousand", "agent": name, "opponent": opp, "games": games,
                     "sem": np.sqrt(p * (1 - p) / games), "win_rate": p, "ci_low": low,
                     "ci_high": high, "seconds": time.perf_counter() - start})
    return rows


def head_to_head(game: str, totals: dict[str, np.ndarray], seed: int,
                 players: dict | None = None) -> list[dict]:
    """Two-player rows of ``game``: every pairing of the agents that played, seat-balanced
    (``mean``: A's score, win 1 and tie 1/2, with ``ci_low`` / ``ci_high``; ``win_rate``,
    ``tie_rate``, ``loss_rate``; ``first_seat``: seat 0's score minus 1/2; ``margin``: A's
    mean TOTAL minus B's).

    Every agent here reads only its own card, so a match is two solitaire games and the
    table follows from the common-random-number games already played
    (:func:`agents.evaluation.matches_from_games`: dice pair ``g`` is A's game ``2g`` against
    B's game ``2g + 1``, A opening one match and B the other).  With ``players``, the first
    :data:`CHECK_PAIRS` dice pairs of the optimal-heuristic pairing are replayed as real
    matches on the match core and must agree exactly.
    """
    from agents.evaluation import matches_from_games, play_scorecard_matches

    names = list(totals)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            m = matches_from_games(totals[a], totals[b])
            score, half = m.score()
            rates = m.rates()
            rows.append({"game": f"{game} 2p", "agent": a, "opponent": b,
                         "games": 2 * m.pairs, "win_rate": rates["win"],
                         "tie_rate": rates["tie"], "loss_rate": rates["loss"],
                         "mean": score, "sem": half / 1.96, "ci_low": score - half,
                         "ci_high": score + half, "first_seat": m.first_seat()[0],
                         "margin": m.mean_margin()[0]})
    if players is not None and {"optimal", "heuristic"} <= set(totals):
        pairs = min(CHECK_PAIRS, len(totals["optimal"]) // 2)
        played = play_scorecard_matches([players["optimal"], players["heuristic"]], game,
                                        pairs, seed=seed)
        derived = matches_from_games(totals["optimal"][:2 * pairs],
                                     totals["heuristic"][:2 * pairs])
        if not np.array_equal(played.totals, derived.totals):
            raise RuntimeError(f"{game}: matches on the match core disagree with the solitaire "
                               "games they should replay")
    return rows


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS)
    writer.writeheader()
    for r in rows:
        writer.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v)
                         for k, v in r.items() if k in COLUMNS})
    return buf.getvalue()


def to_markdown(rows: list[dict], command: str, optimal_values: dict,
                learning_curves: str | None = "learning_curves.png") -> str:
    """The benchmark tables; ``learning_curves``: the link to the PPO learning curves,
    relative to the file (``None``: left out)."""
    curves = (f", `{learning_curves}` (PPO training, `python scripts/plot_results.py`)"
              if learning_curves else "")
    lines = ["# Benchmark", "", f"Generated by `{command}`. Do not edit by hand.", "",
             "Scorecard games: every agent plays the same games (common random numbers: game "
             "*i* draws its dice from its own stream), so the differences to the optimal agent "
             f"are paired. Plots: `score_distributions.png` (final scores){curves}.", "",
             "![score distributions](score_distributions.png)", ""]
    if learning_curves:
        lines += [f"![learning curves]({learning_curves})", ""]
    for game in dict.fromkeys(r["game"] for r in rows):
        game_rows = [r for r in rows if r["game"] == game]
        lines += [f"## {game.replace(' 2p', ': two players, head to head')}", ""]
        if game == "fivethousand":
            lines += ["Two players, seat-balanced win rate of the agent against the opponent "
                      "(95 % CI).", "", "| agent | opponent | games | win rate | 95 % CI |",
                      "|---|---|---:|---:|---:|"]
            for r in game_rows:
                lines.append(f"| {r['agent']} | {r['opponent']} | {r['games']:,} | "
                             f"{r['win_rate']:.3f} | [{r['ci_low']:.3f}, {r['ci_high']:.3f}] |")
        elif game.endswith(" 2p"):
            lines += _head_to_head_markdown(game, game_rows)
        else:
            if game in optimal_values:
                lines += [f"Optimal expected score (exact DP): **{optimal_values[game]:.4f}**.", ""]
            lines += ["| agent | games | mean | SD | SEM | paired diff. to optimal (95 % CI) |",
                      "|---|---:|---:|---:|---:|---:|"]
            for r in game_rows:
                diff = ""
                if "diff_to_optimal" in r:
                    diff = (f"{r['diff_to_optimal']:+.2f} [{r['diff_ci_low']:+.2f}, "
                            f"{r['diff_ci_high']:+.2f}]")
                lines.append(f"| {r['agent']} | {r['games']:,} | {r['mean']:.2f} | "
                             f"{r['std']:.2f} | {r['sem']:.2f} | {diff} |")
        lines.append("")
    return "\n".join(lines)


def _head_to_head_markdown(game: str, rows: list[dict]) -> list[str]:
    """The two-player table of one game: each row agent's seat-balanced score (win 1, tie 1/2)
    against each column agent, and what the optimal-heuristic pairing answers."""
    names = list(dict.fromkeys([r["agent"] for r in rows] + [r["opponent"] for r in rows]))
    cell = {}
    for r in rows:
        half = r["ci_high"] - r["mean"]
        cell[r["agent"], r["opponent"]] = f"{r['mean']:.3f} ± {half:.3f}"
        cell[r["opponent"], r["agent"]] = f"{1 - r['mean']:.3f} ± {half:.3f}"
    pairs = rows[0]["games"] // 2
    lines = [f"Two players, {rows[0]['games']:,} matches per pairing ({pairs:,} dice pairs, each "
             "played in both seat orders): the row agent's seat-balanced score against the "
             "column agent (win 1, tie 1/2; 95 % CI over the dice pairs). Every agent here "
             "reads only its own card, so a match is two solitaire games: the table comes from "
             "the games above (agent A's game 2g against B's game 2g+1), and "
             f"{CHECK_PAIRS} dice pairs of optimal against heuristic are replayed on the match "
             "core to check it.", "",
             "| | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for a in names:
        lines.append(f"| {a} | " + " | ".join(cell.get((a, b), "") for b in names) + " |")
    for r in rows:
        if {r["agent"], r["opponent"]} == {"optimal", "heuristic"}:
            opt_first = r["agent"] == "optimal"
            win, loss = ((r["win_rate"], r["loss_rate"]) if opt_first
                         else (r["loss_rate"], r["win_rate"]))
            score = r["mean"] if opt_first else 1 - r["mean"]
            half = r["ci_high"] - r["mean"]
            margin = r["margin"] if opt_first else -r["margin"]
            lines += ["", f"**Optimal against heuristic**: the expected-score optimum wins "
                      f"{win:.1%} of the matches, ties {r['tie_rate']:.1%} and loses "
                      f"{loss:.1%} (score {score:.3f} ± {half:.3f}; mean margin "
                      f"{margin:+.2f} points). **First seat**: worth "
                      f"{r['first_seat']:+.3f} here, and exactly 0 for every pairing of this "
                      "table: a player that reads only its own card makes the same decisions "
                      "from either seat on the same dice. Only a player that reads the other "
                      "card (the last to move knows the score to beat) can gain from a seat."]
    return lines


def plot_score_distributions(all_totals: dict[str, dict[str, np.ndarray]], path: Path) -> None:
    """Histograms of the final scores, one panel per scorecard game, one line per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = [g for g, t in all_totals.items() if t]
    if not games:
        return
    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 3.6), squeeze=False)
    for ax, game in zip(axes[0], games):
        bins = np.arange(0, 700, 10)
        for name, totals in all_totals[game].items():
            ax.hist(totals, bins=bins, histtype="step", density=True,
                    label=f"{name} ({totals.mean():.1f})")
        ax.set_title(game)
        ax.set_xlabel("final score")
        ax.set_xlim(0, 500)
        ax.legend(fontsize=8)
    fig.tight_layout()
    atomic_write_figure(path, fig)


DEFAULT_ADHOC_OUT = Path("runs") / "evaluate"


def is_documented_full_run(args: argparse.Namespace) -> bool:
    """The run whose tables are committed: 10,000 games, seed 0, every default list."""
    return (args.games == 10_000 and args.seed == 0 and args.fivethousand_games is None
            and args.scorecard_games == SCORECARD_GAMES and args.agents == SCORECARD_AGENTS
            and args.fivethousand_agents == FIVE_THOUSAND_AGENTS
            and args.opponents == FIVE_THOUSAND_OPPONENTS)


def _check_names(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Unknown games or agent names are errors listing the valid ones (not a 'skipping')."""
    from dice_env.scorecard.rules import PRESETS

    known = {"--scorecard-games": sorted(PRESETS),
             "--agents": agents.available("penta"),
             "--fivethousand-agents": agents.available("fivethousand"),
             "--opponents": agents.available("fivethousand")}
    given = {"--scorecard-games": args.scorecard_games, "--agents": args.agents,
             "--fivethousand-agents": args.fivethousand_agents, "--opponents": args.opponents}
    for option, names in given.items():
        unknown = [n for n in names if n not in known[option]]
        if unknown:
            _fail(parser, f"{option}: unknown {', '.join(map(repr, unknown))}; choose from "
                          f"{', '.join(known[option])}")


def _fail(parser: argparse.ArgumentParser, message: str) -> None:
    """A one-line error and exit code 2, as argparse does for bad arguments."""
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _is_solo(game: str) -> bool:
    return game == "dice_env/FiveThousandSolo-v0"


def evaluate_specs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list:
    """``--agent`` / ``--regret``: evaluate the given policies on one game and print it."""
    from agents.evaluation import fivethousand_gap, optimality_gap

    game = args.game
    try:
        family = resolve(game).family
    except ValueError as err:
        _fail(parser, str(err))
    specs = args.agent or (args.agents if family == SCORECARD
                           else args.fivethousand_agents)
    players = {}
    for spec in specs:
        try:
            players[spec] = agents.load(spec, game)
        except (ValueError, ImportError, FileNotFoundError) as err:
            _fail(parser, f"--agent {spec}: {err}")
        if hasattr(players[spec], "seed"):
            players[spec].seed(args.seed)
    results = []
    if args.regret:
        for spec, agent in players.items():
            if family == SCORECARD:
                r = optimality_gap(agent, game, args.games, args.seed, name=spec,
                                   progress=True, dice_averaged=args.dice_averaged)
            else:
                r = fivethousand_gap(agent, args.games, args.seed, name=spec,
                                     mode="solo" if _is_solo(game) else "two-player")
            print(r.format_text(), flush=True)
            results.append(r.summary())
    elif family == SCORECARD:
        results, _ = evaluate_scorecard(game, [], args.games, args.seed, players)
    else:
        opponents = {o: try_make(o, game, args.seed) for o in args.opponents}
        for name, agent in players.items():
            for opp, opponent in opponents.items():
                if opponent is None:
                    continue
                result = play_fivethousand_matches([agent, opponent], args.games,
                                                   seed=args.seed)
                p, low, high = result.win_rate_ci(0)
                results.append({"game": "fivethousand", "agent": name, "opponent": opp,
                                "games": args.games, "win_rate": p, "ci_low": low,
                                "ci_high": high})
    if not args.regret:
        for r in results:
            what = (f"mean {r['mean']:8.2f} ± {r['sem']:.2f}" if r.get("opponent", "") == ""
                    else f"win rate {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                         f" vs {r['opponent']}")
            diff = ""
            if "diff_to_optimal" in r:
                diff = (f"   paired diff. to optimal {r['diff_to_optimal']:+.2f} "
                        f"[{r['diff_ci_low']:+.2f}, {r['diff_ci_high']:+.2f}]")
            print(f"{game:18s} {r['agent']:24s} {what}{diff}")
    if args.out is not None:
        name = "regret.json" if args.regret else "evaluation.json"
        atomic_write_text(args.out / name, json.dumps(results, indent=1, default=float) + "\n")
        print(f"written: {args.out / name}")
    return results


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--games", type=int, default=None,
                        help="games per agent and game (default 10000; 2000 with --agent or "
                             "--regret)")
    parser.add_argument("--agent", action="append", metavar="SPEC",
                        help="evaluate this policy on --game (repeatable): a registered name, a "
                             "stable-baselines3 model zip (MaskablePPO, PPO, A2C, DQN; "
                             "'dqn:path.zip' names the algorithm), a scripts/train.py run "
                             "folder (the policy of its latest checkpoint, also while the run "
                             "trains) or module:attr / path/to/file.py:attr")
    parser.add_argument("--game", default="penta",
                        help="the game of --agent / --regret runs: a preset, 'fivethousand' or "
                             "a Gymnasium id (default %(default)s)")
    parser.add_argument("--regret", action="store_true",
                        help="exact per-decision regret against the optimum: the gap with its "
                             "95 %% CI, by decision kind, turn and box")
    parser.add_argument("--dice-averaged", action="store_true",
                        help="with --regret on a scorecard game: average each decision's loss "
                             "over the throw before it (unbiased, lower variance for weak "
                             "policies; asks the policy ~100x more decisions)")
    parser.add_argument("--fivethousand-games", type=int, default=None,
                        help="5000 games per pairing (default: --games)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scorecard-games", nargs="*", default=SCORECARD_GAMES,
                        help="scorecard presets to evaluate")
    parser.add_argument("--agents", nargs="*", default=SCORECARD_AGENTS,
                        help="scorecard agents")
    parser.add_argument("--fivethousand-agents", nargs="*", default=FIVE_THOUSAND_AGENTS)
    parser.add_argument("--opponents", nargs="*", default=FIVE_THOUSAND_OPPONENTS,
                        help="5000 opponents")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: results/ for the benchmark; --agent / "
                             "--regret runs write only when given one)")
    args = parser.parse_args(argv)
    adhoc = bool(args.agent) or args.regret
    if args.games is None:
        args.games = 2000 if adhoc else 10_000
    if args.games < (2 if adhoc else 1):
        _fail(parser, f"--games must be at least {2 if adhoc else 1}, got {args.games}")
    if args.fivethousand_games is not None and args.fivethousand_games < 1:
        _fail(parser, f"--fivethousand-games must be at least 1, got {args.fivethousand_games}")
    if adhoc:
        return evaluate_specs(parser, args)
    _check_names(parser, args)
    MISSING_MODELS.clear()
    if args.out is None:
        args.out = Path("results") if is_documented_full_run(args) else DEFAULT_ADHOC_OUT
        if args.out == DEFAULT_ADHOC_OUT:
            print(f"not the documented full run: writing {args.out}/ (results/ is written by "
                  "`python scripts/evaluate.py --games 10000 --seed 0`)", file=sys.stderr)

    rows, optimal_values, all_totals = [], {}, {}
    for game in tqdm(args.scorecard_games, desc="scorecard games"):
        game_rows, all_totals[game] = evaluate_scorecard(game, args.agents, args.games,
                                                         args.seed)
        rows += game_rows
        opt = try_make("optimal", game, args.seed) if "optimal" in args.agents else None
        if opt is not None:
            optimal_values[game] = float(opt.expected_score)
    for game in [g for g in args.scorecard_games if g in HEAD_TO_HEAD_GAMES]:
        if len(all_totals[game]) > 1 and args.games >= 2:
            check = {n: try_make(n, game, args.seed) for n in ("optimal", "heuristic")
                     if n in all_totals[game]}
            rows += head_to_head(game, all_totals[game], args.seed, check)
    if args.fivethousand_agents:
        rows += evaluate_fivethousand(args.fivethousand_agents, args.opponents,
                                      args.fivethousand_games or args.games, args.seed)
    command = "python scripts/evaluate.py " + " ".join(argv if argv is not None else
                                                       sys.argv[1:])
    atomic_write_text(args.out / "benchmark.csv", to_csv(rows))
    atomic_write_text(args.out / "benchmark.md", to_markdown(rows, command.strip(),
                                                             optimal_values,
                                                             learning_curves_link(args.out)))
    plot_score_distributions(all_totals, args.out / "score_distributions.png")
    for r in rows:
        what = (f"mean {r['mean']:8.2f} ± {r['sem']:.2f}" if r["opponent"] == ""
                else f"score {r['mean']:.3f} vs {r['opponent']}" if r["game"].endswith(" 2p")
                else f"win rate {r['win_rate']:.3f} vs {r['opponent']}")
        print(f"{r['game']:18s} {r['agent']:10s} {what}")
    note = missing_models_note(MISSING_MODELS)
    if note:
        print(note)
    print(json.dumps({"rows": len(rows), "out": str(args.out)}))
    return rows


if __name__ == "__main__":
    main()
