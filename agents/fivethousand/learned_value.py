"""A learned turn-start win probability of two-player 5000, played through an exact turn solve.

What this module holds:

* :class:`TurnModel` / :func:`build_turn_model` -- the rule tables of one turn, built from
  :mod:`dice_env.fivethousand.rules` alone: the score grid (0, then ``entry`` .. ``target -
  100`` in steps of 100: every score a player can hold), the throw distributions per number of
  dice, and what a bank of every turn total does to every pair of scores (bank legality, bumps,
  overshoot gifts, exact-target wins, by :func:`~dice_env.fivethousand.rules.resolve_bank`).
* :func:`solve_turns` -- the exact within-turn solve of a batch of turn-start pairs
  ``(my score, opponent's score)``, given a table ``W[x, y]`` of the probability that the player
  about to start a turn at ``(x, y)`` wins.  Inside a turn the state is ``(turn total t, dice n
  to throw)``; a throw that scores nothing is a bust, worth ``1 - W[opp, my]``; a bank is worth
  1 if it reaches the target, 0 if its gift takes the opponent there, else ``1 - W[opp', my']``
  with the scores after it.  Turn totals only grow, so the values follow by backward induction
  over ``t`` from the target down (a total past the target can only be banked into a lost gift:
  it is worth exactly a bust).  The turn-start value is the roll-on value at ``(0, 5)``.
* :func:`state_features` and :class:`ValueModel` -- the network ``W(my, opp)`` (a small MLP
  over hand-made features of the two scores, documented at :func:`state_features`) with its
  save / load.
* :class:`LearnedValueAgent` -- the player: every decision takes the best action of the exact
  turn solve with the network's ``W`` at the leaves (solved once per score pair, then cached).
  ``act`` / ``act_batch`` read Gymnasium observations (``dice_env/FiveThousand-v0``, literal
  rules); ``state_action_values`` reads a :class:`~dice_env.fivethousand.game.FiveThousandState`.
  With three or more players it plays the two-player policy against the leader (the other
  player with the highest score) -- an approximation that ignores the others' bumps and gifts.

The trainer is :mod:`agents.training.learned_value.fivethousand`; the default model is
``results/models/learned-value-fivethousand.pt``.  Nothing here reads the exact solver's tables.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.networks import mlp
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import decode_observation, num_players_of
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.io import atomic_write_bytes

__all__ = [
    "DEFAULT_MODEL_PATH",
    "LearnedValueAgent",
    "TurnModel",
    "TurnSolution",
    "ValueModel",
    "build_turn_model",
    "rules_of",
    "solve_turns",
    "state_features",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
#: where ``LearnedValueAgent`` looks for its model by default
DEFAULT_MODEL_PATH = REPO_ROOT / "results" / "models" / "learned-value-fivethousand.pt"
#: the game names the agent accepts (the literal two-player game; names in any case)
GAME_NAMES = ("fivethousand", "5000", "five-thousand", "dice_env/FiveThousand-v0")
#: codes of :attr:`TurnModel.bank_next` that are not a next state
WIN, LOSS, NO_BANK = -1, -2, -3
#: ties between banking and rolling on closer than this go to banking
TIE_TOL = 1e-12
#: version of the checkpoint format (and of :func:`state_features`)
FORMAT_VERSION = 1
#: the features: coarse score buckets of this width, fine one-hots of the points still needed
#: up to this many points
BUCKET_POINTS = 500
FINE_NEED_POINTS = 2000
#: and a one-hot of the score difference when at most this many points (the bump ridges)
DIFF_POINTS = 2000


def rules_of(game: Any = "fivethousand",
             rules: FiveThousandRules | dict | None = None) -> FiveThousandRules:
    """The rules of a game name / Gymnasium id (or explicit rules), checked to be supported.

    ``game`` is ``"fivethousand"``, ``"5000"``, ``"five-thousand"``,
    ``"dice_env/FiveThousand-v0"``, a :class:`FiveThousandRules` or a dict of knobs; ``rules``
    overrides it.  Any ``target`` and
    ``entry`` are supported; ``choose_scoring_dice=True`` and the solo game are not
    (``ValueError``).
    """
    if isinstance(game, (FiveThousandRules, dict)):
        rules = game if rules is None else rules
    elif isinstance(game, str):
        if game not in GAME_NAMES and game.lower() not in GAME_NAMES:
            if "solo" in game.lower():
                raise ValueError(f"the learned value is a two-player win probability; the solo "
                                 f"game {game!r} is not supported")
            raise ValueError(f"unknown 5000 game {game!r}; expected one of {list(GAME_NAMES)}")
    elif game is not None:
        raise ValueError(f"game must be a 5000 game name or id, a FiveThousandRules or a dict "
                         f"of knobs, got {game!r}")
    if rules is None:
        rules = FiveThousandRules()
    elif isinstance(rules, dict):
        rules = FiveThousandRules.from_knobs(rules)
    elif not isinstance(rules, FiveThousandRules):
        raise ValueError(f"rules must be a FiveThousandRules or a dict of knobs, got {rules!r}")
    if rules.choose_scoring_dice:
        raise ValueError("the learned-value player supports the literal rules only "
                         "(choose_scoring_dice=False: every scoring die is set aside)")
    return rules


# ----------------------------------------------------------------------------------------------
# The turn model: rule tables of one turn
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ThrowTable:
    """The non-bust outcomes of a throw of ``n`` dice: ``dj`` points / 50, ``left`` dice a
    roll-on throws next (5 on hot dice), ``prob``; and ``bust`` the probability of a bust."""

    n: int
    dj: np.ndarray
    left: np.ndarray
    prob: np.ndarray
    bust: float


@dataclass(frozen=True, eq=False)
class TurnModel:
    """The tables of one turn of two-player 5000 (see :func:`build_turn_model`).

    Attributes:
        rules: the game.
        scores: ``(K,)`` the score grid: 0, then ``min_entered_score`` .. ``target - 100``.
        score_index: ``(target // 100 + 1,)`` index of score ``s`` at ``s // 100``, -1 off grid.
        n_slots: ``T = target // 50 + 1``: slot ``j < T`` is the turn total ``50 j``; slot
            ``T`` stands for every total past the target.
        bank_ok: ``(K, T + 1)`` bool, the mover (score index) may bank slot ``j`` (slot ``T``:
            True; whether such a bank is allowed is the action mask's business, its value is
            a bust's either way).
        bank_next: ``(K, K, T + 1)`` the result of a bank by the mover at ``(ia, ib)``:
            ``ib' * K + ia'`` (the state after it, seen by the opponent who moves next),
            :data:`WIN`, :data:`LOSS` or :data:`NO_BANK` (not allowed).
        throws: ``throws[n]`` the :class:`ThrowTable` of ``n`` dice (``throws[0]`` is None).
    """

    rules: FiveThousandRules
    scores: np.ndarray
    score_index: np.ndarray
    n_slots: int
    bank_ok: np.ndarray
    bank_next: np.ndarray
    throws: tuple

    @property
    def n_scores(self) -> int:
        """``K``, the number of scores on the grid."""
        return len(self.scores)

    def index(self, scores) -> np.ndarray:
        """Grid indices of scores (``ValueError`` for a score a player cannot hold)."""
        s = np.asarray(scores, dtype=np.int64)
        ok = (s >= 0) & (s < self.rules.target) & (s % 100 == 0)
        idx = np.where(ok, self.score_index[np.clip(s // 100, 0, len(self.score_index) - 1)],
                       -1)
        if np.any(idx < 0):
            bad = np.unique(s[idx < 0])[:5].tolist()
            raise ValueError(f"scores {bad} are not scores of a game in progress (0, or "
                             f"{self.rules.min_entered_score}..{self.rules.target - 100} in "
                             f"steps of 100)")
        return idx

    def slot(self, turn_total) -> np.ndarray:
        """The slot of turn totals: ``t // 50``, capped at ``n_slots`` (past the target)."""
        t = np.asarray(turn_total, dtype=np.int64)
        return np.where(t > self.rules.target, self.n_slots, t // 50)


@cache
def build_turn_model(rules: FiveThousandRules) -> TurnModel:
    """The :class:`TurnModel` of ``rules`` (built once per rules, a fraction of a second)."""
    rules = rules_of(rules)
    target = rules.target
    scores = np.array([0] + list(range(rules.min_entered_score, target, 100)), dtype=np.int64)
    k = len(scores)
    score_index = np.full(target // 100 + 1, -1, dtype=np.int64)
    score_index[scores // 100] = np.arange(k)
    n_slots = target // 50 + 1
    t = 50 * np.arange(n_slots, dtype=np.int64)
    bank_ok = np.ones((k, n_slots + 1), dtype=bool)
    bank_ok[:, :n_slots] = R.bank_allowed(rules, scores[:, None], t[None, :])

    bank_next = np.full((k, k, n_slots + 1), NO_BANK, dtype=np.int64)
    ia, ib, j = np.nonzero(np.broadcast_to(bank_ok[:, None, :n_slots], (k, k, n_slots)))
    out = R.resolve_bank(rules, np.stack([scores[ia], scores[ib]], axis=1),
                         np.zeros(len(ia), dtype=np.int64), t[j])
    code = np.empty(len(ia), dtype=np.int64)
    live = out.winner < 0
    new = out.scores[live]
    code[live] = score_index[new[:, 1] // 100] * k + score_index[new[:, 0] // 100]
    code[out.winner == 0] = WIN
    code[out.winner == 1] = LOSS
    bank_next[ia, ib, j] = code
    # past the target: any bank is a lost gift (scores unchanged, the opponent moves)
    bank_next[:, :, n_slots] = np.arange(k)[None, :] * k + np.arange(k)[:, None]

    throws: list = [None]
    for n in range(1, R.N_DICE + 1):
        od = R.outcome_distribution(n)
        scoring = od.points > 0
        throws.append(ThrowTable(n, (od.points[scoring] // 50).astype(np.int64),
                                 od.dice_left[scoring].astype(np.int64),
                                 od.prob[scoring].astype(np.float64),
                                 float(od.prob[~scoring].sum())))
    for arr in (scores, score_index, bank_ok, bank_next):
        arr.setflags(write=False)
    return TurnModel(rules, scores, score_index, n_slots, bank_ok, bank_next, tuple(throws))


# ----------------------------------------------------------------------------------------------
# The within-turn solve
# ----------------------------------------------------------------------------------------------
@dataclass
class TurnSolution:
    """The exact values of one turn for a batch of ``P`` turn-start pairs.

    Attributes:
        roll: ``(P, T + 1, 6)`` the mover's win probability if they roll ``n`` dice on at turn
            total slot ``j`` and then play the turn out optimally (``n = 0`` is NaN; slot ``T``,
            past the target, is worth a bust).
        bank: ``(P, T + 1)`` the win probability of banking slot ``j`` (NaN where not allowed).
        start: ``(P,)`` the value of the turn start: ``roll[:, 0, 5]``.
    """

    roll: np.ndarray
    bank: np.ndarray
    start: np.ndarray


def bank_values(model: TurnModel, w: np.ndarray, ia, ib) -> np.ndarray:
    """``(P, T + 1)`` the mover's win probability after banking each slot (NaN: not allowed),
    the opponent then starting a turn valued by ``w``."""
    ia = np.asarray(ia, dtype=np.int64)
    ib = np.asarray(ib, dtype=np.int64)
    code = model.bank_next[ia, ib]
    flat = np.asarray(w, dtype=np.float64).ravel()
    val = 1.0 - flat[np.maximum(code, 0)]
    val = np.where(code == WIN, 1.0, val)
    val = np.where(code == LOSS, 0.0, val)
    return np.where(code == NO_BANK, np.nan, val)


def solve_turns(model: TurnModel, w: np.ndarray, ia, ib) -> TurnSolution:
    """Solve one turn exactly for the turn-start pairs ``(scores[ia], scores[ib])``.

    Args:
        model: the rule tables (:func:`build_turn_model`).
        w: ``(K, K)`` the leaves: ``w[x, y]`` the probability that the player about to start a
            turn at scores ``(x, y)`` (grid indices) wins.
        ia, ib: ``(P,)`` grid indices of the mover's and the opponent's scores.

    Returns:
        A :class:`TurnSolution` (backward induction over the turn total, vectorised over the
        pairs: ``T * 5`` steps whatever ``P``).
    """
    ia = np.atleast_1d(np.asarray(ia, dtype=np.int64))
    ib = np.atleast_1d(np.asarray(ib, dtype=np.int64))
    w = np.asarray(w, dtype=np.float64)
    k, t_slots = model.n_scores, model.n_slots
    if w.shape != (k, k):
        raise ValueError(f"w must have shape {(k, k)}, got {w.shape}")
    p = len(ia)
    bust = 1.0 - w[ib, ia]
    bank_t = np.ascontiguousarray(bank_values(model, w, ia, ib).T)      # (T + 1, P)
    best = np.full((t_slots + 1, R.N_DICE + 1, p), np.nan)             # max(roll, bank)
    roll = np.full((t_slots + 1, R.N_DICE + 1, p), np.nan)
    best[t_slots, 1:] = bust
    roll[t_slots, 1:] = bust
    for j in range(t_slots - 1, -1, -1):
        for n in range(1, R.N_DICE + 1):
            th = model.throws[n]
            nxt = best[np.minimum(j + th.dj, t_slots), th.left]         # (m, P)
            r = th.bust * bust + th.prob @ nxt
            roll[j, n] = r
            best[j, n] = np.fmax(r, bank_t[j])
    roll_p = np.ascontiguousarray(roll.transpose(2, 0, 1))
    return TurnSolution(roll_p, np.ascontiguousarray(bank_t.T), roll_p[:, 0, R.N_DICE].copy())


def turn_start_values(model: TurnModel, w: np.ndarray) -> np.ndarray:
    """``(K, K)`` the value of every turn start with ``w`` at the leaves (one Bellman backup
    of the whole table: what the trainer fits the network to)."""
    k = model.n_scores
    ia, ib = np.divmod(np.arange(k * k), k)
    return solve_turns(model, w, ia, ib).start.reshape(k, k)


# ----------------------------------------------------------------------------------------------
# Features and the network
# ----------------------------------------------------------------------------------------------
def feature_size(rules: FiveThousandRules) -> int:
    """The length of :func:`state_features`' rows."""
    per_player = 3 + rules.target // BUCKET_POINTS + FINE_NEED_POINTS // 100
    return 2 * per_player + 2 + 2 * (DIFF_POINTS // 100) + 1


def _player_features(rules: FiveThousandRules, s: np.ndarray) -> list[np.ndarray]:
    target = float(rules.target)
    entered = s > 0
    need = np.where(entered, rules.target - s, rules.target)
    cols = [s / target, entered.astype(np.float64),
            np.where(entered, np.log(need / target), 0.0) / np.log(100.0 / target)]
    buckets = np.minimum(s // BUCKET_POINTS, rules.target // BUCKET_POINTS - 1)
    cols += [(entered & (buckets == i)).astype(np.float64)
             for i in range(rules.target // BUCKET_POINTS)]
    cols += [(entered & (need == 100 * i)).astype(np.float64)
             for i in range(1, FINE_NEED_POINTS // 100 + 1)]
    return cols


def state_features(rules: FiveThousandRules, my_score, opp_score) -> np.ndarray:
    """``(N, F)`` float32 features of turn-start pairs (scores in points).

    Per player (the mover first, then the opponent): the score / target; entered (score > 0);
    ``log(points needed / target) / log(100 / target)`` (0 far away, 1 when 100 is needed;
    0 if not entered); a one-hot of the coarse score bucket (``BUCKET_POINTS`` wide, entered
    players only); a one-hot of the points still needed when at most ``FINE_NEED_POINTS``
    (the end game, where exact totals matter).  Then the score difference / target, both
    entered, and a one-hot of the opponent's lead ``opp - my`` when at most ``DIFF_POINTS``
    either way (a bank of exactly the lead bumps the opponent back to 0: sharp ridges).
    """
    a = np.atleast_1d(np.asarray(my_score, dtype=np.int64))
    b = np.atleast_1d(np.asarray(opp_score, dtype=np.int64))
    cols = _player_features(rules, a) + _player_features(rules, b)
    cols += [(a - b) / float(rules.target), ((a > 0) & (b > 0)).astype(np.float64)]
    cols += [(b - a == 100 * i).astype(np.float64)
             for i in range(-(DIFF_POINTS // 100), DIFF_POINTS // 100 + 1)]
    return np.stack(cols, axis=1).astype(np.float32)


class ValueNet(nn.Module):
    """An MLP from :func:`state_features` to the logit of ``W``."""

    def __init__(self, n_features: int, hidden: tuple[int, ...] = (64, 64)) -> None:
        super().__init__()
        self.body = mlp(n_features, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(N,)`` logits of the win probability."""
        return self.body(x).squeeze(-1)


class ValueModel:
    """The learned ``W(my score, opponent's score)`` of one rule set: the network, its
    features and its save / load.

    Args:
        rules: the game (literal rules).
        hidden: the MLP's hidden widths.
        seed: seeds the initial weights.
        device: torch device.
    """

    def __init__(self, rules: FiveThousandRules, hidden: tuple[int, ...] = (64, 64),
                 seed: int | None = 0, device: str | torch.device = "cpu") -> None:
        self.rules = rules_of(rules)
        self.turn_model = build_turn_model(self.rules)
        self.hidden = tuple(int(h) for h in hidden)
        self.device = torch.device(device)
        with torch.random.fork_rng(devices=[]):  # seed the weights, not the global stream
            if seed is not None:
                torch.manual_seed(int(seed))
            self.net = ValueNet(feature_size(self.rules), self.hidden).to(self.device)
        m = self.turn_model
        a, b = np.meshgrid(m.scores, m.scores, indexing="ij")
        self.meta: dict = {}
        self._grid_features = torch.as_tensor(state_features(self.rules, a.ravel(), b.ravel()),
                                              device=self.device)

    @property
    def grid_features(self) -> torch.Tensor:
        """``(K * K, F)`` the features of every turn-start pair (row ``ia * K + ib``)."""
        return self._grid_features

    def w_table(self) -> np.ndarray:
        """``(K, K)`` float64: the network's ``W`` at every pair of grid scores."""
        with torch.no_grad():
            w = torch.sigmoid(self.net(self._grid_features)).double().cpu().numpy()
        k = self.turn_model.n_scores
        return w.reshape(k, k)

    def win_probability(self, my_score, opp_score) -> np.ndarray:
        """The network's ``W`` at any scores (points), batched."""
        x = torch.as_tensor(state_features(self.rules, my_score, opp_score), device=self.device)
        with torch.no_grad():
            return torch.sigmoid(self.net(x)).double().cpu().numpy()

    # -- save / load -------------------------------------------------------------------------
    def to_bytes(self, meta: dict | None = None) -> bytes:
        """The checkpoint (``torch.save`` of plain data and CPU tensors)."""
        buf = io.BytesIO()
        torch.save({"format": FORMAT_VERSION, "kind": "learned-value-fivethousand",
                    "rules": self.rules.knobs(), "hidden": list(self.hidden),
                    "n_features": feature_size(self.rules),
                    "state_dict": {k: v.detach().cpu() for k, v in
                                   self.net.state_dict().items()},
                    "meta": dict(meta or {})}, buf)
        return buf.getvalue()

    def save(self, path: str | Path, meta: dict | None = None) -> Path:
        """Write the checkpoint atomically (parents created); returns the path."""
        path = Path(path)
        atomic_write_bytes(path, self.to_bytes(meta))
        return path

    @classmethod
    def load(cls, path: str | Path, device: str | torch.device = "cpu") -> ValueModel:
        """Load a checkpoint written by :meth:`save` (``FileNotFoundError`` if missing)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"no learned-value model at {path}; train one with `python "
                f"scripts/train_learned_value.py fivethousand --export {path}` (or "
                f"`python -m agents.training.learned_value.fivethousand --export {path}`)")
        data = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(data, dict) or data.get("kind") != "learned-value-fivethousand":
            raise ValueError(f"{path} is not a 5000 learned-value checkpoint")
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"{path} has checkpoint format {data.get('format')}, this code "
                             f"reads {FORMAT_VERSION}; retrain it")
        rules = FiveThousandRules.from_knobs(data["rules"])
        if data.get("n_features") != feature_size(rules):
            raise ValueError(f"{path} was trained on {data.get('n_features')} features, this "
                             f"code makes {feature_size(rules)}; retrain it")
        model = cls(rules, tuple(data["hidden"]), seed=None, device=device)
        model.net.load_state_dict(data["state_dict"])
        model.meta = dict(data.get("meta") or {})
        return model


# ----------------------------------------------------------------------------------------------
# The player
# ----------------------------------------------------------------------------------------------
class LearnedValueAgent:
    """Plays 5000 by the exact turn solve with the learned ``W`` at the leaves.

    Args:
        game: ``"fivethousand"`` / ``"5000"`` / ``"dice_env/FiveThousand-v0"`` (what
            :func:`agents.make` passes), a :class:`FiveThousandRules` or a dict of knobs.
        model_path: the checkpoint (default ``results/models/learned-value-fivethousand.pt``).
        seed: accepted for the common signature; the player is deterministic (ties within
            1e-12 go to banking).
        device: torch device of the network (it is only evaluated once, on the score grid).
        rules: the rules (override ``game``'s); they must be the model's.
        model: an already built :class:`ValueModel` (instead of ``model_path``).

    The turn solution of a score pair is computed the first time a decision at that pair is
    asked for (batched over the new pairs of a call) and cached.
    """

    name = "learned-value"

    def __init__(self, game: Any = "fivethousand", model_path: str | Path | None = None,
                 seed: int | None = None, device: str = "cpu", *,
                 rules: FiveThousandRules | dict | None = None,
                 model: ValueModel | None = None) -> None:
        self.rules = rules_of(game, rules)
        self.game = game if isinstance(game, str) else "fivethousand"
        if model is None:
            model = ValueModel.load(DEFAULT_MODEL_PATH if model_path is None else model_path,
                                    device=device)
        if model.rules != self.rules:
            raise ValueError(f"the model was trained for {model.rules.knobs()}, not "
                             f"{self.rules.knobs()}")
        self.model = model
        self.turn_model = model.turn_model
        self._seed = seed
        k, t = self.turn_model.n_scores, self.turn_model.n_slots
        self._w: np.ndarray | None = None
        self._roll = np.full((k * k, t + 1, R.N_DICE + 1), np.nan)
        self._bank = np.full((k * k, t + 1), np.nan)
        self._solved = np.zeros(k * k, dtype=bool)

    def __repr__(self) -> str:
        return f"LearnedValueAgent(rules={self.rules.knobs()})"

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the player is deterministic (for the Agent protocol)."""
        self._seed = seed

    @property
    def w_table(self) -> np.ndarray:
        """``(K, K)`` the learned turn-start win probabilities on the score grid."""
        if self._w is None:
            self._w = self.model.w_table()
        return self._w

    def win_probability(self, my_score, opp_score) -> np.ndarray:
        """The learned ``W``: the win probability of the player about to start a turn."""
        m = self.turn_model
        return self.w_table[m.index(my_score), m.index(opp_score)]

    def _pairs(self, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """Flat pair indices, solving the turns of pairs not seen before."""
        k = self.turn_model.n_scores
        pair = ia * k + ib
        new = np.unique(pair[~self._solved[pair]])
        if new.size:
            sol = solve_turns(self.turn_model, self.w_table, new // k, new % k)
            self._roll[new] = sol.roll
            self._bank[new] = sol.bank
            self._solved[new] = True
        return pair

    def values(self, my_score, opp_score, turn_before, roll) -> np.ndarray:
        """``(N, 2)`` the mover's win probability after rolling on / banking, batched.

        ``turn_before`` is the turn total before the current throw, ``roll`` its roll index.
        NaN marks a bank the rules forbid (below the entry, a total ending in 50), except past
        the target, where any bank is worth a bust and the action mask decides.
        """
        m = self.turn_model
        my = np.atleast_1d(np.asarray(my_score, dtype=np.int64))
        before = np.atleast_1d(np.asarray(turn_before, dtype=np.int64))
        roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
        if np.any(R.ROLL_POINTS[roll] == 0):
            raise ValueError("a throw that scores nothing is a bust, not a decision")
        pair = self._pairs(m.index(my), m.index(opp_score))
        total = before + R.ROLL_POINTS[roll]
        slot = m.slot(total)
        left = R.dice_left_after(R.ROLL_SIZE[roll], R.ROLL_SCORING_DICE[roll])
        out = np.empty((len(my), 2))
        out[:, R.ROLL] = self._roll[pair, slot, left]
        out[:, R.BANK] = self._bank[pair, slot]
        return out

    @staticmethod
    def _opponent(scores: np.ndarray, mover: np.ndarray) -> np.ndarray:
        """The opponent's score: the other player's, or the leader's with 3+ players."""
        n, p = scores.shape
        if p == 2:
            return scores[np.arange(n), 1 - mover]
        others = np.where(np.arange(p)[None, :] == mover[:, None], -1, scores)
        return others.max(axis=1)

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``(N, 2)`` (or ``(2,)`` for one observation): the mover's win probability after
        rolling on / banking, from ``FiveThousand-v0`` observations."""
        obs = np.asarray(observations, dtype=np.float64)
        one = obs.ndim == 1
        obs = obs[None] if one else obs
        if obs.ndim != 2:
            raise ValueError(f"expected (N, obs_dim) observations, got shape {obs.shape}")
        if num_players_of(obs.shape[1]) < 2:
            raise ValueError("the learned-value player plays two or more players, not solo")
        d = decode_observation(self.rules, obs)
        mover = d["to_move"]
        if np.any(mover < 0):
            raise ValueError("an observation of a finished game has no decision")
        my = d["scores"][np.arange(len(obs)), mover]
        vals = self.values(my, self._opponent(d["scores"], mover), d["turn_before"], d["roll"])
        return vals[0] if one else vals

    @staticmethod
    def _choose(values: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks).astype(bool)
        if masks.shape != values.shape:
            raise ValueError(f"action masks have shape {masks.shape}, expected {values.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("some rows of the action mask have no legal action")
        v_roll = np.where(masks[:, R.ROLL], values[:, R.ROLL], -np.inf)
        v_bank = np.where(masks[:, R.BANK], values[:, R.BANK], -np.inf)
        v_bank = np.where(masks[:, R.BANK] & np.isnan(v_bank), -np.inf, v_bank)
        bank = masks[:, R.BANK] & ((v_bank >= v_roll - TIE_TOL) | ~masks[:, R.ROLL])
        return np.where(bank, R.BANK, R.ROLL).astype(np.int64)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One legal action per row of ``observations`` ``(N, obs_dim)`` / ``masks`` ``(N, 2)``."""
        observations = np.asarray(observations)
        if observations.ndim != 2:
            raise ValueError(f"act_batch takes (N, obs_dim) observations, got "
                             f"{observations.shape}")
        if len(observations) == 0:
            return np.zeros(0, dtype=np.int64)
        return self._choose(self.action_values(observations), masks)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for one observation (as :meth:`act_batch`)."""
        observation = np.asarray(observation)
        if observation.ndim != 1:
            raise ValueError(f"act takes one observation, got shape {observation.shape}; use "
                             "act_batch for a batch")
        return int(self.act_batch(observation[None], np.asarray(action_mask)[None])[0])

    def state_action_values(self, state: G.FiveThousandState) -> np.ndarray:
        """``(N, 2)`` values for the games of a ``FiveThousandState`` (exact turn totals), as
        :meth:`values`: the mover's win probability after rolling on / banking."""
        if np.any(state.finished()):
            raise ValueError("a finished game has no decision")
        if state.num_players < 2:
            raise ValueError("the learned-value player plays two or more players, not solo")
        my = state.scores[np.arange(state.n), state.current]
        return self.values(my, self._opponent(state.scores, state.current), state.turn_total,
                           state.roll)

    def act_states(self, state: G.FiveThousandState,
                   masks: np.ndarray | None = None) -> np.ndarray:
        """The player's actions for the games of a ``FiveThousandState``."""
        if masks is None:
            masks = G.action_mask(self.rules, state)
        return self._choose(self.state_action_values(state), masks)
