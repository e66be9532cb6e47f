"""One player against a field at a table of 2 to 6, in every seat, on common dice.

:func:`play_scorecard_tables` plays ``sets`` *dice sets* of ``P``-player matches on the match
core (:mod:`dice_env.scorecard.match`): players are *identities* ``0 .. P-1`` (identity 0 the
player measured, the others its field) and in dice set ``g`` identity ``i``'s card draws from
dice stream ``P g + i`` whatever seat it holds.  Each dice set is played ``P`` times, rotation
``r`` seating identity ``i`` at seat ``(i + r) % P``, so every seat is held by the measured
player once on the same dice (for two players: both seat orders, as
:func:`~agents.evaluation.scorecard_matches.play_scorecard_matches`).

A match is worth 1 to a sole top TOTAL, 1/2 to each player sharing it and 0 below (the match
envs' +1 / 0 / -1 rescaled).  :class:`TableMatches` reports the measured player's share with a
95 % CI over the independent dice sets, what each seat is worth, and -- against a reference
played on the same dice sets (:func:`reference_tables`: any players that read only their own
card, from their solitaire games) -- the paired difference, whose CI is much narrower than
the share's because the dice are shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_env.dice import DiceStream
from dice_env.scorecard.match import (
    MatchState,
    apply_match_actions,
    check_num_players,
    match_action_mask,
    mover_options,
    start_matches,
)
from dice_env.scorecard.match.observation import card_observation, encode_match_observation
from dice_env.scorecard.match.players import OPPONENT_VIEWS
from dice_env.scorecard.rules import Rules, coerce_rules

from .scorecard_games import actions_of

__all__ = ["TableMatches", "play_scorecard_tables", "reference_tables", "table_points"]

Z95 = 1.959963984540054


def table_points(totals: np.ndarray) -> np.ndarray:
    """``(..., P)`` match points of TOTALs ``(..., P)``: 1 sole top, 1/2 shared top, 0 below."""
    totals = np.asarray(totals)
    top = totals == totals.max(axis=-1, keepdims=True)
    shared = top.sum(axis=-1, keepdims=True) > 1
    return np.where(top, np.where(shared, 0.5, 1.0), 0.0)


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    x = np.asarray(x, dtype=np.float64)
    half = Z95 * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    return float(x.mean()), float(half)


@dataclass
class TableMatches:
    """``sets`` dice sets of ``P``-player matches, each played in the ``P`` rotations.

    Attributes:
        totals: ``(sets, P, P)`` final TOTAL of identity ``i`` (last axis) in rotation ``r``
            (middle axis: identity 0 at seat ``r``) of dice set ``g``.
        leads: ``(sets, P, B)`` identity 0's TOTAL minus the best other TOTAL at the start of
            each of its turns (turn ``k`` with ``k`` boxes filled), if recorded.
    """

    totals: np.ndarray
    leads: np.ndarray | None = None

    @property
    def num_players(self) -> int:
        return self.totals.shape[-1]

    @property
    def sets(self) -> int:
        return self.totals.shape[0]

    def points(self) -> np.ndarray:
        """``(sets, P)`` identity 0's match points in each rotation (= seat)."""
        return table_points(self.totals)[..., 0]

    def share(self) -> tuple[float, float]:
        """Identity 0's seat-balanced share (mean points) and its 95 % CI half-width."""
        return _mean_ci(self.points().mean(axis=1))

    def rates(self) -> dict[str, float]:
        """Identity 0's win / tie / loss rates over all matches."""
        pts = self.points()
        return {"win": float((pts == 1).mean()), "tie": float((pts == 0.5).mean()),
                "loss": float((pts == 0).mean())}

    def seat_values(self) -> list[tuple[float, float]]:
        """Identity 0's mean points in each seat with 95 % CI half-widths."""
        return [_mean_ci(col) for col in self.points().T]

    def mean_total(self) -> tuple[float, float]:
        """Identity 0's mean TOTAL (over all matches) with its CI over dice sets."""
        return _mean_ci(self.totals[..., 0].mean(axis=1))

    def difference(self, reference: TableMatches) -> dict[str, tuple[float, float]]:
        """Paired differences to ``reference`` on the same dice sets: ``share`` (points) and
        ``total`` (identity 0's TOTAL), each a mean with its 95 % CI half-width."""
        if reference.totals.shape != self.totals.shape:
            raise ValueError(f"the reference has shape {reference.totals.shape}, not "
                             f"{self.totals.shape}")
        return {"share": _mean_ci(self.points().mean(axis=1)
                                  - reference.points().mean(axis=1)),
                "total": _mean_ci(self.totals[..., 0].mean(axis=1)
                                  - reference.totals[..., 0].mean(axis=1))}


def reference_tables(game_totals: np.ndarray, num_players: int) -> TableMatches:
    """The :class:`TableMatches` of players that read only their own card, from their solitaire
    games: ``game_totals[j]`` is the final TOTAL of game ``j`` played by
    :func:`~agents.evaluation.play_scorecard_games` with the same seed (game ``j`` draws the
    dice stream ``j``), so identity ``i`` of dice set ``g`` is game ``P g + i`` in every
    rotation.  ``game_totals`` may hold several players' games as ``(P * sets, P)`` (column
    ``i`` for identity ``i``) or one player's ``(P * sets,)`` for all identities."""
    p = check_num_players(num_players)
    t = np.asarray(game_totals)
    sets = len(t) // p
    if sets < 1:
        raise ValueError(f"need at least {p} games for one dice set of {p} players")
    if t.ndim == 1:
        t = np.repeat(t[:, None], p, axis=1)
    ident = t[:sets * p].reshape(sets, p, p)[:, np.arange(p), np.arange(p)]  # (sets, P)
    return TableMatches(np.repeat(ident[:, None, :], p, axis=1))


def play_scorecard_tables(players: Sequence[Any], game: str | Rules, sets: int, seed: int = 0,
                          views: Sequence[str] | None = None, canonical_holds: bool = True,
                          batch: int = 2_000, progress: bool = False,
                          first_set: int = 0, record_leads: bool = False) -> TableMatches:
    """Play ``sets`` dice sets of ``len(players)``-player matches (see the module docstring).

    ``players[i]`` is identity ``i`` (identity 0 is measured); ``views[i]`` what it reads:
    ``"card"`` (its own card: every expected-score player) or ``"match"`` (the match
    observation: a player that reads the others).  Dice sets ``first_set .. first_set + sets -
    1`` are played, ``batch`` at a time.  ``record_leads`` keeps identity 0's lead at the start
    of each of its turns (:attr:`TableMatches.leads`).  A player returning an illegal action
    raises ``ValueError`` naming it.
    """
    p = check_num_players(len(players))
    views = list(views) if views is not None else ["card"] * p
    if len(views) != p:
        raise ValueError(f"{p} players need {p} views, got {len(views)}")
    for v in views:
        if v not in OPPONENT_VIEWS:
            raise ValueError(f"unknown view {v!r}; use one of {list(OPPONENT_VIEWS)}")
    if int(sets) < 1:
        raise ValueError(f"sets must be at least 1, got {sets}")
    rules = coerce_rules(game)
    starts = range(int(first_set), int(first_set) + int(sets), int(batch))
    if progress:
        from agents.progress import progress_bar

        starts = progress_bar(starts, desc=f"{rules.name} {p}p tables", unit="batch")
    parts = [_play_batch(rules, players, views, np.arange(s, min(s + int(batch),
                                                                  int(first_set) + int(sets))),
                         seed, canonical_holds) for s in starts]
    leads = np.concatenate([q[1] for q in parts]) if record_leads else None
    return TableMatches(np.concatenate([q[0] for q in parts]), leads)


def _play_batch(rules: Rules, players: Sequence[Any], views: list[str], set_ids: np.ndarray,
                seed: int, canonical_holds: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(len(set_ids), P, P)`` TOTALs by (set, rotation, identity), and identity 0's leads
    ``(len(set_ids), P, B)`` at the start of its turns."""
    p, n = len(players), len(set_ids)
    rot = np.tile(np.arange(p), n)                       # (M,) rotation of match m
    g = np.repeat(set_ids, p)                            # (M,) dice set of match m
    seat_identity = (np.arange(p)[None, :] - rot[:, None]) % p   # (M, P) identity at each seat
    dice = DiceStream(seed, (g[:, None] * p + seat_identity).ravel())
    state = MatchState.empty(rules, n * p, p)
    start_matches(rules, state, np.ones(n * p, dtype=bool), dice)
    leads = np.full((n * p, rules.n_boxes), np.nan)
    first_throw = rules.rolls_per_turn - 1
    while True:
        live = np.flatnonzero(~state.finished())
        if not live.size:
            break
        seats = state.current[live]
        who = seat_identity[live, seats]
        starts = live[(who == 0) & (state.cards.rolls_left[state.mover_rows(live)]
                                    == first_throw)]
        if starts.size:
            totals = state.totals(rules)[starts]
            own = np.take_along_axis(totals, state.current[starts, None], axis=1)[:, 0]
            others = np.where(np.arange(p)[None, :] == state.current[starts, None], -np.inf,
                              totals).max(axis=1)
            leads[starts, state.filled()[starts, state.current[starts]]] = own - others
        legal, points, _ = mover_options(rules, state, live)
        masks = match_action_mask(rules, state, canonical_holds, live, box_legal=legal)
        actions = np.zeros(state.n, dtype=np.int64)
        for k in range(p):
            sel = np.flatnonzero(who == k)
            if not sel.size:
                continue
            games = live[sel]
            if views[k] == "card":
                obs = card_observation(rules, state, seats[sel], games, points[sel])
            else:
                obs = encode_match_observation(rules, state, seats[sel], games, points[sel])
            try:
                actions[games] = actions_of(players[k], obs, masks[sel])
            except ValueError as exc:
                raise ValueError(f"player {k} ({players[k]!r}): {exc}") from None
        active = np.zeros(state.n, dtype=bool)
        active[live] = True
        apply_match_actions(rules, state, actions, dice, active)
    by_seat = state.totals(rules)                        # (M, P)
    by_identity = np.empty_like(by_seat)
    np.put_along_axis(by_identity, seat_identity, by_seat, axis=1)
    return by_identity.reshape(n, p, p), leads.reshape(n, p, rules.n_boxes)
