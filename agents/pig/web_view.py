"""A game of Pig on the web: a :class:`~agents.pig.session.PigSession` as the JSON the Play page
draws, and the page's moves (roll, hold) played on it.

The view carries every number and sentence the page shows -- the die, the turn total, what a
hold would bank, whether a roll is allowed and why not, the advisor's win probabilities --
from :mod:`dice_env.pig`'s rules; what happened between two of the people's decisions comes
back as frames (the view before each bot decision, and the events it caused in words) for the
page to replay.  Several people may share the screen (pass and play).  The view carries the
layout of its page (the fields :mod:`agents.play.web.layout` documents): the heading, the Roll
and Hold buttons, the die, a table of the players' scores as the board.  The page knows
nothing of Pig.

The layout is built here as plain dicts, field for field what the layout helpers of
:mod:`agents.play.web.layout` build (``tests/test_pig_play.py`` holds them equal): this module
sits in the players' layer and does not import the web app.  The move kinds are ``roll`` and
``bank`` (Pig's hold banks the turn total; the kind ``hold`` is the web API's hold of dice, with
their positions).

The family's web hooks: :func:`new_web_game` (``"web_game"``), :func:`tables_needed`
(``"web_tables"``) and :data:`MOVES` (``"web_moves"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agents.pig.session import (
    HOLD,
    ROLL,
    PigMove,
    PigSession,
    PigVerdict,
    action_name,
    event_text,
)

__all__ = ["MOVES", "PigWebGame", "new_web_game", "tables_needed"]

#: the moves the page may send: roll, and bank (Pig's hold)
MOVES = ("roll", "bank")
#: the move kind of each action
KIND = {ROLL: "roll", HOLD: "bank"}


def tables_needed(game: Any, opponents: Sequence[str], advisor: bool, people: int = 1,
                  win_models: Iterable[str] | None = None, *,
                  inspection: bool = False) -> list[str]:
    """The solved tables a new web game of Pig waits for (the family's ``"web_tables"``
    hook): none.  The advisor and the ``optimal`` bot read the two-player table of
    :mod:`agents.pig.solver`, which is solved in well under a second the first time and
    cached, so a game builds it itself instead of waiting for a job."""
    return []


def new_web_game(game: Any, request: Any, bot_factory: Any, auto_seconds: float,
                 title: str) -> PigWebGame:
    """The web game of Pig a checked request (:class:`~agents.play.web.validation.NewGame`)
    asks for, its bots built by ``bot_factory(name, game_name)`` (the family's ``"web_game"``
    hook; Pig has no auto-play timer)."""
    people = list(request.people) or None
    return PigWebGame(PigSession(game, request.opponents, request.seed, request.advisor,
                                 bot_factory=bot_factory, people=people), title)


def _button(id: str, label: str, move: dict[str, Any], *, enabled: bool = True,
            primary: bool = False, title: str | None = None,
            key: str | None = None) -> dict[str, Any]:
    """One button of ``controls`` (as :func:`agents.play.web.layout.button` builds it)."""
    return {"id": id, "label": label, "move": dict(move), "enabled": bool(enabled),
            "primary": bool(primary), "title": title, "key": key, "picked": None,
            "by_picked": None}


def _players_table(id: str, columns: Sequence[tuple[str, str | None]],
                   rows: Sequence[tuple[str | None, Sequence[Any]]]) -> dict[str, Any]:
    """A ``"table"`` board (as :func:`agents.play.web.layout.players_table` builds it)."""
    return {"kind": "table", "id": id,
            "columns": [{"label": label, "class": cls} for label, cls in columns],
            "rows": [{"seat": seat, "class": cls, "cells": [str(c) for c in cells]}
                     for seat, (cls, cells) in enumerate(rows)]}


class PigWebGame:
    """One web game of Pig."""

    family = "pig"
    #: the move kinds :meth:`move` plays (what the move parser accepts)
    moves = MOVES

    def __init__(self, session: PigSession, title: str) -> None:
        self.session = session
        self.title = title
        self.verdict: dict | None = None

    @property
    def n_boxes(self) -> int:
        """No boxes in Pig (for the move parser)."""
        return 0

    def _events(self, events: list[dict]) -> list[str]:
        return [event_text(e, self.session.names, self.session.you) for e in events]

    # -- the view --------------------------------------------------------------------------
    def view(self, advice: bool = True) -> dict:
        """The game as the page draws it (``advice=False``: without the advisor's values)."""
        s = self.session
        st, rules = s.state, s.rules
        over = s.over()
        mask = [0, 0] if over else s.mask()
        winner = s.winner()
        refusal = None
        if not over and not mask[ROLL]:
            refusal = f"your score plus the turn total reaches {rules.win_score}: hold to win"
        out: dict[str, Any] = {
            "family": self.family, "game": "pig", "title": self.title,
            "names": s.names, "you": s.people[0], "people": list(s.people),
            "turn_of": None if over else s.mover_name(),
            "win_score": rules.win_score, "die_sides": rules.die_sides,
            "piglet": rules.piglet, "scores": list(st.scores), "turns": list(s.turns),
            "turn_total": 0 if over else st.turn_total, "moves": st.moves,
            "horizon": rules.horizon, "current": st.current, "over": over,
            "your_turn": s.human_to_move(),
            "dice": [] if over or s.face is None else [s.face], "held": [],
            "legal": {"roll": bool(mask[ROLL]), "hold": bool(mask[HOLD])},
            "roll_refusal": refusal,
            "advisor": s.advising, "advisor_note": s.advisor_note(),
            "advice": None, "verdict": self.verdict, "auto": None,
            # the advisor asked for at a table it cannot advise: why there is no advice
            "warning": s.advisor_note() if s.advice_wanted else None,
            "winner": None if winner is None else s.names[winner],
            "summary": self._summary() if over else None,
        }
        out.update(self._layout(out))
        if advice:
            values = s.advice()
            if values is not None:
                out["advice"] = {"kind": "win", "options": [
                    {"action": a, "text": action_name(a), "value": v}
                    for a, v in values.items()]}
        return out

    def _layout(self, v: dict) -> dict:
        """The page's layout of view ``v`` (the fields of :mod:`agents.play.web.layout`)."""
        s = self.session
        if v["over"]:
            status, info = f"{self.title}: game over", ""
        else:
            mover = s.mover_name()
            whose = "your turn" if v["your_turn"] and s.unnamed else f"{mover}'s turn"
            status = f"{self.title} (first to {v['win_score']}): {whose}"
            total, score = v["turn_total"], v["scores"][v["current"]]
            info = (f"Turn total {total}: a hold banks it ({score} + {total} = "
                    f"{score + total}); a 1 loses it." if total else
                    f"Turn total 0: roll the die; a 1 ends the turn (score {score}).")
            if v["roll_refusal"]:
                info = (f"Turn total {total}: {score} + {total} reaches {v['win_score']}: "
                        "hold to win.")
        buttons = []
        if v["your_turn"]:
            buttons = [_button("roll", "Roll", {"kind": "roll"}, primary=True, key="r",
                               enabled=v["legal"]["roll"], title=v["roll_refusal"]),
                       _button("hold", "Hold", {"kind": "bank"}, key="h",
                               enabled=v["legal"]["hold"],
                               title=f"bank the turn total of {v['turn_total']}")]
        rows = []
        for i, name in enumerate(v["names"]):
            mover = i == v["current"] and not v["over"]
            cls = " ".join(c for c, on in (("mover", mover), ("winner", v["winner"] == name))
                           if on)
            rows.append((cls or None, [name, v["scores"][i],
                                       v["turn_total"] if mover else ""]))
        board = _players_table("scores", [("Player", None), ("Score", "score"),
                                          ("Turn total", "turn")], rows)
        return {"status": status, "status_data": {}, "info": info,
                "turn_key": f"{v['current']}:{v['turns'][v['current']]}",
                "dice_marks": [None] * len(v["dice"]),
                "controls": {"pick": False, "buttons": buttons}, "board": board}

    def _summary(self) -> dict:
        s = self.session
        sm = s.summary()
        return {"scores": sm.scores,
                "winner": None if sm.winner is None else s.names[sm.winner],
                "loss": sm.loss, "decisions": sm.decisions, "unit": sm.unit,
                "lines": sm.lines(s.names, len(s.people)),
                "standings": [{"seat": x.seat, "name": x.name, "total": x.total,
                               "place": x.place, "shared": x.shared, "person": x.person}
                              for x in sm.standings],
                "people": [{"seat": p.seat, "name": p.name, "loss": p.loss,
                            "decisions": p.decisions} for p in sm.people]}

    # -- frames and moves ----------------------------------------------------------------------
    def _frame(self, before: dict, move: PigMove) -> dict:
        return {"view": before, "seat": move.seat, "action": action_name(move.action),
                "text": f"{move.name}: {action_name(move.action)} at a turn total of "
                        f"{move.turn_total}", "events": self._events(move.events)}

    def bot_frames(self, start: bool = False) -> list[dict]:
        """Play the bots up to a person's turn: one frame per decision (``start`` is
        accepted for the common signature: nothing happens in Pig before the first
        decision)."""
        s = self.session
        frames = []
        while not s.over() and not s.human_to_move():
            before = self.view(advice=False)
            frames.append(self._frame(before, s.bot_step()))
        return frames

    def move(self, move: dict) -> dict:
        """Play a checked move (``roll`` or ``bank``); the messages, the bots' frames and the
        advisor's verdict.  :class:`~agents.families.IllegalMove` (a roll when the turn must
        be held, any move after the end) changes nothing."""
        s = self.session
        action = s.check_action(HOLD if move["kind"] == "bank" else ROLL)
        name = s.mover_name()
        played = s.play(action)
        whose = "Your" if s.unnamed else f"{name}'s"
        self.verdict = None if played.verdict is None else _verdict_json(played.verdict, whose)
        return {"messages": self._events(played.events), "frames": self.bot_frames(),
                "verdict": self.verdict}

    def set_advisor(self, on: bool) -> None:
        """Turn the advisor on or off."""
        self.session.set_advise(on)


def _verdict_json(v: PigVerdict, whose: str = "Your") -> dict:
    """The verdict as the page shows it (``whose``: ``Your`` or ``Ann's``)."""
    of = "your" if whose == "Your" else whose
    line = (f"{whose} choice ({action_name(v.action)}) wins with {100 * v.value:.2f}%; "
            f"best {100 * v.best:.2f}% ({action_name(v.best_action)}); cost of {of} choice: "
            f"{v.cost:.2f} percentage points")
    return {"text": action_name(v.action), "value": v.value,
            "best_text": action_name(v.best_action), "best": v.best, "cost": v.cost,
            "unit": "percentage points", "line": line}
