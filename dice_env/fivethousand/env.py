"""``dice_env/FiveThousand-v0``: one learning agent against bot opponents at 5000."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dice_env.fivethousand.base import FiveThousandBaseEnv
from dice_env.fivethousand.bots import ThresholdBot
from dice_env.fivethousand.rules import (  # noqa: F401  (MIN/MAX_PLAYERS: re-exported)
    MAX_PLAYERS,
    MIN_PLAYERS,
    FiveThousandRules,
    check_num_players,
)
from dice_env.opponents import as_policy
from dice_env.player_names import resolve_opponents


class FiveThousandEnv(FiveThousandBaseEnv):
    """5000 (docs/rules.md, section 2): one agent against ``num_players - 1`` bot opponents.

    ## Description
    Five dice; be the first to reach **exactly** ``target`` (5000) points.  Each turn the
    player throws the dice; the scoring dice of each throw (1 = 100, 5 = 50, three of a kind
    100 x face with three 1s = 1100, four / five of a kind x2 / x4, straights 1500) are set
    aside and add to the turn total; then the player banks it or rolls the remaining dice
    (all five again after hot dice).  A throw that scores nothing (a bust) loses the turn
    total.  No total ending in 50 can be banked; a player with no score must bank at least
    ``entry`` (500) in one turn.  Banking onto another player's score bumps that player to 0;
    a bank that would pass the target is gifted to the lowest entered other player (lost if
    nobody qualifies or if it would pass the target for them).  The opponents' turns are played
    inside :meth:`step`: the agent only sees its own decisions, and ``info["events"]`` tells
    what happened in between.  Busts are not decisions: a turn whose opening throw busts
    passes at once.

    ## Action Space
    Literal rules: ``Discrete(2)`` -- ``0`` rolls the non-scoring dice on, ``1`` banks.
    With ``choose_scoring_dice=True``: ``Discrete(64)`` -- action ``2 * m + b`` sets aside the
    dice of bitmask ``m`` (bit ``i`` = die ``i`` of the sorted current roll; only the
    canonical mask of each multiset -- the leftmost dice of each face -- is legal, and every
    set-aside die must score within the set-aside) and then rolls on (``b = 0``) or banks
    (``b = 1``); :func:`dice_env.fivethousand.rules.encode_action` builds one from faces.
    Legal actions: ``info["action_mask"]`` (int8) and :meth:`action_masks` (bool, for
    MaskablePPO).  A bank is masked when there is nothing to bank, when the total ends in 50
    and below ``entry`` for a player who has not entered.  Rolling on is always legal.
    An action must be an integer: a Python ``int``, a numpy integer scalar or a 0-d numpy
    integer array (what ``Discrete.contains`` accepts, bools excepted).  Any other value --
    ``1.0``, ``"1"``, ``True``, ``None``, ``float("inf")``, ``np.array([1])`` -- is never
    converted: it is an illegal action, handled by ``illegal_action`` like one the mask forbids
    (see :mod:`dice_env.errors`).

    ## Observation Space
    ``Box(0, 1, (3 * num_players + 14,), float32)`` seen from the agent's seat (players in
    turn order starting with the agent), documented index by index in
    :mod:`dice_env.fivethousand.observation`: ``[0, P)`` scores / target, ``[P, 2P)`` entered
    flags, ``[2P, 3P)`` player to move (one-hot), ``3P`` turn total before this roll,
    ``3P+1`` the roll's points, ``3P+2`` turn total with every scoring die set aside,
    ``3P+3`` dice thrown / 5, ``3P+4 .. 3P+9`` face counts of the roll / 5, ``3P+10`` dice
    left / 5, ``3P+11`` bank allowed, ``3P+12`` bank would overshoot, ``3P+13`` the agent's
    completed turns / ``max_turns`` (0 without a cap).  Points are divided by the target.

    ## Rewards
    ``+1`` when the agent wins (by its bank, or by a gift that lands exactly on the target),
    ``-1`` when another player does, 0 otherwise.  An illegal action under ``"penalize"`` or
    ``"terminate"`` earns ``illegal_penalty``.

    ## Starting State
    All scores 0; seat 0 opens; the agent sits at ``agent_seat`` (drawn per episode from the
    env's generator with ``"random"``).  When the agent does not open, the opponents before it
    play their first turns inside :meth:`reset` (reported in ``info["events"]``); if they
    finish the game before the agent's first decision a new game is dealt.  Or
    ``reset(options={"state": d})`` with a state dict from :meth:`get_state` (see
    :mod:`dice_env.fivethousand.state`); the restored state must be the agent's decision.

    ## Episode End
    Terminated when a player reaches the target exactly (or on an illegal action under
    ``"terminate"``).  Truncated when the agent has completed ``max_turns`` turns (default
    ``None``: no cap; the game ends with probability 1) or has taken ``max_steps`` steps (a
    guard against agents that repeat an illegal action under ``"penalize"``).

    ## Info
    ``action_mask`` (int8), ``events`` (what happened since the agent's previous decision, in
    order: ``roll``, ``bust``, ``bank``, ``bump``, ``overshoot``, ``gift``, ``gift_lost``,
    ``win``, see :func:`dice_env.fivethousand.game.step_events`; seats are absolute),
    ``scores`` (absolute seat order), ``agent_seat``, ``turns`` (the agent's completed turns),
    ``winner`` once over, ``illegal_action`` after an illegal action.

    ## Arguments
    * ``num_players``: 2 to 8 (default 2).
    * ``agent_seat``: the agent's seat in turn order (seat 0 opens), or ``"random"``
      (default): drawn per episode, so that a policy learns both to open and to follow.
    * ``opponents``: ``None`` (default: a :class:`~dice_env.fivethousand.bots.ThresholdBot`
      per opponent), one player for every opponent, or a sequence of ``num_players - 1``
      players; ``opponents[k]`` plays the ``k + 1``-th seat after the agent in turn order.  A
      player is any object with ``act(observation, action_mask) -> int`` or a plain callable
      ``f(observation, action_mask) -> int``; it sees the observation of its own seat and the
      int8 mask.  A player may also be given by name, e.g. ``opponents=["heuristic",
      "threshold"]`` or ``opponents="heuristic"`` (names and players may be mixed): the name is
      built by a player factory, by default ``agents.make(name, "fivethousand")`` (see
      :mod:`dice_env.player_names`); an unknown name raises ``ValueError``.  An illegal
      opponent action raises ``RuntimeError``.
    * ``seed_opponents``: when True (default), every :meth:`reset` reseeds the opponents that
      have a ``seed(int)`` method from the env's generator, so a seeded reset reproduces the
      whole episode, random opponents included.
    * ``rules`` or the knobs ``target`` (5000), ``entry`` (500), ``choose_scoring_dice``
      (False): see :class:`~dice_env.fivethousand.rules.FiveThousandRules`.
    * ``render_mode``: ``None``, ``"ansi"`` (returns the text) or ``"human"`` (prints it).
    * ``illegal_action``: ``"penalize"`` (default) -- the state is untouched, the reward is
      ``illegal_penalty`` and ``info["illegal_action"]`` is True; ``"raise"`` -- an
      :class:`~dice_env.errors.IllegalActionError` (a ``ValueError``) naming the action and
      the legal ones, the state untouched; ``"terminate"`` -- the episode ends with
      ``illegal_penalty``.  The default is ``"penalize"`` because Gymnasium's ``check_env``
      (and any unmasked agent) steps with random actions: the env must survive them, and a
      penalty that leaves the game intact keeps an unmasked learner in the real game, where
      ``"terminate"`` would cut its experience at the first mistake.
    * ``illegal_penalty``: the reward of an illegal action (default -1.0, as bad as a loss, so
      no discount makes an illegal action worth more than the best legal one).
    * ``max_turns``, ``max_steps``: see Episode End (``max_steps`` default 10,000).

    ## Version History
    * v0: initial version.
    """

    def __init__(
        self,
        num_players: int = 2,
        agent_seat: int | str = "random",
        opponents: Any = None,
        rules: FiveThousandRules | dict | None = None,
        target: int | None = None,
        entry: int | None = None,
        choose_scoring_dice: bool | None = None,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_turns: int | None = None,
        max_steps: int | None = 10_000,
        seed_opponents: bool = True,
    ) -> None:
        num_players = check_num_players(num_players)
        super().__init__(num_players, rules, target, entry, choose_scoring_dice, render_mode,
                         illegal_action, illegal_penalty, max_turns, max_steps)
        if agent_seat != "random" and (not isinstance(agent_seat, (int, np.integer))
                                       or not 0 <= agent_seat < num_players):
            raise ValueError(f"agent_seat must be 'random' or a seat from 0 to "
                             f"{num_players - 1}, got {agent_seat!r}")
        self.agent_seat_option = agent_seat
        self.agent_seat = 0 if agent_seat == "random" else int(agent_seat)
        n_opp = num_players - 1
        opponents = resolve_opponents(opponents, _factory_game(self.rules))
        if opponents is None:
            opponents = [ThresholdBot(self.rules) for _ in range(n_opp)]
        elif not isinstance(opponents, Sequence) or isinstance(opponents, str):
            opponents = [opponents] * n_opp
        if len(opponents) != n_opp:
            raise ValueError(f"opponents must be one player or a sequence of {n_opp} players "
                             f"(num_players - 1), got {len(opponents)}")
        self.opponents = list(opponents)
        self._policies = [as_policy(o) for o in self.opponents]
        self.seed_opponents = bool(seed_opponents)

    # -- hooks ---------------------------------------------------------------------------
    def _opponent_of(self, seat: int) -> int:
        """Index in :attr:`opponents` of the player at ``seat``."""
        return (seat - self.agent_seat) % self.num_players - 1

    def _player_names(self) -> list[str]:
        names = []
        for seat in range(self.num_players):
            if seat == self.agent_seat:
                names.append(f"seat {seat} (you)")
            else:
                names.append(f"seat {seat} (opp {self._opponent_of(seat)})")
        return names

    def _reseed_players(self) -> None:
        if self.seed_opponents:
            seeds = self.np_random.integers(0, 2**31 - 1, size=len(self.opponents))
            for opp, s in zip(self.opponents, np.atleast_1d(seeds).tolist()):
                if callable(getattr(opp, "seed", None)):
                    opp.seed(int(s))

    def _new_game(self) -> list[dict]:
        for _ in range(1000):
            if self.agent_seat_option == "random":
                self.agent_seat = int(self.np_random.integers(self.num_players))
            else:
                self.agent_seat = int(self.agent_seat_option)
            opening = self._game.start(self.np_random)
            events = [{"type": "bust", "player": i % self.num_players, "lost": 0,
                       "dice": None, "opening": True} for i in range(opening)]
            self._after_agent(events)
            if not self._game.finished():
                return events
        raise RuntimeError("the opponents kept finishing the game before the agent's first "
                           "decision")  # pragma: no cover

    def _after_agent(self, events: list[dict]) -> None:
        g = self._game
        while g.winner < 0 and g.current != self.agent_seat:
            seat = g.current
            mask = g.action_mask()
            k = self._opponent_of(seat)
            action = self._policies[k](self._observe(seat), np.array(mask, dtype=np.int8))
            try:
                a = int(action)
            except (TypeError, ValueError, OverflowError):  # e.g. None, "x", inf
                a = -1
            if not 0 <= a < len(mask) or not mask[a]:
                raise RuntimeError(f"opponent {k} ({self.opponents[k]!r}, seat {seat}) chose "
                                   f"the illegal action {action!r}; legal: "
                                   f"{[x for x, ok in enumerate(mask) if ok]}")
            events.extend(g.step(a, self.np_random))

    def _reward(self, turns_before: int) -> float:
        winner = self._game.winner
        if winner < 0:
            return 0.0
        return 1.0 if winner == self.agent_seat else -1.0


def _factory_game(rules: FiveThousandRules) -> Any:
    """What a player factory is given for 5000 ``rules`` (opponents by name):
    ``"fivethousand"`` for the default rules, else the rules themselves."""
    return "fivethousand" if rules == FiveThousandRules() else rules
