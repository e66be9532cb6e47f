"""How a policy is evaluated while ``dice-env train`` trains it: the rows of ``eval.csv``.

Each game family names its evaluation in its ``ppo_evaluation`` hook (see
:mod:`agents.families`), called as ``hook(player, game, eval)`` with the deterministic policy
as a player, the resolved game of the config's ``env_id`` and the config's ``eval`` section;
it returns the learning curve's metrics.  The two evaluations here serve the built-in
families:

* :func:`mean_score` -- a game that ends in points (the scorecard games): the mean final score
  over ``eval.games`` games on common random numbers (``eval.seed``), ``mean_score`` and
  ``sem``;
* :func:`win_rate` -- a game that is won or lost (5000, Pig): the win rate against
  ``eval.opponent`` (a registered player of the game, default ``"heuristic"``), measured by the
  family's own ``evaluate_players`` hook (seat-balanced, common random numbers where the family
  plays them), ``win_rate`` and ``sem``.

With ``"regret": true`` in the ``eval`` section, :func:`evaluate` adds the policy's exact
regret against the optimal player (the family's ``regret`` hook, on ``eval.games`` games):
``regret``, ``regret_ci_low`` and ``regret_ci_high``, in the family's unit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["DEFAULT_OPPONENT", "evaluate", "mean_score", "win_rate"]

#: the opponent of :func:`win_rate` when ``eval.opponent`` is not set
DEFAULT_OPPONENT = "heuristic"


class _Builder:
    """Builds the opponents by name (the ``roster`` of an ``evaluate_players`` hook); a player
    that cannot be built is an error here, not a row left out."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def make(self, name: str, game: Any) -> Any:
        from agents.registry import make

        return make(name, game, seed=self.seed)


def mean_score(player: Any, game: Any, ev: dict) -> dict:
    """The mean final score of ``player`` over ``ev["games"]`` games of ``game`` (a scorecard
    game; common random numbers, ``ev["seed"]``): ``mean_score`` and its ``sem``."""
    from agents.evaluation import play_scorecard_games

    totals = play_scorecard_games(player, game.env_id, ev["games"], seed=ev["seed"])
    return {"mean_score": float(totals.mean()),
            "sem": float(totals.std(ddof=1) / np.sqrt(len(totals)))}


def win_rate(player: Any, game: Any, ev: dict) -> dict:
    """The win rate of ``player`` against ``ev["opponent"]`` (default
    :data:`DEFAULT_OPPONENT`) over ``ev["games"]`` games, as the game family's
    ``evaluate_players`` hook plays them (seed ``ev["seed"]``): ``win_rate`` and ``sem`` (the
    hook's, else the binomial standard error of ``ev["games"]`` games)."""
    opponent = ev.get("opponent", DEFAULT_OPPONENT)
    rows = game.family.hook("evaluate_players")(
        {"ppo": player}, game, game.name, ev["games"], ev["seed"], opponents=[opponent],
        roster=_Builder(ev["seed"]))
    if len(rows) != 1:
        raise ValueError(f"evaluating against {opponent!r} on {game.name} gave {len(rows)} "
                         "results, expected one")
    p = float(rows[0]["win_rate"])
    sem = rows[0].get("sem")
    if sem is None or not np.isfinite(sem):
        sem = np.sqrt(p * (1 - p) / ev["games"])
    return {"win_rate": p, "sem": float(sem)}


def evaluate(player: Any, game: Any, ev: dict) -> dict:
    """The learning curve's metrics of ``player`` on ``game`` (its family's ``ppo_evaluation``
    hook) and, with ``ev["regret"]``, its exact regret against the optimal player (the
    family's ``regret`` hook, ``ev["games"]`` games, seed ``ev["seed"]``)."""
    result = dict(game.family.hook("ppo_evaluation")(player, game, ev))
    if ev.get("regret", False):
        regret = game.family.hook("regret")(player, game, ev["games"], ev["seed"], name="ppo",
                                            progress=False)
        low, high = regret.ci
        result.update(regret=float(regret.gap), regret_ci_low=float(low),
                      regret_ci_high=float(high))
    return result
