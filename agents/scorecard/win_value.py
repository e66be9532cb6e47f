"""A scorecard player that maximises its chance of winning a multi-player match.

Penta and Dice Poker matches are won by the highest final TOTAL; a tie for the top is worth half
a win (the match envs' +1 / 0 / -1).  Every other scorecard player maximises its expected score
and ignores the other cards; :class:`WinValueAgent` reads them (the match observation of
``dice_env/PentaMatch-v0`` / ``scorecard_v0``) and plays each turn to maximise

    P(my final TOTAL beats every other) + 1/2 P(it ties the best of them)

against opponents that play the **score-optimal** policy (the exact DP player).  Such
opponents ignore everybody else, so their final totals are independent of ours and of each
other's; what matters of them is the distribution of the best of their final totals, the
*threshold* ``T``.  The player's value of a state is ``E[u(X)]`` for its own final total ``X``,
where ``u(x) = P(T < x) + 1/2 P(T = x)``.

* **Its last turn** is solved exactly: every opponent then has at most one turn left, whose
  gain distribution under score-optimal play is exact (:func:`last_turn_gains`), so ``u`` is
  exact and so is the turn's expectimax over it.
* **Earlier turns** see the threshold through two numbers: ``M`` and ``S``, the mean and the
  spread of the best opponent final total, from each opponent's exact expected remaining score
  and its exact spread (:mod:`agents.scorecard.score_spread`), combined by Clark's moments of
  a maximum of normals (:func:`threshold_moments`).  A card with one box left is valued
  exactly against that threshold (its last turn solved); with more, a network per number of
  filled boxes (:class:`WinValueModel`) values a turn start ``(my card, D = my total - M, S)`` as
  ``P(X > T)`` with ``T ~ N(M, S)``, starting from the normal approximation
  ``Phi((D + mean_rest) / sqrt(S^2 + sd_rest^2))`` and learning the correction (what the card
  can still do: a bonus to chase, a gamble worth taking when behind).  The value is
  *closed-loop*: the opponents' turns before our next one move ``M`` by a normal shift and
  shrink ``S`` to what their cards will still hold open (both exact in variance, from
  :meth:`~agents.scorecard.score_spread.ScoreMoments.std_after_turn`), so a turn's leaves
  average the next layer over that shift (:func:`next_turn_value`) -- a player that will see
  the others' dice before deciding again need not gamble as if it never would.  Each decision is the
  exact expectimax of its turn with the network at the leaves (:mod:`.turn_policy`), and the
  threshold is recomputed every turn from the cards as they stand.

The number of players only changes the threshold, so one model serves 2 to 6 players.
Trained by :mod:`agents.training.win_value` (backward over the layers of the card, on sampled
cards and thresholds); the committed model is ``results/models/win-value-<game>.pt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from scipy.special import ndtr
from torch import nn

from agents.networks import mlp
from agents.paths import win_value_model
from agents.scorecard.choice import act_batch_by_values, act_by_values
from agents.scorecard.learned_value import n_features, state_features
from agents.scorecard.model_file import ModelFile
from agents.scorecard.score_spread import ScoreMoments, load_or_compute_spread
from agents.scorecard.turn_policy import Turn, solve_turn, turn_leaves
from agents.scorecard.win_threshold import (
    GRID,
    TIE_BREAK,
    last_turn_gains,
    last_turn_values,
    last_turn_values_grid,
    threshold_moments,
    threshold_utility,
    two_turn_gains,
)
from dice_env import dice as D
from dice_env.scorecard.match import check_num_players
from dice_env.scorecard.match.observation import (
    TOTAL_SCALE,
    match_observation_slices,
    opponent_block_size,
)
from dice_env.scorecard.observation import (
    decode_observation,
    observation_size,
    observation_slices,
)
from dice_env.scorecard.rules import Rules, coerce_rules

__all__ = ["WinValueAgent", "WinValueModel", "default_model_path", "next_turn_value"]

N_HOLDS = D.N_HOLDS
#: Bump when :meth:`WinValueModel.features` changes (saved models record it).
FEATURE_VERSION = 2
_PRIOR_CLIP = 1e-6


def default_model_path(rules: Rules) -> Path:
    """The committed ``win-value-<game>.pt`` (package data, :mod:`agents.paths`)."""
    return win_value_model(rules.name)


# -- the network -------------------------------------------------------------------------------


class WinLayer(nn.Module):
    """P(win) of the turn-start states with one given number of filled boxes:
    ``sigmoid(logit(prior) + mlp(features))``, the prior being the normal approximation."""

    def __init__(self, n_in: int, hidden: tuple[int, ...]) -> None:
        super().__init__()
        self.mlp = mlp(n_in, hidden)

    def forward(self, x: torch.Tensor, prior_logit: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(prior_logit + self.mlp(x).squeeze(-1))


#: three-point Gauss-Hermite rule of a standard normal: nodes and weights
_GH_NODES = np.array([-np.sqrt(3.0), 0.0, np.sqrt(3.0)])
_GH_WEIGHTS = np.array([1 / 6, 2 / 3, 1 / 6])


def next_turn_value(model: WinValueModel, moments: ScoreMoments, open_: np.ndarray,
                    upper: np.ndarray, five: np.ndarray, delta: np.ndarray,
                    spread_after: np.ndarray, shift_sd: np.ndarray) -> np.ndarray:
    """``(M,)`` P(win) at our next turn start, seen from the end of this turn: the opponents'
    turns in between move the threshold's mean by ``N(0, shift_sd^2)`` and leave it the spread
    ``spread_after`` (the expectation over the shift by a three-point Gauss-Hermite rule)."""
    out = np.zeros(len(delta))
    for x, w in zip(_GH_NODES, _GH_WEIGHTS):
        out += w * model.value(moments, open_, upper, five, delta - x * shift_sd, spread_after)
    return out


class WinValueModel(ModelFile, nn.Module):
    """The P(win) at the start of a turn: one learned :class:`WinLayer` per number of filled
    boxes ``k = 0 .. n_boxes - 2``; a card with one box open is solved exactly
    (:func:`last_turn_values`), a full card is worth :func:`threshold_utility`.

    Args:
        rules: the game.
        hidden: hidden widths of each layer's MLP.
    """

    FILE_FORMAT = "win-value"
    FEATURE_VERSION = FEATURE_VERSION

    def __init__(self, rules: Rules, hidden: tuple[int, ...] = (64, 64)) -> None:
        super().__init__()
        self.rules = rules
        self.hidden = tuple(int(h) for h in hidden)
        self.layers = nn.ModuleList(WinLayer(n_features(rules) + 6, self.hidden)
                                    for _ in range(rules.n_boxes - 1))

    @staticmethod
    def prior(delta: np.ndarray, spread: np.ndarray, rest_mean: np.ndarray,
              rest_std: np.ndarray) -> np.ndarray:
        """The normal approximation of P(win): ``Phi((D + mean_rest) / sqrt(S^2 + sd^2))``."""
        z = (delta + rest_mean) / np.sqrt(spread ** 2 + rest_std ** 2 + 1.0)
        return ndtr(z)

    def features(self, moments: ScoreMoments, open_, upper, five, delta, spread
                 ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(x, prior logit)``: the card's :func:`~agents.scorecard.learned_value.
        state_features`, then ``D/100``, ``S/100``, the card's expected remaining points and
        their spread ``/100``, ``z`` and the prior."""
        mean = moments.mean(open_, upper, five)
        std = moments.std(open_, upper, five)
        delta = np.asarray(delta, dtype=np.float64)
        spread = np.asarray(spread, dtype=np.float64)
        prior = np.clip(self.prior(delta, spread, mean, std), _PRIOR_CLIP, 1 - _PRIOR_CLIP)
        z = (delta + mean) / np.sqrt(spread ** 2 + std ** 2 + 1.0)
        extra = np.stack([delta / 100, spread / 100, mean / 100, std / 100,
                          np.clip(z, -6, 6) / 3, prior], axis=1).astype(np.float32)
        x = np.concatenate([state_features(self.rules, open_, upper, five), extra], axis=1)
        return torch.from_numpy(x), torch.from_numpy(np.log(prior / (1 - prior))).float()

    @torch.no_grad()
    def value(self, moments: ScoreMoments, open_: np.ndarray, upper: np.ndarray,
              five: np.ndarray, delta: np.ndarray, spread: np.ndarray) -> np.ndarray:
        """``(M,)`` P(win) of turn-start states with ``delta = total - M`` against a threshold
        ``N(M, spread)`` (any mix of layers; the last two exactly)."""
        open_ = np.atleast_2d(np.asarray(open_, dtype=bool))
        delta = np.asarray(delta, dtype=np.float64)
        spread = np.asarray(spread, dtype=np.float64)
        filled = self.rules.n_boxes - open_.sum(axis=1)
        out = threshold_utility(delta, 0.0, spread)
        upper, five = np.asarray(upper), np.asarray(five)
        last = np.flatnonzero(filled == self.rules.n_boxes - 1)
        if last.size:
            out[last] = last_turn_values(self.rules, open_[last], upper[last], five[last],
                                         delta[last], spread[last])
        for k in np.unique(filled[filled < self.rules.n_boxes - 1]):
            rows = np.flatnonzero(filled == k)
            x, logit = self.features(moments, open_[rows], upper[rows], five[rows],
                                     delta[rows], spread[rows])
            out[rows] = self.layers[int(k)](x, logit).double().numpy()
        return out


# -- the match as the player sees it -----------------------------------------------------------


@dataclass
class MatchView:
    """Turn-start facts of ``N`` matches from the player's seat, decoded from observations.

    ``open_ (N, B)``, ``upper``, ``five``, ``total``: the player's card; ``opp_*`` ``(N, P-1,
    ...)`` the others' (seat order after the player); ``roll``, ``rolls_left``: the dice.
    """

    open_: np.ndarray
    upper: np.ndarray
    five: np.ndarray
    total: np.ndarray
    opp_open: np.ndarray
    opp_upper: np.ndarray
    opp_five: np.ndarray
    opp_total: np.ndarray
    roll: np.ndarray
    rolls_left: np.ndarray
    key: np.ndarray  # (N,) bytes: everything but the dice


def num_players_of(rules: Rules, obs_size: int) -> int:
    """The number of players of a match observation of ``obs_size`` entries."""
    rest = obs_size - observation_size(rules) - 2
    block = opponent_block_size(rules)
    if rest < block or rest % block:
        raise ValueError(
            f"an observation of {obs_size} entries is not a {rules.name} match observation; "
            f"the win-value player reads the match (dice_env/{_env_name(rules)}Match-v0, the "
            f"scorecard_v0 AEC env, or view='match'), not a single card")
    return rest // block + 1


def _env_name(rules: Rules) -> str:
    return {"penta": "Penta", "dice-poker": "DicePoker"}.get(rules.name, "Penta")


def decode_match(rules: Rules, obs: np.ndarray, num_players: int) -> MatchView:
    """Decode match observations (``(N, size)``) into a :class:`MatchView`."""
    obs = np.asarray(obs, dtype=np.float32)
    sl = match_observation_slices(rules, num_players)
    card = decode_observation(rules, obs[:, sl["card"]])
    blocks = obs[:, sl["opponents"]].reshape(len(obs), num_players - 1,
                                              opponent_block_size(rules))
    t = rules.upper_bonus_threshold
    s = observation_slices(rules)
    keep = np.ones(obs.shape[1], dtype=bool)
    for name in ("dice", "face_counts", "rolls_left", "box_points"):
        keep[sl["card"]][s[name]] = False
    keep[sl["to_move"]] = False
    raw = np.ascontiguousarray(obs[:, keep])
    return MatchView(
        open_=card["open"], upper=card["upper_capped"], five=card["five_state"],
        total=np.rint(obs[:, sl["own_total"].start] * TOTAL_SCALE).astype(np.int64),
        opp_open=blocks[..., 5:] > 0.5,
        opp_upper=np.rint(blocks[..., 1] * t).astype(np.int64),
        opp_five=np.argmax(blocks[..., 2:5], axis=-1),
        opp_total=np.rint(blocks[..., 0] * TOTAL_SCALE).astype(np.int64),
        roll=card["roll"], rolls_left=card["rolls_left"],
        key=raw.view(np.dtype((np.void, raw.dtype.itemsize * raw.shape[1])))[:, 0])


# -- the player --------------------------------------------------------------------------------


def _take(turn: Turn, rows: np.ndarray) -> Turn:
    return Turn(turn.leaves[rows], [None if k is None else k[rows] for k in turn.keep_values],
                turn.start_value[rows])


def _concatenate(parts: list[Turn]) -> Turn:
    cat = lambda xs: None if xs[0] is None else np.concatenate(xs)  # noqa: E731
    return Turn(cat([p.leaves for p in parts]),
                [cat([p.keep_values[r] for p in parts]) for r in range(len(parts[0].keep_values))],
                cat([p.start_value for p in parts]))


class WinValueAgent:
    """Plays a multi-player Penta or Dice Poker match to win (see the module docstring).

    Args:
        game: ``"penta"`` or ``"dice-poker"`` (a preset name, Gymnasium id or ``Rules``).
        num_players: the players per match, 2 to 6 (default: read from each observation).
        model_path: the model file (default ``results/models/win-value-<game>.pt``).
        seed: accepted for the common player signature; the player is deterministic.
        model: an in-memory :class:`WinValueModel` instead of a file (the trainer uses it).
        moments: the score-optimal player's :class:`ScoreMoments` (default: loaded or
            computed once and cached).

    It reads **match observations** (``dice_env/PentaMatch-v0``, ``dice_env/DicePokerMatch-v0``,
    the ``scorecard_v0`` AEC env, or ``view="match"`` of the match evaluators); a single-card
    observation is refused (there is nobody to beat in it).

    Raises:
        FileNotFoundError: no model file (the message says how to train one).
    """

    name = "win-value"
    #: front-ends give this player the match observation (every card), not its card's alone
    reads_match = True

    def __init__(self, game: str | Rules = "penta", num_players: int | None = None,
                 model_path: str | Path | None = None, seed: int | None = None,
                 model: WinValueModel | None = None, moments: ScoreMoments | None = None
                 ) -> None:
        self.rules = coerce_rules(game)
        self.num_players = None if num_players is None else check_num_players(num_players)
        self.meta: dict = {}
        if model is None:
            path = Path(model_path) if model_path is not None else default_model_path(self.rules)
            if not path.is_file():
                raise FileNotFoundError(
                    f"no win-value model for {self.rules.name!r} at {path}; train one with "
                    f"`dice-env train win-value {self.rules.name} --export {path}`")
            model, self.meta = WinValueModel.load(path)
        if model.rules.knobs() != self.rules.knobs():
            raise ValueError(f"the model is for {model.rules.name!r}, not {self.rules.name!r}")
        self.model = model.eval()
        self.moments = moments if moments is not None else load_or_compute_spread(self.rules)
        self.game = self.rules.name
        self._cache_keys = np.zeros(0, dtype="V1")
        self._cache: Turn | None = None

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the player is deterministic (for the Agent protocol)."""

    def __repr__(self) -> str:
        return f"WinValueAgent({self.game!r}, num_players={self.num_players})"

    @property
    def n_actions(self) -> int:
        return N_HOLDS + self.rules.n_boxes

    def clear_cache(self) -> None:
        """Forget the kept turn solutions (needed after changing the model's weights)."""
        self._cache_keys, self._cache = np.zeros(0, dtype="V1"), None

    # -- one turn ------------------------------------------------------------------------------

    def opponent_moments(self, view: MatchView, with_after: bool = False
                         ) -> tuple[np.ndarray, ...]:
        """``(N, P-1)`` each opponent's expected final total and its spread (and, with
        ``with_after``, the spread expected after its next turn)."""
        n, k, b = view.opp_open.shape
        flat = (view.opp_open.reshape(-1, b), view.opp_upper.ravel(), view.opp_five.ravel())
        mean = self.moments.mean(*flat).reshape(n, k) + view.opp_total
        std = self.moments.std(*flat).reshape(n, k)
        if not with_after:
            return mean, std
        return mean, std, self.moments.std_after_turn(*flat).reshape(n, k)

    def exact_threshold(self, view: MatchView) -> np.ndarray:
        """``(N, GRID)`` ``u(x)`` for totals ``x = 0 .. GRID - 1``, from the opponents' exact
        final-total distributions (finished cards, cards with one or two turns left; a normal
        of the exact moments for any card with more, which no match reaches at our last two
        turns)."""
        n, k, b = view.opp_open.shape
        grid = np.arange(GRID)
        below = np.ones((n, GRID))
        at_most = np.ones((n, GRID))
        mean, std = self.opponent_moments(view)
        left = view.opp_open.sum(axis=2)
        for j in range(k):
            pmf = np.zeros((n, GRID))
            done = left[:, j] == 0
            pmf[np.flatnonzero(done), np.minimum(view.opp_total[done, j], GRID - 1)] = 1.0
            one = np.flatnonzero(left[:, j] == 1)
            if one.size:
                gains = last_turn_gains(self.moments, view.opp_open[one, j],
                                        view.opp_upper[one, j], view.opp_five[one, j])
                cols = view.opp_total[one, j][:, None] + np.arange(gains.shape[1])
                np.add.at(pmf, (np.repeat(one, gains.shape[1]),
                                np.minimum(cols, GRID - 1).ravel()), gains.ravel())
            two = np.flatnonzero(left[:, j] == 2)
            if two.size:
                gains = two_turn_gains(self.moments, view.opp_open[two, j],
                                       view.opp_upper[two, j], view.opp_five[two, j])
                cols = view.opp_total[two, j][:, None] + np.arange(gains.shape[1])
                np.add.at(pmf, (np.repeat(two, gains.shape[1]),
                                np.minimum(cols, GRID - 1).ravel()), gains.ravel())
            more = np.flatnonzero(left[:, j] > 2)
            if more.size:
                cdf = ndtr((grid[None, :] + 0.5 - mean[more, j, None])
                           / np.maximum(std[more, j, None], 1e-9))
                pmf[more] = np.diff(cdf, prepend=0.0, axis=1)
            cum = np.cumsum(pmf, axis=1)
            at_most *= cum
            below *= cum - pmf
        return below + 0.5 * (at_most - below)

    def solve(self, view: MatchView) -> Turn:
        """The exact expectimax of the player's turn in each match of ``view``."""
        rules = self.rules
        filled = rules.n_boxes - view.open_.sum(axis=1)
        late = filled >= rules.n_boxes - 2
        parts, order = [], []
        if late.any():
            rows = np.flatnonzero(late)
            sub = _subview(view, rows)
            u = self.exact_threshold(sub)
            total = sub.total

            def leaf_late(r, o, up, f, gain):
                out = TIE_BREAK * (gain + self.moments.mean(o, up, f))
                done = ~o.any(axis=1)
                out[done] += u[r[done], np.minimum(total[r[done]] + gain[done], GRID - 1)]
                if (~done).any():
                    out[~done] += last_turn_values_grid(rules, o[~done], up[~done], f[~done],
                                                        total[r[~done]] + gain[~done],
                                                        u, r[~done])
                return out

            parts.append(solve_turn(turn_leaves(rules, sub.open_, sub.upper, sub.five,
                                                leaf_late), rules.rolls_per_turn))
            order.append(rows)
        if (~late).any():
            rows = np.flatnonzero(~late)
            sub = _subview(view, rows)
            mean, std, after = self.opponent_moments(sub, with_after=True)
            m, s = threshold_moments(mean, std)
            s_after = threshold_moments(mean, after)[1]
            shift = np.sqrt(np.maximum(s ** 2 - s_after ** 2, 0.0))
            delta = sub.total - m

            def leaf(r, o, up, f, gain):
                return (next_turn_value(self.model, self.moments, o, up, f, delta[r] + gain,
                                        s_after[r], shift[r])
                        + TIE_BREAK * (gain + self.moments.mean(o, up, f)))

            parts.append(solve_turn(turn_leaves(rules, sub.open_, sub.upper, sub.five, leaf),
                                    rules.rolls_per_turn))
            order.append(rows)
        turn = _concatenate(parts)
        return _take(turn, np.argsort(np.concatenate(order)))

    def _turns(self, view: MatchView) -> tuple[Turn, np.ndarray]:
        """Turn solutions of the distinct turn-start states of ``view`` (the last call's
        reused), and each row's index in them."""
        uniq, first, rows = np.unique(view.key, return_index=True, return_inverse=True)
        if len(self._cache_keys) and self._cache_keys.dtype == uniq.dtype:
            pos = np.minimum(np.searchsorted(self._cache_keys, uniq), len(self._cache_keys) - 1)
            hit = self._cache_keys[pos] == uniq
        else:
            pos, hit = np.zeros(len(uniq), dtype=np.int64), np.zeros(len(uniq), dtype=bool)
        parts = [] if self._cache is None or not hit.any() else [_take(self._cache, pos[hit])]
        miss = first[~hit]
        if len(miss):
            parts.append(self.solve(_subview(view, miss)))
        order = np.concatenate([np.flatnonzero(hit), np.flatnonzero(~hit)])
        turn = _take(_concatenate(parts), np.argsort(order))
        self._cache_keys, self._cache = uniq, turn
        return turn, rows.reshape(-1)

    # -- decisions from observations -----------------------------------------------------------

    def _view(self, observations: np.ndarray) -> MatchView:
        obs = np.atleast_2d(np.asarray(observations, dtype=np.float32))
        p = num_players_of(self.rules, obs.shape[1])
        if self.num_players is not None and p != self.num_players:
            raise ValueError(f"this win-value player was made for {self.num_players} players; "
                             f"the observation is of a {p}-player match")
        return decode_match(self.rules, obs, p)

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``(N, 32 + B)`` P(win) after every action of match observations (``-inf`` for
        actions the rules forbid, holds with no reroll left and holding all five)."""
        obs = np.asarray(observations)
        view = self._view(obs)
        turn, rows = self._turns(view)
        vals = turn.action_values(rows, view.roll, view.rolls_left)
        return vals[0] if obs.ndim == 1 else vals

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The legal action with the highest P(win) for one match observation."""
        return act_by_values(self.action_values, observation, action_mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One best legal action per row of ``observations`` / ``masks`` (``(N, ...)``)."""
        return act_batch_by_values(self.action_values, observations, masks)


def _subview(view: MatchView, rows: np.ndarray) -> MatchView:
    return MatchView(*(getattr(view, f)[rows] for f in MatchView.__dataclass_fields__))
