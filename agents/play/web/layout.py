"""What the Play page draws, as every game's web view sends it: the page knows no game.

The page (``static/play.js``) draws a view -- the ``state`` of ``GET /api/games/<id>``, and
the ``view`` of each bot frame -- and sends the moves it offers; it never asks which game it
shows.  Besides the fields every game model has (``names``, ``people``, ``you``, ``current``,
``your_turn``, ``turn_of``, ``over``, ``dice``, ``held``, ``advisor``, ``advice``,
``verdict``, ``warning``, ``auto``, ``summary``), a family's view (``scorecard_view.py``,
``fivethousand_view.py``, ...) sends the layout of its page:

* ``status`` -- the heading (``Penta: round 3 of 13, your turn, roll 1 of 3``), and
  ``status_data``: ``data-*`` attributes of the heading, ``{name: value}``;
* ``info`` -- the line under the dice;
* ``turn_key`` -- a text that changes when a new turn begins: with several people at the
  screen, the page announces a person's new turn by name once per key;
* ``dice_marks`` -- per die, ``None`` or ``{"class", "note"}``: how the page marks it (5000's
  scoring dice);
* ``controls`` -- what the person to move may do besides the board: ``{"pick": bool, "buttons":
  [BUTTON]}``.  ``pick``: the person may pick dice now (a click on a die, or its number key,
  picks it or lets it go; picked dice are drawn held).  Each BUTTON (:func:`button`) is drawn
  under the dice, in order, and sends its ``move`` (with the picked dice under the key
  ``picked`` names, when it names one); its ``key`` presses it from the keyboard;
* ``board`` -- the table beside the dice, ``{"kind": ...}``: ``"card"``, a score card (it
  reads ``boxes``, ``cards``, ``totals``, ``points``, ``legal_boxes``, ``sum_rows`` and
  ``box_refusal``; a legal box's button sends ``{"kind": "score", "box": k}``), or
  ``"table"``, one row per player (:func:`players_table`).

A new game whose page is dice, a few buttons and a score per player needs a view that sends
these fields, and no change to the page.  The helpers here build the parts every view
shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["button", "players_table", "turn_words"]


def turn_words(your_turn: bool, unnamed: bool, mover: str) -> str:
    """Whose turn it is, in the heading's words: ``your turn`` (one person whom nobody
    named), else ``Ann's turn``."""
    return "your turn" if your_turn and unnamed else f"{mover}'s turn"


def button(id: str, label: str, move: dict[str, Any], *, enabled: bool = True,
           primary: bool = False, title: str | None = None, key: str | None = None,
           picked: str | None = None,
           by_picked: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One button of ``controls``.

    Args:
        id: its element id (tests and styles find it by it).
        label: its text.
        move: the move it sends (``{"kind": ...}``).
        enabled: it can be pressed now.
        primary: drawn as the main action.
        title: its tooltip (why it is disabled, say).
        key: the key that presses it.
        picked: send the picked dice's positions (sorted) under this key of the move.
        by_picked: with ``picked``, the ``{"label", "enabled", "title"}`` of the button for
            each number of dice picked (0, 1, ...), in place of ``label``, ``enabled`` and
            ``title``.
    """
    return {"id": id, "label": label, "move": dict(move), "enabled": bool(enabled),
            "primary": bool(primary), "title": title, "key": key, "picked": picked,
            "by_picked": None if by_picked is None else [dict(b) for b in by_picked]}


def players_table(id: str, columns: Sequence[tuple[str, str | None]],
                  rows: Sequence[tuple[str | None, Sequence[str]]]) -> dict[str, Any]:
    """A ``"table"`` board: one row per seat, in seat order.

    Args:
        id: the table's element id.
        columns: ``(heading, cell class or None)`` of each column.
        rows: ``(row class or None, cell texts)`` of each seat.
    """
    return {"kind": "table", "id": id,
            "columns": [{"label": label, "class": cls} for label, cls in columns],
            "rows": [{"seat": seat, "class": cls, "cells": [str(c) for c in cells]}
                     for seat, (cls, cells) in enumerate(rows)]}
