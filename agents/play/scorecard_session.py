"""A scorecard game of people at one screen, without the screen: the model both front-ends
drive.

:class:`ScorecardSession` holds one game of Penta, Dice Poker or a Yahtzee preset for one or
more people (the first seats; seat 0 opens every round) and up to five bots, at most six
seats in all (a person alone plays solitaire), on one :class:`ScorecardTable` (the multi-player
match core): the seats and their bots, the optimal advisor (each option's expected final score
and, with others at the table, its chance of winning) for whichever person is to move, the
advisor's verdict on each person's decisions, the computer's choice that the auto-score timer
scores, the checks of a move (with the messages a person reads) and the summary and standings
at the end.  Nothing here reads input or writes output: the terminal program
(:mod:`agents.play.terminal.scorecard_game`) and the web app (:mod:`agents.play.web`) show the
same game on different screens.  Every rule (rolls, masks,
points, the Joker, the bonuses) comes from :mod:`dice_env` through the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.people import bot_action
from agents.play.advisors import cached
from agents.play.scorecard_table import ScorecardTable
from agents.play.seats import (
    AdviceLog,
    IllegalMove,
    PeopleAtTable,
    PersonResult,
    Seat,
    Standing,
    check_people,
    check_seats,
    make_bot,
    standings,
    unique_names,
)
from dice_env import dice as D
from dice_env.scorecard.rules import Rules

N_HOLDS = D.N_HOLDS
#: the advisor lists at most this many options (plus the best box and the likeliest winner)
TOP_ADVICE = 8


def scorecard_advisor(rules: Rules) -> Any:
    """The expected-score-optimal player of ``rules`` (its ``advise`` gives each option's
    expected final score)."""
    from agents.scorecard.optimal import OptimalAgent

    return cached(("scorecard", rules), lambda: OptimalAgent(rules))


def win_advisor(rules: Rules, num_players: int) -> Any | None:
    """The win-value player for the P(win) column of a ``num_players`` game, or None where
    it has no model."""
    def build() -> Any | None:
        from agents.scorecard.win_value import WinValueAgent

        try:
            return WinValueAgent(rules, num_players=num_players)
        except (FileNotFoundError, ValueError):
            return None

    return cached(("win", rules, int(num_players)), build)


def has_win_model(rules: Rules) -> bool:
    """Whether ``rules`` has a committed win-value model (the advisor's P(win) column).
    Looked up by name (:func:`agents.paths.win_value_model`), without importing the
    network's module: that imports torch, a second of a game's start."""
    from agents.paths import win_value_model

    return win_value_model(rules.name).is_file()


def dice_text(dice: Sequence[int]) -> str:
    """``[1 3 3 5 6]``."""
    return "[" + " ".join(str(int(d)) for d in dice) + "]"


def held_dice(dice: Sequence[int], hold: int) -> list[int]:
    """The faces a hold bitmask keeps of ``dice``."""
    return [int(dice[i]) for i in range(D.N_DICE) if hold >> i & 1]


def hold_text(dice: Sequence[int], hold: int) -> str:
    """``hold [3 3]`` or ``reroll all``."""
    kept = held_dice(dice, hold)
    return f"hold {dice_text(kept)}" if kept else "reroll all"


def third_person(text: str) -> str:
    """A move in words said of someone else: ``hold [3 3]`` -> ``holds [3 3]``, ``reroll
    all`` -> ``rerolls all``."""
    verb, _, rest = text.partition(" ")
    return f"{verb}s {rest}".rstrip()


def action_text(rules: Rules, dice: Sequence[int], action: int, points: Sequence[int]) -> str:
    """An action in words: ``hold [3 3]``, ``reroll all`` or ``score Brelan (9)``."""
    if action < N_HOLDS:
        return hold_text(dice, action)
    k = action - N_HOLDS
    return f"score {rules.labels[k]} ({int(points[k])})"


def kept_positions(dice: Sequence[int], kept: Iterable[int]) -> list[int]:
    """Positions of ``dice`` (sorted) showing the faces ``kept`` (the leftmost of each face):
    where the dice a hold kept lie after the reroll sorted the roll again."""
    out: list[int] = []
    for face in sorted(kept):
        out.append(next(i for i, d in enumerate(dice) if d == face and i not in out))
    return out


def _probability(x: float) -> float | None:
    """``x`` clipped to [0, 1]; None if it is not a number."""
    x = float(x)
    return None if np.isnan(x) else min(max(x, 0.0), 1.0)


@dataclass(frozen=True)
class AdviceOption:
    """One legal option with the advisor's values."""

    action: int
    #: expected final score if taken (then played optimally)
    value: float
    #: chance of winning if taken (the win-value player's estimate), None without one
    win: float | None
    text: str
    #: among the options a screen lists first (the best few, the best box, the likeliest win)
    shown: bool


@dataclass(frozen=True)
class Advice:
    """The advisor's values of every legal option of one decision, best expected score first."""

    options: tuple[AdviceOption, ...]
    #: the options carry P(win) (a game against bots with a win-value model)
    with_win: bool

    @property
    def values(self) -> dict[int, float]:
        """``{action: expected final score}``, best first (as ``OptimalAgent.advise``)."""
        return {o.action: o.value for o in self.options}

    @property
    def shown(self) -> list[AdviceOption]:
        """The options a screen lists first."""
        return [o for o in self.options if o.shown]


@dataclass(frozen=True)
class Verdict:
    """The advisor's verdict on one of a person's decisions."""

    action: int
    text: str
    value: float
    best_action: int
    best_text: str
    best: float
    #: the expected points the choice gives away (0 for a best choice)
    cost: float


@dataclass(frozen=True)
class ScorecardMove:
    """One decision played (a bot's or a person's)."""

    seat: int
    name: str
    action: int
    #: the roll the decision was made on (sorted)
    dice: tuple[int, ...]
    #: the points a score earned (bonuses included); 0 for a hold
    points: int
    #: the player's total afterwards
    total: int
    #: a hold: the new roll; ``None`` after a score
    dice_after: tuple[int, ...] | None = None
    #: the box the computer chose when the auto-score timer ran out
    auto: bool = False
    verdict: Verdict | None = None

    @property
    def box(self) -> int | None:
        """The box scored, or None for a hold."""
        return self.action - N_HOLDS if self.action >= N_HOLDS else None

    @property
    def kept(self) -> list[int]:
        """The faces a hold kept (empty for a score)."""
        return held_dice(self.dice, self.action) if self.action < N_HOLDS else []


@dataclass(frozen=True)
class ScorecardSummary:
    """The end of a game (or where it stands)."""

    totals: list[int]
    #: the seats with the highest total
    winners: list[int]
    #: the advisor's total expected loss over every person's decisions, None if it never
    #: judged one
    loss: float | None
    decisions: int
    #: the optimal player's expected final score from a new game (with an advisor)
    expected_score: float | None
    #: every player, best first (a shared top as docs/rules.md, 1.6)
    standings: tuple[Standing, ...] = ()
    #: each person's judged decisions, in seat order
    people: tuple[PersonResult, ...] = ()


class ScorecardSession(PeopleAtTable):
    """A scorecard game of ``people`` (at the first seats) and ``opponents`` (bot names).

    Args:
        rules: the game.
        opponents: the bots' names (with the people, at most six players: the match core's
            seats).
        seed: seeds the dice and the bots (``None``: fresh entropy); a seed deals the same
            dice and bots whatever the people's names.  Seat ``k`` throws the dice of game
            ``k`` of ``dice-env evaluate --seed SEED`` (the stream ``(SEED, k)`` of
            :class:`~dice_env.dice.DiceStream`): for the same decisions, the first seat's game
            is the one ``dice-env replay --seed SEED`` shows.
        advise: start with the advisor on (:meth:`set_advise` turns it on and off).
        bot_factory: ``(name, game) -> player`` (default :func:`~agents.play.seats.make_bot`:
            the registered players); a ``ValueError`` from it refuses the name.
        people: the names of the people at the screen, in seat order (checked by
            :func:`~agents.play.seats.check_people`; default: one person, ``you``).
        defer_win: with the advisor on, do not build its P(win) player (whose score-spread
            tables may have to be computed first): the advisor gives the expected-score
            advice, :attr:`win_pending` says that the P(win) column waits, and
            :meth:`attach_win` adds it once its tables are ready (the web app's games).
    """

    def __init__(self, rules: Rules, opponents: Sequence[str], seed: int | None = None,
                 advise: bool = False,
                 bot_factory: Callable[[str, str], Any] = make_bot,
                 people: Sequence[str] | None = None, defer_win: bool = False) -> None:
        from dice_env.scorecard.match import MAX_PLAYERS

        humans = check_people(people)
        check_seats(len(humans), len(opponents), MAX_PLAYERS)
        self.rules = rules
        seq = np.random.SeedSequence(seed)
        dice_seq, *bot_seqs = seq.spawn(len(opponents) + 1)
        self.names = unique_names([*humans, *opponents])
        self.seats = [Seat(name, None) for name in self.names[:len(humans)]]
        for name, bot_name, bot_seq in zip(self.names[len(humans):], opponents, bot_seqs,
                                           strict=True):
            bot = bot_factory(bot_name, rules.name)
            bot.seed(int(bot_seq.generate_state(1)[0]))
            self.seats.append(Seat(name, bot))
        #: the people's seats
        self.people = list(range(len(humans)))
        dice = (np.random.default_rng(dice_seq) if seed is None
                else D.DiceStream(int(seed), np.arange(len(self.seats))))
        self.table = ScorecardTable(rules, len(self.seats), dice)
        self.advisor: Any | None = None
        self.win_advisor: Any | None = None
        self.defer_win = bool(defer_win)
        #: the advisor waits for its P(win) player (:meth:`attach_win`)
        self.win_pending = False
        #: the advisor's verdicts on each person's decisions, by seat
        self.logs = {seat: AdviceLog() for seat in self.people}
        self._decision = 0  # counts the people's decisions (the advice cache's key)
        self._advice: tuple[int, Advice] | None = None
        self.set_advise(advise)

    # -- where the game stands ---------------------------------------------------------------
    @property
    def advising(self) -> bool:
        """Whether the advisor is on."""
        return self.advisor is not None

    def set_advise(self, on: bool) -> None:
        """Turn the advisor on (building it the first time) or off."""
        if not on:
            self.advisor = self.win_advisor = None
            self.win_pending = False
            return
        if self.advisor is None:
            self.advisor = scorecard_advisor(self.rules)
            if len(self.seats) > 1:
                if self.defer_win:
                    self.win_pending = has_win_model(self.rules)
                else:
                    self.win_advisor = win_advisor(self.rules, len(self.seats))

    def attach_win(self) -> None:
        """Add the advisor's P(win) player that :attr:`win_pending` waits for (its tables
        must be ready: they are loaded now, once per process); the advice of the decision on
        the table is computed again, with it."""
        if self.win_pending and self.advisor is not None:
            self.win_advisor = win_advisor(self.rules, len(self.seats))
            self.win_pending = False
            self._advice = None

    def over(self) -> bool:
        """Every card is full."""
        return self.table.over()

    def is_person(self, seat: int) -> bool:
        """Seat ``seat`` is a person's."""
        return self.seats[seat].person

    def human_to_move(self) -> bool:
        """A person (any of the people's seats) decides now."""
        return not self.over() and self.is_person(self.table.current)

    def mover_name(self) -> str:
        """The name of the player to move (of the last mover once the game is over)."""
        return self.names[self.table.current]

    def round_no(self, seat: int | None = None) -> int:
        """The round ``seat`` (default: the player to move) plays, from 1."""
        seat = self.table.current if seat is None else seat
        return min(self.table.filled(seat) + 1, self.rules.n_boxes)

    def roll_no(self) -> int:
        """Which roll of the turn is on the table, from 1."""
        return self.rules.rolls_per_turn - self.table.rolls_left()

    def totals(self) -> list[int]:
        """Every seat's TOTAL."""
        return [c["total"] for c in self.table.breakdowns()]

    # -- the bots ------------------------------------------------------------------------------
    def bot_step(self) -> ScorecardMove:
        """One decision of the bot to move (a hold or a score)."""
        t = self.table
        me = t.current
        seat = self.seats[me]
        if seat.person or self.over():
            raise RuntimeError("no bot is to move")
        dice = tuple(t.dice())
        obs = t.match_observation() if getattr(seat.bot, "reads_match", False) \
            else t.observation()
        action = bot_action(seat.name, seat.bot.act(obs, t.mask.astype(np.int8)), t.mask)
        return self._play(me, action, dice)

    def play_bots(self) -> list[ScorecardMove]:
        """Every bot decision until a person's turn (or the end)."""
        moves = []
        while not self.over() and not self.is_person(self.table.current):
            moves.append(self.bot_step())
        return moves

    def _play(self, seat: int, action: int, dice: tuple[int, ...], auto: bool = False,
              verdict: Verdict | None = None) -> ScorecardMove:
        t = self.table
        points = t.step(action)
        after = tuple(t.dice()) if action < N_HOLDS else None
        return ScorecardMove(seat, self.names[seat], action, dice, points,
                             t.breakdowns()[seat]["total"], after, auto, verdict)

    # -- the people's decisions ------------------------------------------------------------
    def _require_human(self) -> None:
        if self.over():
            raise IllegalMove("The game is over.")
        if not self.is_person(self.table.current):
            raise IllegalMove(f"It is {self.names[self.table.current]}'s turn.")

    def legal_moves(self) -> list[str]:
        """The legal moves of the person to move, in words (for a refusal's message)."""
        t = self.table
        moves = ["hold any dice and reroll"] if t.rolls_left() > 0 else []
        moves += [f"score {self.rules.labels[k]}" for k in np.flatnonzero(t.mask[N_HOLDS:])]
        return moves

    def hold_action(self, positions: Iterable[int]) -> int:
        """The action that holds the dice at ``positions`` (0-based) and rerolls the others:
        the canonical hold keeping the same dice.  ``IllegalMove`` when no reroll is left."""
        self._require_human()
        positions = sorted(set(int(p) for p in positions))
        if any(not 0 <= p < D.N_DICE for p in positions):
            raise IllegalMove(f"Dice positions are 0 to {D.N_DICE - 1}.", self.legal_moves())
        if self.table.rolls_left() == 0:
            raise IllegalMove("No rerolls left: score this roll in a box.", self.legal_moves())
        if len(positions) == D.N_DICE:
            raise IllegalMove("Holding all five dice is not a reroll: score them in a box.",
                              self.legal_moves())
        action = self.table.canonical(D.hold_bits(positions))
        if not self.table.mask[action]:  # pragma: no cover - every canonical hold is legal
            raise IllegalMove("That hold is not allowed here.", self.legal_moves())
        return action

    def score_action(self, box: int) -> int:
        """The action that scores the roll in ``box``; ``IllegalMove`` for a filled box or one
        the Joker rule forbids."""
        self._require_human()
        r, t = self.rules, self.table
        k = int(box)
        if not 0 <= k < r.n_boxes:
            raise IllegalMove(f"There is no box {k}: boxes are 0 to {r.n_boxes - 1}.",
                              self.legal_moves())
        filled = t.card(t.current)["scores"][k]
        if filled is not None:
            raise IllegalMove(f"{r.labels[k]} is already filled ({filled}); choose an open box.",
                              self.legal_moves())
        if not t.mask[N_HOLDS + k]:
            boxes = [r.labels[j] for j in np.flatnonzero(t.mask[N_HOLDS:])]
            raise IllegalMove(f"Not allowed here (the Joker rule); legal boxes: "
                              f"{', '.join(boxes)}.", self.legal_moves())
        return N_HOLDS + k

    def auto_box(self) -> int:
        """The box the computer would score the roll on the table in (the heuristic's choice,
        :func:`agents.scorecard.heuristic.computer_choice`), what the auto-score timer plays."""
        from agents.scorecard.heuristic import computer_choice

        return int(computer_choice(self.rules, self.table.card(self.table.current)))

    def auto_scores(self) -> bool:
        """Whether the auto-score timer runs now: a person's decision after the last roll."""
        return self.human_to_move() and self.table.rolls_left() == 0

    def advice(self) -> Advice | None:
        """The advisor's values of the options of the person to move (None when it is off or
        a bot is to move); computed once per decision."""
        if self.advisor is None or not self.human_to_move():
            return None
        if self._advice is not None and self._advice[0] == self._decision:
            return self._advice[1]
        t = self.table
        st = t.card(t.current)
        values = self.advisor.advise(st, canonical_holds=True)
        win = None
        if self.win_advisor is not None:
            win = self.win_advisor.action_values(t.match_observation(t.current))
        order = list(values)
        shown = set(order[:TOP_ADVICE])
        best_box = next((a for a in order if a >= N_HOLDS), None)
        if best_box is not None:
            shown.add(best_box)  # always show the best box to score in
        if win is not None:
            shown.add(max(order, key=lambda a: win[a]))  # and the option most likely to win
        options = tuple(
            AdviceOption(a, values[a], None if win is None else _probability(win[a]),
                         action_text(self.rules, st["dice"], a, t.box_points), a in shown)
            for a in order)
        advice = Advice(options, win is not None)
        self._advice = (self._decision, advice)
        return advice

    def play(self, action: int, auto: bool = False) -> ScorecardMove:
        """Play the legal ``action`` of the person to move (from :meth:`hold_action`,
        :meth:`score_action` or ``N_HOLDS + auto_box()``); with the advisor on, its verdict is
        logged in that person's log and returned."""
        self._require_human()
        t = self.table
        seat = t.current
        if not (0 <= action < len(t.mask) and t.mask[action]):
            raise IllegalMove(f"Action {action} is not legal here.", self.legal_moves())
        dice = tuple(t.dice())
        advice = self.advice()
        verdict = None
        if advice is not None:
            values = advice.values
            best_action, best = next(iter(values.items()))
            mine = values.get(action, best)
            verdict = Verdict(action, action_text(self.rules, dice, action, t.box_points), mine,
                              best_action,
                              action_text(self.rules, dice, best_action, t.box_points), best,
                              max(best - mine, 0.0))
            self.logs[seat].losses.append(verdict.cost)
        self._decision += 1
        return self._play(seat, action, dice, auto, verdict)

    def summary(self) -> ScorecardSummary:
        """Totals, winners, the standings and the advisor's total expected loss (each
        person's, and all of them together)."""
        totals = self.totals()
        best = max(totals)
        losses = [x for seat in self.people for x in self.logs[seat].losses]
        people = tuple(PersonResult.of(seat, self.names[seat], self.logs[seat])
                       for seat in self.people)
        return ScorecardSummary(
            totals, [i for i, v in enumerate(totals) if v == best],
            float(sum(losses)) if losses else None, len(losses),
            None if self.advisor is None else float(self.advisor.expected_score),
            tuple(standings(self.names, totals, self.people)), people)
