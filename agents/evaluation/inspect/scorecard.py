"""The inspect records of scorecard games (Penta, Dice Poker, the Yahtzee presets).

Everything here is read off the trace of :func:`~agents.evaluation.scorecard_regret.
optimality_gap` (``trace=True``): the states the policy met, the optimal action values of its
legal options, the action it chose, the optimum's and the loss it was charged.  Nothing is
recomputed, so the regrets shown are the regret tool's, decision for decision.

A decision's values are shown as expected final scores: the points on the card plus ``Q*(s,
a)``, the points still to come after ``a`` with optimal play from then on.

"Seed S" of a scorecard game is the first game of the evaluation seeded ``S``: the game
``optimality_gap(agent, game, games=n, seed=S)`` plays first (for any ``n``), whose dice come
from the stream ``(S, 0)``; ``optimality_gap(..., game_seeds=[S])`` plays exactly it alone.
:class:`ScorecardInspection` is the family's ``"inspection"`` hook.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from agents.evaluation.inspect.charts import series
from agents.evaluation.inspect.common import DecisionTable, Inspection, finite, top_examples
from agents.evaluation.scorecard_regret import (
    ScorecardRegret,
    box_cells,
    decision_kinds,
    optimality_gap,
)
from dice_env.dice import N_DICE, N_HOLDS
from dice_env.scorecard import game as G
from dice_env.scorecard.rules import UPPER_KINDS, Rules

__all__ = ["ScorecardInspection", "action_label", "scorecard_charts", "scorecard_decision_table",
           "scorecard_games", "scorecard_habits", "split_by_game"]

#: a decision losing at least this many points is highlighted as costly
COSTLY_POINTS = 1.0


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
                "kept": [i for i in range(N_DICE) if chosen < N_HOLDS and chosen >> i & 1],
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


def scorecard_charts(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The score on the card and the optimum's expectation of the final score after each
    turn, and the cumulative regret, for every player's record of one game."""
    score, regret = [], []
    for p, rec in enumerate(players):
        who = rec["agent"]
        start = [[0, rec["optimal_value"], 0]]
        turns = rec["turns"]
        score.append(series(f"{who}: expected final score", p, "solid", start + [
            [t["turn"], t["expected"], t["decision"]] for t in turns]))
        score.append(series(f"{who}: score on the card", p, "dashed", [[0, 0, 0]] + [
            [t["turn"], t["score"], t["decision"]] for t in turns]))
        regret.append(series(f"{who}: regret so far", p, "solid", [[0, 0.0, 0]] + [
            [t["turn"], t["regret"], t["decision"]] for t in turns]))
    last = max((len(rec["turns"]) for rec in players), default=0)
    v0 = players[0]["optimal_value"]
    score.append(series("optimum's expectation at the start", -1, "dotted",
                        [[0, v0, 0], [last, v0, 0]]))
    return [{"title": "Score against the optimum's expectation", "x_label": "turn",
             "y_label": "points", "series": score},
            {"title": "Cumulative regret", "x_label": "turn", "y_label": "points lost",
             "series": regret}]


def split_by_game(result: ScorecardRegret) -> list[ScorecardRegret]:
    """One :class:`~agents.evaluation.scorecard_regret.ScorecardRegret` per game of
    ``result`` (played with ``game_seeds`` and ``trace=True``): each the result its game's seed
    gives alone (the trace's decisions of that game, its per-game rows, the box table and
    the decision counts summed over its decisions as the regret recorder sums them)."""
    from agents.evaluation.scorecard_games import ScorecardGames
    from agents.evaluation.scorecard_regret import DecisionBatch

    rules_boxes = len(result.box_labels)
    rolls = len(result.kinds)
    out = []
    for g in range(result.games):
        trace = []
        decisions = np.zeros(rolls, dtype=np.int64)
        mistakes = np.zeros(rolls, dtype=np.int64)
        counts = np.zeros((rules_boxes + 1, rules_boxes + 1), dtype=np.int64)
        loss = np.zeros((rules_boxes + 1, rules_boxes + 1))
        for batch in result.trace:
            rows = np.flatnonzero(batch.games == g)
            if rows.size == 0:
                continue
            part = DecisionBatch(np.zeros(rows.size, dtype=np.int64), batch.state.take(rows),
                                 batch.masks[rows], batch.values[rows], batch.chosen[rows],
                                 batch.optimal[rows], batch.loss[rows])
            trace.append(part)
            kind = rolls - 1 - part.state.rolls_left
            np.add.at(decisions, kind, 1)
            np.add.at(mistakes, kind, part.loss > 0)
            row, col, boxes = box_cells(part.chosen, part.optimal, rules_boxes)
            np.add.at(counts, (row[boxes], col[boxes]), 1)
            np.add.at(loss, (row[boxes], col[boxes]), part.loss[boxes])
        one = slice(g, g + 1)
        stats = ScorecardGames(result.stats.total[one], result.stats.upper_bonus[one],
                               result.stats.five_kind[one], result.stats.five_bonus[one])
        out.append(replace(
            result, games=1, seed=int(result.game_seeds[g]), per_game=result.per_game[one],
            by_kind=result.by_kind[one], by_turn=result.by_turn[one], decisions=decisions,
            mistakes=mistakes, box_counts=counts, box_loss=loss, stats=stats,
            optimal_stats=None,
            luck=None if result.luck is None else result.luck[one],
            realized=None if result.realized is None else result.realized[one],
            game_seeds=result.game_seeds[one], trace=trace))
    return out


class ScorecardInspection(Inspection):
    """A scorecard game (any preset or ``Rules``) inspected against its optimal
    (expected-score) player: the family's ``"inspection"`` hook."""

    def build_optimal(self) -> Any:
        from agents.scorecard.optimal import OptimalAgent

        return OptimalAgent(self.game.rules)

    def _gap(self, agent: Any, seeds: Sequence[int], name: str) -> ScorecardRegret:
        """The regret tool's evaluation of the games of ``seeds``, with its trace."""
        return optimality_gap(agent, self.game.rules, game_seeds=list(seeds), paired=False,
                              optimal=self.optimal, name=name, trace=True)

    def fields(self) -> dict[str, Any]:
        rules = self.game.rules
        return {"value_label": "expected final score", "kinds": decision_kinds(rules),
                "costly": COSTLY_POINTS, "position": "card", "box_labels": list(rules.labels),
                "upper_boxes": len(UPPER_KINDS),
                "upper_bonus_threshold": int(rules.upper_bonus_threshold),
                "upper_bonus": int(rules.upper_bonus)}

    def game_records(self, agent: Any, seed: int, name: str) -> list[dict[str, Any]]:
        return scorecard_games(self._gap(agent, [seed], name), self.game.rules, name)

    def view_label(self, first: dict[str, Any], k: int) -> str:
        return f"seed {first['seed']}"

    def charts(self, players: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return scorecard_charts(players)

    def habits(self, agent: Any, seeds: Sequence[int], name: str, examples: int
               ) -> tuple[dict[str, Any], dict[int, Callable[[], list[dict[str, Any]]]]]:
        rules = self.game.rules
        result = self._gap(agent, seeds, name)
        records = {s: (lambda g=g: scorecard_games(result, rules, name, only=[g]))
                   for g, s in enumerate(seeds)}
        return scorecard_habits(result, rules, examples), records

    def seed_fragments(self, agent: Any, seeds: Sequence[int], name: str, examples: int
                       ) -> dict[int, dict[str, Any]]:
        """Played in one batch (several times faster than one game at a time), then cut
        per game (:func:`split_by_game`)."""
        seeds = [int(s) for s in seeds]
        result = self._gap(agent, seeds, name)
        return {s: scorecard_habits(one, self.game.rules, examples)
                for s, one in zip(seeds, split_by_game(result), strict=True)}
