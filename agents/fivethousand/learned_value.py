"""A learned turn-start win probability of 5000, played through an exact turn solve.

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
* **N players** (3 to 6; each player maximises its own chance of winning, max-n):
  :func:`n_turn_leaves` (every bank of a batch of score tuples resolved for ``N`` seats),
  :func:`solve_n_turns` (the same backward induction with vector-valued leaves: the win
  probability of every seat; the mover decides on its own component; compiled by numba) and
  :class:`NValueModel`, the network ``W(s_0, ..., s_{N-1}) -> P(each seat wins)`` of a turn
  start, the scores in turn order from the mover (features: :class:`NFeatures`).  Its
  trainer is :func:`agents.training.learned_value.fivethousand.train_n`; the models are
  ``results/models/learned-value-fivethousand-<N>p.pt``.
* :class:`LearnedValueAgent` -- the player: every decision takes the best action of the exact
  turn solve with the network at the leaves (solved once per score pair or tuple, then
  cached).  ``act`` / ``act_batch`` read Gymnasium observations (``dice_env/FiveThousand-v0``,
  the AEC env's; literal rules); ``state_action_values`` reads a
  :class:`~dice_env.fivethousand.game.FiveThousandState`.  Two players: the two-player model.
  ``N >= 3`` players: the N-player model where there is one (``num_players``), else the
  two-player policy against the leader (the other player with the highest score) -- an
  approximation that ignores the others' bumps and gifts.

The two-player trainer is :mod:`agents.training.learned_value.fivethousand`; the default model
is ``results/models/learned-value-fivethousand.pt``.  Nothing here reads the exact solvers'
tables.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numba
import numpy as np
import torch
from torch import nn

from agents.networks import mlp
from agents.paths import committed_model
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import decode_observation, num_players_of
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.io import atomic_write_bytes

__all__ = [
    "DEFAULT_MODEL_PATH",
    "LearnedValueAgent",
    "NFeatures",
    "NTurnLeaves",
    "NTurnSolution",
    "NValueModel",
    "TurnModel",
    "TurnSolution",
    "ValueModel",
    "build_turn_model",
    "load_model",
    "n_player_model_path",
    "n_turn_leaves",
    "rules_of",
    "solve_n_turns",
    "solve_turns",
    "state_features",
]

#: where ``LearnedValueAgent`` looks for its model by default
DEFAULT_MODEL_PATH = committed_model("learned-value-fivethousand.pt")
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
# N players: the turn solve with vector-valued leaves
# ----------------------------------------------------------------------------------------------
#: the table sizes an N-player model may be trained for
MIN_N_PLAYERS, MAX_N_PLAYERS = 3, 6
#: :attr:`NTurnLeaves.bank` code of a slot where the mover may not bank (``-1 - w`` is a win of
#: seat ``w`` of the mover's frame, ``>= 0`` a leaf state)
N_NO_BANK = -1000
#: the checkpoint kind and format of the N-player network (and of :class:`NFeatures`)
N_KIND = "learned-value-fivethousand-n"
N_FORMAT_VERSION = 1
#: states whose turn is solved in one go (bounds the memory of the leaves and bank values)
SOLVE_CHUNK = 4096


def check_num_players(num_players: Any) -> int:
    """``num_players`` as an int from :data:`MIN_N_PLAYERS` to :data:`MAX_N_PLAYERS`."""
    if (isinstance(num_players, (bool, np.bool_))
            or not isinstance(num_players, (int, np.integer))
            or not MIN_N_PLAYERS <= int(num_players) <= MAX_N_PLAYERS):
        raise ValueError(f"an N-player learned value is for {MIN_N_PLAYERS} to {MAX_N_PLAYERS} "
                         f"players, got {num_players!r}")
    return int(num_players)


def n_player_model_path(num_players: int) -> Path:
    """Where the ``N``-player model is looked for:
    the committed ``learned-value-fivethousand-<N>p.pt`` (package data)."""
    return committed_model(f"learned-value-fivethousand-{check_num_players(num_players)}p.pt")


def train_command(num_players: int, path: str | Path) -> str:
    """The command that trains the ``N``-player model and writes it at ``path``."""
    return (f"python scripts/train_learned_value.py fivethousand --players {num_players} "
            f"--export {path}")


@cache
def _flat_throws(rules: FiveThousandRules) -> tuple[np.ndarray, ...]:
    """The turn model's throw tables as flat arrays for the compiled solve: ``start`` (the
    outcomes of ``n`` dice are ``start[n] .. start[n + 1]``), ``dj``, ``left``, ``prob``, and
    ``bust[n]``."""
    m = build_turn_model(rules)
    start, dj, left, prob = [0, 0], [], [], []
    bust = np.zeros(R.N_DICE + 1)
    for n in range(1, R.N_DICE + 1):
        th = m.throws[n]
        dj += th.dj.tolist()
        left += th.left.tolist()
        prob += th.prob.tolist()
        start.append(len(dj))
        bust[n] = th.bust
    return (np.array(start, dtype=np.int64), np.array(dj, dtype=np.int64),
            np.array(left, dtype=np.int64), np.array(prob, dtype=np.float64), bust)


def state_codes(model: TurnModel, idx: np.ndarray) -> np.ndarray:
    """``(B,)`` the code of turn-start states given as grid indices ``(B, N)`` (mover first):
    ``idx[:, 0] K^(N-1) + ... + idx[:, N-1]``."""
    idx = np.asarray(idx, dtype=np.int64)
    code = np.zeros(idx.shape[:-1], dtype=np.int64)
    for p in range(idx.shape[-1]):
        code = code * model.n_scores + idx[..., p]
    return code


def states_of_codes(model: TurnModel, codes: np.ndarray, num_players: int) -> np.ndarray:
    """The inverse of :func:`state_codes`: ``(B, N)`` grid indices."""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.empty(codes.shape + (num_players,), dtype=np.int64)
    for p in range(num_players - 1, -1, -1):
        codes, out[..., p] = np.divmod(codes, model.n_scores)
    return out


@dataclass
class NTurnLeaves:
    """Where the turns of ``B`` turn-start states of ``N``-player 5000 can end.

    Attributes:
        states: ``(L, N)`` the distinct turn-start states after those turns (grid indices, the
            *next* mover first: the seat after the one whose turn it was).
        bust: ``(B,)`` the row of ``states`` after a bust (the scores unchanged).
        bank: ``(B, T)`` after a bank of slot ``j``: a row of ``states``; ``-1 - w`` when seat
            ``w`` (of the mover's frame) reaches the target (the banker, or the receiver of a
            gift); :data:`N_NO_BANK` where the mover may not bank that total.
    """

    states: np.ndarray
    bust: np.ndarray
    bank: np.ndarray


def n_turn_leaves(model: TurnModel, idx: np.ndarray) -> NTurnLeaves:
    """The :class:`NTurnLeaves` of turn-start states ``idx`` ``(B, N)`` (grid indices, mover
    first): every allowed bank resolved by :func:`~dice_env.fivethousand.rules.resolve_bank`
    with ``N`` seats (bumps of everyone on the banker's new score, the overshoot gift to the
    lowest entered other player, exact-target wins)."""
    idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
    b, t_slots = len(idx), model.n_slots
    ok = model.bank_ok[idx[:, 0], :t_slots]
    row, j = np.nonzero(ok)
    out = R.resolve_bank(model.rules, model.scores[idx[row]], 0, 50 * j)
    live = out.winner < 0
    after = np.roll(out.scores[live], -1, axis=1)             # the next player moves
    codes = np.concatenate([state_codes(model, np.roll(idx, -1, axis=1)),
                            state_codes(model, model.score_index[after // 100])])
    uniq, inv = np.unique(codes, return_inverse=True)
    bank = np.full((b, t_slots), N_NO_BANK, dtype=np.int64)
    bank[row[live], j[live]] = inv[b:]
    bank[row[~live], j[~live]] = -1 - out.winner[~live]
    return NTurnLeaves(states_of_codes(model, uniq, idx.shape[1]), inv[:b].copy(), bank)


def leaf_values(leaves: NTurnLeaves, next_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(bust (B, N), bank (B, T, N))``: the win probabilities of every seat, in the mover's
    frame, after a bust and after banking each slot (NaN where not allowed), given
    ``next_values`` ``(L, N)``: the values of ``leaves.states`` in the next mover's frame."""
    v = np.roll(np.asarray(next_values, dtype=np.float64), 1, axis=1)  # to the mover's frame
    n = v.shape[1]
    bust = v[leaves.bust]
    code = leaves.bank
    bank = v[np.maximum(code, 0)]
    won = (code < 0) & (code > N_NO_BANK)
    bank[won] = np.eye(n)[-1 - code[won]]
    bank[code == N_NO_BANK] = np.nan
    return np.ascontiguousarray(bust), np.ascontiguousarray(bank)


N_DICE_K = R.N_DICE


@numba.njit(cache=True, nogil=True)
def _solve_n_kernel(bust_val, bank_val, th_start, th_dj, th_left, th_prob, th_bust, tie_tol,
                    start_out, pol_out, roll_out, bank_out, tables):  # pragma: no cover
    """Backward induction over the turn total of each row (see :func:`solve_n_turns`)."""
    n_rows, n_slots, p = bank_val.shape
    best = np.empty((n_slots + 1, N_DICE_K + 1, p))
    r = np.empty(p)
    for i in range(n_rows):
        for n in range(1, N_DICE_K + 1):
            best[n_slots, n, :] = bust_val[i]
            pol_out[i, n_slots, n] = True   # past the target every action is worth a bust
            if tables:
                roll_out[i, n_slots, n] = bust_val[i, 0]
        if tables:
            bank_out[i, n_slots] = bust_val[i, 0]
        for j in range(n_slots - 1, -1, -1):
            bv = bank_val[i, j, 0]
            can_bank = bv == bv  # not NaN
            for n in range(1, N_DICE_K + 1):
                for q in range(p):
                    r[q] = th_bust[n] * bust_val[i, q]
                for o in range(th_start[n], th_start[n + 1]):
                    j2 = min(j + th_dj[o], n_slots)
                    pr = th_prob[o]
                    lf = th_left[o]
                    for q in range(p):
                        r[q] += pr * best[j2, lf, q]
                if can_bank and bv >= r[0] - tie_tol:
                    best[j, n, :] = bank_val[i, j]
                    pol_out[i, j, n] = True
                else:
                    best[j, n, :] = r
                    pol_out[i, j, n] = False
                if tables:
                    roll_out[i, j, n] = r[0]
                if j == 0 and n == N_DICE_K:
                    start_out[i, :] = r
            if tables:
                bank_out[i, j] = bv


@dataclass
class NTurnSolution:
    """The exact turns of ``B`` turn-start states of ``N``-player 5000 for given leaves.

    Attributes:
        start: ``(B, N)`` the win probability of every seat (mover's frame) at the turn start.
        bank_first: ``(B, T + 1, 6)`` bool, the mover's decision after a throw that leaves
            turn total slot ``j`` and ``n`` dice to roll on: bank (True) or roll on; ties
            within 1e-12 go to banking, and a bank the rules forbid is never chosen (slot
            ``T``, past the target, banks: any action there is worth a bust).
        roll, bank: with ``tables``: ``(B, T + 1, 6)`` the mover's win probability after
            rolling on, ``(B, T + 1)`` after banking (NaN where not allowed); else None.
    """

    start: np.ndarray
    bank_first: np.ndarray
    roll: np.ndarray | None = None
    bank: np.ndarray | None = None


def solve_n_turns(model: TurnModel, idx, value_fn, tables: bool = False) -> NTurnSolution:
    """Solve the turns of turn-start states ``idx`` ``(B, N)`` (grid indices, mover first)
    exactly, every seat maximising its own win probability -- here the mover, who alone
    decides in its turn.

    ``value_fn(states)`` gives the leaves: ``(L, N)`` grid indices (mover first) -> ``(L, N)``
    the probability that each seat of that frame wins from the start of that turn (the
    network, or any table).  Inside the turn the state is ``(turn total slot j, dice n)``; a
    bust hands the turn on with the scores unchanged, a bank is resolved by
    :func:`n_turn_leaves`; turn totals only grow, so backward induction over ``j`` from the
    target down gives every value (a total past the target is worth a bust: a bank there is
    a lost gift).  The mover's decision compares its own component only; the vectors carry
    what the chosen actions give everyone.  Runs in chunks of :data:`SOLVE_CHUNK` states.
    """
    idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
    b, p = idx.shape
    t_slots = model.n_slots
    start = np.empty((b, p))
    pol = np.zeros((b, t_slots + 1, R.N_DICE + 1), dtype=np.bool_)
    roll = np.full((b, t_slots + 1, R.N_DICE + 1), np.nan) if tables else None
    bank = np.full((b, t_slots + 1), np.nan) if tables else None
    dummy_r, dummy_b = np.empty((0, 0, 0)), np.empty((0, 0))
    throws = _flat_throws(model.rules)
    for lo in range(0, b, SOLVE_CHUNK):
        hi = min(lo + SOLVE_CHUNK, b)
        leaves = n_turn_leaves(model, idx[lo:hi])
        vals = np.asarray(value_fn(leaves.states), dtype=np.float64)
        if vals.shape != leaves.states.shape:
            raise ValueError(f"value_fn returned shape {vals.shape}, expected "
                             f"{leaves.states.shape}")
        bust_val, bank_val = leaf_values(leaves, vals)
        _solve_n_kernel(bust_val, bank_val, *throws, TIE_TOL, start[lo:hi], pol[lo:hi],
                        roll[lo:hi] if tables else dummy_r, bank[lo:hi] if tables else dummy_b,
                        tables)
    return NTurnSolution(start, pol, roll, bank)


# ----------------------------------------------------------------------------------------------
# N players: features and the network
# ----------------------------------------------------------------------------------------------
class NFeatures:
    """The inputs of the ``N``-player network, from turn-start states as grid indices ``(B, N)``
    in turn order from the mover.

    The order of play matters (who moves next, who receives a gift on a tie), so the seats are
    never sorted: seat ``k`` is the ``k``-th player after the mover.  Two parts:

    * **dense** ``(B, 3N + N(N-1)/2)``: per seat the score / target, entered (score > 0) and
      ``log(points needed / target) / log(100 / target)`` (0 if not entered; as in
      :func:`state_features`); per pair of seats ``i < j`` the difference ``s_j - s_i`` /
      target.
    * **categorical** ``(B, N + N(N-1)/2 + N)``, rows of one embedding table summed into the
      first hidden layer (a linear layer over one-hot inputs, computed by lookup): per seat its
      exact score (a grid index: every bucket and "points still needed" indicator at once);
      per pair ``i < j`` the difference ``s_j - s_i`` in steps of 100 when at most
      ``DIFF_POINTS`` either way, else "far below" / "far above" (a bank of exactly a
      difference bumps: the sharp ridges of the value); per seat ``b``, who would receive its
      overshoot gift (nobody, or the ``r``-th player after ``b``: the lowest entered other
      player, the first after ``b`` on a tie).
    """

    def __init__(self, rules: FiveThousandRules, num_players: int) -> None:
        self.rules = rules
        self.num_players = n = int(num_players)
        self.turn_model = m = build_turn_model(rules)
        k, target = m.n_scores, float(rules.target)
        s = m.scores
        entered = s > 0
        need = np.where(entered, rules.target - s, rules.target)
        self.score_dense = np.stack(
            [s / target, entered.astype(np.float64),
             np.where(entered, np.log(need / target), 0.0) / np.log(100.0 / target)],
            axis=1).astype(np.float32)
        self.pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        self.diff_span = DIFF_POINTS // 100
        self.diff_rows = 2 * self.diff_span + 3
        self.pair_offset = n * k
        self.gift_offset = self.pair_offset + len(self.pairs) * self.diff_rows
        self.n_rows = self.gift_offset + n * n
        self.n_dense = 3 * n + len(self.pairs)
        self.n_cat = n + len(self.pairs) + n

    def encode(self, idx) -> tuple[np.ndarray, np.ndarray]:
        """``(dense float32 (B, n_dense), categorical int64 (B, n_cat))`` of states ``idx``."""
        idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
        n, k = self.num_players, self.turn_model.n_scores
        if idx.shape[1] != n:
            raise ValueError(f"expected {n} scores per state, got shape {idx.shape}")
        s = self.turn_model.scores[idx]
        b = len(idx)
        dense = np.empty((b, self.n_dense), dtype=np.float32)
        dense[:, :3 * n] = self.score_dense[idx].reshape(b, 3 * n)
        cat = np.empty((b, self.n_cat), dtype=np.int64)
        cat[:, :n] = idx + k * np.arange(n)
        span = self.diff_span
        for m, (i, j) in enumerate(self.pairs):
            d = s[:, j] - s[:, i]
            dense[:, 3 * n + m] = d / float(self.rules.target)
            bucket = np.clip(d // 100, -span - 1, span + 1) + span + 1
            cat[:, n + m] = self.pair_offset + m * self.diff_rows + bucket
        big = np.iinfo(np.int64).max
        low = np.where(s > 0, s, big)
        for banker in range(n):
            order = (banker + 1 + np.arange(n - 1)) % n
            vals = low[:, order]
            first = np.argmin(vals, axis=1)             # ties: the first in turn order
            rel = np.where(vals[np.arange(b), first] == big, 0, first + 1)
            cat[:, n + len(self.pairs) + banker] = self.gift_offset + banker * n + rel
        return dense, cat


class NValueNet(nn.Module):
    """Dense features through a linear layer plus the categorical rows of one embedding table,
    summed (the first hidden layer), then ``SiLU`` MLP layers and ``N`` logits (softmax: the
    win probability of each seat)."""

    def __init__(self, n_dense: int, n_rows: int, n_cat: int, num_players: int,
                 hidden: tuple[int, ...] = (128, 128)) -> None:
        super().__init__()
        width = hidden[0]
        self.dense = nn.Linear(n_dense, width)
        bound = 1.0 / np.sqrt(n_dense + n_cat)   # what a linear layer over the one-hots gets
        self.table = nn.Parameter(torch.empty(n_rows, width).uniform_(-bound, bound))
        layers: list[nn.Module] = [nn.SiLU()]
        for h in hidden[1:]:
            layers += [nn.Linear(width, h), nn.SiLU()]
            width = h
        layers.append(nn.Linear(width, num_players))
        self.body = nn.Sequential(*layers)

    def forward(self, dense: torch.Tensor, cat: torch.Tensor) -> torch.Tensor:
        """``(B, N)`` logits."""
        h = self.dense(dense) + nn.functional.embedding_bag(cat, self.table, mode="sum")
        return self.body(h)


class NValueModel:
    """The learned ``W(s_0, ..., s_{N-1})`` of ``N``-player 5000: the probability that each
    seat wins from the start of a turn, the scores in turn order from the mover (seat 0
    moves); the network (:class:`NValueNet` over :class:`NFeatures`) and its save / load.

    Args:
        rules: the game (literal rules).
        num_players: ``N`` (3 to 6).
        hidden: the hidden widths (the first one is the width of the embedding table).
        seed: seeds the initial weights.
        device: torch device.
    """

    def __init__(self, rules: FiveThousandRules, num_players: int,
                 hidden: tuple[int, ...] = (128, 128), seed: int | None = 0,
                 device: str | torch.device = "cpu") -> None:
        self.rules = rules_of(rules)
        self.num_players = check_num_players(num_players)
        self.turn_model = build_turn_model(self.rules)
        self.features = NFeatures(self.rules, self.num_players)
        self.hidden = tuple(int(h) for h in hidden)
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden widths must be positive, got {hidden!r}")
        self.device = torch.device(device)
        f = self.features
        with torch.random.fork_rng(devices=[]):  # seed the weights, not the global stream
            if seed is not None:
                torch.manual_seed(int(seed))
            self.net = NValueNet(f.n_dense, f.n_rows, f.n_cat, self.num_players,
                                 self.hidden).to(self.device)
        self.net.eval()
        self.meta: dict = {}

    def __repr__(self) -> str:
        return (f"NValueModel(num_players={self.num_players}, hidden={self.hidden}, "
                f"rules={self.rules.knobs()})")

    def tensors(self, idx) -> tuple[torch.Tensor, torch.Tensor]:
        """The network's inputs of states ``idx`` (grid indices, mover first) as tensors."""
        dense, cat = self.features.encode(idx)
        return (torch.as_tensor(dense, device=self.device),
                torch.as_tensor(cat, device=self.device))

    def probabilities(self, idx, chunk: int = 65536) -> np.ndarray:
        """``(B, N)`` float64: the network's win probabilities of states ``idx`` (grid indices,
        mover first), each row summing to 1."""
        idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
        out = np.empty(idx.shape, dtype=np.float64)
        with torch.no_grad():
            for lo in range(0, len(idx), chunk):
                logits = self.net(*self.tensors(idx[lo:lo + chunk]))
                out[lo:lo + chunk] = torch.softmax(logits.double(), dim=1).cpu().numpy()
        return out

    def win_probabilities(self, scores) -> np.ndarray:
        """The network's ``W`` at scores in points ``(..., N)`` (turn order from the mover)."""
        s = np.asarray(scores, dtype=np.int64)
        idx = self.turn_model.index(s.reshape(-1, s.shape[-1]))
        return self.probabilities(idx).reshape(s.shape)

    # -- save / load -------------------------------------------------------------------------
    def to_bytes(self, meta: dict | None = None) -> bytes:
        """The checkpoint (``torch.save`` of plain data and CPU tensors)."""
        buf = io.BytesIO()
        torch.save({"format": N_FORMAT_VERSION, "kind": N_KIND, "rules": self.rules.knobs(),
                    "num_players": self.num_players, "hidden": list(self.hidden),
                    "n_dense": self.features.n_dense, "n_rows": self.features.n_rows,
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
    def load(cls, path: str | Path, device: str | torch.device = "cpu",
             num_players: int | None = None) -> NValueModel:
        """Load a checkpoint written by :meth:`save` (``FileNotFoundError`` if missing, with
        the command that trains one)."""
        path = Path(path)
        if not path.is_file():
            n = num_players if num_players is not None else "N"
            raise FileNotFoundError(
                f"no {n}-player learned-value model at {path}; train one with `"
                f"{train_command(n, path)}` (about 10 to 15 minutes on two cores)")
        data = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(data, dict) or data.get("kind") != N_KIND:
            raise ValueError(f"{path} is not an N-player 5000 learned-value checkpoint")
        if data.get("format") != N_FORMAT_VERSION:
            raise ValueError(f"{path} has checkpoint format {data.get('format')}, this code "
                             f"reads {N_FORMAT_VERSION}; retrain it")
        if num_players is not None and data.get("num_players") != num_players:
            raise ValueError(f"{path} is a {data.get('num_players')}-player model, not a "
                             f"{num_players}-player one")
        rules = FiveThousandRules.from_knobs(data["rules"])
        model = cls(rules, int(data["num_players"]), tuple(data["hidden"]), seed=None,
                    device=device)
        f = model.features
        if (data.get("n_dense"), data.get("n_rows")) != (f.n_dense, f.n_rows):
            raise ValueError(f"{path} was trained on other features; retrain it")
        model.net.load_state_dict(data["state_dict"])
        model.net.eval()
        model.meta = dict(data.get("meta") or {})
        return model


def load_model(path: str | Path, device: str | torch.device = "cpu"
               ) -> ValueModel | NValueModel:
    """A 5000 learned-value checkpoint of either kind: the two-player :class:`ValueModel` or
    an :class:`NValueModel`."""
    path = Path(path)
    if path.is_file():
        data = torch.load(path, map_location="cpu", weights_only=True)
        if isinstance(data, dict) and data.get("kind") == N_KIND:
            return NValueModel.load(path, device=device)
    return ValueModel.load(path, device=device)


# ----------------------------------------------------------------------------------------------
# The player
# ----------------------------------------------------------------------------------------------
class _DecisionCache:
    """The N-player decisions (``bank_first`` of :class:`NTurnSolution`) of the turn-start
    states seen so far, solved in batches of new states; emptied when ``capacity`` states are
    held (about 0.6 kB each)."""

    def __init__(self, model: NValueModel, capacity: int) -> None:
        self.model = model
        self.capacity = max(int(capacity), 1)
        self.rows: dict[int, int] = {}
        t = model.turn_model.n_slots
        self.bank_first = np.zeros((min(self.capacity, 4096), t + 1, R.N_DICE + 1),
                                   dtype=np.bool_)

    def lookup(self, idx: np.ndarray) -> np.ndarray:
        """``(B,)`` rows of :attr:`bank_first` for states ``idx`` (solving the new ones)."""
        tm = self.model.turn_model
        uniq, inv = np.unique(state_codes(tm, idx), return_inverse=True)
        rows = np.fromiter((self.rows.get(c, -1) for c in uniq.tolist()), dtype=np.int64,
                           count=len(uniq))
        new = rows < 0
        if new.any():
            if len(self.rows) + int(new.sum()) > self.capacity:
                self.rows.clear()
                rows[:] = -1
                new[:] = True
            codes = uniq[new]
            sol = solve_n_turns(tm, states_of_codes(tm, codes, self.model.num_players),
                                self.model.probabilities)
            first = len(self.rows)
            need = first + len(codes)
            if need > len(self.bank_first):
                grown = np.zeros((max(need, min(2 * len(self.bank_first), self.capacity)),)
                                 + self.bank_first.shape[1:], dtype=np.bool_)
                grown[:first] = self.bank_first[:first]
                self.bank_first = grown
            self.bank_first[first:need] = sol.bank_first
            rows[new] = np.arange(first, need)
            self.rows.update(zip(codes.tolist(), range(first, need)))
        return rows[inv]


class LearnedValueAgent:
    """Plays 5000 by the exact turn solve with a learned value at the leaves.

    * **Two players**: the two-player network ``W(my, opp)`` (:class:`ValueModel`); every
      decision maximises the mover's win probability.
    * **N players** (3 to 6) with an N-player model (:class:`NValueModel`): the network gives
      every seat's win probability at the leaves, and every decision maximises the mover's own
      (max-n; :func:`solve_n_turns`).  Without one (or with ``num_players=2``): the two-player
      policy against the leader (the other player with the highest score), an approximation
      that ignores the others' bumps and gifts.

    Args:
        game: ``"fivethousand"`` / ``"5000"`` / ``"dice_env/FiveThousand-v0"`` (what
            :func:`agents.make` passes), a :class:`FiveThousandRules` or a dict of knobs.
        model_path: the checkpoint (default ``results/models/learned-value-fivethousand.pt``;
            with ``num_players=N`` for ``N >= 3``,
            ``results/models/learned-value-fivethousand-<N>p.pt``).  An N-player checkpoint
            given here sets ``num_players``.
        seed: accepted for the common signature; the player is deterministic (ties within
            1e-12 go to banking).
        device: torch device of the networks.
        rules: the rules (override ``game``'s); they must be the model's.
        model: an already built :class:`ValueModel` or :class:`NValueModel` (instead of
            ``model_path``; an N-player one sets ``num_players``).
        num_players: ``None`` (default): two-player games by the two-player model; games of
            ``N >= 3`` players by the N-player model at its default path if that file exists
            (for these rules; loaded on first use), else by the leader approximation.  ``2``:
            the two-player model for every table size (the leader approximation for 3+).
            ``N`` (3 to 6): the N-player model only (``FileNotFoundError``, naming the command
            that trains it, if it is missing); other table sizes are refused.
        max_cached_states: the N-player decisions are cached per turn-start state (emptied
            when this many are held).

    The two-player turn solution of a score pair is computed the first time a decision at that
    pair is asked for (batched over the new pairs of a call) and cached; so are the N-player
    decisions of a state (:class:`_DecisionCache`).
    """

    name = "learned-value"

    def __init__(self, game: Any = "fivethousand", model_path: str | Path | None = None,
                 seed: int | None = None, device: str = "cpu", *,
                 rules: FiveThousandRules | dict | None = None,
                 model: ValueModel | NValueModel | None = None,
                 num_players: int | None = None,
                 max_cached_states: int = 200_000) -> None:
        self.rules = rules_of(game, rules)
        self.game = game if isinstance(game, str) else "fivethousand"
        if num_players is not None and num_players != 2:
            num_players = check_num_players(num_players)
        if model is None and model_path is not None and num_players is None:
            model = load_model(model_path, device=device)
        if isinstance(model, NValueModel):
            if num_players is None:
                num_players = model.num_players
            elif num_players != model.num_players:
                raise ValueError(f"the model is a {model.num_players}-player model, not a "
                                 f"{num_players}-player one")
        self.num_players = num_players
        self._device = device
        self._capacity = int(max_cached_states)
        self._n_models: dict[int, NValueModel | None] = {}
        self._n_cache: dict[int, _DecisionCache] = {}
        self.model: ValueModel | None = None
        if num_players is None or num_players == 2:
            if model is None:
                model = ValueModel.load(DEFAULT_MODEL_PATH if model_path is None else model_path,
                                        device=device)
            if not isinstance(model, ValueModel):
                raise ValueError(f"num_players=2 needs a two-player model, got {model!r}")
            if model.rules != self.rules:
                raise ValueError(f"the model was trained for {model.rules.knobs()}, not "
                                 f"{self.rules.knobs()}")
            self.model = model
        else:
            if model is None:
                model = NValueModel.load(
                    n_player_model_path(num_players) if model_path is None else model_path,
                    device=device, num_players=num_players)
            if not isinstance(model, NValueModel):
                raise ValueError(f"num_players={num_players} needs an N-player model "
                                 f"(NValueModel), got {model!r}")
            if model.rules != self.rules:
                raise ValueError(f"the model was trained for {model.rules.knobs()}, not "
                                 f"{self.rules.knobs()}")
            self._n_models[num_players] = model
        self.turn_model = build_turn_model(self.rules)
        self._seed = seed
        k, t = self.turn_model.n_scores, self.turn_model.n_slots
        self._w: np.ndarray | None = None
        if self.model is not None:
            self._roll = np.full((k * k, t + 1, R.N_DICE + 1), np.nan)
            self._bank = np.full((k * k, t + 1), np.nan)
            self._solved = np.zeros(k * k, dtype=bool)

    def __repr__(self) -> str:
        players = "" if self.num_players is None else f", num_players={self.num_players}"
        return f"LearnedValueAgent(rules={self.rules.knobs()}{players})"

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the player is deterministic (for the Agent protocol)."""
        self._seed = seed

    # -- the two-player model ------------------------------------------------------------------
    def _two(self) -> ValueModel:
        if self.model is None:
            raise ValueError(f"this agent plays {self.num_players}-player games only")
        return self.model

    @property
    def w_table(self) -> np.ndarray:
        """``(K, K)`` the learned two-player turn-start win probabilities on the score grid."""
        if self._w is None:
            self._w = self._two().w_table()
        return self._w

    def win_probability(self, my_score, opp_score) -> np.ndarray:
        """The learned two-player ``W``: the win probability of the player about to start a
        turn."""
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
        """``(N, 2)`` the mover's win probability after rolling on / banking, batched, by the
        two-player model.

        ``turn_before`` is the turn total before the current throw, ``roll`` its roll index.
        NaN marks a bank the rules forbid (below the entry, a total ending in 50), except past
        the target, where any bank is worth a bust and the action mask decides.
        """
        self._two()
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

    def turn_tables(self, my_score, opp_score) -> tuple[np.ndarray, np.ndarray]:
        """The two-player turn solution of score pairs (cached): ``roll`` ``(B, T + 1, 6)`` the
        mover's win probability after rolling ``n`` dice on at turn total slot ``j``, ``bank``
        ``(B, T + 1)`` after banking there (NaN where not allowed), as :class:`TurnSolution`."""
        self._two()
        m = self.turn_model
        pair = self._pairs(m.index(np.atleast_1d(my_score)), m.index(np.atleast_1d(opp_score)))
        return self._roll[pair], self._bank[pair]

    @staticmethod
    def _opponent(scores: np.ndarray, mover: np.ndarray) -> np.ndarray:
        """The opponent's score: the other player's, or the leader's with 3+ players."""
        n, p = scores.shape
        if p == 2:
            return scores[np.arange(n), 1 - mover]
        others = np.where(np.arange(p)[None, :] == mover[:, None], -1, scores)
        return others.max(axis=1)

    # -- the N-player model --------------------------------------------------------------------
    def n_player_model(self, num_players: int) -> NValueModel | None:
        """The N-player model that plays games of ``num_players`` (None: the two-player model
        plays them, against the leader for 3+)."""
        p = int(num_players)
        if self.num_players not in (None, 2) and p != self.num_players:
            raise ValueError(f"this agent was built for {self.num_players}-player games "
                             f"(num_players={self.num_players}) but was given a {p}-player "
                             f"game")
        if p == 2 or self.num_players == 2 or not MIN_N_PLAYERS <= p <= MAX_N_PLAYERS:
            return None
        if p not in self._n_models:
            path, model = n_player_model_path(p), None
            if path.is_file():
                model = NValueModel.load(path, device=self._device, num_players=p)
                if model.rules != self.rules:
                    model = None
            self._n_models[p] = model
        return self._n_models[p]

    def _bank_first(self, model: NValueModel, idx: np.ndarray, slot: np.ndarray,
                    left: np.ndarray) -> np.ndarray:
        """``(B,)`` the N-player decisions (bank preferred) at states ``idx`` (mover first)."""
        p = model.num_players
        cache_ = self._n_cache.get(p)
        if cache_ is None or cache_.model is not model:
            cache_ = self._n_cache[p] = _DecisionCache(model, self._capacity)
        rows = cache_.lookup(idx)  # may grow the table: index it afterwards
        return cache_.bank_first[rows, slot, left]

    @staticmethod
    def _n_values(model: NValueModel, idx: np.ndarray, slot: np.ndarray,
                  left: np.ndarray) -> np.ndarray:
        """``(B, 2)`` the mover's win probability after rolling on / banking (N players; NaN
        where a bank is not allowed), solved now (not cached)."""
        uniq, inv = np.unique(state_codes(model.turn_model, idx), return_inverse=True)
        sol = solve_n_turns(model.turn_model,
                            states_of_codes(model.turn_model, uniq, model.num_players),
                            model.probabilities, tables=True)
        out = np.empty((len(idx), 2))
        out[:, R.ROLL] = sol.roll[inv, slot, left]
        out[:, R.BANK] = sol.bank[inv, slot]
        return out

    def n_values(self, scores, turn_before, roll) -> np.ndarray:
        """``(B, 2)`` the mover's win probability after rolling on / banking by the N-player
        model: ``scores`` ``(B, N)`` in points, in turn order from the mover; ``turn_before``
        the turn total before the current throw, ``roll`` its roll index."""
        s = np.atleast_2d(np.asarray(scores, dtype=np.int64))
        model = self.n_player_model(s.shape[1])
        if model is None:
            raise ValueError(f"no N-player model plays {s.shape[1]}-player games here")
        idx, slot, left = self._turn_point(s, turn_before, roll)
        return self._n_values(model, idx, slot, left)

    def _turn_point(self, scores, turn_before, roll):
        """Grid indices of mover-first scores, and the turn total's slot and the dice left."""
        m = self.turn_model
        roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
        if np.any(R.ROLL_POINTS[roll] == 0):
            raise ValueError("a throw that scores nothing is a bust, not a decision")
        idx = m.index(scores)
        total = np.atleast_1d(np.asarray(turn_before, dtype=np.int64)) + R.ROLL_POINTS[roll]
        left = R.dice_left_after(R.ROLL_SIZE[roll], R.ROLL_SCORING_DICE[roll])
        return idx, m.slot(total), np.asarray(left, dtype=np.int64)

    # -- observations and states ---------------------------------------------------------------
    def _decode(self, observations: np.ndarray):
        """``(one, p, mover-first scores, turn_before, roll)`` of observations."""
        obs = np.asarray(observations, dtype=np.float64)
        one = obs.ndim == 1
        obs = obs[None] if one else obs
        if obs.ndim != 2:
            raise ValueError(f"expected (N, obs_dim) observations, got shape {obs.shape}")
        p = num_players_of(obs.shape[1])
        if p < 2:
            raise ValueError("the learned-value player plays two or more players, not solo")
        d = decode_observation(self.rules, obs)
        mover = d["to_move"]
        if np.any(mover < 0):
            raise ValueError("an observation of a finished game has no decision")
        order = (mover[:, None] + np.arange(p)[None, :]) % p
        scores = d["scores"][np.arange(len(obs))[:, None], order]
        return one, p, scores, d["turn_before"], d["roll"]

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``(N, 2)`` (or ``(2,)`` for one observation): the mover's win probability after
        rolling on / banking, from ``FiveThousand-v0`` (or AEC) observations."""
        one, p, scores, before, roll = self._decode(observations)
        model = self.n_player_model(p)
        if model is not None:
            idx, slot, left = self._turn_point(scores, before, roll)
            vals = self._n_values(model, idx, slot, left)
        else:
            vals = self._leader_values(scores, before, roll)
        return vals[0] if one else vals

    def _leader_values(self, scores: np.ndarray, before, roll) -> np.ndarray:
        """:meth:`values` against the other player (the leader with 3+), scores mover first."""
        mover = np.zeros(len(scores), dtype=np.int64)
        return self.values(scores[:, 0], self._opponent(scores, mover), before, roll)

    @staticmethod
    def _check_masks(masks: np.ndarray, n: int) -> np.ndarray:
        masks = np.asarray(masks).astype(bool)
        if masks.shape != (n, R.N_ACTIONS_LITERAL):
            raise ValueError(f"action masks have shape {masks.shape}, expected "
                             f"{(n, R.N_ACTIONS_LITERAL)}")
        if not masks.any(axis=1).all():
            raise ValueError("some rows of the action mask have no legal action")
        return masks

    @classmethod
    def _choose(cls, values: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks).astype(bool)
        if masks.shape != values.shape:
            raise ValueError(f"action masks have shape {masks.shape}, expected {values.shape}")
        masks = cls._check_masks(masks, len(values))
        v_roll = np.where(masks[:, R.ROLL], values[:, R.ROLL], -np.inf)
        v_bank = np.where(masks[:, R.BANK], values[:, R.BANK], -np.inf)
        v_bank = np.where(masks[:, R.BANK] & np.isnan(v_bank), -np.inf, v_bank)
        bank = masks[:, R.BANK] & ((v_bank >= v_roll - TIE_TOL) | ~masks[:, R.ROLL])
        return np.where(bank, R.BANK, R.ROLL).astype(np.int64)

    @classmethod
    def _choose_n(cls, bank_first: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = cls._check_masks(masks, len(bank_first))
        bank = masks[:, R.BANK] & (bank_first | ~masks[:, R.ROLL])
        return np.where(bank, R.BANK, R.ROLL).astype(np.int64)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One legal action per row of ``observations`` ``(N, obs_dim)`` / ``masks`` ``(N, 2)``."""
        observations = np.asarray(observations)
        if observations.ndim != 2:
            raise ValueError(f"act_batch takes (N, obs_dim) observations, got "
                             f"{observations.shape}")
        if len(observations) == 0:
            return np.zeros(0, dtype=np.int64)
        _, p, scores, before, roll = self._decode(observations)
        model = self.n_player_model(p)
        if model is None:
            return self._choose(self._leader_values(scores, before, roll), masks)
        idx, slot, left = self._turn_point(scores, before, roll)
        return self._choose_n(self._bank_first(model, idx, slot, left), masks)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for one observation (as :meth:`act_batch`)."""
        observation = np.asarray(observation)
        if observation.ndim != 1:
            raise ValueError(f"act takes one observation, got shape {observation.shape}; use "
                             "act_batch for a batch")
        return int(self.act_batch(observation[None], np.asarray(action_mask)[None])[0])

    @staticmethod
    def _state_scores(state: G.FiveThousandState) -> np.ndarray:
        if np.any(state.finished()):
            raise ValueError("a finished game has no decision")
        if state.num_players < 2:
            raise ValueError("the learned-value player plays two or more players, not solo")
        order = (state.current[:, None] + np.arange(state.num_players)[None, :]) \
            % state.num_players
        return state.scores[np.arange(state.n)[:, None], order]

    def state_action_values(self, state: G.FiveThousandState) -> np.ndarray:
        """``(N, 2)`` values for the games of a ``FiveThousandState`` (exact turn totals), as
        :meth:`values`: the mover's win probability after rolling on / banking."""
        scores = self._state_scores(state)
        model = self.n_player_model(state.num_players)
        if model is not None:
            idx, slot, left = self._turn_point(scores, state.turn_total, state.roll)
            return self._n_values(model, idx, slot, left)
        my = state.scores[np.arange(state.n), state.current]
        return self.values(my, self._opponent(state.scores, state.current), state.turn_total,
                           state.roll)

    def act_states(self, state: G.FiveThousandState,
                   masks: np.ndarray | None = None) -> np.ndarray:
        """The player's actions for the games of a ``FiveThousandState``."""
        if masks is None:
            masks = G.action_mask(self.rules, state)
        model = self.n_player_model(state.num_players)
        if model is None:
            return self._choose(self.state_action_values(state), masks)
        idx, slot, left = self._turn_point(self._state_scores(state), state.turn_total,
                                           state.roll)
        return self._choose_n(self._bank_first(model, idx, slot, left), masks)
