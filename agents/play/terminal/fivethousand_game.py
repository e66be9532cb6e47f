"""A game of 5000 in the terminal: the :class:`~agents.play.fivethousand_session.
FiveThousandSession` (the human at seat 0 against the bots, or alone) on a text screen, with
what the bots did between the human's decisions and the optimal advisor."""

from __future__ import annotations

from collections.abc import Sequence

from agents.play.fivethousand_session import BANK, ROLL, FiveThousandSession
from agents.play.seats import IllegalMove
from agents.play.terminal.commands import (
    FIVE_THOUSAND_HELP,
    InputError,
    QuitGame,
    parse_fivethousand_command,
)
from agents.play.terminal.line_input import Terminal


class FiveThousandTerminalGame:
    """A game of 5000 in the terminal: the human at seat 0 against the bots (or alone)."""

    def __init__(self, term: Terminal, opponents: Sequence[str], seed: int | None,
                 advise: bool) -> None:
        self.session = FiveThousandSession(opponents, seed, advise)
        self.term = term
        self.advise = advise
        self.names = self.session.names
        self.rules = self.session.rules

    def _show(self, events: list[dict]) -> None:
        from dice_env.fivethousand.render import render_game

        st = self.session.game.to_state()
        self.term.say("")
        self.term.say(render_game(self.rules, st, names=self.names, events=events, you=0).rstrip())

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
        while True:
            line = self.term.ask("roll on or bank [r/b]> ")
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
            self.term.say("  . " + describe_event(event, self.names, you=0))
        scores = summary.scores
        self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
        if self.session.solo:
            self.term.say(f"You reached {self.rules.target} in {summary.turns} turns."
                          if summary.reached else "Out of turns.")
        elif summary.winner is not None:
            self.term.say(f"Winner: {self.names[summary.winner]}")
        if self.advise and self.session.advisor is not None:
            self.term.say(f"Total expected loss of your game: {self.session.log.total:.2f} "
                          f"{summary.unit} over {summary.decisions} decisions.")

    def play(self) -> int:
        """Play the whole game; returns the exit status."""
        s = self.session
        if self.advise and s.advisor is None:
            self.term.say("No optimal 5000 advisor is available in this installation: no "
                          "advice will be shown.")
        elif self.advise and len(self.names) == 3:
            self.term.say(s.advisor_note())
        events = list(s.start_events)
        try:
            for move in s.play_bots():
                events += move.events
            while not s.over():
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
            self.term.say("You quit the game.")
            scores = s.game.scores
            self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
            return 0
        self._final(events)
        return 0
