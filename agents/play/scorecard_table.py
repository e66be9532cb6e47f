"""The cards of a scorecard game as the terminal (or any front-end) drives them: one
:class:`ScorecardTable` per game, on the multi-player match core."""

from __future__ import annotations

import numpy as np

from dice_env import dice as D
from dice_env.scorecard.rules import Rules

N_HOLDS = D.N_HOLDS


class ScorecardTable:
    """The cards of a scorecard game on the match core (:mod:`dice_env.scorecard.match`).

    One card per seat; whole turns in seat order, seat 0 first; every roll, mask and score goes
    through the rules core, as in the ``scorecard_v0`` AEC env and the match envs (and, with one
    seat, as in the solitaire env).  Holds are canonical (one per kept multiset): a human's
    positions are mapped to the canonical hold that keeps the same dice.
    """

    def __init__(self, rules: Rules, num_players: int, rng: np.random.Generator) -> None:
        from dice_env.scorecard.match import MatchState, start_matches

        self.rules = rules
        self.rng = rng
        self.state = MatchState.empty(rules, 1, num_players)
        start_matches(rules, self.state, np.ones(1, dtype=bool), rng)
        self._refresh()

    def _refresh(self) -> None:
        from dice_env.scorecard.game import must_scratch
        from dice_env.scorecard.match import match_action_mask, mover_options

        legal, points, _ = mover_options(self.rules, self.state)
        #: what the mover's roll would score in each box (0 where not legal)
        self.box_points = points[0]
        #: the mover's legal actions (bool; all False once the game is over)
        self.mask = match_action_mask(self.rules, self.state, True, box_legal=legal)[0]
        #: no legal box scores above zero (the "you must scratch one" warning)
        self.must_scratch = bool(must_scratch(legal, points)[0])

    @property
    def current(self) -> int:
        """The seat to move."""
        return int(self.state.current[0])

    def over(self) -> bool:
        """Every card is full."""
        return bool(self.state.finished()[0])

    def dice(self) -> list[int]:
        """The dice on the table (the mover's roll)."""
        return [int(d) for d in self.state.cards.dice[self.state.mover_rows()[0]]]

    def rolls_left(self) -> int:
        return int(self.state.cards.rolls_left[self.state.mover_rows()[0]])

    def card(self, seat: int) -> dict:
        """Seat ``seat``'s card as a single-player state dict (the dice on the table)."""
        from dice_env.scorecard.match.state import match_state_to_dict

        d = match_state_to_dict(self.rules, self.state)
        return {"dice": d["dice"], "rolls_left": d["rolls_left"], **d["cards"][seat]}

    def filled(self, seat: int) -> int:
        """Boxes filled on seat ``seat``'s card."""
        return int(self.state.filled()[0, seat])

    def breakdowns(self) -> list[dict[str, int]]:
        """Every seat's upper, upper bonus, lower, five-of-a-kind bonus and TOTAL."""
        return self.state.score_breakdowns(self.rules)

    def observation(self) -> np.ndarray:
        """The single-player observation of the mover's card (what bots read)."""
        from dice_env.scorecard.match.observation import card_observation

        seat = np.array([self.current])
        return card_observation(self.rules, self.state, seat, None, self.box_points[None])[0]

    def match_observation(self, seat: int | None = None) -> np.ndarray:
        """The match observation of ``seat`` (default: the mover), what bots that read every
        card (``reads_match``, e.g. the win-value player) are given."""
        from dice_env.scorecard.match.observation import encode_match_observation

        seat = self.current if seat is None else int(seat)
        return encode_match_observation(self.rules, self.state, np.array([seat]), None,
                                        self.box_points[None])[0]

    def canonical(self, action: int) -> int:
        """The canonical hold keeping the same dice as ``action`` (a box action as is)."""
        if action >= N_HOLDS:
            return action
        roll = int(self.state.cards.roll[self.state.mover_rows()[0]])
        return D.canonical_hold(roll, action)

    def step(self, action: int) -> int:
        """Play the mover's (legal) action; returns the points it earned, bonuses included."""
        from dice_env.scorecard.match import apply_match_actions

        points, _ = apply_match_actions(self.rules, self.state, np.array([action]), self.rng)
        self._refresh()
        return int(points[0])
