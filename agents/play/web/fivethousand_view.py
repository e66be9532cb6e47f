"""A game of 5000 on the web: a :class:`~agents.play.fivethousand_session.FiveThousandSession`
as the JSON the page draws, and the page's moves (roll on, bank) played on it.

The view carries every number and sentence the page shows -- which dice score, the turn total,
whether a bank is allowed and why not, the advisor's values -- from :mod:`dice_env`'s rules;
what happened between two of the people's decisions comes back as frames (the view before
each bot decision, and the events it caused in words) for the page to replay.  Several people
may share the screen (pass and play): the moves come from whichever person is to move
(``turn_of``), whom the advisor advises; the events name every player (``you`` when one person
plays and nobody named them).  The view carries the layout of its page too
(:mod:`.layout`): the heading, the Roll on and Bank buttons, the scoring dice marked, a
table of the players' scores as the board.

The family's web hooks: :func:`new_web_game` (``"web_game"``), :func:`tables_needed`
(``"web_tables"``) and :data:`MOVES` (``"web_moves"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agents.play.fivethousand_session import (
    BANK,
    ROLL,
    FiveThousandMove,
    FiveThousandSession,
    FiveThousandVerdict,
    action_name,
)
from agents.play.seats import result_line, standings_line
from agents.play.web.layout import button, players_table, turn_words
from dice_env.fivethousand import rules as R

__all__ = ["MOVES", "FiveThousandWebGame", "new_web_game", "tables_needed"]

#: the moves the page may send
MOVES = ("roll", "bank")
#: how the page marks a die that scores
SCORING = {"class": "scoring", "note": "scores"}


def tables_needed(game: Any, opponents: Sequence[str], advisor: bool, people: int = 1,
                  win_models: Iterable[str] | None = None, *,
                  inspection: bool = False) -> list[str]:
    """The solved tables (:mod:`agents.play.web.tables` keys) a new web game of 5000 needs
    before it starts (the family's ``"web_tables"`` hook): the advisor's and the
    ``optimal`` bot's, solo, three-player or two-player (also the guide of four and more)
    by the seats of ``people`` and ``opponents``.  With ``inspection``: the two-player
    table the inspection's optimal player reads.  ``win_models`` is not used."""
    if inspection:
        return [f"{game.name}/2p"]
    if advisor or "optimal" in opponents:
        seats = people + len(opponents)
        return [f"{game.name}/" + {1: "solo", 3: "3p"}.get(seats, "2p")]
    return []


def new_web_game(game: Any, request: Any, bot_factory: Any, auto_seconds: float,
                 title: str) -> FiveThousandWebGame:
    """The web game of 5000 a checked request (:class:`~agents.play.web.validation.NewGame`)
    asks for, its bots built by ``bot_factory(name, game_name)`` (the family's
    ``"web_game"`` hook; 5000 has no auto-score timer)."""
    people = {"people": list(request.people)} if request.people else {}  # pass and play
    return FiveThousandWebGame(FiveThousandSession(request.opponents, request.seed,
                                                   request.advisor, bot_factory=bot_factory,
                                                   **people), title)


class FiveThousandWebGame:
    """One web game of 5000."""

    family = "fivethousand"
    #: the move kinds :meth:`move` plays (what the move parser accepts)
    moves = MOVES

    def __init__(self, session: FiveThousandSession, title: str) -> None:
        self.session = session
        self.title = title
        self.verdict: dict | None = None
        #: a note on the advice (one line, set by the app), or None: 5000's advisor has no
        #: tables built in the background, so it stays None
        self.advice_note: str | None = None

    @property
    def n_boxes(self) -> int:
        """No boxes in 5000 (for the move parser)."""
        return 0

    def _events(self, events: list[dict]) -> list[str]:
        from dice_env.fivethousand.render import describe_event

        you = 0 if self.session.unnamed else None
        return [describe_event(e, self.session.names, you=you) for e in events]

    def bank_text(self) -> str | None:
        """Whether the player to move may bank, in words; an overshoot says that all the
        turn total would go (docs/rules.md, 2.4), and to whom.  None once the game is over."""
        s = self.session
        if s.over():
            return None
        refusal = s.bank_refusal()
        if refusal is not None:
            return f"Bank: not allowed ({refusal})."
        preview = s.bank_preview()
        if preview is None:
            return "Bank: allowed."
        target, points = s.rules.target, preview["points"]
        head = f"Bank: allowed (overshoots {target} by {preview['by']}: all {points:,} points"
        if preview["outcome"] == "gift":
            win = f", who would reach {target} and win" if preview["wins"] else ""
            return f"{head} would be gifted to {s.names[preview['to']]}{win})."
        if preview["outcome"] == "lost_receiver_over":
            return (f"{head} would be lost: {s.names[preview['to']]}, who would receive them, "
                    f"would pass {target} too).")
        nobody = "alone, nobody receives them" if s.solo else "nobody else has entered"
        return f"{head} would be lost: {nobody})."

    # -- the view --------------------------------------------------------------------------
    def view(self, advice: bool = True) -> dict:
        """The game as the page draws it (``advice=False``: without the advisor's values)."""
        s = self.session
        g, rules = s.game, s.rules
        over = s.over()
        roll = g.roll
        n = int(R.ROLL_SIZE[roll])
        scoring = int(R.ROLL_SCORING_MASK[roll])
        mask = [0, 0] if over else s.mask()
        refusal = None if over else s.bank_refusal()
        total = s.turn_total()
        overshoot = g.scores[g.current] + total - rules.target
        out: dict[str, Any] = {
            "family": self.family, "game": "fivethousand", "title": self.title,
            "names": s.names, "you": s.people[0], "people": list(s.people),
            "turn_of": None if over else s.mover_name(),
            "target": rules.target, "entry": rules.entry,
            "scores": list(g.scores), "turns": list(g.turns),
            "current": g.current, "over": over, "your_turn": s.human_to_move(),
            "solo": s.solo, "max_turns": s.max_turns,
            "dice": [] if over else g.thrown_dice(),
            "scoring": [] if over else [bool(scoring >> i & 1) for i in range(n)],
            "roll_points": 0 if over else int(R.ROLL_POINTS[roll]),
            "turn_total_before": 0 if over else g.turn_total,
            "turn_total": 0 if over else total,
            "dice_left": 0 if over else int(R.dice_left_after(n, int(R.ROLL_SCORING_DICE[roll]))),
            "legal": {"roll": bool(mask[ROLL]), "bank": bool(mask[BANK])},
            "bank_refusal": refusal,
            "overshoot": overshoot if not over and refusal is None and overshoot > 0 else None,
            "bank_text": self.bank_text(),
            "advisor": s.advising,
            # the note of a table of four or more (the 3-player one is about the first solve)
            "advisor_note": s.advisor_note() if s.advising and len(s.names) > 3 else None,
            "advice": None, "verdict": self.verdict,
            "advice_note": self.advice_note if s.advising else None,
            "winner": s.names[g.winner] if g.winner >= 0 else None,
            "summary": self._summary() if over else None,
        }
        out.update(self._layout(out))
        if advice:
            values = s.advice()
            if values is not None:
                out["advice"] = {"kind": "turns" if s.solo else "win", "options": [
                    {"action": a, "text": action_name(a), "value": v} for a, v in values.items()]}
        return out

    def _layout(self, v: dict) -> dict:
        """The page's layout of view ``v`` (see :mod:`agents.play.web.layout`)."""
        s = self.session
        if v["over"]:
            status, info = f"{self.title}: game over", ""
        else:
            status = (f"{self.title} (target {v['target']}, entry {v['entry']}): "
                      f"{turn_words(v['your_turn'], s.unnamed, s.mover_name())}")
            left = v["dice_left"]
            info = (f"Roll: {v['roll_points']} points. Turn total {v['turn_total']} (set "
                    f"aside before this roll: {v['turn_total_before']}); {left} "
                    f"{'die' if left == 1 else 'dice'} to roll on. {v['bank_text'] or ''}")
        buttons = []
        if v["your_turn"]:
            buttons = [button("roll-on", "Roll on", {"kind": "roll"}, primary=True, key="r",
                              enabled=v["legal"]["roll"]),
                       button("bank", "Bank", {"kind": "bank"}, key="b",
                              enabled=v["legal"]["bank"], title=v["bank_refusal"])]
        rows = []
        for i, name in enumerate(v["names"]):
            cls = " ".join(c for c, on in (("mover", i == v["current"] and not v["over"]),
                                           ("winner", v["winner"] == name)) if on)
            note = "" if v["scores"][i] > 0 else " (not entered)"
            rows.append((cls or None, [name + note, v["scores"][i], v["turns"][i]]))
        board = players_table("scores", [("Player", None), ("Score", "score"),
                                         ("Turns", "turns")], rows)
        return {"status": status, "status_data": {}, "info": info,
                "turn_key": f"{v['current']}:{v['turns'][v['current']]}",
                "dice_marks": [SCORING if on else None for on in v["scoring"]],
                "controls": {"pick": False, "buttons": buttons}, "board": board}

    def _summary(self) -> dict:
        s = self.session
        sm = s.summary()
        lines = ["Scores: " + " | ".join(f"{n} {v}" for n, v in zip(s.names, sm.scores))]
        if len(s.people) > 1:
            lines.append(standings_line(sm.standings))
        if s.solo:
            lines.append(f"You reached {s.rules.target} in {sm.turns} turns." if sm.reached
                         else "Out of turns.")
        elif sm.winner is not None:
            lines.append(result_line(sm.standings))
        if len(s.people) == 1 and sm.loss is not None:
            lines.append(f"Total expected loss of your game: {sm.loss:.2f} {sm.unit} over "
                         f"{sm.decisions} decisions.")
        elif sm.loss is not None:
            lines += [f"Total expected loss of {p.name}'s game: {p.loss:.2f} {sm.unit} over "
                      f"{p.decisions} decisions." for p in sm.people if p.loss is not None]
        return {"scores": sm.scores, "winner": None if sm.winner is None else s.names[sm.winner],
                "loss": sm.loss, "decisions": sm.decisions, "unit": sm.unit, "lines": lines,
                "standings": [{"seat": x.seat, "name": x.name, "total": x.total,
                               "place": x.place, "shared": x.shared, "person": x.person}
                              for x in sm.standings],
                "people": [{"seat": p.seat, "name": p.name, "loss": p.loss,
                            "decisions": p.decisions} for p in sm.people]}

    # -- frames and moves ----------------------------------------------------------------------
    def _frame(self, before: dict, move: FiveThousandMove) -> dict:
        return {"view": before, "seat": move.seat, "action": action_name(move.action),
                "text": f"{move.name}: {action_name(move.action)} at a turn total of "
                        f"{move.turn_total}", "events": self._events(move.events)}

    def bot_frames(self, start: bool = False) -> list[dict]:
        """Play the bots up to a person's turn: one frame per decision (``start``: first a
        frame of what happened before the first decision, if anything)."""
        s = self.session
        frames = []
        if start and s.start_events:
            frames.append({"view": self.view(advice=False), "seat": None, "action": None,
                           "text": "", "events": self._events(s.start_events)})
        while not s.over() and not s.human_to_move():
            before = self.view(advice=False)
            frames.append(self._frame(before, s.bot_step()))
        return frames

    def move(self, move: dict) -> dict:
        """Play a checked move (``roll`` or ``bank``); the messages, the bots' frames and the
        advisor's verdict.  ``IllegalMove`` (a bank the rules refuse) changes nothing."""
        s = self.session
        action = s.check_action(BANK if move["kind"] == "bank" else ROLL)
        name = s.mover_name()
        played = s.play(action)
        whose = "Your" if s.unnamed else f"{name}'s"
        self.verdict = None if played.verdict is None else _verdict_json(played.verdict, s.solo,
                                                                          whose)
        return {"messages": self._events(played.events), "frames": self.bot_frames(),
                "verdict": self.verdict}

    def set_advisor(self, on: bool) -> None:
        """Turn the advisor on or off."""
        self.session.set_advise(on)


def _verdict_json(v: FiveThousandVerdict, solo: bool, whose: str = "Your") -> dict:
    """The verdict as the page shows it (``whose``: ``Your`` or ``Ann's``)."""
    of = "your" if whose == "Your" else whose
    if solo:
        line = (f"{whose} choice ({action_name(v.action)}) leaves {v.value:.2f} expected "
                f"turns; best {v.best:.2f} ({action_name(v.best_action)}); cost of {of} "
                f"choice: {v.cost:.2f} turns")
    else:
        line = (f"{whose} choice ({action_name(v.action)}) wins with {100 * v.value:.2f}%; "
                f"best {100 * v.best:.2f}% ({action_name(v.best_action)}); cost of {of} "
                f"choice: {v.cost:.2f} percentage points")
    return {"text": action_name(v.action), "value": v.value,
            "best_text": action_name(v.best_action), "best": v.best, "cost": v.cost,
            "unit": "turns" if solo else "percentage points", "line": line}
