"""The inspect records of 5000 games, against the optimal player.

"Seed S" of 5000 is the seat-balanced pair of games ``fivethousand_gap(agent, games=2,
seed=S)`` plays: game 0 opened by the policy, game 1 by the optimal player (the two share one
dice generator, so neither can be played alone).  Everything is read off that evaluation's
trace (``trace=True``): a decision's values are the exact probabilities that the policy wins
against the optimal player after each option, both then playing optimally, and its regret is
the win probability the regret tool charged it.  :class:`FiveThousandInspection` is the
family's ``"inspection"`` hook (two-player 5000 only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.evaluation.fivethousand_regret import (
    ACTION_KINDS,
    FiveThousandRegret,
    action_cells,
    fivethousand_gap,
)
from agents.evaluation.inspect.charts import series
from agents.evaluation.inspect.common import DecisionTable, Inspection, finite, top_examples
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.family import DEFAULT_ENV_ID
from dice_env.fivethousand.rules import FiveThousandRules

__all__ = ["GAMES_PER_SEED", "FiveThousandInspection", "fivethousand_charts",
           "fivethousand_decision_table", "fivethousand_games", "fivethousand_habits",
           "fivethousand_kinds", "play_seed"]

#: the games one seed of 5000 plays (the policy opens one, the optimal player the other)
GAMES_PER_SEED = 2
#: a decision losing at least this much win probability is highlighted as costly
COSTLY_WIN = 0.01


def fivethousand_kinds() -> list[str]:
    """Decision kinds of 5000: by the number of dice just thrown."""
    return [f"after throwing {n} {'die' if n == 1 else 'dice'}" for n in range(1, R.N_DICE + 1)]


def play_seed(agent: Any, seed: int, optimal: Any, name: str) -> FiveThousandRegret:
    """The regret tool's evaluation of seed ``seed`` with its trace (the pair of games)."""
    return fivethousand_gap(agent, GAMES_PER_SEED, seed, optimal=optimal, name=name, trace=True)


def _labels(rules: FiveThousandRules, dice: np.ndarray, roll: int, turn_total: int,
            actions: np.ndarray) -> list[str]:
    bank, points, set_aside = R.decode_actions(rules, np.full(len(actions), roll), actions)
    thrown = int(R.ROLL_SIZE[roll])
    out = []
    for a, b, p, k in zip(actions.tolist(), bank.tolist(), points.tolist(), set_aside.tolist(),
                          strict=True):
        aside = ""
        if rules.choose_scoring_dice:
            faces = [str(int(dice[i])) for i in range(thrown) if (a >> 1) >> i & 1]
            aside = f"set aside {' '.join(faces)}, "
        if b:
            out.append(f"{aside}bank {turn_total + p}")
        else:
            left = int(R.dice_left_after(thrown, k))
            out.append(f"{aside}roll {left} {'die' if left == 1 else 'dice'} on "
                       f"({turn_total + p} at stake)")
    return out


def _decisions(result: FiveThousandRegret, rules: FiveThousandRules
               ) -> list[list[dict[str, Any]]]:
    kinds = fivethousand_kinds()
    out: list[list[dict[str, Any]]] = [[] for _ in range(result.games)]
    for batch in result.trace or []:
        st = batch.state
        for r, g in enumerate(batch.games.tolist()):
            seat = int(st.current[r])
            roll = int(st.roll[r])
            legal = np.flatnonzero(batch.masks[r])
            values = batch.values[r]
            labels = _labels(rules, st.dice[r], roll, int(st.turn_total[r]), legal)
            options = sorted(({"action": int(a), "label": lab, "value": finite(values[a])}
                              for a, lab in zip(legal.tolist(), labels, strict=True)),
                             key=lambda o: -(o["value"] if o["value"] is not None else -1.0))
            chosen = int(batch.chosen[r])
            finite_values = values[legal][np.isfinite(values[legal])]
            thrown = int(R.ROLL_SIZE[roll])
            turn = int(st.turns[r, seat]) + 1
            same_turn = [d for d in out[g] if d["turn"] == turn]
            scores = [int(st.scores[r, seat]), int(st.scores[r, 1 - seat])]
            turn_total, roll_points = int(st.turn_total[r]), int(R.ROLL_POINTS[roll])
            out[g].append({
                "index": len(out[g]), "turn": turn, "step": len(same_turn), "throw": thrown,
                "kind": kinds[thrown - 1], "dice": [int(d) for d in st.dice[r] if d],
                "scores": scores, "turn_total": turn_total, "roll_points": roll_points,
                "facts": [["scores", f"agent {scores[0]} · optimal {scores[1]}"],
                          ["turn total before this throw", str(turn_total)],
                          ["this throw scores", str(roll_points)]],
                "options": options, "chosen": chosen, "best": int(batch.optimal[r]),
                "regret": float(batch.loss[r]),
                "value": finite(finite_values.max()) if finite_values.size else None,
                "after": finite(values[chosen]),
            })
    return out


def _points(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per decision: the win probability before and after it, the regret so far and the
    scores (the chart's points)."""
    points, cumulative = [], 0.0
    for d in decisions:
        cumulative += d["regret"]
        points.append({"turn": d["turn"], "decision": d["index"], "value": d["value"],
                       "expected": d["after"], "regret": cumulative, "score": d["scores"][0],
                       "opponent": d["scores"][1]})
    return points


def fivethousand_games(result: FiveThousandRegret, rules: FiveThousandRules, name: str
                       ) -> list[dict[str, Any]]:
    """The inspect record of each game of one seed's evaluation (:func:`play_seed`)."""
    games = []
    for g, decisions in enumerate(_decisions(result, rules)):
        opens = result.first is not None and int(result.first[g]) == 0
        games.append({
            "index": g, "seed": result.seed, "agent": name,
            "stream": {"seed": result.seed, "games": result.games},
            "opens": opens, "optimal_value": float(result.baseline[g]),
            "won": bool(result.outcome[g] == 1.0), "regret": float(result.per_game[g]),
            "decisions": decisions, "turns": _points(decisions),
        })
    return games


def fivethousand_decision_table(result: FiveThousandRegret) -> DecisionTable:
    """Every decision of one seed's trace as flat arrays (for the habits' examples)."""
    table = DecisionTable()
    counter = np.zeros(result.games, dtype=np.int64)
    for batch in result.trace or []:
        st = batch.state
        row, col = action_cells(batch.chosen, batch.optimal)
        index = counter[batch.games].copy()
        counter[batch.games] += 1
        seat = st.current
        table.add(seed=np.full(len(batch.games), result.seed), game=batch.games,
                  decision=index, turn=st.turns[np.arange(st.n), seat] + 1,
                  kind=R.ROLL_SIZE[st.roll].astype(np.int64) - 1, row=row, col=col,
                  loss=batch.loss)
    return table


def fivethousand_habits(results: list[FiveThousandRegret], examples: int = 3
                        ) -> dict[str, Any]:
    """The roll-on / bank table summed over seeds' evaluations (the regret tool's counts and
    losses) with the costliest example positions of each cell, and the same by dice thrown."""
    table = DecisionTable()
    counts = np.zeros((2, 2), dtype=np.int64)
    loss = np.zeros((2, 2))
    decisions = np.zeros(R.N_DICE, dtype=np.int64)
    mistakes = np.zeros(R.N_DICE, dtype=np.int64)
    by_dice = np.zeros(R.N_DICE)
    n_games = 0
    per_game = []
    for res in results:
        table.extend(fivethousand_decision_table(res))
        counts += res.action_counts
        loss += res.action_loss
        decisions += res.decisions
        mistakes += res.mistakes
        by_dice += res.by_dice.sum(axis=0)
        n_games += res.games
        per_game += [{"seed": res.seed, "game": g, "regret": float(res.per_game[g]),
                      "won": bool(res.outcome[g] == 1.0)} for g in range(res.games)]
    t = table.arrays()
    labels = list(ACTION_KINDS)
    cells = []
    off = [(i, j) for i in range(2) for j in range(2) if i != j and loss[i, j] > 0]
    for i, j in sorted(off, key=lambda c: -loss[c]):
        where = (t["row"] == i) & (t["col"] == j) & (t["loss"] > 0)
        cells.append({"chosen": labels[i], "optimal": labels[j], "row": i, "col": j,
                      "count": int(counts[i, j]), "loss": float(loss[i, j]),
                      "per_game": float(loss[i, j]) / max(n_games, 1),
                      "examples": top_examples(t, where, examples)})
    kinds = [{"kind": kind, "decisions": int(decisions[k]), "mistakes": int(mistakes[k]),
              "per_game": float(by_dice[k]) / max(n_games, 1),
              "examples": top_examples(t, (t["kind"] == k) & (t["loss"] > 0), examples)}
             for k, kind in enumerate(fivethousand_kinds())]
    gap = float(np.mean([p["regret"] for p in per_game])) if per_game else 0.0
    return {"labels": labels, "counts": counts.tolist(), "loss": loss.tolist(), "cells": cells,
            "kinds": kinds, "games": per_game, "gap": gap}


def fivethousand_charts(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The win probability against the optimal player before each decision and the start's
    minus the regret so far, the cumulative regret, and both scores, for every player's
    record of one game."""
    win, regret, scores = [], [], []
    for p, rec in enumerate(players):
        who = rec["agent"]
        pts = rec["turns"]
        win.append(series(f"{who}: win probability before the decision", p, "solid",
                          [[t["decision"] + 1, t["value"], t["decision"]] for t in pts]))
        win.append(series(f"{who}: start's minus regret so far", p, "dashed",
                          [[t["decision"] + 1, rec["optimal_value"] - t["regret"],
                            t["decision"]] for t in pts]))
        regret.append(series(f"{who}: regret so far", p, "solid",
                             [[t["decision"] + 1, t["regret"], t["decision"]] for t in pts]))
        scores.append(series(f"{who}: score", p, "solid",
                             [[t["decision"] + 1, t["score"], t["decision"]] for t in pts]))
        scores.append(series(f"optimal player (against {who})", p, "dashed",
                             [[t["decision"] + 1, t["opponent"], t["decision"]] for t in pts]))
    return [{"title": "Win probability against the optimal player", "x_label": "decision",
             "y_label": "win probability", "series": win},
            {"title": "Cumulative regret", "x_label": "decision",
             "y_label": "win probability lost", "series": regret},
            {"title": "Scores", "x_label": "decision", "y_label": "points", "series": scores}]


class FiveThousandInspection(Inspection):
    """Two-player 5000 inspected against the optimal player: the family's ``"inspection"``
    hook.  ``ValueError`` for solo 5000 (inspect plays 5000 against the optimal player)."""

    def __init__(self, game: Any, optimal: Any = None) -> None:
        if game.env_id != DEFAULT_ENV_ID:
            raise ValueError("inspect plays 5000 two-player, against the optimal player "
                             f"(game 'fivethousand'), not {game.name!r}")
        super().__init__(game, optimal)

    def build_optimal(self) -> Any:
        from agents.fivethousand.optimal import OptimalAgent

        return OptimalAgent("fivethousand")

    def fields(self) -> dict[str, Any]:
        return {"value_label": "win probability vs optimal", "kinds": fivethousand_kinds(),
                "costly": COSTLY_WIN, "position": "facts"}

    def game_records(self, agent: Any, seed: int, name: str) -> list[dict[str, Any]]:
        return fivethousand_games(play_seed(agent, seed, self.optimal, name),
                                  self.optimal.rules, name)

    def view_label(self, first: dict[str, Any], k: int) -> str:
        return f"seed {first['seed']}, game {k + 1}: " + \
            ("the agent opens" if first["opens"] else "the optimal player opens")

    def charts(self, players: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return fivethousand_charts(players)

    def habits(self, agent: Any, seeds: Sequence[int], name: str, examples: int
               ) -> tuple[dict[str, Any], dict[int, Callable[[], list[dict[str, Any]]]]]:
        results = [play_seed(agent, s, self.optimal, name) for s in seeds]
        rules = self.optimal.rules
        records = {r.seed: (lambda r=r: fivethousand_games(r, rules, name)) for r in results}
        return fivethousand_habits(results, examples), records

    def seed_fragments(self, agent: Any, seeds: Sequence[int], name: str, examples: int
                       ) -> dict[int, dict[str, Any]]:
        return {int(s): fivethousand_habits([play_seed(agent, int(s), self.optimal, name)],
                                            examples) for s in seeds}
