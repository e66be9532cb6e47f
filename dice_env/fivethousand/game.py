"""The game of 5000 as pure batched state transitions (no Gymnasium here).

:class:`FiveThousandState` holds ``N`` games of ``P`` players in numpy arrays.  Every game is
either finished or waiting for a decision of its player to move after a roll that scored:
busts are not decisions, so the transitions throw on (the next player's opening throw) until
each game reaches a decision again.  :func:`start_games`, :func:`action_mask` and
:func:`step_games` apply the turn of :mod:`dice_env.fivethousand.rules.turn` (written once,
with the scoring and bank rules of :mod:`dice_env.fivethousand.rules`) to every row through its
numba kernels, the very kernels of the vector envs (:mod:`dice_env.fivethousand.vector`); one
game (:mod:`dice_env.fivethousand.single`, the single-agent and AEC envs) runs the same
functions as plain Python.  :class:`StepRecord` and :func:`step_events` tell what a step did.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.rules import turn as T


@dataclass
class FiveThousandState:
    """``N`` games of 5000 with ``P`` players.

    Attributes:
        scores: ``(N, P)`` each seat's score (0 = not entered).
        current: ``(N,)`` the seat to move.
        turn_total: ``(N,)`` points set aside this turn *before* the current roll.
        dice: ``(N, 5)`` int8 the current roll, sorted, 0-padded (see
            :mod:`dice_env.fivethousand.rules`).
        roll: ``(N,)`` roll index of ``dice``.
        turns: ``(N, P)`` completed turns of each seat (a bank or a bust ends a turn).
        winner: ``(N,)`` the seat that reached the target exactly, ``-1`` while playing.
    """

    scores: np.ndarray
    current: np.ndarray
    turn_total: np.ndarray
    dice: np.ndarray
    roll: np.ndarray
    turns: np.ndarray
    winner: np.ndarray

    @classmethod
    def empty(cls, n: int, num_players: int) -> FiveThousandState:
        """``n`` blank games (no roll yet: call :func:`start_games`)."""
        return cls(
            scores=np.zeros((n, num_players), dtype=np.int64),
            current=np.zeros(n, dtype=np.int64),
            turn_total=np.zeros(n, dtype=np.int64),
            dice=np.zeros((n, R.N_DICE), dtype=np.int8),
            roll=np.zeros(n, dtype=np.int64),
            turns=np.zeros((n, num_players), dtype=np.int64),
            winner=np.full(n, -1, dtype=np.int64),
        )

    def copy(self) -> FiveThousandState:
        return FiveThousandState(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def take(self, rows) -> FiveThousandState:
        """The sub-batch of the given rows (a copy)."""
        return FiveThousandState(**{f.name: getattr(self, f.name)[rows].copy()
                                    for f in fields(self)})

    def put(self, rows, other: FiveThousandState) -> None:
        """Overwrite the given rows with ``other``'s games."""
        for f in fields(self):
            getattr(self, f.name)[rows] = getattr(other, f.name)

    @property
    def n(self) -> int:
        return len(self.current)

    @property
    def num_players(self) -> int:
        return self.scores.shape[1]

    def finished(self) -> np.ndarray:
        return self.winner >= 0

    def current_score(self) -> np.ndarray:
        """``(N,)`` the score of the player to move."""
        return self.scores[np.arange(self.n), self.current]

    def roll_points(self) -> np.ndarray:
        """``(N,)`` the best score of the current roll."""
        return R.ROLL_POINTS[self.roll].astype(np.int64)

    def full_turn_total(self) -> np.ndarray:
        """``(N,)`` the turn total with every scoring die of the current roll set aside."""
        return self.turn_total + self.roll_points()

    def dice_left(self) -> np.ndarray:
        """``(N,)`` the dice a roll-on throws after setting every scoring die aside."""
        return R.dice_left_after(R.ROLL_SIZE[self.roll], R.ROLL_SCORING_DICE[self.roll])


@dataclass
class StepRecord:
    """What one call of :func:`step_games` did, per game (arrays over the batch).

    Attributes:
        active: ``(N,)`` the rows that acted.
        player: ``(N,)`` the seat that acted (-1 where inactive).
        bank: ``(N,)`` True where the action banked.
        set_aside_points, set_aside_dice: ``(N,)`` what the action set aside from the roll.
        turn_total: ``(N,)`` the turn total after the set-aside (what was banked or risked).
        hot_dice: ``(N,)`` the set-aside used every die thrown (a roll-on throws five).
        dice_thrown: ``(N,)`` the dice a roll-on threw (0 where the action banked).
        busted: ``(N,)`` the roll-on scored nothing; ``lost`` ``(N,)`` the turn total lost
            then; ``bust_dice`` ``(N, 5)`` that roll.
        bank_outcome: the :class:`~.rules.BankOutcome` of the banks (rows that rolled are
            ``NO_BANK``; its ``scores`` are the scores after the bank).
        opening_busts: ``(N,)`` how many following players busted on their opening throw
            (seats ``player + 1``, ``player + 2``, ... in order) before the next decision.
        winner: ``(N,)`` the winner after the step (-1 if the game goes on).
    """

    active: np.ndarray
    player: np.ndarray
    bank: np.ndarray
    set_aside_points: np.ndarray
    set_aside_dice: np.ndarray
    turn_total: np.ndarray
    hot_dice: np.ndarray
    dice_thrown: np.ndarray
    busted: np.ndarray
    lost: np.ndarray
    bust_dice: np.ndarray
    bank_outcome: R.BankOutcome
    opening_busts: np.ndarray
    winner: np.ndarray


def _throw_until_decision(state: FiveThousandState, throw_n: np.ndarray,
                          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The rows with ``throw_n > 0`` throw that many dice, again and again while they bust
    (:func:`.rules.turn.land_rows`), until each faces a decision.  Every round draws
    :func:`.rules.throw_faces` for the whole batch (``5 * N`` faces).  Returns ``(bust_roll,
    opening_busts)``: the roll of a roll-on that busted (-1 if none) and how many opening
    throws busted, per row."""
    bust_roll = np.full(state.n, -1, dtype=np.int64)
    opening_busts = np.zeros(state.n, dtype=np.int64)
    pending = np.flatnonzero(throw_n > 0)
    while pending.size:
        faces = R.throw_faces(rng, state.n)[pending]
        pending = T.land_rows(pending, faces, throw_n, state.dice, state.roll, state.current,
                              state.turn_total, state.turns, bust_roll, opening_busts,
                              T.INDEX_BY_CODE, T.POINTS_OF_ROLL, R.ROLL_DICE)
    return bust_roll, opening_busts


def start_games(rules: FiveThousandRules, state: FiveThousandState, rows: np.ndarray,
                rng: np.random.Generator, first_player=0) -> np.ndarray:
    """Start new games in ``rows`` (bool): scores 0, ``first_player`` opens with five dice.

    Returns ``(N,)`` the number of opening busts before the first decision.
    """
    rows = np.asarray(rows, dtype=bool)
    state.scores[rows] = 0
    state.turns[rows] = 0
    state.winner[rows] = -1
    state.turn_total[rows] = 0
    state.current[rows] = np.broadcast_to(np.asarray(first_player, dtype=np.int64),
                                          (state.n,))[rows]
    return _throw_until_decision(state, np.where(rows, R.N_DICE, 0), rng)[1]


def action_mask(rules: FiveThousandRules, state: FiveThousandState) -> np.ndarray:
    """``(N, n_actions)`` bool: the legal actions of the player to move (none once finished)."""
    mask = R.legal_action_mask(rules, state.current_score(), state.turn_total, state.roll)
    mask[state.finished()] = False
    return mask


def step_games(rules: FiveThousandRules, state: FiveThousandState, actions,
               rng: np.random.Generator, active: np.ndarray | None = None) -> StepRecord:
    """Apply one (legal) decision per game, in place, and throw on to the next decision.

    The player to move sets aside the dice the action names (every scoring die under the
    literal rules), then banks (:func:`.rules.bank_one`: bumps, gifts, a win) or rolls the
    remaining dice (five after hot dice).  A bust or a bank ends the turn; the next seat opens
    with five dice, and opening busts pass the turn on again: :func:`.rules.turn.decide_rows`
    and :func:`.rules.turn.land_rows` on the rows that move.  Rows where ``active`` is False
    (and finished games) are left alone.  Legality is the caller's job (:func:`action_mask`);
    an action outside ``Discrete(n_actions)`` raises ``ValueError``.
    """
    n, p = state.n, state.num_players
    actions = np.atleast_1d(np.asarray(actions, dtype=np.int64))
    active = np.ones(n, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    active = active & ~state.finished()
    rows = np.flatnonzero(active)
    player = np.where(active, state.current, -1)
    actions = np.where(active, actions, 0)
    if actions.size and not (0 <= actions.min() and actions.max() < rules.n_actions):
        bad = int(actions[(actions < 0) | (actions >= rules.n_actions)][0])
        raise ValueError(f"action {bad} is not an action of Discrete({rules.n_actions})")
    bank = active & (actions & 1 == 1)
    tables = T.turn_tables(rules)
    column = actions >> 1
    used = np.where(active, tables.used[state.roll, column], 0)
    hot = active & (tables.left[state.roll, column] == R.N_DICE)
    before = state.scores.copy()

    throw_n = np.zeros(n, dtype=np.int64)
    set_aside = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.int64)
    outcome = np.full(n, R.NO_BANK, dtype=np.int64)
    receiver = np.full(n, -1, dtype=np.int64)
    bumped = np.zeros((n, p), dtype=bool)
    T.decide_rows(rows, actions[rows], rules.target, tables.points, tables.left, state.roll,
                  state.turn_total, state.current, state.scores, state.turns, state.winner,
                  throw_n, set_aside, total, outcome, receiver, bumped)
    dice_thrown = np.where(bank, 0, throw_n)
    bust_roll, opening_busts = _throw_until_decision(state, throw_n, rng)
    busted = bust_roll >= 0
    bust_dice = np.where(busted[:, None], R.ROLL_DICE[np.maximum(bust_roll, 0)], 0)
    winner = state.winner.copy()
    return StepRecord(
        active=active, player=player, bank=bank, set_aside_points=set_aside,
        set_aside_dice=used, turn_total=total, hot_dice=hot, dice_thrown=dice_thrown,
        busted=busted, lost=np.where(busted, total, 0), bust_dice=bust_dice.astype(np.int8),
        bank_outcome=R.BankOutcome(state.scores.copy(), outcome, receiver, bumped,
                                   np.where(bumped, before, 0), np.where(bank, winner, -1)),
        opening_busts=opening_busts, winner=winner,
    )


def step_events(record: StepRecord, row: int = 0) -> list[dict]:
    """What one step did in game ``row``, as a list of plain dicts in the order it happened
    (:func:`.rules.turn.decision_events`, which lists the event types)."""
    if not record.active[row]:
        return []
    out = record.bank_outcome
    bust = record.bust_dice[row]
    return T.decision_events(
        int(record.player[row]), bool(record.bank[row]), int(record.set_aside_points[row]),
        int(record.turn_total[row]), int(record.dice_thrown[row]), int(out.outcome[row]),
        int(out.receiver[row]), out.scores[row].tolist(), out.bumped[row].tolist(),
        bust[bust > 0].tolist() if record.busted[row] else None,
        int(record.opening_busts[row]), int(record.winner[row]))


def illegal_reason(rules: FiveThousandRules, state: FiveThousandState, action: int,
                   row: int = 0) -> str:
    """Why ``action`` is not legal in game ``row``, in words ("" if it is legal)."""
    a = int(action)
    if not 0 <= a < rules.n_actions:
        return f"not an action of Discrete({rules.n_actions})"
    if state.finished()[row]:
        return "the game is over"
    roll = int(state.roll[row])
    n = int(R.ROLL_SIZE[roll])
    if rules.choose_scoring_dice:
        m = a >> 1
        pts = int(R.SETASIDE_POINTS[roll, m])
        if pts < 0:
            dice = state.dice[row, :n].tolist()
            faces = [int(dice[i]) for i in range(n) if m >> i & 1]
            if faces:
                canon = R.encode_action(rules, dice, bool(a & 1), set_aside=faces)
                if canon != a and R.SETASIDE_POINTS[roll, canon >> 1] >= 0:
                    return (f"actions name the leftmost dice of each face: set aside {faces} "
                            f"with action {canon}")
            return (f"{faces} is not a set-aside of the roll {dice}: set aside a non-empty "
                    "set of dice that all score")
    else:
        pts = int(R.ROLL_POINTS[roll])
    if a & 1:
        refusal = R.bank_refusal(rules, int(state.scores[row, state.current[row]]),
                                 int(state.turn_total[row]) + pts)
        return refusal or ""
    return ""
