"""A scorecard game on the web: a :class:`~agents.play.scorecard_session.ScorecardSession` as
the JSON the page draws, and the page's moves played on it.

Several people may share the screen (pass and play): the moves come from whichever person is
to move (``turn_of``), whose card the advisor reads and the auto-score timer scores; the
messages name that person (``you`` when one person plays and nobody named them).

The page computes nothing: every number it shows (each open box's points, the legal boxes,
the totals and bonuses, the advisor's values, which dice a hold keeps and where they lie after
the reroll) is in the view.  The bots' decisions come back as *frames* -- the view before each
decision and the decision -- that the page replays at the speed its user sets.
"""

from __future__ import annotations

from typing import Any

from agents.play.scorecard_session import (
    N_HOLDS,
    Advice,
    ScorecardMove,
    ScorecardSession,
    Verdict,
    dice_text,
    hold_text,
    kept_positions,
    third_person,
)
from agents.play.seats import IllegalMove, result_line, standings_line
from dice_env.scorecard.render import MUST_SCRATCH_WARNING


def _positions(action: int) -> list[int]:
    return [i for i in range(5) if action >> i & 1] if action < N_HOLDS else []


def _advice_json(advice: Advice) -> dict:
    return {"kind": "score", "with_win": advice.with_win, "options": [
        {"action": o.action, "text": o.text, "value": o.value, "win": o.win, "shown": o.shown,
         "box": o.action - N_HOLDS if o.action >= N_HOLDS else None,
         "positions": _positions(o.action)} for o in advice.options]}


def _verdict_json(v: Verdict, whose: str = "Your") -> dict:
    """The verdict as the page shows it (``whose``: ``Your`` or ``Ann's``)."""
    of = "your" if whose == "Your" else whose
    return {"text": v.text, "value": v.value, "best_text": v.best_text, "best": v.best,
            "cost": v.cost, "unit": "points",
            "line": f"{whose} choice ({v.text}) is worth {v.value:.2f}; best {v.best:.2f} "
                    f"({v.best_text}); cost of {of} choice: {v.cost:.2f}"}


class ScorecardWebGame:
    """One web game of Penta or Dice Poker (``auto_seconds``: the auto-score timer, 0: off)."""

    family = "scorecard"

    def __init__(self, session: ScorecardSession, title: str, auto_seconds: float) -> None:
        self.session = session
        self.title = title
        self.auto_seconds = float(auto_seconds)
        self.held: list[int] = []  # the human's kept dice after a reroll (their positions)
        self.verdict: dict | None = None

    @property
    def n_boxes(self) -> int:
        """The boxes of a card."""
        return self.session.rules.n_boxes

    def _name(self, seat: int) -> str:
        """How the messages call seat ``seat``: ``You`` for the one unnamed person."""
        s = self.session
        return "You" if s.unnamed and s.is_person(seat) else s.names[seat]

    # -- the view --------------------------------------------------------------------------
    def view(self, advice: bool = True) -> dict:
        """The game as the page draws it (``advice=False``: without the advisor's values)."""
        s = self.session
        r, t = s.rules, s.table
        mover = t.current
        over = s.over()
        cards = [t.card(i)["scores"] for i in range(len(s.names))]
        upper = r.tables.is_upper.tolist()
        legal = t.mask[N_HOLDS:].tolist() if not over else [False] * r.n_boxes
        points = [None if over or cards[mover][k] is not None else int(t.box_points[k])
                  for k in range(r.n_boxes)]
        out: dict[str, Any] = {
            "family": self.family, "game": r.name, "title": self.title, "names": s.names,
            "you": s.people[0], "people": list(s.people),
            "turn_of": None if over else s.mover_name(),
            "boxes": [{"label": label, "upper": bool(u)} for label, u in zip(r.labels, upper)],
            "upper_bonus_threshold": r.upper_bonus_threshold,
            "five_kind_label": f"{r.labels[r.five_kind_box]} bonus" if r.five_kind_bonus
            else None,
            "cards": cards, "totals": t.breakdowns(),
            "current": mover, "over": over, "your_turn": s.human_to_move(),
            "round": s.round_no(), "rounds": r.n_boxes,
            "roll": s.roll_no(), "rolls": r.rolls_per_turn, "rolls_left": t.rolls_left(),
            "dice": t.dice(), "points": points, "legal_boxes": [bool(x) for x in legal],
            "can_hold": not over and t.rolls_left() > 0,
            "held": list(self.held) if s.human_to_move() and t.rolls_left() > 0 else [],
            "warning": MUST_SCRATCH_WARNING if not over and t.must_scratch else None,
            "advisor": s.advising, "advice": None, "verdict": self.verdict, "auto": None,
            "summary": self._summary() if over else None,
        }
        if advice:
            a = s.advice()
            out["advice"] = None if a is None else _advice_json(a)
        if s.auto_scores() and self.auto_seconds > 0:
            box = s.auto_box()
            out["auto"] = {"seconds": self.auto_seconds, "box": box, "label": r.labels[box]}
        return out

    def _summary(self) -> dict:
        s = self.session
        sm = s.summary()
        winners = [s.names[i] for i in sm.winners]
        expects = ("" if sm.expected_score is None else
                   f" (optimal play expects {sm.expected_score:.2f} from the start)")
        if len(s.people) == 1:
            lines = [f"Final total: {sm.totals[0]}"]
        else:
            lines = [standings_line(sm.standings)]
        if len(s.names) > 1:
            lines.append(result_line(sm.standings))
        if len(s.people) == 1 and sm.loss is not None:
            lines.append(f"Total expected loss of your game: {sm.loss:.2f} points over "
                         f"{sm.decisions} decisions{expects}.")
        elif sm.loss is not None:
            lines += [f"Total expected loss of {p.name}'s game: {p.loss:.2f} points over "
                      f"{p.decisions} decisions." for p in sm.people if p.loss is not None]
            if expects:
                lines.append(f"Optimal play expects {sm.expected_score:.2f} from the start.")
        return {"totals": sm.totals, "winners": winners, "loss": sm.loss,
                "decisions": sm.decisions, "expected_score": sm.expected_score,
                "unit": "points", "lines": lines,
                "standings": [{"seat": x.seat, "name": x.name, "total": x.total,
                               "place": x.place, "shared": x.shared, "person": x.person}
                              for x in sm.standings],
                "people": [{"seat": p.seat, "name": p.name, "loss": p.loss,
                            "decisions": p.decisions} for p in sm.people]}

    # -- the bots ------------------------------------------------------------------------------
    def _bot_text(self, move: ScorecardMove) -> str:
        if move.box is None:
            return f"{move.name} rolled {dice_text(move.dice)}: {hold_text(move.dice, move.action)}"
        return (f"{move.name} scores {move.points} in "
                f"{self.session.rules.labels[move.box]} with {dice_text(move.dice)} "
                f"(total {move.total})")

    def bot_frames(self) -> list[dict]:
        """Play the bots up to a person's turn: one frame per decision."""
        frames = []
        s = self.session
        while not s.over() and not s.human_to_move():
            before = self.view(advice=False)
            move = s.bot_step()
            frames.append({"view": before, "seat": move.seat, "text": self._bot_text(move),
                           "held": _positions(move.action), "box": move.box,
                           "points": move.points if move.box is not None else None})
        return frames

    # -- the people's moves --------------------------------------------------------------------
    def move(self, move: dict) -> dict:
        """Play a checked move (:func:`~agents.play.web.validation.parse_move`) of the person
        to move; the messages, the bots' frames and the advisor's verdict.  ``IllegalMove``
        leaves the game as it was."""
        s = self.session
        r = s.rules
        kind = move["kind"]
        seat = s.table.current
        name = self._name(seat)
        you = name == "You"
        messages = []
        if kind == "hold":
            action = s.hold_action(move["positions"])
        elif kind == "score":
            action = s.score_action(move["box"])
        else:
            if not s.auto_scores():
                raise IllegalMove("The computer scores for you only after the last roll.",
                                  s.legal_moves())
            box = s.auto_box()
            action = N_HOLDS + box
            messages.append(f"No choice within {self.auto_seconds:g}s: the computer's choice, "
                            f"{r.labels[box]}, is scored for {'you' if you else name}.")
        played = s.play(action, auto=kind == "auto")
        self.verdict = None if played.verdict is None else _verdict_json(
            played.verdict, "Your" if you else f"{name}'s")
        if played.box is None:
            after = played.dice_after or ()
            self.held = kept_positions(after, played.kept)
            held = hold_text(played.dice, action)
            messages.append(f"You {held} and roll {dice_text(after)}." if you else
                            f"{name} {third_person(held)} and rolls {dice_text(after)}.")
            frames: list[dict] = []
        else:
            self.held = []
            messages.append(f"{name} {'score' if you else 'scores'} {played.points} in "
                            f"{r.labels[played.box]} (total {played.total}).")
            frames = self.bot_frames()
        return {"messages": messages, "frames": frames, "verdict": self.verdict}

    def set_advisor(self, on: bool) -> None:
        """Turn the advisor on or off."""
        self.session.set_advise(on)
