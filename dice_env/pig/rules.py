"""The rules of Pig, exactly as OpenSpiel's ``pig`` game plays them, written once.

**The game** (``open_spiel/games/pig/pig.cc``): ``num_players`` (2 to 10) take turns with one
die of ``die_sides`` faces.  On a turn the player to move repeatedly chooses

* **roll** (action ``0``, OpenSpiel's ``kRoll``): throw the die; a 1 loses the turn total and
  passes the die to the next player; any other face ``f`` adds ``f`` to the turn total (``1``
  with ``piglet``) and the same player decides again;
* **hold** (action ``1``, OpenSpiel's ``kStop``): add the turn total to the player's score and
  pass the die to the next player.  Holding is legal at any time, even with a turn total of 0.

When the player's score plus the turn total reaches ``win_score``, hold is the only legal
action (the player must bank the win).  The game ends as soon as a score reaches ``win_score``
(that player wins), or when ``horizon`` moves have been taken (every roll and every hold is a
move; die faces are not): a draw.  A roll that brings the move count to ``horizon`` ends the
game before its die is read.  Returns (OpenSpiel's, zero-sum): the winner ``+1``, every other
player ``-1 / (num_players - 1)``; a draw ``0`` for everyone.

**Piglet** (OpenSpiel's ``piglet``): a roll other than 1 adds 1 to the turn total instead of
the face.

**What is here.**  :class:`PigRules` (the knobs, validated), :func:`coerce_rules`, and each rule
as a pure function over a small immutable :class:`PigState`, with its batched twin beside it
(a ``*_batch`` function over a :class:`PigBatch`, numpy arrays with a leading batch axis, used
by the vector env): :func:`legal_actions` / :func:`action_mask_batch`, :func:`apply_roll` /
:func:`apply_roll_batch`, :func:`apply_hold` / :func:`apply_hold_batch`, :func:`is_terminal` /
:func:`is_terminal_batch`, :func:`winner` / :func:`winner_batch`, :func:`returns` /
:func:`returns_batch`.  ``tests/test_pig_rules.py`` plays random games through both (with
hypothesis) and compares them step by step.  No randomness here: a roll is given its face.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

__all__ = [
    "ACTION_NAMES", "BUST_FACE", "HOLD", "MAX_PLAYERS", "MIN_PLAYERS", "N_ACTIONS", "NAME",
    "ROLL", "PigBatch", "PigRules", "PigState", "action_mask", "action_mask_batch",
    "apply_action", "apply_hold", "apply_hold_batch", "apply_roll", "apply_roll_batch",
    "check_num_players", "coerce_rules", "describe_action", "gain", "illegal_reason",
    "initial_state", "is_terminal", "is_terminal_batch", "legal_actions", "returns",
    "returns_batch", "winner", "winner_batch",
]

#: the game's name
NAME = "pig"
#: the actions (OpenSpiel's ids: ``kRoll = 0``, ``kStop = 1``)
ROLL, HOLD = 0, 1
N_ACTIONS = 2
ACTION_NAMES = ("roll", "hold")
#: the face that loses the turn total
BUST_FACE = 1

#: how many players a game seats (OpenSpiel's ``min_num_players`` / ``max_num_players``)
MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: the allowed ranges of the other knobs (inclusive)
WIN_SCORE_RANGE = (1, 10_000)
DIE_SIDES_RANGE = (2, 1_000)
HORIZON_RANGE = (1, 100_000_000)

#: our knob name -> OpenSpiel's parameter name
OPENSPIEL_PARAMETERS = {"num_players": "players", "win_score": "winscore",
                        "die_sides": "diceoutcomes", "horizon": "horizon", "piglet": "piglet"}


def _int_in(name: str, value: Any, lo: int, hi: int) -> int:
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
            or not lo <= int(value) <= hi):
        raise ValueError(f"{name} must be an integer from {lo:,} to {hi:,}, got {value!r}")
    return int(value)


def check_num_players(num_players: Any) -> int:
    """``num_players`` as an int from :data:`MIN_PLAYERS` to :data:`MAX_PLAYERS` (``ValueError``
    naming the range otherwise)."""
    return _int_in("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)


@dataclass(frozen=True)
class PigRules:
    """The knobs of Pig, OpenSpiel's parameters under our names.

    Attributes:
        num_players: 2 to 10 (OpenSpiel's ``players``, default 2).
        win_score: the score that wins, 1 to 10,000 (``winscore``, default 100).
        die_sides: faces of the die, 2 to 1,000 (``diceoutcomes``, default 6).
        horizon: the most moves (rolls and holds, all players together) before the game is a
            draw, 1 to 100,000,000 (``horizon``, default 1000).
        piglet: a roll other than 1 adds 1 instead of its face (``piglet``, default False).
    """

    num_players: int = 2
    win_score: int = 100
    die_sides: int = 6
    horizon: int = 1000
    piglet: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_players", check_num_players(self.num_players))
        object.__setattr__(self, "win_score", _int_in("win_score", self.win_score,
                                                      *WIN_SCORE_RANGE))
        object.__setattr__(self, "die_sides", _int_in("die_sides", self.die_sides,
                                                      *DIE_SIDES_RANGE))
        object.__setattr__(self, "horizon", _int_in("horizon", self.horizon, *HORIZON_RANGE))
        if not isinstance(self.piglet, (bool, np.bool_)):
            raise ValueError(f"piglet must be a bool, got {self.piglet!r}")
        object.__setattr__(self, "piglet", bool(self.piglet))

    @property
    def n_actions(self) -> int:
        """Size of the action space (2: roll, hold)."""
        return N_ACTIONS

    @property
    def name(self) -> str:
        """``"pig"`` for the defaults, else ``"pig(knob=value, ...)"`` with the changed knobs."""
        changed = {k: v for k, v in self.knobs().items() if v != getattr(PigRules, k)}
        if not changed:
            return NAME
        return NAME + "(" + ", ".join(f"{k}={v}" for k, v in changed.items()) + ")"

    def knobs(self) -> dict:
        """The rules as a plain JSON-serialisable dict."""
        return asdict(self)

    def replace(self, **knobs: Any) -> PigRules:
        """A copy with some knobs changed (validated)."""
        return replace(self, **knobs)

    def openspiel_parameters(self) -> dict:
        """The same game as OpenSpiel's parameters: ``pyspiel.load_game("pig", params)``."""
        return {OPENSPIEL_PARAMETERS[k]: v for k, v in self.knobs().items()}

    @classmethod
    def from_knobs(cls, knobs: dict | None = None, **overrides: Any) -> PigRules:
        """Rules from a dict of knobs and/or keywords (``None`` values are left out); unknown
        knobs raise ``ValueError`` naming the known ones."""
        if knobs is not None and not isinstance(knobs, dict):
            raise ValueError(f"Pig rules must be a dict of knobs such as {asdict(cls())}, got "
                             f"{knobs!r}")
        data = dict(knobs or {})
        data.update({k: v for k, v in overrides.items() if v is not None})
        known = list(cls.__dataclass_fields__)
        bad = sorted(set(data) - set(known))
        if bad:
            raise ValueError(f"unknown Pig rule knobs {bad}; known knobs: {known}")
        return cls(**data)


#: the Gymnasium id whose rules are the defaults (kept here so that names are read in one place)
ENV_ID = "dice_env/Pig-v0"


def coerce_rules(game: Any = None) -> PigRules:
    """The :class:`PigRules` of anything that names Pig: a ``PigRules`` (as is), a dict of
    knobs, ``None``, the name ``"pig"`` or the id ``"dice_env/Pig-v0"`` (the defaults), or a
    resolved game whose ``rules`` are a ``PigRules`` (what ``Class(game, **options)`` gets).
    ``ValueError`` otherwise, saying what is accepted."""
    if isinstance(game, PigRules):
        return game
    if isinstance(game, dict):
        return PigRules.from_knobs(game)
    if game is None:
        return PigRules()
    if isinstance(game, str):
        if game.strip().lower() == NAME or game.strip() == ENV_ID:
            return PigRules()
        raise ValueError(f"{game!r} is not a Pig game; Pig is named {NAME!r} or {ENV_ID!r}")
    from dice_env.families import GameRef

    if isinstance(game, GameRef):
        if isinstance(game.rules, PigRules):
            return game.rules
        raise ValueError(f"{game.name!r} is not a Pig game")
    raise ValueError(f"rules must be a PigRules, a dict of knobs, {NAME!r}, {ENV_ID!r} or None, "
                     f"got {game!r}")


def gain(rules: PigRules, face: int) -> int:
    """What a roll of ``face`` adds to the turn total (0 for a bust)."""
    if face == BUST_FACE:
        return 0
    return 1 if rules.piglet else int(face)


def describe_action(action: int) -> str:
    """``"0 (roll)"`` / ``"1 (hold)"``."""
    return f"{action} ({ACTION_NAMES[action]})" if 0 <= action < N_ACTIONS else str(action)


# ------------------------------------------------------------------------------------------
# One game: a small immutable state and pure functions
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PigState:
    """One game of Pig between decisions.

    Attributes:
        scores: every player's banked score, by seat (seat 0 opens).
        turn_total: the points of the current turn, not yet banked.
        current: the seat to move (after the game's end: the seat that would move next).
        moves: the moves taken so far, rolls and holds of all players (OpenSpiel's
            ``total_moves``; the game is a draw when it reaches ``horizon``).
    """

    scores: tuple[int, ...]
    turn_total: int = 0
    current: int = 0
    moves: int = 0


def initial_state(rules: PigRules) -> PigState:
    """Every score 0, seat 0 to move, no move taken."""
    return PigState((0,) * rules.num_players)


def winner(rules: PigRules, state: PigState) -> int:
    """The seat that reached ``win_score`` (the lowest such seat, as OpenSpiel's returns read
    it; only one can), or -1."""
    for seat, score in enumerate(state.scores):
        if score >= rules.win_score:
            return seat
    return -1


def is_terminal(rules: PigRules, state: PigState) -> bool:
    """Whether the game is over: a score reached ``win_score`` or ``horizon`` moves were taken."""
    return state.moves >= rules.horizon or winner(rules, state) >= 0


def legal_actions(rules: PigRules, state: PigState) -> tuple[int, ...]:
    """The legal actions: none once the game is over; only hold when the score plus the turn
    total reaches ``win_score``; else roll and hold."""
    if is_terminal(rules, state):
        return ()
    if state.scores[state.current] + state.turn_total >= rules.win_score:
        return (HOLD,)
    return (ROLL, HOLD)


def action_mask(rules: PigRules, state: PigState) -> list[int]:
    """:func:`legal_actions` as a 0/1 list of length :data:`N_ACTIONS`."""
    legal = legal_actions(rules, state)
    return [int(a in legal) for a in range(N_ACTIONS)]


def illegal_reason(rules: PigRules, state: PigState, action: int) -> str:
    """Why ``action`` is not legal in ``state`` ("" if it is)."""
    if is_terminal(rules, state):
        return "the game is over"
    if action == ROLL and ROLL not in legal_actions(rules, state):
        return (f"the score plus the turn total reaches {rules.win_score}: the player must "
                "hold")
    return ""


def _next(rules: PigRules, seat: int) -> int:
    return (seat + 1) % rules.num_players


def apply_roll(rules: PigRules, state: PigState, face: int) -> PigState:
    """The state after the player to move rolls ``face`` (1 to ``die_sides``).

    The roll is a move; if it brings the move count to ``horizon`` the game is over and the
    face is not read (OpenSpiel's state is then terminal at the chance node).  A 1 loses the
    turn total and passes the die on; another face adds :func:`gain` to the turn total."""
    moves = state.moves + 1
    if moves >= rules.horizon:
        return replace(state, moves=moves)
    if face == BUST_FACE:
        return replace(state, turn_total=0, current=_next(rules, state.current), moves=moves)
    return replace(state, turn_total=state.turn_total + gain(rules, face), moves=moves)


def apply_hold(rules: PigRules, state: PigState) -> PigState:
    """The state after the player to move holds: the turn total is banked, the die passes."""
    scores = list(state.scores)
    scores[state.current] += state.turn_total
    return PigState(tuple(scores), 0, _next(rules, state.current), state.moves + 1)


def apply_action(rules: PigRules, state: PigState, action: int, face: int) -> PigState:
    """:func:`apply_roll` (with ``face``) or :func:`apply_hold` (``face`` unused).  The action
    is not checked against :func:`legal_actions`: callers check it first."""
    if action == ROLL:
        return apply_roll(rules, state, face)
    if action == HOLD:
        return apply_hold(rules, state)
    raise ValueError(f"action must be {ROLL} (roll) or {HOLD} (hold), got {action!r}")


def returns(rules: PigRules, state: PigState) -> tuple[float, ...]:
    """OpenSpiel's returns: all 0 before the end and for a draw; at a win ``+1`` for the winner
    and ``-1 / (num_players - 1)`` for every other player."""
    p = rules.num_players
    w = winner(rules, state)
    if w < 0:
        return (0.0,) * p
    lose = -1.0 / (p - 1)
    return tuple(1.0 if seat == w else lose for seat in range(p))


# ------------------------------------------------------------------------------------------
# Many games: the batched twins (numpy arrays with a leading batch axis)
# ------------------------------------------------------------------------------------------
@dataclass
class PigBatch:
    """``n`` games of Pig as arrays, the fields of :class:`PigState` with a leading batch axis.

    Attributes:
        scores: ``(n, num_players)`` int64.
        turn_total, current, moves: ``(n,)`` int64.
    """

    scores: np.ndarray
    turn_total: np.ndarray
    current: np.ndarray
    moves: np.ndarray

    @classmethod
    def empty(cls, n: int, num_players: int) -> PigBatch:
        """``n`` new games (:func:`initial_state` in every row)."""
        z = np.zeros(n, dtype=np.int64)
        return cls(np.zeros((n, num_players), dtype=np.int64), z.copy(), z.copy(), z.copy())

    @classmethod
    def from_states(cls, states: list[PigState]) -> PigBatch:
        """A batch holding ``states``."""
        return cls(np.array([s.scores for s in states], dtype=np.int64),
                   np.array([s.turn_total for s in states], dtype=np.int64),
                   np.array([s.current for s in states], dtype=np.int64),
                   np.array([s.moves for s in states], dtype=np.int64))

    @property
    def n(self) -> int:
        """The number of games."""
        return int(self.turn_total.shape[0])

    def state(self, i: int) -> PigState:
        """Game ``i`` as a :class:`PigState`."""
        return PigState(tuple(int(x) for x in self.scores[i]), int(self.turn_total[i]),
                        int(self.current[i]), int(self.moves[i]))

    def put(self, rows: Any, state: PigState) -> None:
        """Write ``state`` into ``rows``."""
        self.scores[rows] = state.scores
        self.turn_total[rows] = state.turn_total
        self.current[rows] = state.current
        self.moves[rows] = state.moves

    def take(self, rows: Any) -> PigBatch:
        """A new batch holding the games ``rows`` (copies)."""
        rows = np.arange(self.n)[rows]
        return PigBatch(self.scores[rows], self.turn_total[rows], self.current[rows],
                        self.moves[rows])

    def copy(self) -> PigBatch:
        """A deep copy."""
        return PigBatch(self.scores.copy(), self.turn_total.copy(), self.current.copy(),
                        self.moves.copy())


def winner_batch(rules: PigRules, batch: PigBatch) -> np.ndarray:
    """:func:`winner` of every game, ``(n,)`` int64."""
    won = batch.scores >= rules.win_score
    return np.where(won.any(axis=1), np.argmax(won, axis=1), -1).astype(np.int64)


def is_terminal_batch(rules: PigRules, batch: PigBatch) -> np.ndarray:
    """:func:`is_terminal` of every game, ``(n,)`` bool."""
    return (batch.moves >= rules.horizon) | (batch.scores >= rules.win_score).any(axis=1)


def action_mask_batch(rules: PigRules, batch: PigBatch) -> np.ndarray:
    """:func:`legal_actions` of every game as an ``(n, 2)`` bool mask (all False once over)."""
    live = ~is_terminal_batch(rules, batch)
    rows = np.arange(batch.n)
    can_roll = batch.scores[rows, batch.current] + batch.turn_total < rules.win_score
    return np.stack([live & can_roll, live], axis=1)


def apply_roll_batch(rules: PigRules, batch: PigBatch, rows: np.ndarray,
                     faces: np.ndarray) -> None:
    """:func:`apply_roll` in place for the games ``rows`` (distinct), with their ``faces``."""
    rows = np.asarray(rows, dtype=np.int64)
    faces = np.asarray(faces, dtype=np.int64)
    moves = batch.moves[rows] + 1
    batch.moves[rows] = moves
    live = moves < rules.horizon
    bust = live & (faces == BUST_FACE)
    add = live & ~bust
    r = rows[bust]
    batch.turn_total[r] = 0
    batch.current[r] = (batch.current[r] + 1) % rules.num_players
    r = rows[add]
    batch.turn_total[r] += 1 if rules.piglet else faces[add]


def apply_hold_batch(rules: PigRules, batch: PigBatch, rows: np.ndarray) -> None:
    """:func:`apply_hold` in place for the games ``rows`` (distinct)."""
    rows = np.asarray(rows, dtype=np.int64)
    cur = batch.current[rows]
    batch.scores[rows, cur] += batch.turn_total[rows]
    batch.turn_total[rows] = 0
    batch.current[rows] = (cur + 1) % rules.num_players
    batch.moves[rows] += 1


def returns_batch(rules: PigRules, batch: PigBatch) -> np.ndarray:
    """:func:`returns` of every game, ``(n, num_players)`` float64."""
    p = rules.num_players
    w = winner_batch(rules, batch)
    out = np.where(np.arange(p)[None, :] == w[:, None], 1.0, -1.0 / (p - 1))
    out[w < 0] = 0.0
    return out
