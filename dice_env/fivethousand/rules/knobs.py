"""The knobs of 5000 (:class:`FiveThousandRules`) and the constants of its rules: the dice, the
two action encodings, the bank outcome codes and the scoring combinations of docs/rules.md."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from dice_env import dice as D

N_DICE = D.N_DICE
N_MULTISETS = D.N_KEEPS
N_SETASIDE_MASKS = 32

ROLL, BANK = 0, 1
N_ACTIONS_LITERAL = 2
N_ACTIONS_CHOOSE = 2 * N_SETASIDE_MASKS

#: ``resolve_bank`` outcome codes.
NO_BANK, BANKED, GIFTED, GIFT_LOST_NO_RECEIVER, GIFT_LOST_OVERSHOOT = 0, 1, 2, 3, 4
BANK_OUTCOME_NAMES = ("none", "banked", "gifted", "gift_lost_no_receiver",
                      "gift_lost_overshoot")

SINGLE_POINTS = {1: 100, 5: 50}
STRAIGHT_POINTS = 1500
STRAIGHTS = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))


def three_of_a_kind_points(face: int) -> int:
    """Three of a kind of ``face``: 100 x face, three 1s = 1100."""
    return 1100 if face == 1 else 100 * face


#: Every scoring combination of docs/rules.md as ``(face counts, points)``.
SCORING_COMBINATIONS: tuple[tuple[tuple[int, ...], int], ...] = tuple(
    [(tuple(int(f == face) for f in range(1, 7)), pts) for face, pts in SINGLE_POINTS.items()]
    + [(tuple(k * int(f == face) for f in range(1, 7)), mult * three_of_a_kind_points(face))
       for face in range(1, 7) for k, mult in ((3, 1), (4, 2), (5, 4))]
    + [(tuple(int(f in s) for f in range(1, 7)), STRAIGHT_POINTS) for s in STRAIGHTS]
)


@dataclass(frozen=True)
class FiveThousandRules:
    """The knobs of 5000 (docs/rules.md, sections 2 and 3.2).

    Attributes:
        target: the exact score that wins (5000).  A positive multiple of 100.
        entry: the points a player with no score must bank in one turn to enter (500).
            A multiple of 100 between 0 and ``target``.  Once entered, any bank of at least
            100 is allowed (a turn total ending in 50 never is).
        choose_scoring_dice: ``False`` (literal rules): every scoring die of a roll is set
            aside.  ``True``: the player sets aside any non-empty subset of the scoring dice
            that scores by itself (Farkle style); the action space grows to 64 actions.
    """

    target: int = 5000
    entry: int = 500
    choose_scoring_dice: bool = False

    def __post_init__(self) -> None:
        for name in ("target", "entry"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{name} must be an integer, got {v!r}")
        if self.target < 100 or self.target % 100 or self.target > 1_000_000:
            raise ValueError(f"target must be a multiple of 100 from 100 to 1,000,000, "
                             f"got {self.target}")
        if self.entry < 0 or self.entry % 100 or self.entry > self.target:
            raise ValueError(f"entry must be a multiple of 100 from 0 to target "
                             f"({self.target}), got {self.entry}")
        if not isinstance(self.choose_scoring_dice, (bool, np.bool_)):
            raise ValueError(f"choose_scoring_dice must be a bool, got "
                             f"{self.choose_scoring_dice!r}")
        object.__setattr__(self, "target", int(self.target))
        object.__setattr__(self, "entry", int(self.entry))
        object.__setattr__(self, "choose_scoring_dice", bool(self.choose_scoring_dice))

    @property
    def n_actions(self) -> int:
        """Size of the action space: 2, or 64 with ``choose_scoring_dice``."""
        return N_ACTIONS_CHOOSE if self.choose_scoring_dice else N_ACTIONS_LITERAL

    @property
    def min_entered_score(self) -> int:
        """The lowest score an entered player can hold (``max(entry, 100)``)."""
        return max(self.entry, 100)

    def knobs(self) -> dict:
        """The rules as a plain JSON-serialisable dict."""
        return asdict(self)

    @classmethod
    def from_knobs(cls, knobs: dict | None = None, **overrides) -> FiveThousandRules:
        """Rules from a dict of knobs and/or keywords; unknown knobs raise ``ValueError``."""
        if knobs is not None and not isinstance(knobs, dict):
            raise ValueError(f"5000 rules must be a dict of knobs such as {asdict(cls())}, got "
                             f"{knobs!r}")
        data = dict(knobs or {})
        data.update(overrides)
        known = set(cls.__dataclass_fields__)
        bad = sorted(set(data) - known)
        if bad:
            raise ValueError(f"unknown 5000 rule knobs {bad}; known knobs: {sorted(known)}")
        return cls(**data)


#: how many people a game of 5000 seats (docs/rules.md, section 2)
MIN_PLAYERS, MAX_PLAYERS = 2, 8


def check_num_players(num_players: Any) -> int:
    """``num_players`` as an int from :data:`MIN_PLAYERS` to :data:`MAX_PLAYERS` (the one check
    of a 5000 table's size; ``ValueError`` naming the range otherwise)."""
    if (isinstance(num_players, (bool, np.bool_))
            or not isinstance(num_players, (int, np.integer))
            or not MIN_PLAYERS <= int(num_players) <= MAX_PLAYERS):
        raise ValueError(f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                         f"got {num_players!r}")
    return int(num_players)


def coerce_rules(game: Any = None) -> FiveThousandRules:
    """The :class:`FiveThousandRules` of anything that names 5000 -- the one place a name is
    turned into rules: a ``FiveThousandRules`` (as is), a dict of knobs, ``None``, a game name or
    Gymnasium id, or a resolved game (a :class:`~dice_env.families.GameRef` of 5000); a name
    means the default rules (the ``Class(game, **options)`` factory signature passes one)."""
    if isinstance(game, FiveThousandRules):
        return game
    if isinstance(game, dict):
        return FiveThousandRules.from_knobs(game)
    from dice_env.families import GameRef

    if isinstance(game, GameRef):
        if isinstance(game.rules, FiveThousandRules):
            return game.rules
        raise ValueError(f"{game.name!r} is not a 5000 game")
    if game is None or isinstance(game, str):
        return FiveThousandRules()
    raise ValueError(f"rules must be a FiveThousandRules, a dict of knobs, a 5000 game name or "
                     f"None, got {game!r}")
