"""``scaling.md``: the exact gap of structured PPO against training steps and CPU hours.

:func:`scaling_markdown` takes, per game, plain data -- its training ``seeds``, the ``points``
(steps) its runs keep a snapshot at, the ``stage_ends``, ``unit`` and ``digits`` of its gap, and
the measured ``rows`` (``seed``, ``at``: the point, ``timesteps``: the update it was taken at,
``gap``, ``ci``, ``train_seconds``, ``train_cpu_seconds``) -- and returns the page: a table per
game of the gap (mean over the seeds, their range, each seed's) against steps and CPU hours,
and a statement computed from the numbers of where the curve flattens (:func:`flattening`);
where rows carry the regret's split (``by_kind``, ``by_turn``), where the gap is lost beside a
``reference`` player's (:func:`loss_split`), and how far the curve's last slope is from that
player's gap (:func:`extrapolation`, labelled as such).
A point without a measured row is *pending*, never estimated.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from functools import partial

from agents.evaluation.game_sets import SELECTION_SEED

__all__ = ["extrapolation", "flattening", "loss_split", "point_summaries", "scaling_json",
           "scaling_markdown", "short_steps"]

PENDING = "pending"


def short_steps(n: float) -> str:
    """Steps as read on a log scale: ``1M``, ``101.6M``, ``300.2M``, ``1.5B`` (``512`` below
    10,000)."""
    if n < 10_000:
        return f"{n:,.0f}"
    if n < 1_000_000:
        return f"{n / 1e3:.3g}k"
    scale, suffix = (1e9, "B") if n >= 999_950_000 else (1e6, "M")
    text = f"{n / scale:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + suffix


def _hours(rows: Sequence[Mapping], key: str) -> list[float]:
    return [r[key] / 3600 for r in rows if r.get(key) is not None]


def point_summaries(game: Mapping) -> list[dict]:
    """One summary per point of ``game`` (see the module doc): the seeds measured there
    (``measured``, ``complete`` when all are), their gaps' ``gap_mean`` / ``gap_min`` /
    ``gap_max``, the mean 95 % CI half-width, the ``noise`` a change must exceed (the larger of
    the seeds' range and that half-width), the training CPU and wall-clock hours, and the
    ``drop_per_decade`` of the mean gap from the previous complete point (per factor 10 of
    steps)."""
    seeds = list(game["seeds"])
    out, previous = [], None
    for at in game["points"]:
        by_seed = {r["seed"]: r for r in game["rows"] if r["at"] == at}
        rows = [by_seed[s] for s in seeds if s in by_seed]
        gaps = [r["gap"] for r in rows]
        half = [(r["ci"][1] - r["ci"][0]) / 2 for r in rows]
        cpu, wall = _hours(rows, "train_cpu_seconds"), _hours(rows, "train_seconds")
        point = {"at": at, "stage_end": at in game["stage_ends"],
                 "timesteps": max((r["timesteps"] for r in rows), default=None),
                 "measured": len(rows), "complete": len(rows) == len(seeds),
                 "seeds": {str(s): ({"gap": by_seed[s]["gap"], "ci": by_seed[s]["ci"]}
                                    if s in by_seed else None) for s in seeds},
                 "gap_mean": statistics.mean(gaps) if gaps else None,
                 "gap_min": min(gaps, default=None), "gap_max": max(gaps, default=None),
                 "ci_half_width": statistics.mean(half) if half else None,
                 "noise": max(max(gaps) - min(gaps), statistics.mean(half)) if gaps else None,
                 "cpu_hours_mean": statistics.mean(cpu) if cpu else None,
                 "cpu_hours_min": min(cpu, default=None), "cpu_hours_max": max(cpu, default=None),
                 "wall_hours_mean": statistics.mean(wall) if wall else None,
                 "drop_per_decade": None}
        if point["complete"]:
            if previous is not None and point["timesteps"] > previous["timesteps"]:
                decades = math.log10(point["timesteps"] / previous["timesteps"])
                point["drop_per_decade"] = (previous["gap_mean"] - point["gap_mean"]) / decades
            previous = point
        out.append(point)
    return out


def _at(p: Mapping) -> str:
    return short_steps(p["timesteps"] or p["at"])


def flattening(points: Sequence[Mapping], unit: str, digits: int = 2) -> str:
    """Where the curve flattens and whether it still falls at its last point, from the
    :func:`point_summaries`: the points measured with every seed are compared in turn; a drop
    of the mean gap counts when it exceeds the larger ``noise`` of its two points.  The curve
    flattens after its last drop that counts; it is still falling at its last point when the
    drop into that point counts."""
    f = partial(_fixed, digits=digits)

    complete = [p for p in points if p["complete"]]
    pending = [p for p in points if not p["complete"]]
    said_pending = (f" Pending (not every seed measured yet): {', '.join(_at(p) for p in pending)}"
                    " steps." if pending else "")
    if len(complete) < 2:
        return (f"Not enough points measured yet: {len(complete)} of {len(points)} points have "
                "every seed measured, and where the curve flattens needs two." + said_pending)
    drops = []
    for a, b in zip(complete, complete[1:]):
        d = a["gap_mean"] - b["gap_mean"]
        noise = max(a["noise"], b["noise"])
        drops.append((a, b, d, noise, d > noise))
    a, b, d, noise, falling = drops[-1]
    per_decade = d / math.log10(b["timesteps"] / a["timesteps"])
    text = (f"Between {_at(a)} and {_at(b)} steps (the last two points measured with every "
            f"seed) the mean gap went from {f(a['gap_mean'])} to {f(b['gap_mean'])} {unit}: "
            f"{'a drop' if d >= 0 else 'a rise'} of {f(abs(d))} "
            f"({f(per_decade)} per decade of steps), "
            f"{'more than' if falling else 'within'} the noise of {f(noise)} (the larger of "
            "the seeds' range and the 95 % CI half-width at those points), so the gap is "
            f"{'still falling' if falling else 'flat within the noise'} at {_at(b)} steps.")
    counted = [k for k, x in enumerate(drops) if x[4]]
    if not counted:
        text += (f" It is flat from the first point measured with every seed, {_at(complete[0])}"
                 " steps: no drop between those points exceeds the noise.")
    elif counted[-1] == len(drops) - 1:
        text += f" It has not flattened by {_at(b)} steps."
    else:
        flat = drops[counted[-1]][1]
        cpu = (f" (about {flat['cpu_hours_mean']:.2g} CPU hours per run)"
               if flat["cpu_hours_mean"] is not None else "")
        text += (f" It flattens at about {_at(flat)} steps{cpu}: no later drop exceeds the "
                 "noise.")
    last = points[-1]
    if last is b:
        text += (f" Still falling at the last point, {_at(last)} steps? "
                 f"**{'Yes' if falling else 'No'}**.")
    else:
        text += (f" Whether the gap still falls at the last point, {_at(last)} steps, is not "
                 "known yet.")
    return text + said_pending


def extrapolation(points: Sequence[Mapping], reference: Mapping | None, unit: str,
                  digits: int = 2) -> dict | None:
    """How far the curve is from the ``reference`` player's gap (measured on the same games),
    were it to keep falling by its last drop per decade: a straight line on the log scale of
    steps through the last two points measured with every seed.  ``steps`` and ``cpu_hours``
    (per run, at the last point's CPU time per step) where it would meet the reference, the
    ``drops`` per decade so far and ``text``; None without a reference, with fewer than two
    such points, or when the last drop is none or the curve is already at the reference."""
    complete = [p for p in points if p["complete"]]
    if reference is None or len(complete) < 2:
        return None
    a, b = complete[-2:]
    target = reference["gap"]
    per_decade = b["drop_per_decade"]  # (point_summaries': from a, the complete point before)
    if per_decade is None or per_decade <= 0 or b["gap_mean"] <= target:
        return None
    factor = 10 ** ((b["gap_mean"] - target) / per_decade)
    steps = b["timesteps"] * factor
    cpu = None if b["cpu_hours_mean"] is None else b["cpu_hours_mean"] * factor
    drops = [p["drop_per_decade"] for p in complete if p["drop_per_decade"] is not None]

    f = partial(_fixed, digits=digits)

    shrinking = len(drops) > 1 and all(x > y for x, y in zip(drops, drops[1:]))
    text = (f"Were the mean gap to keep falling by its last drop per decade ({f(per_decade)} "
            f"{unit} per factor 10 of steps, {_at(a)} to {_at(b)}), it would reach the "
            f"{reference['player']}'s {f(target)} on these games at about "
            f"{short_steps(steps)} steps"
            + (f", about {cpu:,.0f} CPU hours per run" if cpu is not None else "")
            + ": an extrapolation, not a measurement.")
    if shrinking:
        text += (" The drop per decade has shrunk at every point so far ("
                 + ", ".join(f(x) for x in drops) + "), so a straight line is the optimistic "
                 "case: if it keeps shrinking, the curve gets there later or not at all.")
    return {"reference": reference["player"], "target": target, "per_decade": per_decade,
            "steps": steps, "cpu_hours": cpu, "drops": drops, "shrinking": shrinking,
            "text": text}


def _fixed(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals: the pages' one number format."""
    return f"{x:.{digits}f}"


def _seed_cell(cell: Mapping | None, digits: int) -> str:
    if cell is None:
        return PENDING
    lo, hi = cell["ci"]
    return f"{_fixed(cell['gap'], digits)} [{_fixed(lo, digits)}, {_fixed(hi, digits)}]"


def _range(mean: float | None, low: float | None, high: float | None, digits: int,
           one: bool) -> str:
    if mean is None:
        return "—"
    if one:
        return _fixed(mean, digits)
    return f"{_fixed(mean, digits)} ({_fixed(low, digits)} – {_fixed(high, digits)})"


def _table(game: Mapping, points: Sequence[Mapping]) -> list[str]:
    digits, seeds = game["digits"], game["seeds"]
    ends = list(game["stage_ends"])
    lines = ["| point (steps) | steps trained | training CPU hours, mean (range) | "
             "wall-clock hours, mean | gap, mean over seeds (range) | "
             + " | ".join(f"seed {s} (95 % CI)" for s in seeds) + " | drop per decade of steps |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(seeds) + "---:|"]
    for p in points:
        label = short_steps(p["at"]) + (f" (end of stage {ends.index(p['at']) + 1})"
                                         if p["stage_end"] else "")
        if not p["measured"]:
            mean = PENDING
        else:
            mean = _range(p["gap_mean"], p["gap_min"], p["gap_max"], digits, p["measured"] == 1)
            mean = f"**{mean}**" if p["complete"] else \
                f"{mean}; {p['measured']} of {len(seeds)} seeds"
        cpu = _range(p["cpu_hours_mean"], p["cpu_hours_min"], p["cpu_hours_max"], 2,
                     p["measured"] == 1) if p["measured"] else PENDING
        wall = f"{p['wall_hours_mean']:.2f}" if p["wall_hours_mean"] is not None else \
            ("—" if p["measured"] else PENDING)
        steps = f"{p['timesteps']:,}" if p["timesteps"] is not None else PENDING
        drop = f"{p['drop_per_decade']:.{digits}f}" if p["drop_per_decade"] is not None else ""
        cells = [label, steps, cpu, wall, mean,
                 *(_seed_cell(p["seeds"][str(s)], digits) for s in seeds), drop]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _phases(n: int) -> list[tuple[int, int]]:
    """The turns ``1..n`` in three nearly equal phases: ``[(first, last), ...]``."""
    size, extra = divmod(n, 3)
    out, start = [], 1
    for k in range(3):
        end = start + size + (1 if k < extra else 0) - 1
        out.append((start, end))
        start = end + 1
    return [p for p in out if p[0] <= p[1]]


def loss_split(game: Mapping) -> dict | None:
    """Where the gap is lost: for each point whose rows carry the regret's split (``by_kind``,
    ``by_turn``), the mean over those seeds of each decision kind's loss and of each phase's
    (the turns in three nearly equal thirds), beside the same for the game's ``reference``
    player (measured on the same games); None when no row has it.  ``excess``: the last such
    point's loss above the reference's, per kind and per phase.  ``mistakes``: the last point's
    costliest box choices (:func:`costliest`)."""
    split = [r for r in game["rows"] if r.get("by_kind") and r.get("by_turn")]
    if not split:
        return None
    kinds = list(split[0]["by_kind"])
    phases = _phases(len(split[0]["by_turn"]))

    def summary(rows: Sequence[Mapping]) -> dict:
        probes = [r["bonus_giveaway"] for r in rows if r.get("bonus_giveaway") is not None]
        return {"gap": statistics.mean(r["gap"] for r in rows),
                "bonus_giveaway": statistics.mean(probes) if probes else None,
                "kinds": {k: statistics.mean(r["by_kind"][k] for r in rows) for k in kinds},
                "phases": [statistics.mean(sum(r["by_turn"][a - 1:b]) for r in rows)
                           for a, b in phases]}

    points = []
    for at in sorted({r["at"] for r in split}):
        rows = [r for r in split if r["at"] == at]
        points.append({"at": at, "seeds": sorted(r["seed"] for r in rows), **summary(rows)})
    ref = game.get("reference")
    reference = ({"player": ref["player"], **summary([ref])}
                 if ref and ref.get("by_kind") and ref.get("by_turn") else None)
    excess = None
    if reference is not None:
        last = points[-1]
        excess = {"at": last["at"], "gap": last["gap"] - reference["gap"],
                  "kinds": {k: last["kinds"][k] - reference["kinds"][k] for k in kinds},
                  "phases": [a - b for a, b in zip(last["phases"], reference["phases"],
                                                   strict=True)]}
    last_rows = [r for r in split if r["at"] == points[-1]["at"]]
    return {"kinds": kinds, "phases": phases, "points": points, "reference": reference,
            "excess": excess, "mistakes": costliest(last_rows)}


def costliest(rows: Sequence[Mapping], k: int = 5) -> list[dict]:
    """The ``k`` costliest box choices over ``rows`` (each seed's ``mistakes``: ``[chosen,
    optimal, count, points per game]`` over its ``eval_games``): per (chosen, optimal) pair,
    the points per game averaged over the rows (0 for a row whose list lacks it), the count
    summed and the points one such choice loses on average; the rows without ``mistakes`` are
    left out."""
    rows = [r for r in rows if r.get("mistakes") is not None]
    total: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        for chosen, optimal, count, loss in r["mistakes"]:
            cell = total.setdefault((chosen, optimal), [0, 0.0, 0.0])
            cell[0] += count
            cell[1] += loss / len(rows)
            cell[2] += loss * r["eval_games"]
    ranked = sorted(total.items(), key=lambda kv: -kv[1][1])[:k]
    return [{"chosen": c, "optimal": o, "count": int(n), "points_per_game": loss,
             "each": lost / n if n else 0.0} for (c, o), (n, loss, lost) in ranked]


def _split_lines(split: Mapping, unit: str, digits: int) -> list[str]:
    f = partial(_fixed, digits=digits)

    phase_names = [f"turns {a}–{b}" for a, b in split["phases"]]
    rows = [(f"PPO at {short_steps(p['at'])} steps", ", ".join(map(str, p["seeds"])), p)
            for p in split["points"]]
    if split["reference"] is not None:
        rows.append((f"{split['reference']['player']} (reference)", "—", split["reference"]))
    probed = any(p["bonus_giveaway"] is not None for _, _, p in rows)
    lines = ["| model | seeds | gap | " + " | ".join(split["kinds"]) + " | "
             + " | ".join(phase_names) + " |" + (" sure bonus rerolled away |" if probed else ""),
             "|---|---|---:|" + "---:|" * (len(split["kinds"]) + len(phase_names) + probed)]
    for label, seeds, p in rows:
        probe = ("—" if p["bonus_giveaway"] is None else f"{p['bonus_giveaway']:.1%}")
        lines.append(f"| {label} | {seeds} | {f(p['gap'])} | "
                     + " | ".join(f(p["kinds"][k]) for k in split["kinds"]) + " | "
                     + " | ".join(f(x) for x in p["phases"]) + " |"
                     + (f" {probe} |" if probed else ""))
    excess = split["excess"]
    if excess is not None and excess["gap"] > 0:
        kinds = sorted(excess["kinds"].items(), key=lambda kv: -kv[1])
        worst = max(range(len(phase_names)), key=lambda i: excess["phases"][i])
        lines += ["", f"At {short_steps(excess['at'])} steps PPO loses {f(excess['gap'])} "
                  f"{unit} a game more than the {split['reference']['player']}: "
                  + ", ".join(f"{f(v)} in '{k}' ({100 * v / excess['gap']:.0f} %)"
                              for k, v in kinds)
                  + f"; by phase the most in {phase_names[worst]} "
                  f"({f(excess['phases'][worst])}, "
                  f"{100 * excess['phases'][worst] / excess['gap']:.0f} %)."]
    if split["mistakes"]:
        at = short_steps(split["points"][-1]["at"])
        lines += ["", f"The costliest box choices at {at} steps (mean over the seeds of each "
                  "seed's eight costliest; \"reroll\" is a hold where scoring was optimal): "
                  + "; ".join(f"{m['chosen']} instead of {m['optimal']}, "
                              f"{f(m['points_per_game'])} {unit} a game "
                              f"({m['count']:,} times, {m['each']:.1f} each)"
                              for m in split["mistakes"]) + "."]
    return lines


def scaling_markdown(games: Sequence[Mapping], command: str, eval_games: int,
                     steps_scale: float) -> str:
    """The page (see the module doc); ``games`` as :func:`point_summaries` takes them."""
    def seeds(g: Mapping) -> str:
        return ("seeds " if len(g["seeds"]) > 1 else "seed ") + ", ".join(map(str, g["seeds"]))

    lines = ["# Scaling curve of structured PPO", "",
             f"Generated by `{command}`. Do not edit by hand.", "",
             "How the exact gap of the structured PPO policy falls with training. Each run is "
             "a game's recipe as it stood when the study began "
             "(`agents/training/ppo/scaling_stages.json`: the structured policy, the faster "
             "trainer, without the bonus-now box feature the committed models have had since) "
             f"with every stage at {steps_scale:g} times its steps, "
             "from one training seed: "
             + "; ".join(f"{g['game']} from {seeds(g)}, stages ending at "
                         + ", ".join(f"{e:,}" for e in g["stage_ends"]) + " steps"
                         for g in games)
             + ". Each run keeps its model at about six points on a log scale of steps (and at "
             "the end of every stage; a point is taken at the first update at or past it), and "
             "each is measured as soon as it is written by its exact per-decision regret over "
             f"{eval_games:,} selection games (evaluation seed {SELECTION_SEED}; the games that "
             "choose a committed seed, `results/ppo_recipe_seeds.md`), in the game's unit "
             "(lower is better). Training time is the run's learning curve's: the CPU time of "
             "its one torch thread (what it takes alone on one core) and the wall-clock. The "
             "runs advance stage by stage across sessions (`dice-env report scaling "
             "--max-minutes N`, "
             "then commit `agents/models/carry/scaling/`); a point not measured yet is "
             f"*{PENDING}*, never estimated.", ""]
    for g in games:
        points = point_summaries(g)
        lines += [f"## {g['game']} (training {seeds(g)})", "",
                  f"The gap in {g['unit']} against training steps and CPU hours; the drop per "
                  "decade is the mean gap's fall from the previous point measured with every "
                  "seed, per factor 10 of steps.", "", *_table(g, points), "",
                  f"**Where it flattens.** {flattening(points, g['unit'], g['digits'])}", ""]
        reach = extrapolation(points, g.get("reference"), g["unit"], g["digits"])
        if reach is not None:
            lines += [f"**How far to the {reach['reference']}.** {reach['text']}", ""]
        split = loss_split(g)
        if split is not None:
            lines += ["**Where the gap is lost.** The gap split by decision and by phase of "
                      "the game (the mean loss per game, over the seeds measured with the "
                      "split; the points measured before the split was kept have none), beside "
                      "the reference player's on the same games. *Sure bonus rerolled away*: "
                      "in 4,000 positions built for the question (five of a kind in hand, the "
                      "five-of-a-kind box holding 50, so scoring now earns the bonus, and a "
                      "reroll left; `agents/evaluation/scorecard_probes.py`), the share in "
                      "which the policy rerolls instead of scoring (the optimal player: "
                      "never).", "",
                      *_split_lines(split, g["unit"], g["digits"]), ""]
    return "\n".join(lines)


def scaling_json(games: Sequence[Mapping], command: str, eval_games: int,
                 steps_scale: float) -> dict:
    """The page's numbers: per game its seeds, stage ends, point summaries, statement and
    measured rows."""
    return {"command": command, "eval_games": eval_games, "steps_scale": steps_scale,
            "selection_seed": SELECTION_SEED,
            "games": {g["game"]: {"seeds": list(g["seeds"]), "stage_ends": list(g["stage_ends"]),
                                  "unit": g["unit"], "points": (p := point_summaries(g)),
                                  "statement": flattening(p, g["unit"], g["digits"]),
                                  "loss_split": loss_split(g),
                                  "extrapolation": extrapolation(p, g.get("reference"),
                                                                 g["unit"], g["digits"]),
                                  "reference": g.get("reference"),
                                  "rows": list(g["rows"])}
                      for g in games}}
