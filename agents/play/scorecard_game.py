"""A scorecard game in the terminal: the human (seat 0) and the bots in rotation, the
optimal advisor's values before each decision and the cost of the choice after it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.play.commands import SCORECARD_HELP, InputError, QuitGame, parse_scorecard_command
from agents.play.line_input import Terminal
from agents.play.scorecard_screen import (
    action_text,
    dice_lines,
    dice_text,
    hold_text,
    render_scorecards,
    totals_line,
)
from agents.play.scorecard_table import ScorecardTable
from agents.play.seats import AdviceLog, Seat, make_bot, unique_names
from dice_env import dice as D
from dice_env.scorecard.render import MUST_SCRATCH_WARNING
from dice_env.scorecard.rules import Rules

N_HOLDS = D.N_HOLDS
PROMPT = "your move> "
#: the advisor lists at most this many options (plus the best box)
TOP_ADVICE = 8


class ScorecardGame:
    """A game of a scorecard preset: the human (seat 0) and the bots in rotation, on one
    :class:`ScorecardTable` (the multi-player match core)."""

    def __init__(self, rules: Rules, term: Terminal, opponents: Sequence[str], seed: int | None,
                 auto_seconds: float, advise: bool) -> None:
        from dice_env.scorecard.match import MAX_PLAYERS

        if len(opponents) > MAX_PLAYERS - 1:
            raise ValueError(f"a scorecard game seats at most {MAX_PLAYERS - 1} bots")
        self.rules = rules
        self.term = term
        self.auto_seconds = float(auto_seconds)
        seq = np.random.SeedSequence(seed)
        dice_seq, *bot_seqs = seq.spawn(len(opponents) + 1)
        self.names = unique_names(["you", *opponents])
        self.seats = [Seat(self.names[0], None)]
        for name, bot_name, bot_seq in zip(self.names[1:], opponents, bot_seqs, strict=True):
            bot = make_bot(bot_name, rules.name)
            bot.seed(int(bot_seq.generate_state(1)[0]))
            self.seats.append(Seat(name, bot))
        self.table = ScorecardTable(rules, len(self.seats), np.random.default_rng(dice_seq))
        self.advisor = None
        self.win_advisor = None
        self.log = AdviceLog()
        if advise:
            from agents.scorecard.optimal import OptimalAgent

            self.advisor = OptimalAgent(rules)
            if opponents:
                self.win_advisor = _win_advisor(rules, len(self.seats))

    def _bot_turn(self, seat: Seat) -> None:
        t = self.table
        me = t.current
        dice = t.dice()
        parts = [f"{seat.name} rolls {dice_text(dice)}"]
        while True:
            obs = t.match_observation() if getattr(seat.bot, "reads_match", False) \
                else t.observation()
            action = int(seat.bot.act(obs, t.mask.astype(np.int8)))
            if not (0 <= action < len(t.mask) and t.mask[action]):
                raise RuntimeError(f"{seat.name} chose the illegal action {action}")
            if action >= N_HOLDS:
                reward = t.step(action)
                parts.append(f"scores {reward} in {self.rules.labels[action - N_HOLDS]} "
                             f"(total {t.breakdowns()[me]['total']})")
                break
            kept = hold_text(dice, action)
            t.step(action)
            dice = t.dice()
            parts.append(f"{kept} -> {dice_text(dice)}")
        self.term.say("  . " + "; ".join(parts))

    # -- the human's turn ----------------------------------------------------------------
    def _show(self, round_no: int, roll_no: int) -> None:
        r, t = self.rules, self.table
        self.term.say("")
        self.term.say(f"=== {r.name} - round {round_no} of {r.n_boxes} - your turn, roll "
                      f"{roll_no} of {r.rolls_per_turn} ===")
        self.term.say(render_scorecards(t, self.names, now=0))
        self.term.say(totals_line(t, self.names))
        self.term.say(dice_lines(t.dice()))
        self.term.say(f"Rerolls left: {t.rolls_left()}")
        if t.must_scratch:
            self.term.say(MUST_SCRATCH_WARNING)

    def _advice(self) -> dict[int, float] | None:
        if self.advisor is None:
            return None
        st = self.table.card(0)
        values = self.advisor.advise(st, canonical_holds=True)
        win = None
        if self.win_advisor is not None:
            win = self.win_advisor.action_values(self.table.match_observation(0))
            self.term.say("Advisor (expected final score and chance of winning of each "
                          "option, best score first):")
        else:
            self.term.say("Advisor (expected final score of each option, best first):")
        shown = list(values)[:TOP_ADVICE]
        best_box = next((a for a in values if a >= N_HOLDS), None)
        if best_box is not None and best_box not in shown:
            shown.append(best_box)  # always show the best box to score in
        if win is not None:
            best_win = max(values, key=lambda a: win[a])
            if best_win not in shown:
                shown.append(best_win)  # and the option most likely to win
        for a in shown:
            text = action_text(self.rules, st["dice"], a, self.table.box_points)
            chance = "" if win is None else f"  P(win) {100 * min(max(win[a], 0), 1):5.1f} %"
            self.term.say(f"  {values[a]:8.2f}{chance}  {text}")
        if len(values) > len(shown):
            self.term.say(f"  ... and {len(values) - len(shown)} more options")
        return values

    def _judge(self, values: dict[int, float] | None, action: int, dice: Sequence[int],
               points: np.ndarray) -> None:
        if values is None:
            return
        best_action, best = next(iter(values.items()))
        mine = values.get(action, best)
        cost = max(best - mine, 0.0)
        self.log.losses.append(cost)
        self.term.say(f"Advisor: your choice ({action_text(self.rules, dice, action, points)}) "
                      f"is worth {mine:.2f}; best {best:.2f} "
                      f"({action_text(self.rules, dice, best_action, points)}); "
                      f"cost of your choice: {cost:.2f}")

    def _read_action(self) -> int:
        """Ask until the player gives a legal action (or the auto-score timer runs out); a
        hold comes back as the canonical hold of the same dice."""
        r, t = self.rules, self.table
        st = t.card(0)
        timed = st["rolls_left"] == 0 and self.auto_seconds > 0
        while True:
            prompt = PROMPT
            if timed:
                prompt = f"your move (auto-score in {self.auto_seconds:g}s)> "
            line = self.term.ask(prompt, self.auto_seconds if timed else None)
            if line is None:
                from agents.scorecard.heuristic import computer_choice

                box = int(computer_choice(r, st))
                self.term.say(f"No choice within {self.auto_seconds:g}s: the computer's "
                              f"choice, {r.labels[box]}, is scored for you.")
                return N_HOLDS + box
            try:
                cmd = parse_scorecard_command(line, r.labels)
            except InputError as exc:
                self.term.say(str(exc))
                continue
            if cmd.kind == "help":
                self.term.say(SCORECARD_HELP)
                continue
            if cmd.kind == "quit":
                raise QuitGame
            if cmd.kind == "hold":
                if st["rolls_left"] == 0:
                    self.term.say("No rerolls left: score this roll (s BOX).")
                    continue
                action = t.canonical(D.hold_bits(cmd.positions))
            else:
                k = int(cmd.box)
                if st["scores"][k] is not None:
                    self.term.say(f"{r.labels[k]} is already filled ({st['scores'][k]}); "
                                  "choose an open box.")
                    continue
                action = N_HOLDS + k
            if not t.mask[action]:
                boxes = [r.labels[k] for k in np.flatnonzero(t.mask[N_HOLDS:])]
                self.term.say(f"Not allowed here (the Joker rule); legal boxes: "
                              f"{', '.join(boxes)}.")
                continue
            return action

    def _human_turn(self) -> None:
        r, t = self.rules, self.table
        round_no, roll_no = t.filled(0) + 1, 1
        while True:
            self._show(round_no, roll_no)
            values = self._advice()
            self.term.say("Hold dice and reroll (h 1 3 4), r reroll all, s BOX score, "
                          "? help, q quit.")
            dice = t.dice()
            points = t.box_points.copy()
            action = self._read_action()
            self._judge(values, action, dice, points)
            reward = t.step(action)
            if action >= N_HOLDS:
                self.term.say(f"You score {reward} in {r.labels[action - N_HOLDS]} "
                              f"(total {t.breakdowns()[0]['total']}).")
                return
            self.term.say(f"You {hold_text(dice, action)} and roll {dice_text(t.dice())}.")
            roll_no += 1

    def play(self) -> int:
        """Play the whole game; returns the exit status."""
        r, t = self.rules, self.table
        if self.advisor is not None:
            self.term.say(f"Advisor on: the optimal player's expected final score from a new "
                          f"game is {self.advisor.expected_score:.2f}.")
        try:
            while not t.over():
                seat = self.seats[t.current]
                if seat.bot is None:
                    self._human_turn()
                else:
                    self._bot_turn(seat)
        except QuitGame:
            self.term.say("You quit the game.")
            self.term.say(totals_line(t, self.names))
            return 0
        self.term.say("")
        self.term.say(f"=== {r.name} - game over ===")
        self.term.say(render_scorecards(t, self.names))
        self.term.say(totals_line(t, self.names))
        totals = [c["total"] for c in t.breakdowns()]
        self.term.say(f"Final total: {totals[0]}")
        if len(self.seats) > 1:
            best = max(totals)
            winners = [name for name, total in zip(self.names, totals) if total == best]
            self.term.say(("Winner: " if len(winners) == 1 else "Tie: ") + ", ".join(winners))
        if self.advisor is not None:
            self.term.say(f"Total expected loss of your game: {self.log.total:.2f} points "
                          f"over {len(self.log.losses)} decisions (optimal play expects "
                          f"{self.advisor.expected_score:.2f} from the start).")
        return 0


def _win_advisor(rules: Rules, num_players: int):
    """The win-value player for the advisor's P(win) column, or None where it has no model."""
    from agents.scorecard.win_value import WinValueAgent

    try:
        return WinValueAgent(rules, num_players=num_players)
    except (FileNotFoundError, ValueError):
        return None
