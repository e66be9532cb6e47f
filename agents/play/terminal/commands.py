"""What a player types: the commands of the scorecard games and of 5000, parsed by pure
functions (unit-tested), and the help texts that list them."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from dice_env import dice as D

SCORECARD_HELP = """\
Commands (dice positions are 1 to 5, as printed under the dice):
  h 1 3 4   hold the dice at positions 1, 3 and 4 and reroll the others
  1 3 4     the same (also 134 or 1,3,4)
  r         reroll all five dice
  s Fours   score the roll in a box, by name (a unique prefix will do: s fo) ...
  s 4       ... or by its number on the scorecard
  ?         this help
  q         quit
To keep all five dice, score them: holding all five is not a reroll.
The full rules: dice-env rules GAME in a shell (e.g. dice-env rules penta)."""

FIVE_THOUSAND_HELP = """\
Commands:
  r   roll on with the dice that did not score (all five again after hot dice)
  b   bank the turn total
  ?   this help
  q   quit
The full rules: dice-env rules 5000 in a shell."""


class InputError(ValueError):
    """A mistyped command; its message is shown to the player, who is asked again."""


@dataclass(frozen=True)
class Command:
    """One parsed command.

    ``kind`` is ``"hold"`` (reroll the dice not at ``positions``, 0-based; ``()`` rerolls all),
    ``"score"`` (box index ``box``), ``"roll"`` / ``"bank"`` (5000), ``"help"`` or ``"quit"``.
    """

    kind: str
    positions: tuple[int, ...] = ()
    box: int | None = None


def _fold(text: str) -> str:
    """Lower case, accents stripped, runs of spaces collapsed (``"Carré "`` -> ``"carre"``)."""
    nfkd = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in nfkd if not unicodedata.combining(c))
    return " ".join(plain.lower().split())


def parse_positions(text: str) -> tuple[int, ...]:
    """Dice positions typed as ``"1 3 4"``, ``"134"`` or ``"1,3,4"`` -> sorted 0-based tuple.

    Raises :class:`InputError` for anything but distinct positions 1 to 5, and for all five
    (holding every die is not a reroll: the player must score).
    """
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise InputError("Say which dice to hold, e.g. h 1 3 4 (or r to reroll all five).")
    positions: list[int] = []
    for tok in tokens:
        if not tok.isdigit():
            raise InputError(f"{tok!r} is not a die position: positions are 1 to 5, "
                             "e.g. h 1 3 4.")
        for ch in tok:
            p = int(ch)
            if not 1 <= p <= D.N_DICE:
                raise InputError(f"There is no die {p}: positions are 1 to {D.N_DICE}.")
            if p - 1 in positions:
                raise InputError(f"Die {p} is listed twice.")
            positions.append(p - 1)
    if len(positions) == D.N_DICE:
        raise InputError("Holding all five dice keeps this roll: to keep it, score it "
                         "(s BOX, e.g. s Chance).")
    return tuple(sorted(positions))


def parse_box(text: str, labels: Sequence[str]) -> int:
    """A box typed by its number (1-based, as printed) or its name (case, accents and spaces
    ignored; a unique prefix will do) -> box index.  :class:`InputError` otherwise."""
    t = _fold(text)
    n = len(labels)
    if t.isdigit():
        k = int(t)
        if 1 <= k <= n:
            return k - 1
        raise InputError(f"There is no box {k}: boxes are numbered 1 to {n}.")
    folded = [_fold(label) for label in labels]
    for k, name in enumerate(folded):
        if name == t or name.replace(" ", "") == t.replace(" ", ""):
            return k
    matches = [k for k, name in enumerate(folded)
               if name.startswith(t) or name.replace(" ", "").startswith(t.replace(" ", ""))]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(labels[k] for k in matches)
        raise InputError(f"{text.strip()!r} could be {names}: type more of the name, or the "
                         "box number.")
    raise InputError(f"There is no box called {text.strip()!r}; the boxes are "
                     f"{', '.join(labels)} (or type the box number).")


def parse_scorecard_command(text: str, labels: Sequence[str]) -> Command:
    """Parse one line typed on a scorecard turn (see :data:`SCORECARD_HELP`).

    Only the syntax is checked here; whether a reroll is left or a box is open is checked
    against the game by the caller.
    """
    low = _fold(text)
    if not low:
        raise InputError("Type a command (? for help).")
    head, _, rest = low.partition(" ")
    if low in ("?", "help", "h?"):
        return Command("help")
    if low in ("q", "quit", "exit"):
        return Command("quit")
    if low in ("r", "roll", "reroll"):
        return Command("hold", ())
    if head in ("s", "score"):
        if not rest:
            raise InputError("Say which box to score, e.g. s Fours or s 4.")
        return Command("score", box=parse_box(rest, labels))
    if head in ("h", "hold", "k", "keep"):
        return Command("hold", parse_positions(rest))
    if low[0].isdigit():
        return Command("hold", parse_positions(low))
    try:
        k = parse_box(low, labels)
    except InputError:
        raise InputError(f"Unknown command {text.strip()!r}: type ? for help.") from None
    raise InputError(f"To score {labels[k]}, type: s {labels[k]} (or s {k + 1}).")


def parse_fivethousand_command(text: str) -> Command:
    """Parse one line typed on a 5000 decision: ``r`` roll on, ``b`` bank, ``?``, ``q``."""
    low = _fold(text)
    if not low:
        raise InputError("Type r to roll on or b to bank (? for help).")
    if low in ("?", "help"):
        return Command("help")
    if low in ("q", "quit", "exit"):
        return Command("quit")
    if low in ("r", "roll", "roll on", "0"):
        return Command("roll")
    if low in ("b", "bank", "1"):
        return Command("bank")
    raise InputError(f"Unknown command {text.strip()!r}: r rolls on, b banks, ? for help.")


class QuitGame(Exception):
    """The player typed q."""
