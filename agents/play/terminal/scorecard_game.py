"""A scorecard game in the terminal: the :class:`~agents.play.scorecard_session.
ScorecardSession` (the people -- one, or several passing the keyboard -- and the bots in
rotation, the optimal advisor's values before each decision of whoever is to move and the cost
of the choice after it) on a text screen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.play.scorecard_session import (
    N_HOLDS,
    Advice,
    ScorecardMove,
    ScorecardSession,
    Verdict,
    dice_text,
    hold_text,
    third_person,
)
from agents.play.seats import IllegalMove, result_line, standings_line
from agents.play.terminal.commands import (
    SCORECARD_HELP,
    InputError,
    QuitGame,
    parse_scorecard_command,
)
from agents.play.terminal.line_input import Terminal
from agents.play.terminal.scorecard_screen import dice_lines, render_scorecards, totals_line
from dice_env.scorecard.render import MUST_SCRATCH_WARNING
from dice_env.scorecard.rules import Rules

#: the prompt of one person whom nobody named (with names: ``Ann's move> ``)
PROMPT = "your move> "


class ScorecardTerminalGame:
    """A game of a scorecard preset in the terminal: the people (``people``: their names, in
    seat order; default one, ``you``) and the bots in rotation, on one
    :class:`ScorecardSession`."""

    def __init__(self, rules: Rules, term: Terminal, opponents: Sequence[str], seed: int | None,
                 auto_seconds: float, advise: bool,
                 people: Sequence[str] | None = None) -> None:
        self.session = ScorecardSession(rules, opponents, seed, advise, people=people)
        self.rules = rules
        self.term = term
        self.auto_seconds = float(auto_seconds)
        self.names = self.session.names
        self.table = self.session.table
        self.you = self.session.unnamed

    def _mover(self) -> str:
        """The person to move as the screen calls them: ``you``, or their name."""
        return "you" if self.you else self.names[self.table.current]

    def _bot_turn(self) -> None:
        s = self.session
        move = s.bot_step()
        parts = [f"{move.name} rolls {dice_text(move.dice)}"]
        while move.dice_after is not None:
            parts.append(f"{hold_text(move.dice, move.action)} -> {dice_text(move.dice_after)}")
            move = s.bot_step()
        parts.append(f"scores {move.points} in {self.rules.labels[move.box]} "
                     f"(total {move.total})")
        self.term.say("  . " + "; ".join(parts))

    # -- a person's turn -----------------------------------------------------------------
    def _show(self) -> None:
        r, t, s = self.rules, self.table, self.session
        turn = "your turn" if self.you else f"{self._mover()}'s turn"
        self.term.say("")
        self.term.say(f"=== {r.name} - round {s.round_no()} of {r.n_boxes} - {turn}, roll "
                      f"{s.roll_no()} of {r.rolls_per_turn} ===")
        self.term.say(render_scorecards(t, self.names, now=t.current))
        self.term.say(totals_line(t, self.names))
        self.term.say(dice_lines(t.dice()))
        self.term.say(f"Rerolls left: {t.rolls_left()}")
        if t.must_scratch:
            self.term.say(MUST_SCRATCH_WARNING)

    def _advice(self) -> None:
        advice: Advice | None = self.session.advice()
        if advice is None:
            return
        if advice.with_win:
            self.term.say("Advisor (expected final score and chance of winning of each "
                          "option, best score first):")
        else:
            self.term.say("Advisor (expected final score of each option, best first):")
        shown = advice.shown
        for o in shown:
            chance = "" if not advice.with_win else (
                "  P(win)     ? " if o.win is None else f"  P(win) {100 * o.win:5.1f} %")
            self.term.say(f"  {o.value:8.2f}{chance}  {o.text}")
        if len(advice.options) > len(shown):
            self.term.say(f"  ... and {len(advice.options) - len(shown)} more options")

    def _judge(self, verdict: Verdict | None, name: str) -> None:
        if verdict is None:
            return
        whose = "your" if name == "you" else f"{name}'s"
        self.term.say(f"Advisor: {whose} choice ({verdict.text}) is worth {verdict.value:.2f}; "
                      f"best {verdict.best:.2f} ({verdict.best_text}); "
                      f"cost of {whose} choice: {verdict.cost:.2f}")

    def _read_action(self) -> tuple[int, bool]:
        """Ask until the player gives a legal action (or the auto-score timer runs out):
        ``(action, auto)``; a hold comes back as the canonical hold of the same dice."""
        r, s = self.rules, self.session
        timed = s.auto_scores() and self.auto_seconds > 0
        whose = "your" if self.you else f"{self._mover()}'s"
        while True:
            prompt = f"{whose} move> "
            if timed:
                prompt = f"{whose} move (auto-score in {self.auto_seconds:g}s)> "
            line = self.term.ask(prompt, self.auto_seconds if timed else None)
            if line is None:
                box = s.auto_box()
                self.term.say(f"No choice within {self.auto_seconds:g}s: the computer's "
                              f"choice, {r.labels[box]}, is scored for {self._mover()}.")
                return N_HOLDS + box, True
            try:
                cmd = parse_scorecard_command(line, r.labels)
                if cmd.kind == "help":
                    self.term.say(SCORECARD_HELP)
                    continue
                if cmd.kind == "quit":
                    raise QuitGame
                if cmd.kind == "hold":
                    return s.hold_action(cmd.positions), False
                return s.score_action(int(cmd.box)), False
            except (InputError, IllegalMove) as exc:
                self.term.say(str(exc))

    def _human_turn(self) -> None:
        r = self.rules
        name = self._mover()
        if not self.you and len(self.session.people) > 1:
            self.term.say("")
            self.term.say(f">>> {name}'s turn: pass the keyboard to {name}. <<<")
        who = "You" if self.you else name
        while True:
            self._show()
            self._advice()
            self.term.say("Hold dice and reroll (h 1 3 4), r reroll all, s BOX score, "
                          "? help, q quit.")
            action, auto = self._read_action()
            move: ScorecardMove = self.session.play(action, auto)
            self._judge(move.verdict, name)
            ending = "" if self.you else "s"  # you score, Ann scores
            if move.box is not None:
                self.term.say(f"{who} score{ending} {move.points} in {r.labels[move.box]} "
                              f"(total {move.total}).")
                return
            held = hold_text(move.dice, action)
            if not self.you:
                held = third_person(held)
            self.term.say(f"{who} {held} and roll{ending} {dice_text(move.dice_after or ())}.")

    def play(self) -> int:
        """Play the whole game; returns the exit status."""
        r, t, s = self.rules, self.table, self.session
        if s.advisor is not None:
            self.term.say(f"Advisor on: the optimal player's expected final score from a new "
                          f"game is {s.advisor.expected_score:.2f}.")
        try:
            while not s.over():
                if s.human_to_move():
                    self._human_turn()
                else:
                    self._bot_turn()
        except QuitGame:
            self.term.say("You quit the game." if self.you else
                          f"{self._mover()} quit the game.")
            self.term.say(totals_line(t, self.names))
            return 0
        self.term.say("")
        self.term.say(f"=== {r.name} - game over ===")
        self.term.say(render_scorecards(t, self.names))
        self.term.say(totals_line(t, self.names))
        summary = s.summary()
        if len(s.people) == 1:
            self.term.say(f"Final total: {summary.totals[0]}")
        else:
            self.term.say(standings_line(summary.standings))
        if len(self.names) > 1:
            self.term.say(result_line(summary.standings))
        if s.advisor is not None:
            expects = (f"(optimal play expects {s.advisor.expected_score:.2f} from the "
                       "start)")
            for person in summary.people:
                whose = "your" if self.you else f"{person.name}'s"
                self.term.say(f"Total expected loss of {whose} game: {person.loss or 0:.2f} "
                              f"points over {person.decisions} decisions {expects}.")
        return 0


def start_game(game: Any, term: Terminal, opponents: Sequence[str], seed: int | None, *,
               advise: bool, people: Sequence[str] | None = None,
               auto_seconds: float = 3.0) -> ScorecardTerminalGame:
    """A scorecard game of ``game`` (a resolved :class:`~agents.games.Game`) in the terminal,
    ready to :meth:`~ScorecardTerminalGame.play`: the family's ``"terminal_game"`` hook.
    ``ValueError`` with a readable message for a bot or a table it cannot seat."""
    return ScorecardTerminalGame(game.rules, term, opponents, seed, auto_seconds, advise,
                                 people)
