"""A scorecard game in the terminal: the :class:`~agents.play.scorecard_session.
ScorecardSession` (the human at seat 0 and the bots in rotation, the optimal advisor's values
before each decision and the cost of the choice after it) on a text screen."""

from __future__ import annotations

from collections.abc import Sequence

from agents.play.scorecard_session import (
    N_HOLDS,
    Advice,
    ScorecardMove,
    ScorecardSession,
    Verdict,
    dice_text,
    hold_text,
)
from agents.play.seats import IllegalMove
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

PROMPT = "your move> "


class ScorecardTerminalGame:
    """A game of a scorecard preset in the terminal: the human (seat 0) and the bots in
    rotation, on one :class:`ScorecardSession`."""

    def __init__(self, rules: Rules, term: Terminal, opponents: Sequence[str], seed: int | None,
                 auto_seconds: float, advise: bool) -> None:
        self.session = ScorecardSession(rules, opponents, seed, advise)
        self.rules = rules
        self.term = term
        self.auto_seconds = float(auto_seconds)
        self.names = self.session.names
        self.table = self.session.table

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

    # -- the human's turn ----------------------------------------------------------------
    def _show(self) -> None:
        r, t, s = self.rules, self.table, self.session
        self.term.say("")
        self.term.say(f"=== {r.name} - round {s.round_no(0)} of {r.n_boxes} - your turn, roll "
                      f"{s.roll_no()} of {r.rolls_per_turn} ===")
        self.term.say(render_scorecards(t, self.names, now=0))
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

    def _judge(self, verdict: Verdict | None) -> None:
        if verdict is None:
            return
        self.term.say(f"Advisor: your choice ({verdict.text}) is worth {verdict.value:.2f}; "
                      f"best {verdict.best:.2f} ({verdict.best_text}); "
                      f"cost of your choice: {verdict.cost:.2f}")

    def _read_action(self) -> tuple[int, bool]:
        """Ask until the player gives a legal action (or the auto-score timer runs out):
        ``(action, auto)``; a hold comes back as the canonical hold of the same dice."""
        r, s = self.rules, self.session
        timed = s.auto_scores() and self.auto_seconds > 0
        while True:
            prompt = PROMPT
            if timed:
                prompt = f"your move (auto-score in {self.auto_seconds:g}s)> "
            line = self.term.ask(prompt, self.auto_seconds if timed else None)
            if line is None:
                box = s.auto_box()
                self.term.say(f"No choice within {self.auto_seconds:g}s: the computer's "
                              f"choice, {r.labels[box]}, is scored for you.")
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
        while True:
            self._show()
            self._advice()
            self.term.say("Hold dice and reroll (h 1 3 4), r reroll all, s BOX score, "
                          "? help, q quit.")
            action, auto = self._read_action()
            move: ScorecardMove = self.session.play(action, auto)
            self._judge(move.verdict)
            if move.box is not None:
                self.term.say(f"You score {move.points} in {r.labels[move.box]} "
                              f"(total {move.total}).")
                return
            self.term.say(f"You {hold_text(move.dice, action)} and roll "
                          f"{dice_text(move.dice_after or ())}.")

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
            self.term.say("You quit the game.")
            self.term.say(totals_line(t, self.names))
            return 0
        self.term.say("")
        self.term.say(f"=== {r.name} - game over ===")
        self.term.say(render_scorecards(t, self.names))
        self.term.say(totals_line(t, self.names))
        summary = s.summary()
        self.term.say(f"Final total: {summary.totals[0]}")
        if len(self.names) > 1:
            winners = [self.names[i] for i in summary.winners]
            self.term.say(("Winner: " if len(winners) == 1 else "Tie: ") + ", ".join(winners))
        if s.advisor is not None:
            self.term.say(f"Total expected loss of your game: {s.log.total:.2f} points "
                          f"over {len(s.log.losses)} decisions (optimal play expects "
                          f"{s.advisor.expected_score:.2f} from the start).")
        return 0
