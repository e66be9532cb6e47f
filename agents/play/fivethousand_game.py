"""A game of 5000 in the terminal: the human at seat 0 against the bots (alone: the
solo env), with what the bots did between the human's decisions and the optimal advisor."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.play.commands import (
    FIVE_THOUSAND_HELP,
    InputError,
    QuitGame,
    parse_fivethousand_command,
)
from agents.play.line_input import Terminal
from agents.play.seats import AdviceLog, load_fivethousand_optimal, make_bot, unique_names


class FiveThousandGame:
    """A game of 5000: the human at seat 0 against the bots (alone: the solo env)."""

    def __init__(self, term: Terminal, opponents: Sequence[str], seed: int | None,
                 advise: bool) -> None:
        from dice_env.fivethousand.env import FiveThousandEnv
        from dice_env.fivethousand.solo import FiveThousandSoloEnv

        self.term = term
        self.seed = seed
        if opponents:
            bots = [make_bot(name, "fivethousand") for name in opponents]
            self.env = FiveThousandEnv(num_players=1 + len(bots), agent_seat=0, opponents=bots)
        else:
            self.env = FiveThousandSoloEnv()
        self.rules = self.env.rules
        self.names = unique_names(["you", *opponents])
        self.solo = not opponents
        self.log = AdviceLog(lower_is_better=self.solo,
                             unit="turns" if self.solo else "percentage points of win chance")
        self.advisor = None
        self.advise = advise
        if advise:
            self.advisor = load_fivethousand_optimal()

    def _show(self, state: dict, events: list[dict]) -> None:
        from dice_env.fivethousand.render import render_game
        from dice_env.fivethousand.state import state_from_dict

        st, _ = state_from_dict(self.rules, state, len(self.names))
        self.term.say("")
        self.term.say(render_game(self.rules, st, names=self.names, events=events, you=0).rstrip())

    def _advice(self, state: dict) -> dict[int, float] | None:
        if self.advisor is None:
            return None
        values = self.advisor.advise(state)
        if self.solo:
            self.term.say("Advisor (expected turns still to play, fewest first):")
            for a, v in values.items():
                self.term.say(f"  {v:8.2f}  {'bank' if a == 1 else 'roll on'}")
        else:
            guide = "" if len(self.names) <= 3 else " (a two-player guide vs the leader)"
            self.term.say(f"Advisor (your win probability after each option{guide}):")
            for a, v in values.items():
                self.term.say(f"  {100 * v:7.2f}%  {'bank' if a == 1 else 'roll on'}")
        return values

    def _judge(self, values: dict[int, float] | None, action: int) -> None:
        if values is None:
            return
        best_action, best = next(iter(values.items()))
        mine = values.get(action, best)
        if self.solo:
            cost = max(mine - best, 0.0)
            self.term.say(f"Advisor: cost of your choice: {cost:.2f} turns")
        else:
            cost = max(best - mine, 0.0) * 100
            self.term.say(f"Advisor: cost of your choice: {cost:.2f} percentage points")
        self.log.losses.append(cost)

    def _read_action(self, mask: np.ndarray, state: dict) -> int:
        from dice_env.fivethousand import rules as R

        while True:
            line = self.term.ask("roll on or bank [r/b]> ")
            try:
                cmd = parse_fivethousand_command(line or "")
            except InputError as exc:
                self.term.say(str(exc))
                continue
            if cmd.kind == "help":
                self.term.say(FIVE_THOUSAND_HELP)
                continue
            if cmd.kind == "quit":
                raise QuitGame
            action = 1 if cmd.kind == "bank" else 0
            if not mask[action]:
                total = state["turn_total"] + int(
                    R.ROLL_POINTS[int(R.roll_index_of(R.pad_dice(state["dice"])))])
                why = R.bank_refusal(self.rules, state["scores"][0], total) or "not allowed"
                self.term.say(f"You cannot bank now: {why}. Type r to roll on.")
                continue
            return action

    def _final(self, info: dict) -> None:
        self.term.say("")
        self.term.say("=== 5000 - game over ===")
        for line in info.get("events", []):
            from dice_env.fivethousand.render import describe_event

            self.term.say("  . " + describe_event(line, self.names, you=0))
        scores = info.get("scores", [])
        self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
        winner = info.get("winner")
        if self.solo:
            done = scores and scores[0] == self.rules.target
            self.term.say(f"You reached {self.rules.target} in {info.get('turns')} turns." if done
                          else "Out of turns.")
        elif winner is not None and winner >= 0:
            self.term.say(f"Winner: {self.names[int(winner)]}")
        if self.advise:
            if self.advisor is None:
                return
            self.term.say(f"Total expected loss of your game: {self.log.total:.2f} "
                          f"{self.log.unit} over {len(self.log.losses)} decisions.")

    def play(self) -> int:
        """Play the whole game; returns the exit status."""
        if self.advise and self.advisor is None:
            self.term.say("No optimal 5000 advisor is available in this installation: no "
                          "advice will be shown.")
        elif self.advise and len(self.names) == 3:
            self.term.say("The advisor plays three-player 5000 exactly; its table is solved "
                          "the first time (a few minutes) and cached.")
        obs, info = self.env.reset(seed=self.seed)
        done = False
        try:
            while not done:
                state = self.env.get_state()
                self._show(state, info.get("events", []))
                values = self._advice(state)
                mask = info["action_mask"].astype(bool)
                action = self._read_action(mask, state)
                self._judge(values, action)
                obs, _, terminated, truncated, info = self.env.step(action)
                done = terminated or truncated
        except QuitGame:
            self.term.say("You quit the game.")
            scores = self.env.get_state()["scores"]
            self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
            return 0
        self._final(info)
        return 0
