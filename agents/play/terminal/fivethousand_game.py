"""A game of 5000 in the terminal: the :class:`~agents.play.fivethousand_session.
FiveThousandSession` (one person or several passing the keyboard, against the bots, or one
person alone) on a text screen, with what the others did between a person's decisions and the
optimal advisor of whoever is to move."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.play.fivethousand_session import BANK, MAX_BOTS, ROLL, FiveThousandSession
from agents.play.seats import IllegalMove, result_line, standings_line
from agents.play.terminal.commands import (
    FIVE_THOUSAND_HELP,
    InputError,
    QuitGame,
    parse_fivethousand_command,
)
from agents.play.terminal.line_input import Terminal


class FiveThousandTerminalGame:
    """A game of 5000 in the terminal: the people (``people``: their names, in seat order;
    default one, ``you``) against the bots, or one person alone."""

    def __init__(self, term: Terminal, opponents: Sequence[str], seed: int | None,
                 advise: bool, people: Sequence[str] | None = None) -> None:
        self.session = FiveThousandSession(opponents, seed, advise, people=people)
        self.term = term
        self.advise = advise
        self.names = self.session.names
        self.rules = self.session.rules
        #: the seat spoken to as "you" (None: every player by name)
        self.you = 0 if self.session.unnamed else None

    def _show(self, events: list[dict]) -> None:
        from dice_env.fivethousand.render import render_game

        st = self.session.game.to_state()
        self.term.say("")
        self.term.say(render_game(self.rules, st, names=self.names, events=events,
                                  you=self.you).rstrip())

    def _advice(self) -> None:
        values = self.session.advice()
        if values is None:
            return
        if self.session.solo:
            self.term.say("Advisor (expected turns still to play, fewest first):")
            for a, v in values.items():
                self.term.say(f"  {v:8.2f}  {'bank' if a == BANK else 'roll on'}")
        else:
            guide = "" if len(self.names) <= 3 else " (a two-player guide vs the leader)"
            self.term.say(f"Advisor (your win probability after each option{guide}):")
            for a, v in values.items():
                self.term.say(f"  {100 * v:7.2f}%  {'bank' if a == BANK else 'roll on'}")

    def _read_action(self) -> int:
        who = "" if self.you is not None else f"{self.session.mover_name()}: "
        while True:
            line = self.term.ask(f"{who}roll on or bank [r/b]> ")
            try:
                cmd = parse_fivethousand_command(line or "")
                if cmd.kind == "help":
                    self.term.say(FIVE_THOUSAND_HELP)
                    continue
                if cmd.kind == "quit":
                    raise QuitGame
                return self.session.check_action(BANK if cmd.kind == "bank" else ROLL)
            except InputError as exc:
                self.term.say(str(exc))
            except IllegalMove as exc:
                self.term.say(f"{exc} Type r to roll on.")

    def _final(self, events: list[dict]) -> None:
        from dice_env.fivethousand.render import describe_event

        summary = self.session.summary()
        self.term.say("")
        self.term.say("=== 5000 - game over ===")
        for event in events:
            self.term.say("  . " + describe_event(event, self.names, you=self.you))
        scores = summary.scores
        self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
        if len(self.session.people) > 1:
            self.term.say(standings_line(summary.standings))
        if self.session.solo:
            self.term.say(f"You reached {self.rules.target} in {summary.turns} turns."
                          if summary.reached else "Out of turns.")
        elif summary.winner is not None:
            self.term.say(result_line(summary.standings))
        if self.advise and self.session.advisor is not None:
            for person in summary.people:
                whose = "your" if person.seat == self.you else f"{person.name}'s"
                self.term.say(f"Total expected loss of {whose} game: {person.loss or 0:.2f} "
                              f"{summary.unit} over {person.decisions} decisions.")

    def play(self) -> int:
        """Play the whole game; returns the exit status."""
        s = self.session
        if self.advise and len(self.names) == 3:
            self.term.say(s.advisor_note())
        events = list(s.start_events)
        try:
            for move in s.play_bots():
                events += move.events
            mover = None
            while not s.over():
                if self.you is None and len(s.people) > 1 and s.game.current != mover:
                    mover = s.game.current
                    self.term.say("")
                    self.term.say(f">>> {s.mover_name()}'s turn: pass the keyboard to "
                                  f"{s.mover_name()}. <<<")
                self._show(events)
                self._advice()
                move = s.play(self._read_action())
                if move.verdict is not None:
                    unit = "turns" if s.solo else "percentage points"
                    self.term.say(f"Advisor: cost of your choice: {move.verdict.cost:.2f} {unit}")
                events = list(move.events)
                for bot_move in s.play_bots():
                    events += bot_move.events
        except QuitGame:
            self.term.say("You quit the game." if self.you is not None else
                          f"{s.mover_name()} quit the game.")
            scores = s.game.scores
            self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
            return 0
        self._final(events)
        return 0


def start_game(game: Any, term: Terminal, opponents: Sequence[str], seed: int | None, *,
               advise: bool, people: Sequence[str] | None = None,
               auto_seconds: float = 3.0) -> FiveThousandTerminalGame:
    """A game of 5000 in the terminal, ready to :meth:`~FiveThousandTerminalGame.play`: the
    family's ``"terminal_game"`` hook (``auto_seconds`` is not used: 5000 has no auto-score
    timer).  ``ValueError`` with a readable message for a bot or a table it cannot seat."""
    if len(opponents) > MAX_BOTS:
        raise ValueError(f"5000 seats at most {MAX_BOTS} bots")
    return FiveThousandTerminalGame(term, opponents, seed, advise, people)
