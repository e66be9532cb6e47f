"""The inspect records of scorecard games (Penta, Dice Poker, the Yahtzee presets).

Everything here is read off the trace of :func:`~agents.evaluation.scorecard_regret.
optimality_gap` (``trace=True``): the states the policy met, the optimal action values of its
legal options, the action it chose, the optimum's and the loss it was charged.  Nothing is
recomputed, so the regrets shown are the regret tool's, decision for decision.

A decision's values are shown as expected final scores: the points on the card plus ``Q*(s,
a)``, the points still to come after ``a`` with optimal play from then on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.evaluation.inspect.common import DecisionTable, finite, top_examples
from agents.evaluation.scorecard_regret import ScorecardRegret, box_cells, decision_kinds
from dice_env.dice import N_DICE, N_HOLDS
from dice_env.scorecard import game as G
from dice_env.scorecard.rules import Rules

__all__ = ["scorecard_decision_table", "scorecard_games", "scorecard_habits", "action_label"]


def action_label(rules: Rules, dice: np.ndarray, action: int, points: np.ndarray) -> str:
    """A short description of a scorecard action: ``keep 3 3 5``, ``reroll all`` or
    ``score Brelan (9)``."""
    if action < N_HOLDS:
        kept = [str(int(dice[i])) for i in range(N_DICE) if action >> i & 1]
        return "keep " + " ".join(kept) if kept else "reroll all"
    k = action - N_HOLDS
    return f"score {rules.labels[k]} ({int(points[k])})"


def _decisions(result: ScorecardRegret, rules: Rules, wanted: Sequence[int]
               ) -> dict[int, list[dict[str, Any]]]:
    """The decisions of the games ``wanted``, in order, as JSON-able dicts."""
    kinds = decision_kinds(rules)
    out: dict[int, list[dict[str, Any]]] = {g: [] for g in wanted}
    for batch in result.trace or []:
        rows = np.flatnonzero(np.isin(batch.games, list(out)))
        if rows.size == 0:
            continue
        st = batch.state.take(rows)
        legal, points, _ = G.box_options(rules, st)
        on_card = st.total(rules)
        filled = (~st.open_boxes()).sum(axis=1)
        for r, (b, g) in enumerate(zip(rows.tolist(), batch.games[rows].tolist(), strict=True)):
            card = float(on_card[r])
            legal_actions = np.flatnonzero(batch.masks[b])
            values = batch.values[b]
            options = sorted(
                ({"action": int(a), "label": action_label(rules, st.dice[r], int(a), points[r]),
                  "value": finite(card + values[a])} for a in legal_actions),
                key=lambda o: -(o["value"] if o["value"] is not None else -np.inf))
            kind = rules.rolls_per_turn - 1 - int(st.rolls_left[r])
            chosen, best = int(batch.chosen[b]), int(batch.optimal[b])
            out[g].append({
                "index": len(out[g]), "turn": int(filled[r]) + 1, "step": kind,
                "throw": kind + 1,
                "kind": kinds[kind], "dice": st.dice[r].tolist(),
                "rolls_left": int(st.rolls_left[r]),
                "card": [None if v == G.OPEN else int(v) for v in st.scores[r].tolist()],
                "box_points": [int(p) if ok else None
                               for p, ok in zip(points[r].tolist(), legal[r].tolist())],
                "upper_total": int(st.upper_total[r]), "five_bonus": int(st.five_bonus[r]),
                "total": int(card), "options": options, "chosen": chosen, "best": best,
                "regret": float(batch.loss[b]),
                "value": finite(card + values[legal_actions].max()),
                "after": finite(card + values[chosen]),
            })
    return out


def _turns(decisions: list[dict[str, Any]], final: int) -> list[dict[str, Any]]:
    """Per turn: the card total after it, the optimum's expectation of the final score from
    the position it left, and the regret so far (the chart's points)."""
    turns, cumulative = [], 0.0
    for i, d in enumerate(decisions):
        cumulative += d["regret"]
        if d["chosen"] < N_HOLDS:
            continue
        score = decisions[i + 1]["total"] if i + 1 < len(decisions) else final
        turns.append({"turn": d["turn"], "decision": d["index"], "score": score,
                      "expected": d["after"], "regret": cumulative})
    return turns


def scorecard_games(result: ScorecardRegret, rules: Rules, name: str,
                    only: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """The inspect record of every game of ``result`` (``optimality_gap(..., game_seeds=...,
    trace=True)``), or of the games ``only``: seed, decisions, per-turn chart points, final
    score, regret, luck."""
    seeds = result.game_seeds if result.game_seeds is not None else [result.seed] * result.games
    games = []
    wanted = list(range(result.games)) if only is None else [int(g) for g in only]
    for g, decisions in _decisions(result, rules, wanted).items():
        final = int(result.stats.total[g])
        games.append({
            "index": 0, "seed": int(seeds[g]), "agent": name,
            "stream": {"seed": int(seeds[g]), "game": 0},
            "optimal_value": float(result.optimal_value), "score": final,
            "regret": float(result.per_game[g]),
            "luck": None if result.luck is None else float(result.luck[g]),
            "decisions": decisions, "turns": _turns(decisions, final),
        })
    return games


def scorecard_decision_table(result: ScorecardRegret, rules: Rules) -> DecisionTable:
    """Every decision of ``result``'s trace as flat arrays (for the habits' examples)."""
    seeds = result.game_seeds if result.game_seeds is not None else [result.seed] * result.games
    seeds = np.asarray(seeds, dtype=np.int64)
    table = DecisionTable()
    counter = np.zeros(result.games, dtype=np.int64)
    for batch in result.trace or []:
        st = batch.state
        row, col, counted = box_cells(batch.chosen, batch.optimal, rules.n_boxes)
        index = counter[batch.games].copy()
        counter[batch.games] += 1
        table.add(seed=seeds[batch.games], game=np.zeros_like(batch.games), decision=index,
                  turn=(~st.open_boxes()).sum(axis=1) + 1,
                  kind=rules.rolls_per_turn - 1 - st.rolls_left,
                  row=np.where(counted, row, -1), col=np.where(counted, col, -1),
                  loss=batch.loss)
    return table


def scorecard_habits(result: ScorecardRegret, rules: Rules, examples: int = 3
                     ) -> dict[str, Any]:
    """The box-vs-optimal table of ``result`` (the regret tool's counts and losses) with the
    costliest example positions of each cell, and the same by decision kind."""
    table = scorecard_decision_table(result, rules).arrays()
    labels = list(rules.labels) + ["reroll"]
    cells = []
    loss = result.box_loss
    off = [(i, j) for i in range(len(labels)) for j in range(len(labels))
           if i != j and loss[i, j] > 0]
    for i, j in sorted(off, key=lambda c: -loss[c]):
        where = (table["row"] == i) & (table["col"] == j) & (table["loss"] > 0)
        cells.append({"chosen": labels[i], "optimal": labels[j], "row": i, "col": j,
                      "count": int(result.box_counts[i, j]), "loss": float(loss[i, j]),
                      "per_game": float(loss[i, j]) / result.games,
                      "examples": top_examples(table, where, examples)})
    kinds = []
    for k, kind in enumerate(result.kinds):
        where = (table["kind"] == k) & (table["loss"] > 0)
        kinds.append({"kind": kind, "decisions": int(result.decisions[k]),
                      "mistakes": int(result.mistakes[k]),
                      "per_game": float(result.by_kind[:, k].mean()),
                      "examples": top_examples(table, where, examples)})
    seeds = result.game_seeds if result.game_seeds is not None else [result.seed] * result.games
    per_game = [{"seed": int(s), "game": 0, "regret": float(r), "score": int(t)}
                for s, r, t in zip(seeds, result.per_game, result.stats.total, strict=True)]
    return {"labels": labels, "counts": result.box_counts.tolist(),
            "loss": result.box_loss.tolist(), "cells": cells, "kinds": kinds,
            "games": per_game, "gap": result.gap}
