"""A game of Pig of people at one screen, without the screen: the model both front-ends drive.

:class:`PigSession` holds one game for one or more people (the first seats; seat 0 opens) and
bots: the seats and their bots, one decision at a time on the rules of :mod:`dice_env.pig`
(the one-game functions the envs play), the optimal advisor's win probability of rolling and
of holding for whichever person is to move (two players: the exact table of
:mod:`agents.pig.solver`), its verdict on each person's decisions, the refusal of a move the
rules forbid (:class:`~agents.families.IllegalMove`) and the summary with the standings.

The bots see what they see inside :class:`dice_env.pig.env.PigEnv` (their own observation and
the int8 mask), seeded from the game's generator in the same order, so with one person a seed
deals the game ``PigEnv(agent_seat=0)`` deals with the same opponents.  Pig needs two players:
a person alone is seated against the envs' default opponent, ``hold-20``.

Nothing here reads input or writes output (:mod:`agents.pig.terminal` is the terminal's
screen, :mod:`agents.pig.web_view` the browser's), and nothing here imports the front-ends:
the family's hooks hand this model to them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.families import IllegalMove
from agents.people import MAX_NAME, YOU, bot_action, check_people, unique_names
from dice_env.opponents import as_policy
from dice_env.pig import game as G
from dice_env.pig import rules as R
from dice_env.pig.observation import encode_observation
from dice_env.pig.rules import PigRules, PigState, coerce_rules

__all__ = ["DEFAULT_OPPONENT", "HOLD", "MAX_BOTS", "MAX_NAME", "MAX_PLAYERS", "ROLL", "YOU",
           "PigMove", "PigPerson", "PigSession", "PigStanding", "PigSummary", "PigVerdict",
           "action_name", "check_people", "event_text", "make_bot", "pig_advisor"]

ROLL, HOLD = R.ROLL, R.HOLD
#: the most players a game of Pig seats (OpenSpiel's ``max_num_players``)
MAX_PLAYERS = R.MAX_PLAYERS
#: the most bots (one seat at least is a person's)
MAX_BOTS = MAX_PLAYERS - 1
#: the bot a person alone plays against (Pig needs two players): the envs' default opponent
DEFAULT_OPPONENT = "hold-20"


def action_name(action: int) -> str:
    """``roll`` or ``hold``."""
    return R.ACTION_NAMES[action]


def make_bot(name: str, game: Any = "pig") -> Any:
    """The registered Pig player ``name`` (:func:`agents.registry.make`); ``ValueError`` with
    a readable message when it does not exist or cannot be built here."""
    from agents.registry import make

    try:
        return make(name, game)
    except ImportError as exc:
        raise ValueError(f"player {name!r} is not available: {exc}") from None


_ADVISORS: dict[tuple, Any] = {}
_ADVISORS_LOCK = threading.Lock()


def pig_advisor(rules: PigRules) -> Any | None:
    """The optimal two-player Pig player for ``rules`` (built once per process and shared; its
    table is solved the first time on a machine, well under a second, and cached), or None
    when the exact solver does not cover these rules."""
    from agents.pig.optimal import OptimalAgent

    key = (rules.win_score, rules.die_sides, rules.piglet)
    with _ADVISORS_LOCK:
        if key not in _ADVISORS:
            try:
                agent = OptimalAgent(rules.replace(num_players=2))
                agent.solution  # noqa: B018  (the table: loaded or solved now, not mid-game)
            except ValueError:
                agent = None
            _ADVISORS[key] = agent
        return _ADVISORS[key]


def event_text(event: dict, names: Sequence[str], you: int | None = None) -> str:
    """One event of :func:`dice_env.pig.game.events_of` in words; seat ``you`` is spoken to
    as "you" (``None``: every player by name)."""
    p = event.get("player")
    me = p is not None and p == you
    who = "You" if me else (names[p] if p is not None else "")
    kind = event["type"]
    if kind == "roll":
        return (f"{who} {'roll' if me else 'rolls'} a {event['face']}: turn total "
                f"{event['turn_total']}")
    if kind == "bust":
        lost = event["lost"]
        return (f"{who} {'roll' if me else 'rolls'} a 1 and {'lose' if me else 'loses'} "
                f"{'the turn total of ' + str(lost) if lost else 'the turn (nothing banked)'}")
    if kind == "hold":
        return (f"{who} {'hold' if me else 'holds'} {event['banked']}: score "
                f"{event['score']}")
    if kind == "win":
        return f"{who} {'win' if me else 'wins'}!"
    return f"Draw: the horizon of {event['moves']} moves is reached"


@dataclass(frozen=True)
class PigVerdict:
    """The advisor's verdict on one of a person's decisions."""

    action: int
    #: the win probability after the choice
    value: float
    best_action: int
    best: float
    #: what the choice gives away, in percentage points of win chance
    cost: float


@dataclass(frozen=True)
class PigMove:
    """One decision played (a bot's or a person's) and what followed it."""

    seat: int
    name: str
    action: int
    #: the turn total the decision was made on
    turn_total: int
    #: what happened, in order (:func:`dice_env.pig.game.events_of`)
    events: list[dict] = field(default_factory=list)
    verdict: PigVerdict | None = None


@dataclass(frozen=True)
class PigStanding:
    """One player's place at the end (or where the game stands)."""

    seat: int
    name: str
    total: int
    #: 1 for the top; players level share a place (a draw at the horizon)
    place: int
    shared: bool
    person: bool


@dataclass(frozen=True)
class PigPerson:
    """One person's game as the advisor judged it."""

    seat: int
    name: str
    #: the total cost of the decisions it judged (percentage points), None if it judged none
    loss: float | None
    decisions: int


@dataclass(frozen=True)
class PigSummary:
    """The end of a game (or where it stands)."""

    scores: list[int]
    #: the winning seat, or None (no winner yet, or a draw at the horizon)
    winner: int | None
    #: the advisor's total cost over every person's decisions, None if it judged none
    loss: float | None
    decisions: int
    unit: str
    #: every player, best first: the winner, then the highest scores
    standings: tuple[PigStanding, ...] = ()
    #: each person's judged decisions, in seat order
    people: tuple[PigPerson, ...] = ()

    def lines(self, names: Sequence[str], people: int) -> list[str]:
        """The summary in words (what both screens print)."""
        out = ["Scores: " + " | ".join(f"{n} {s}" for n, s in zip(names, self.scores))]
        if people > 1:
            out.append("Standings: " + " | ".join(f"{s.place}. {s.name} {s.total}"
                                                  for s in self.standings))
        if self.winner is not None:
            out.append(f"Winner: {names[self.winner]}")
        else:
            out.append("Draw: the move limit was reached before anyone won.")
        for p in self.people:
            if p.loss is not None:
                whose = "your" if people == 1 and names[p.seat] == YOU else f"{p.name}'s"
                out.append(f"Total expected loss of {whose} game: {p.loss:.2f} {self.unit} "
                           f"over {p.decisions} decisions.")
        return out


class PigSession:
    """A game of Pig of ``people`` (at the first seats) and ``opponents`` (bot names).

    Args:
        game: the game (a resolved game, ``"pig"``, a ``PigRules``): its ``win_score``,
            ``die_sides``, ``horizon`` and ``piglet`` (the seats set ``num_players``).
        opponents: the bots' names; none: one ``hold-20`` (Pig needs two players).  With the
            people, at most :data:`MAX_PLAYERS` players.
        seed: seeds the dice and the bots (``None``: fresh entropy).
        advise: start with the advisor on (:meth:`set_advise` turns it on and off; it
            advises two-player games only).
        bot_factory: ``(name, game) -> player`` (default :func:`make_bot`: the registered
            players).
        people: the names of the people at the screen, in seat order (checked by
            :func:`check_people`; default one person, ``you``).

    ``ValueError`` with a readable message for too many seats, an unknown bot or a bot that
    cannot play this many players (the optimal player plays two-player games).
    """

    def __init__(self, game: Any = "pig", opponents: Sequence[str] = (),
                 seed: int | None = None, advise: bool = False,
                 bot_factory: Callable[[str, Any], Any] | None = None,
                 people: Sequence[str] | None = None) -> None:
        humans = check_people(people)
        #: a person alone was given the default opponent
        self.default_seated = not opponents and len(humans) == 1
        opponents = list(opponents) or ([DEFAULT_OPPONENT] if len(humans) == 1 else [])
        n = len(humans) + len(opponents)
        if n > MAX_PLAYERS:
            raise ValueError(f"Pig seats at most {MAX_PLAYERS} players; {len(humans)} "
                             f"{'person' if len(humans) == 1 else 'people'} and "
                             f"{len(opponents)} {'bot' if len(opponents) == 1 else 'bots'} "
                             f"make {n}")
        base = coerce_rules(game)
        self.rules = base.replace(num_players=n)
        self.game_name = getattr(game, "name", None) or R.NAME
        factory = bot_factory or make_bot
        self.bots = [factory(name, self.game_name) for name in opponents]
        self.names = unique_names([*humans, *opponents])
        #: the people's seats
        self.people = list(range(len(humans)))
        #: each bot's policy, by seat
        self._policies = {len(humans) + i: as_policy(b) for i, b in enumerate(self.bots)}
        self._check_bots()
        # as PigEnv.reset(seed=...): the bots' seeds first, then the game's throws
        self.rng = np.random.default_rng(seed)
        if self.bots:
            seeds = self.rng.integers(0, 2**31 - 1, size=len(self.bots)).tolist()
            for bot, s in zip(self.bots, seeds):
                if callable(getattr(bot, "seed", None)):
                    bot.seed(int(s))
        self.state: PigState = R.initial_state(self.rules)
        #: the face of the last roll of the current turn (None: no roll this turn yet)
        self.face: int | None = None
        #: the turns each seat has ended (a hold or a 1)
        self.turns = [0] * n
        #: the advisor's costs of each person's decisions, by seat
        self.losses: dict[int, list[float]] = {seat: [] for seat in self.people}
        self.unit = "percentage points of win chance"
        self.advisor: Any | None = None
        self._advice: tuple[int, dict[int, float]] | None = None
        self._decision = 0
        self.set_advise(advise)

    def _check_bots(self) -> None:
        """``ValueError`` for a bot that cannot play a game of this many players (each one
        tried on its seat's first decision)."""
        start = R.initial_state(self.rules)
        mask = np.array(R.action_mask(self.rules, start), dtype=np.int8)
        for seat, policy in self._policies.items():
            first = PigState(start.scores, 0, seat, 0)  # the seat's first decision
            try:
                int(policy(encode_observation(self.rules, first, seat), mask))
            except (ValueError, TypeError, IndexError, RuntimeError) as exc:
                raise ValueError(f"{self.names[seat]} cannot play a {self.rules.num_players}-"
                                 f"player game of Pig: {exc}") from None

    # -- where the game stands ---------------------------------------------------------------
    @property
    def unnamed(self) -> bool:
        """One person whom nobody named: the screens speak to them as "you"."""
        return self.names[:len(self.people)] == [YOU]

    @property
    def you(self) -> int | None:
        """The seat spoken to as "you" (None: every player by name)."""
        return 0 if self.unnamed else None

    @property
    def advising(self) -> bool:
        """Whether the advisor is on."""
        return self.advisor is not None

    def set_advise(self, on: bool) -> None:
        """Turn the advisor on (loading it the first time) or off; it stays off in a game of
        three or more players (see :meth:`advisor_note`)."""
        two = self.rules.num_players == 2
        #: the advisor was asked for (it may be unable to advise this table)
        self.advice_wanted = bool(on)
        self.advisor = pig_advisor(self.rules) if on and two else None
        self._advice = None

    def advisor_note(self) -> str | None:
        """Why the advisor cannot advise this table, or None."""
        if self.rules.num_players != 2:
            return (f"The optimal Pig advisor plays two-player games: it gives no advice with "
                    f"{self.rules.num_players} players.")
        return None

    def over(self) -> bool:
        """A player reached the win score, or the move limit (a draw) was reached."""
        return R.is_terminal(self.rules, self.state)

    @property
    def current(self) -> int:
        """The seat to move."""
        return self.state.current

    def is_person(self, seat: int) -> bool:
        """Seat ``seat`` is a person's."""
        return seat < len(self.people)

    def human_to_move(self) -> bool:
        """A person (any of the people's seats) decides now."""
        return not self.over() and self.is_person(self.state.current)

    def mover_name(self) -> str:
        """The name of the player to move."""
        return self.names[self.state.current]

    def mask(self) -> list[int]:
        """The legal actions of the player to move (0/1: roll, hold)."""
        return R.action_mask(self.rules, self.state)

    def winner(self) -> int | None:
        """The winning seat, or None."""
        w = R.winner(self.rules, self.state)
        return w if w >= 0 else None

    def hold_total(self) -> int:
        """The mover's score if they held now."""
        return self.state.scores[self.state.current] + self.state.turn_total

    def state_dict(self) -> dict:
        """The game as the env's state dict (what the advisor reads)."""
        return G.state_to_dict(self.rules, self.state)

    # -- decisions -----------------------------------------------------------------------------
    def _play(self, action: int, verdict: PigVerdict | None = None) -> PigMove:
        before = self.state
        seat = before.current
        self.state, events = G.step(self.rules, before, action, self.rng)
        rolled = next((e for e in events if e["type"] == "roll"), None)
        same_turn = self.state.current == seat and not self.over()
        self.face = rolled["face"] if rolled is not None and same_turn else None
        if not same_turn:
            self.turns[seat] += 1
        self._decision += 1
        return PigMove(seat, self.names[seat], action, before.turn_total, events, verdict)

    def bot_step(self) -> PigMove:
        """One decision of the bot to move (``RuntimeError`` if it chooses an illegal
        action)."""
        seat = self.state.current
        if self.over() or self.is_person(seat):
            raise RuntimeError("no bot is to move")
        mask = self.mask()
        action = self._policies[seat](encode_observation(self.rules, self.state, seat),
                                      np.array(mask, dtype=np.int8))
        return self._play(bot_action(self.names[seat], action, mask))

    def play_bots(self) -> list[PigMove]:
        """Every bot decision until a person's turn (or the end)."""
        moves = []
        while not self.over() and not self.is_person(self.state.current):
            moves.append(self.bot_step())
        return moves

    def check_action(self, action: int) -> int:
        """``action`` if the person to move may play it now, else
        :class:`~agents.families.IllegalMove` saying why (and naming the legal moves)."""
        if self.over():
            raise IllegalMove("The game is over.")
        if not self.is_person(self.state.current):
            raise IllegalMove(f"It is {self.mover_name()}'s turn.")
        mask = self.mask()
        legal = [action_name(a) for a in (ROLL, HOLD) if mask[a]]
        if action not in (ROLL, HOLD):
            raise IllegalMove(f"Action {action!r} is not a move of Pig.", legal)
        if not mask[action]:
            why = R.illegal_reason(self.rules, self.state, action)
            raise IllegalMove(f"You cannot roll now: {why}.", legal)
        return action

    def advice(self) -> dict[int, float] | None:
        """``{action: win probability}`` of the options of the person to move, best first;
        None when the advisor is off or a bot is to move."""
        if self.advisor is None or not self.human_to_move():
            return None
        if self._advice is None or self._advice[0] != self._decision:
            self._advice = (self._decision, self.advisor.advise(self.state_dict()))
        return self._advice[1]

    def play(self, action: int) -> PigMove:
        """Play the ``action`` of the person to move (checked); with the advisor on, its
        verdict is logged in that person's log."""
        self.check_action(action)
        seat = self.state.current
        values = self.advice()
        verdict = None
        if values is not None:
            best_action, best = next(iter(values.items()))
            mine = values.get(action, best)
            verdict = PigVerdict(action, mine, best_action, best, max(best - mine, 0.0) * 100)
            self.losses[seat].append(verdict.cost)
        return self._play(action, verdict)

    def summary(self) -> PigSummary:
        """Scores, the winner, the standings and the advisor's total cost (each person's, and
        all of them together)."""
        scores = list(self.state.scores)
        winner = self.winner()

        def key(seat: int) -> tuple[int, int]:
            return (0 if seat == winner else 1, -scores[seat])

        order = sorted(range(len(scores)), key=lambda i: (key(i), i))
        places = {i: 1 + sum(key(j) < key(i) for j in order) for i in order}
        table = tuple(PigStanding(i, self.names[i], scores[i], places[i],
                                  sum(places[j] == places[i] for j in order) > 1,
                                  self.is_person(i)) for i in order)
        people = tuple(PigPerson(s, self.names[s], float(sum(self.losses[s]))
                                 if self.losses[s] else None, len(self.losses[s]))
                       for s in self.people)
        losses = [x for s in self.people for x in self.losses[s]]
        return PigSummary(scores, winner, float(sum(losses)) if losses else None, len(losses),
                          self.unit, table, people)
