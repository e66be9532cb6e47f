"""A game of 5000 of people at one screen, without the screen: the model both front-ends
drive.

:class:`FiveThousandSession` holds one game for one or more people (the first seats; seat 0
opens) and bots, or one person alone: the seats and their bots, one decision at a time on the
one-game core (:class:`dice_env.fivethousand.single.FiveThousandGame`, what the envs play), the
optimal advisor's values for whichever person is to move (win probability; alone, the expected
turns still to play), its verdict on each person's decisions, the refusal of a bank the rules
forbid, what a bank would do now (an overshoot's gift) and the summary with the standings.  The
bots see what they see inside :class:`~dice_env.fivethousand.env.FiveThousandEnv` (their own
observation and the int8 mask), seeded from the game's generator in the same order, so with
one person a seed deals the same game as the env with ``agent_seat=0``; alone, the game ends
after :data:`~dice_env.fivethousand.solo.DEFAULT_MAX_TURNS` turns as in the solo env.  Nothing here
reads input or writes output (:mod:`agents.play.terminal.fivethousand_game` is the terminal's
screen, :mod:`agents.play.web` the browser's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.people import bot_action
from agents.play.advisors import BUILD_LOCK, cached
from agents.play.seats import (
    AdviceLog,
    IllegalMove,
    PeopleAtTable,
    PersonResult,
    Standing,
    check_people,
    check_seats,
    registered_bot,
    standings,
    unique_names,
)
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules

ROLL, BANK = R.ROLL, R.BANK
#: the most players a game of 5000 seats (as the env)
MAX_PLAYERS = 8
#: the most bots (one seat at least is a person's)
MAX_BOTS = MAX_PLAYERS - 1


def load_fivethousand_optimal() -> Any:
    """The optimal 5000 player, which is also the advisor.

    No error is caught: the player ships with the package (its solver needs numba, a core
    dependency), and building it reads no table -- each table is loaded, or solved the first
    time on a machine (seconds), when it is first used (:func:`load_fivethousand_tables`).  So
    there is no "not installed" or "table missing" case to allow for, and whatever goes wrong
    here is a bug that must show, not a game without its advisor."""
    from agents.registry import make

    return make("optimal", "fivethousand")


def fivethousand_advisor() -> Any:
    """The optimal 5000 player (win probability; solo: expected turns), built once per
    process."""
    return cached(("fivethousand",), load_fivethousand_optimal)


def load_fivethousand_tables(agent: Any, num_players: int) -> None:
    """Load (the first time on a machine: solve) the table the 5000 advisor ``agent`` reads
    for ``num_players`` players, under the build lock: the solo table alone, the exact
    three-player one for three, the two-player one otherwise."""
    table = {1: "solo", 3: "three_player"}.get(num_players, "two_player")
    with BUILD_LOCK:
        getattr(agent, table)


def make_bot(name: str, game: Any = "fivethousand") -> Any:
    """A bot for a person's game of 5000 (the family's ``"make_bot"`` hook): the optimal
    player the advisor is (its tables shared), or the registered player ``name``;
    ``ValueError`` with a readable message when it does not exist."""
    if name == "optimal":
        return load_fivethousand_optimal()
    return registered_bot(name, game)


def action_name(action: int) -> str:
    """``roll on`` or ``bank``."""
    return "bank" if action == BANK else "roll on"


@dataclass(frozen=True)
class FiveThousandVerdict:
    """The advisor's verdict on one of a person's decisions."""

    action: int
    value: float
    best_action: int
    best: float
    #: what the choice gives away: percentage points of win chance, or turns when alone
    cost: float


@dataclass(frozen=True)
class FiveThousandMove:
    """One decision played (a bot's or a person's) and what followed it."""

    seat: int
    name: str
    action: int
    #: the roll the decision was made on
    dice: tuple[int, ...]
    #: the turn total with this roll's scoring dice set aside
    turn_total: int
    #: what happened, in order (:func:`dice_env.fivethousand.game.step_events`)
    events: list[dict] = field(default_factory=list)
    verdict: FiveThousandVerdict | None = None


@dataclass(frozen=True)
class FiveThousandSummary:
    """The end of a game (or where it stands)."""

    scores: list[int]
    #: the winning seat, or None (no winner yet, or alone and out of turns)
    winner: int | None
    #: the first person's completed turns
    turns: int
    #: alone: the target was reached
    reached: bool
    #: the advisor's total expected loss over every person's decisions, None if it never
    #: judged one
    loss: float | None
    decisions: int
    unit: str
    #: every player, best first: the winner, then the highest scores
    standings: tuple[Standing, ...] = ()
    #: each person's judged decisions, in seat order
    people: tuple[PersonResult, ...] = ()


class FiveThousandSession(PeopleAtTable):
    """A game of 5000 of ``people`` (at the first seats) and ``opponents`` (bot names), or of
    one person alone.

    Args:
        opponents: the bots' names (with the people, at most :data:`MAX_PLAYERS` players).
        seed: seeds the dice and the bots (``None``: fresh entropy).
        advise: start with the advisor on (:meth:`set_advise` turns it on and off).
        bot_factory: ``(name, game) -> player`` (default :func:`make_bot`: the registered
            players).
        people: the names of the people at the screen, in seat order (checked by
            :func:`~agents.play.seats.check_people`; default: one person, ``you``).
    """

    def __init__(self, opponents: Sequence[str], seed: int | None = None, advise: bool = False,
                 bot_factory: Callable[[str, str], Any] = make_bot,
                 people: Sequence[str] | None = None) -> None:
        from dice_env.fivethousand.single import FiveThousandGame
        from dice_env.fivethousand.solo import DEFAULT_MAX_TURNS
        from dice_env.opponents import as_policy

        humans = check_people(people)
        if len(opponents) > MAX_BOTS:
            raise ValueError(f"5000 seats at most {MAX_BOTS} bots")
        check_seats(len(humans), len(opponents), MAX_PLAYERS)
        self.rules = FiveThousandRules()
        self.bots = [bot_factory(name, "fivethousand") for name in opponents]
        self.names = unique_names([*humans, *opponents])
        #: the people's seats
        self.people = list(range(len(humans)))
        self.solo = len(self.names) == 1
        self.max_turns = DEFAULT_MAX_TURNS if self.solo else None
        #: each bot's policy, by seat
        self._policies = {len(humans) + i: as_policy(b) for i, b in enumerate(self.bots)}
        # as FiveThousandEnv.reset(seed=...): the bots' seeds first, then the first throw
        self.rng = np.random.default_rng(seed)
        if self.bots:
            seeds = np.atleast_1d(self.rng.integers(0, 2**31 - 1, size=len(self.bots)))
            for bot, s in zip(self.bots, seeds.tolist()):
                if callable(getattr(bot, "seed", None)):
                    bot.seed(int(s))
        from agents.fivethousand.optimal import OptimalAgent

        for bot in self.bots:  # an optimal bot's table, loaded now under the build lock
            if isinstance(bot, OptimalAgent):
                load_fivethousand_tables(bot, len(self.names))
        self.game = FiveThousandGame(self.rules, len(self.names))
        opening = self.game.start(self.rng)
        #: what happened before the first decision (the openers' busts)
        self.start_events = [{"type": "bust", "player": i % len(self.names), "lost": 0,
                              "dice": None, "opening": True} for i in range(opening)]
        unit = "turns" if self.solo else "percentage points of win chance"
        #: the advisor's verdicts on each person's decisions, by seat
        self.logs = {seat: AdviceLog(lower_is_better=self.solo, unit=unit)
                     for seat in self.people}
        self.advisor: Any | None = None
        self._decision = 0
        self._advice: tuple[int, dict[int, float]] | None = None
        self._tables_loaded = False
        self.set_advise(advise)

    # -- where the game stands ---------------------------------------------------------------
    @property
    def advising(self) -> bool:
        """Whether the advisor is on."""
        return self.advisor is not None

    def set_advise(self, on: bool) -> None:
        """Turn the advisor on (loading it the first time) or off."""
        self.advisor = fivethousand_advisor() if on else None

    def advisor_note(self) -> str | None:
        """What a person should know about the advisor of this table, or None."""
        n = len(self.names)
        if n == 3:
            return ("The advisor plays three-player 5000 exactly; its table is solved the "
                    "first time (a few minutes) and cached.")
        if n > 3:
            return "With four or more players the advisor is a two-player guide vs the leader."
        return None

    def over(self) -> bool:
        """A player reached the target (alone: or the turns ran out)."""
        g = self.game
        return g.finished() or (self.max_turns is not None and g.turns[0] >= self.max_turns)

    def is_person(self, seat: int) -> bool:
        """Seat ``seat`` is a person's."""
        return seat < len(self.people)

    def human_to_move(self) -> bool:
        """A person (any of the people's seats) decides now."""
        return not self.over() and self.is_person(self.game.current)

    def mover_name(self) -> str:
        """The name of the player to move."""
        return self.names[self.game.current]

    def state(self) -> dict:
        """The game as the env's state dict, seen by the player to move (what the advisor
        reads)."""
        from dice_env.fivethousand.state import state_to_dict

        return state_to_dict(self.rules, self.game.to_state(), 0,
                             agent_seat=self.game.current)

    def mask(self) -> list[int]:
        """The legal actions of the player to move (0/1: roll on, bank)."""
        return self.game.action_mask()

    def turn_total(self) -> int:
        """The turn total with the current roll's scoring dice set aside."""
        g = self.game
        return g.turn_total + int(R.ROLL_POINTS[g.roll])

    def bank_refusal(self) -> str | None:
        """Why the player to move cannot bank now, or None."""
        g = self.game
        return R.bank_refusal(self.rules, g.scores[g.current], self.turn_total())

    def bank_preview(self) -> dict | None:
        """What banking the turn total now would do, when it would overshoot the target:
        ``{"by": points past the target, "points": the turn total, "outcome": "gift" |
        "lost_no_receiver" | "lost_receiver_over", "to": the receiver's seat or None,
        "wins": the gift takes its receiver to the target}`` (docs/rules.md, 2.4: all the
        banked points go, not only the excess); None when a bank would not overshoot."""
        g = self.game
        points = self.turn_total()
        by = g.scores[g.current] + points - self.rules.target
        if self.over() or by <= 0:
            return None
        n = len(g.scores)
        new, bumped = [0] * n, [False] * n
        outcome, receiver, winner = R.bank_one(self.rules.target, list(g.scores), g.current,
                                               points, new, bumped)
        kind = {R.GIFTED: "gift", R.GIFT_LOST_NO_RECEIVER: "lost_no_receiver",
                R.GIFT_LOST_OVERSHOOT: "lost_receiver_over"}[int(outcome)]
        return {"by": int(by), "points": int(points), "outcome": kind,
                "to": int(receiver) if receiver >= 0 else None, "wins": winner >= 0}

    # -- decisions -----------------------------------------------------------------------------
    def _play(self, action: int, verdict: FiveThousandVerdict | None = None
              ) -> FiveThousandMove:
        g = self.game
        seat, dice, total = g.current, tuple(g.thrown_dice()), self.turn_total()
        events = g.step(action, self.rng)
        return FiveThousandMove(seat, self.names[seat], action, dice, total, events, verdict)

    def bot_step(self) -> FiveThousandMove:
        """One decision of the bot to move."""
        from dice_env.fivethousand.observation import encode_observation_one

        g = self.game
        seat = g.current
        if self.is_person(seat) or self.over():
            raise RuntimeError("no bot is to move")
        mask = g.action_mask()
        obs = encode_observation_one(self.rules, g.scores, g.current, g.turn_total, g.roll,
                                     g.turns, g.winner, seat, self.max_turns)
        action = self._policies[seat](obs, np.array(mask, dtype=np.int8))
        return self._play(bot_action(self.names[seat], action, mask))

    def play_bots(self) -> list[FiveThousandMove]:
        """Every bot decision until a person's turn (or the end)."""
        moves = []
        while not self.over() and not self.is_person(self.game.current):
            moves.append(self.bot_step())
        return moves

    def check_action(self, action: int) -> int:
        """``action`` if the person to move may play it now, else ``IllegalMove`` saying
        why."""
        if self.over():
            raise IllegalMove("The game is over.")
        if not self.is_person(self.game.current):
            raise IllegalMove(f"It is {self.names[self.game.current]}'s turn.")
        mask = self.mask()
        legal = [action_name(a) for a in (ROLL, BANK) if mask[a]]
        if action not in (ROLL, BANK):
            raise IllegalMove(f"Action {action} is not a move of 5000.", legal)
        if not mask[action]:
            why = self.bank_refusal() or "not allowed"
            raise IllegalMove(f"You cannot bank now: {why}.", legal)
        return action

    def advice(self) -> dict[int, float] | None:
        """``{action: value}`` of the options of the person to move, best first: the chance
        of winning (alone: the expected turns still to play); None when off or a bot is to
        move."""
        if self.advisor is None or not self.human_to_move():
            return None
        if self._advice is None or self._advice[0] != self._decision:
            if not self._tables_loaded:
                load_fivethousand_tables(self.advisor, len(self.names))
                self._tables_loaded = True
            self._advice = (self._decision, self.advisor.advise(self.state()))
        return self._advice[1]

    def play(self, action: int) -> FiveThousandMove:
        """Play the ``action`` of the person to move (checked); with the advisor on, its
        verdict is logged in that person's log."""
        self.check_action(action)
        seat = self.game.current
        values = self.advice()
        verdict = None
        if values is not None:
            best_action, best = next(iter(values.items()))
            mine = values.get(action, best)
            cost = max(mine - best, 0.0) if self.solo else max(best - mine, 0.0) * 100
            verdict = FiveThousandVerdict(action, mine, best_action, best, cost)
            self.logs[seat].losses.append(cost)
        self._decision += 1
        return self._play(action, verdict)

    def summary(self) -> FiveThousandSummary:
        """Scores, the winner, the standings and the advisor's total expected loss (each
        person's, and all of them together)."""
        g = self.game
        winner = g.winner if g.winner >= 0 else None
        losses = [x for seat in self.people for x in self.logs[seat].losses]
        people = tuple(PersonResult.of(seat, self.names[seat], self.logs[seat])
                       for seat in self.people)
        return FiveThousandSummary(
            list(g.scores), winner, g.turns[0], g.scores[0] == self.rules.target,
            float(sum(losses)) if losses else None, len(losses), self.log.unit,
            tuple(standings(self.names, list(g.scores), self.people, winner)), people)
