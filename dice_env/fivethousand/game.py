"""The game of 5000 as pure batched state transitions (no Gymnasium here).

:class:`FiveThousandState` holds ``N`` games of ``P`` players in numpy arrays.  Every game is
either finished or waiting for a decision of its player to move after a roll that scored:
busts are not decisions, so the transitions throw on (the next player's opening throw) until
each game reaches a decision again.  :func:`start_games`, :func:`action_mask` and
:func:`step_games` are the transition logic; all the scoring is in
:mod:`dice_env.fivethousand.rules`.  For speed, the single-agent envs and the AEC env play one
game at a time in plain Python (:mod:`dice_env.fivethousand.single`) and the batched vector env
(:mod:`dice_env.fivethousand.vector`) runs the same turn bookkeeping as numba kernels (both read
scoring, bank legality and bank resolution from the rules module); the die-for-die tests in
``tests/test_single_games.py`` and ``tests/test_fivethousand_vector.py`` keep them identical.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules


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


def _end_turns(state: FiveThousandState, rows: np.ndarray) -> None:
    """End the turns of ``rows`` (bool): count it and pass the dice to the next seat."""
    idx = np.flatnonzero(rows)
    if idx.size == 0:
        return
    state.turns[idx, state.current[idx]] += 1
    state.current[idx] = (state.current[idx] + 1) % state.num_players
    state.turn_total[idx] = 0


def _throw_until_decision(state: FiveThousandState, pending: np.ndarray, n_dice: np.ndarray,
                          opening: np.ndarray, rng: np.random.Generator):
    """Throw for the ``pending`` rows until each faces a decision.

    ``n_dice`` are the dice each pending row throws first and ``opening`` whether that throw
    opens a turn.  A bust ends the turn and the next seat opens with five dice.  Every
    iteration draws ``5 * N`` faces (see :func:`.rules.throw_dice`).  Returns ``(busted,
    bust_dice, opening_busts)``: whether the first, non-opening throw of a row busted, its
    dice, and how many opening throws busted.
    """
    pending = pending.copy()
    n_dice = n_dice.copy()
    opening = opening.copy()
    busted = np.zeros(state.n, dtype=bool)
    bust_dice = np.zeros((state.n, R.N_DICE), dtype=np.int8)
    opening_busts = np.zeros(state.n, dtype=np.int64)
    while pending.any():
        dice, roll = R.throw_dice(rng, np.where(pending, n_dice, R.N_DICE))
        state.dice[pending] = dice[pending]
        state.roll[pending] = roll[pending]
        bust = pending & (R.ROLL_POINTS[roll] == 0)
        first_bust = bust & ~opening
        busted |= first_bust
        bust_dice[first_bust] = dice[first_bust]
        opening_busts += bust & opening
        _end_turns(state, bust)
        pending = bust
        n_dice[bust] = R.N_DICE
        opening[bust] = True
    return busted, bust_dice, opening_busts


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
    five = np.full(state.n, R.N_DICE, dtype=np.int64)
    return _throw_until_decision(state, rows, five, rows, rng)[2]


def action_mask(rules: FiveThousandRules, state: FiveThousandState) -> np.ndarray:
    """``(N, n_actions)`` bool: the legal actions of the player to move (none once finished)."""
    mask = R.legal_action_mask(rules, state.current_score(), state.turn_total, state.roll)
    mask[state.finished()] = False
    return mask


def step_games(rules: FiveThousandRules, state: FiveThousandState, actions,
               rng: np.random.Generator, active: np.ndarray | None = None) -> StepRecord:
    """Apply one (legal) decision per game, in place, and throw on to the next decision.

    The player to move sets aside the dice the action names (every scoring die under the
    literal rules), then banks (:func:`.rules.resolve_bank`: bumps, gifts, a win) or rolls the
    remaining dice (five after hot dice).  A bust or a bank ends the turn; the next seat opens
    with five dice, and opening busts pass the turn on again.  Rows where ``active`` is False
    (and finished games) are left alone.  Legality is the caller's job (:func:`action_mask`).
    """
    n = state.n
    actions = np.atleast_1d(np.asarray(actions, dtype=np.int64))
    active = np.ones(n, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    active = active & ~state.finished()
    player = np.where(active, state.current, -1)

    bank, pts, k = R.decode_actions(rules, state.roll, np.where(active, actions, 0))
    bank &= active
    rolling = active & ~bank
    pts = np.where(active, pts, 0)
    k = np.where(active, k, 0)
    n_thrown = R.ROLL_SIZE[state.roll].astype(np.int64)
    hot = active & (k == n_thrown)
    total = state.turn_total + pts
    state.turn_total = np.where(active, total, state.turn_total)

    outcome = R.resolve_bank(rules, state.scores, state.current, total, banking=bank)
    if bank.any():
        state.scores = outcome.scores.copy()
        state.winner = np.where(bank, outcome.winner, state.winner)
        _end_turns(state, bank)
    lost = np.zeros(n, dtype=np.int64)

    n_next = np.where(rolling, R.dice_left_after(n_thrown, k), R.N_DICE)
    throw = rolling | (bank & (state.winner < 0))
    busted, bust_dice, opening_busts = _throw_until_decision(state, throw, n_next, bank, rng)
    lost[busted] = total[busted]
    return StepRecord(
        active=active, player=player, bank=bank, set_aside_points=pts, set_aside_dice=k,
        turn_total=np.where(active, total, 0), hot_dice=hot,
        dice_thrown=np.where(rolling, n_next, 0), busted=busted, lost=lost,
        bust_dice=bust_dice, bank_outcome=outcome, opening_busts=opening_busts,
        winner=state.winner.copy(),
    )



def step_events(record: StepRecord, row: int = 0) -> list[dict]:
    """What one step did in game ``row``, as a list of plain dicts in the order it happened.

    Event types (seats are absolute): ``roll`` (``player``, ``set_aside`` points,
    ``turn_total``, ``dice_thrown`` next, ``hot_dice``), ``bust`` (``player``, ``lost``,
    ``dice``, ``opening``: True for a bust on a turn's first throw), ``bank`` (``player``,
    ``points``, ``score`` after), ``bump`` (``player`` knocked to 0, ``by``, ``lost``),
    ``gift`` (``from``, ``to``, ``points``, ``score`` of the receiver after), ``gift_lost``
    (``from``, ``points``, ``reason``: ``"no_receiver"`` or ``"receiver_overshoot"``, ``to``:
    the would-be receiver or None) and ``win`` (``player``).
    """
    if not record.active[row]:
        return []
    p = int(record.player[row])
    tt = int(record.turn_total[row])
    out = record.bank_outcome
    num_players = out.scores.shape[1]
    events: list[dict] = []
    if record.bank[row]:
        kind = int(out.outcome[row])
        recv = int(out.receiver[row])
        if kind == R.BANKED:
            events.append({"type": "bank", "player": p, "points": tt,
                           "score": int(out.scores[row, p])})
            for q in np.flatnonzero(out.bumped[row]).tolist():
                events.append({"type": "bump", "player": q, "by": p,
                               "lost": int(out.bumped_from[row, q])})
        else:
            events.append({"type": "overshoot", "player": p, "points": tt,
                           "score": int(out.scores[row, p])})
            if kind == R.GIFTED:
                events.append({"type": "gift", "from": p, "to": recv, "points": tt,
                               "score": int(out.scores[row, recv])})
            else:
                reason = ("no_receiver" if kind == R.GIFT_LOST_NO_RECEIVER
                          else "receiver_overshoot")
                events.append({"type": "gift_lost", "from": p, "points": tt, "reason": reason,
                               "to": recv if recv >= 0 else None})
    else:
        events.append({"type": "roll", "player": p,
                       "set_aside": int(record.set_aside_points[row]), "turn_total": tt,
                       "dice_thrown": int(record.dice_thrown[row]),
                       "hot_dice": bool(record.hot_dice[row])})
        if record.busted[row]:
            n = int((record.bust_dice[row] > 0).sum())
            events.append({"type": "bust", "player": p, "lost": int(record.lost[row]),
                           "dice": [int(d) for d in record.bust_dice[row, :n]],
                           "opening": False})
    for i in range(int(record.opening_busts[row])):
        events.append({"type": "bust", "player": (p + 1 + i) % num_players, "lost": 0,
                       "dice": None, "opening": True})
    if record.winner[row] >= 0:
        events.append({"type": "win", "player": int(record.winner[row])})
    return events


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
