"""A scorecard game on the web: a :class:`~agents.play.scorecard_session.ScorecardSession` as
the JSON the page draws, and the page's moves played on it.

Several people may share the screen (pass and play): the moves come from whichever person is
to move (``turn_of``), whose card the advisor reads and the auto-score timer scores; the
messages name that person (``you`` when one person plays and nobody named them).

The page computes nothing: every number it shows (each open box's points, the legal boxes,
the totals and bonuses, the advisor's values, which dice a hold keeps and where they lie after
the reroll) is in the view, with the layout of the page (:mod:`.layout`: the heading, the
"Roll" button that rerolls the dice not picked, the score card as the board).  The bots'
decisions come back as *frames* -- the view before each decision and the decision -- that the
page replays at the speed its user sets.

With the advisor on against bots, the advice starts at once: until the win-probability
tables are ready (built in the background, :mod:`.tables`) the advisor shows the
expected-score advice, and ``advice_note`` (set by the app, :meth:`~agents.play.web.tables.
Tables.attach`) says so in one line; null once the P(win) column is there, or with the
advisor off.

The family's web hooks: :func:`new_web_game` (``"web_game"``), :func:`tables_needed`
(``"web_tables"``) and :data:`MOVES` (``"web_moves"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
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
from agents.play.scorecard_session import has_win_model as session_has_win_model
from agents.play.seats import IllegalMove, result_line, standings_line
from agents.play.web.layout import button, turn_words
from dice_env.scorecard.render import MUST_SCRATCH_WARNING

__all__ = ["MOVES", "ScorecardWebGame", "new_web_game", "tables_needed"]

#: the moves the page may send: a hold (the dice positions kept), a box, the computer's box
MOVES = ("hold", "score", "auto")
#: the tooltip of an open box the rules refuse now
BOX_REFUSAL = "not allowed here (the Joker rule)"
#: the tooltip of the Roll button with all five dice picked
ALL_PICKED = "Holding all five is not a reroll: score them in a box"


@cache
def has_win_model(game: str) -> bool:
    """Whether ``game`` has a committed win-value model (its advisor then gives each
    option's chance of winning against bots; looked up once per process, without torch)."""
    from dice_env.scorecard.rules import get_rules

    return session_has_win_model(get_rules(game))


def tables_needed(game: Any, opponents: Sequence[str], advisor: bool, people: int = 1,
                  win_models: Iterable[str] | None = None, *,
                  inspection: bool = False) -> list[str]:
    """The solved tables (:mod:`agents.play.web.tables` keys) a new web game of ``game`` needs
    before it starts, a dependency first (the family's ``"web_tables"`` hook): ``people``
    people and the bots ``opponents``, the advisor on or off; ``win_models``: the games with
    a win-value model (default: looked up), whose advisor gives P(win) against bots.  With
    ``inspection``: what an inspection of the agents ``opponents`` (names) needs (the
    optimal player's table, and the win-value player's spread; its last-turn table is
    computed by the inspection)."""
    name = game.name
    if inspection:
        return [f"{name}/dp"] + ([f"{name}/spread"] if "win-value" in opponents else [])
    seats = people + len(opponents)
    needs: list[str] = []
    if advisor or "optimal" in opponents:
        needs.append(f"{name}/dp")
    with_win = has_win_model(name) if win_models is None else name in win_models
    if "win-value" in opponents or (advisor and seats > 1 and with_win):
        needs += [f"{name}/dp", f"{name}/spread", f"{name}/last-turn"]
    return list(dict.fromkeys(needs))


def new_web_game(game: Any, request: Any, bot_factory: Any, auto_seconds: float,
                 title: str) -> ScorecardWebGame:
    """The web game a checked request (:class:`~agents.play.web.validation.NewGame`) asks
    for, its bots built by ``bot_factory(name, game_name)`` (the family's ``"web_game"``
    hook)."""
    people = {"people": list(request.people)} if request.people else {}  # pass and play
    # the advisor's P(win) player joins once its tables are ready (Tables.attach)
    session = ScorecardSession(game.rules, request.opponents, request.seed, request.advisor,
                               bot_factory=bot_factory, defer_win=True, **people)
    return ScorecardWebGame(session, title, auto_seconds)


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
    #: the move kinds :meth:`move` plays (what the move parser accepts)
    moves = MOVES

    def __init__(self, session: ScorecardSession, title: str, auto_seconds: float) -> None:
        self.session = session
        self.title = title
        self.auto_seconds = float(auto_seconds)
        self.held: list[int] = []  # the human's kept dice after a reroll (their positions)
        self.verdict: dict | None = None
        #: why the advice lacks its P(win) column for now (one line), or None
        self.advice_note: str | None = None

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
            "advice_note": self.advice_note if s.advising else None,
            "summary": self._summary() if over else None,
        }
        out.update(self._layout(out))
        if advice:
            a = s.advice()
            out["advice"] = None if a is None else _advice_json(a)
        if s.auto_scores() and self.auto_seconds > 0:
            box = s.auto_box()
            out["auto"] = {"seconds": self.auto_seconds, "box": box, "label": r.labels[box]}
        return out

    def _layout(self, v: dict) -> dict:
        """The page's layout of view ``v`` (see :mod:`agents.play.web.layout`): the heading,
        the Roll button and the dice to pick, the score card with its sum rows."""
        s = self.session
        r = s.rules
        if v["over"]:
            status = f"{self.title}: game over"
        else:
            status = (f"{self.title}: round {v['round']} of {v['rounds']}, "
                      f"{turn_words(v['your_turn'], s.unnamed, s.mover_name())}, "
                      f"roll {v['roll']} of {v['rolls']}")
        buttons = []
        if v["your_turn"] and v["can_hold"]:
            n = len(v["dice"])
            buttons.append(button(
                "roll", "Reroll all", {"kind": "hold"}, primary=True, key="r",
                picked="positions", by_picked=[
                    {"label": "Reroll all" if k == 0 else "Roll" if k == n
                     else f"Roll (keep {k})", "enabled": k < n,
                     "title": ALL_PICKED if k == n else None} for k in range(n + 1)]))
        upper = [k for k, b in enumerate(v["boxes"]) if b["upper"]]
        rows: list[dict[str, Any]] = []
        if upper:
            rows.append({"label": "Upper total", "key": "upper", "after": upper[-1],
                         "note": None})
            if r.upper_bonus:
                rows.append({"label": "Upper bonus", "key": "upper_bonus", "after": upper[-1],
                             "note": f"at {r.upper_bonus_threshold}"})
        if v["five_kind_label"]:
            rows.append({"label": v["five_kind_label"], "key": "penta_bonus", "after": None,
                         "note": None})
        rows.append({"label": "TOTAL", "key": "total", "after": None, "note": None})
        return {"status": status, "status_data": {"rollsLeft": v["rolls_left"]},
                "info": "" if v["over"] else f"Rerolls left: {v['rolls_left']}",
                "turn_key": f"{v['current']}:{v['round']}", "dice_marks": [],
                "controls": {"pick": v["can_hold"], "buttons": buttons},
                "board": {"kind": "card"}, "sum_rows": rows, "box_refusal": BOX_REFUSAL}

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

    def bot_frames(self, start: bool = False) -> list[dict]:
        """Play the bots up to a person's turn: one frame per decision (``start``: the
        frames before the first decision of a new game -- none: a person opens)."""
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
