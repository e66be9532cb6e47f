"""Rules of the scorecard games (Penta, Dice Poker, the Yahtzee presets, Yatzy and Yacht), as data.

A :class:`Rules` object names the boxes of the scorecard and every knob of docs/rules.md; a preset
is a ready-made ``Rules`` (:data:`PRESETS`, :func:`get_rules`).  :class:`ScoreTables` turns a
``Rules`` into numpy tables over the 252 sorted rolls, and :func:`box_outcomes` /
:func:`upper_bonus_earned` apply the scoring, the Joker rule and the bonuses to a whole batch of
games at once.  The Gymnasium env, the batched env, the DP solver and the bots all score through
these two functions; nothing else in the project knows how a box scores.

Five-of-a-kind box state (``five_state``), used by the solver and the envs:

* ``FIVE_OPEN`` (0) -- the Penta / Poker / YAHTZEE box is open;
* ``FIVE_FIFTY`` (1) -- it holds 50: an extra five of a kind earns the bonus (and the Joker);
* ``FIVE_ZERO`` (2) -- it was scratched with 0: no bonus; the Joker only if the rules say so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from dice_env.dice import N_FACES, N_ROLLS, ROLL_COUNTS, ROLLS

FIVE_OPEN, FIVE_FIFTY, FIVE_ZERO = 0, 1, 2

#: Every kind of box a scorecard can hold.  Upper boxes are ``"aces"`` .. ``"sixes"``.
UPPER_KINDS = ("aces", "twos", "threes", "fours", "fives", "sixes")
LOWER_KINDS = (
    "pair",
    "two_pairs",
    "three_kind",
    "four_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "five_kind",
    "chance",
)
BOX_KINDS = UPPER_KINDS + LOWER_KINDS

JOKER_MODES = ("none", "forced", "free")
#: How Pair / Two pairs / Three / Four of a kind score (:attr:`Rules.kind_scoring`).
KIND_SCORING_MODES = ("total", "matched")
#: How the full-house box scores (:attr:`Rules.full_house_scoring`).
FULL_HOUSE_SCORING_MODES = ("fixed", "sum")
#: Which rolls the straight boxes take (:attr:`Rules.straights`).
STRAIGHT_MODES = ("runs", "sequences")


@dataclass(frozen=True)
class Rules:
    """A scorecard game: its boxes (in scorecard order) and every rule knob.

    The defaults are the Yahtzee family's scoring (docs/rules.md section 1); Scandinavian Yatzy
    and OpenSpiel's Yacht change ``kind_scoring``, ``straights``, ``full_house_scoring`` and
    the bonus knobs (presets ``yatzy`` and ``yacht``).

    Attributes:
        name: preset name (``"penta"``, ``"dice-poker"``, ...).
        boxes: box kinds in scorecard order (see :data:`BOX_KINDS`); the upper boxes first.
        labels: the names printed on the scorecard, one per box.
        rolls_per_turn: throws per turn (the first one included).
        upper_bonus_threshold: the upper total that earns :attr:`upper_bonus` (63 in Penta;
            Dice Poker's page says "higher than 63", so 64).
        upper_bonus: points for reaching the threshold (0: no upper bonus, as in Yacht).
        full_house, small_straight, large_straight, five_kind: fixed box values (the full
            house only with ``full_house_scoring="fixed"``).
        five_kind_bonus: points for every further five of a kind once the five-of-a-kind box
            holds 50 (0 disables the bonus).
        joker: ``"forced"`` -- an extra five of a kind must go in its upper box if open, else
            any open lower box at full value, else 0 in an open upper box; ``"free"`` --
            Verhoeff's reading: any open box, and Full / straights get their Joker values
            only when the matching upper box is filled; ``"none"`` -- no Joker rule.
        joker_when_scratched: whether the Joker also applies when the five-of-a-kind box holds
            0 (Hasbro's rule; not Penta's or Dice Poker's).
        penta_counts_as_full: whether five of a kind is a Full house outside the Joker.
        four_kind_is_two_pairs: whether four (or five) of one face count as Two pairs.
        kind_scoring: how Pair, Two pairs, Three and Four of a kind score (one of
            :data:`KIND_SCORING_MODES`): ``"total"`` -- the sum of all five dice (Yahtzee,
            Penta, Dice Poker, Yacht); ``"matched"`` -- only the matched dice (Yatzy): Pair the
            two dice of the highest pair, Two pairs the four dice of two pairs of different
            faces (the four dice of four of a kind when ``four_kind_is_two_pairs``), Three /
            Four of a kind the three / four dice of that face.
        full_house_scoring: ``"fixed"`` -- :attr:`full_house` points; ``"sum"`` -- the sum
            of the dice (Yatzy, Yacht).  One of :data:`FULL_HOUSE_SCORING_MODES`.
        straights: which rolls the straights take (one of :data:`STRAIGHT_MODES`):
            ``"runs"`` -- Small straight any four consecutive faces, Large straight five;
            ``"sequences"`` -- Small straight exactly 1-2-3-4-5, Large straight exactly
            2-3-4-5-6 (Yatzy, Yacht).  They score :attr:`small_straight` /
            :attr:`large_straight` either way.
    """

    name: str
    boxes: tuple[str, ...]
    labels: tuple[str, ...]
    rolls_per_turn: int = 3
    upper_bonus_threshold: int = 63
    upper_bonus: int = 35
    full_house: int = 25
    small_straight: int = 30
    large_straight: int = 40
    five_kind: int = 50
    five_kind_bonus: int = 100
    joker: str = "forced"
    joker_when_scratched: bool = False
    penta_counts_as_full: bool = False
    four_kind_is_two_pairs: bool = False
    kind_scoring: str = "total"
    full_house_scoring: str = "fixed"
    straights: str = "runs"
    _tables: ScoreTables | None = field(default=None, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if len(self.boxes) != len(self.labels):
            raise ValueError("Rules.boxes and Rules.labels must have the same length")
        unknown = [b for b in self.boxes if b not in BOX_KINDS]
        if unknown:
            raise ValueError(f"unknown box kinds {unknown}; choose from {BOX_KINDS}")
        if len(set(self.boxes)) != len(self.boxes):
            raise ValueError("a box kind may appear once per scorecard")
        if self.boxes[:6] != UPPER_KINDS:
            raise ValueError("a scorecard starts with the six upper boxes, aces to sixes")
        for knob, allowed in (("joker", JOKER_MODES), ("kind_scoring", KIND_SCORING_MODES),
                              ("full_house_scoring", FULL_HOUSE_SCORING_MODES),
                              ("straights", STRAIGHT_MODES)):
            value = getattr(self, knob)
            if value not in allowed:
                raise ValueError(f"{knob} must be one of {allowed}, got {value!r}")
        for knob in ("upper_bonus", "full_house", "small_straight", "large_straight",
                     "five_kind", "five_kind_bonus"):
            value = getattr(self, knob)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{knob} must be a whole number of points >= 0, got {value!r}")
        if not isinstance(self.upper_bonus_threshold, (int, np.integer)) \
                or not 1 <= self.upper_bonus_threshold <= 105:
            raise ValueError("upper_bonus_threshold must be a whole number from 1 to 105 (the "
                             f"largest upper total), got {self.upper_bonus_threshold!r}")
        if "five_kind" not in self.boxes:
            raise ValueError("a scorecard needs a five-of-a-kind box")
        if not 1 <= self.rolls_per_turn <= 10:
            raise ValueError("rolls_per_turn must be between 1 and 10")

    @property
    def n_boxes(self) -> int:
        return len(self.boxes)

    @property
    def five_kind_box(self) -> int:
        """Index of the five-of-a-kind box (Penta / Poker / YAHTZEE)."""
        return self.boxes.index("five_kind")

    @property
    def tables(self) -> ScoreTables:
        """The score tables of these rules (built once, then shared)."""
        if self._tables is None:
            object.__setattr__(self, "_tables", ScoreTables(self))
        return self._tables

    def knobs(self) -> dict:
        """The rules as a plain JSON-serialisable dict (used as a cache key)."""
        d = asdict(self)
        d.pop("_tables")
        d["boxes"] = list(self.boxes)
        d["labels"] = list(self.labels)
        return d


_PENTA_LABELS = ("Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Brelan", "Carré",
                 "Full", "Petite suite", "Grande suite", "Chance", "Penta")
_PENTA_BOXES = UPPER_KINDS + ("three_kind", "four_kind", "full_house", "small_straight",
                              "large_straight", "chance", "five_kind")
_YAHTZEE_LABELS = ("Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "3 of a kind",
                   "4 of a kind", "Full House", "Sm. Straight", "Lg. Straight", "YAHTZEE",
                   "Chance")
_YAHTZEE_BOXES = UPPER_KINDS + ("three_kind", "four_kind", "full_house", "small_straight",
                                "large_straight", "five_kind", "chance")
_POKER_LABELS = ("Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Pair", "Two pairs",
                 "Three of a kind", "Four of a kind", "Full house", "Small straight",
                 "Large straight", "Poker", "Chance")
_POKER_BOXES = UPPER_KINDS + ("pair", "two_pairs", "three_kind", "four_kind", "full_house",
                              "small_straight", "large_straight", "five_kind", "chance")
_YATZY_LABELS = ("Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "One pair", "Two pairs",
                 "Three of a kind", "Four of a kind", "Small straight", "Large straight",
                 "Full house", "Chance", "Yatzy")
_YATZY_BOXES = UPPER_KINDS + ("pair", "two_pairs", "three_kind", "four_kind", "small_straight",
                              "large_straight", "full_house", "chance", "five_kind")
# OpenSpiel's yacht: its twelve categories in its order (category c is our box c)
_YACHT_LABELS = ("Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Chance",
                 "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Yacht")
_YACHT_BOXES = UPPER_KINDS + ("chance", "four_kind", "full_house", "small_straight",
                              "large_straight", "five_kind")

#: The ready-made rule sets, by name.
PRESETS: dict[str, Rules] = {
    "penta": Rules("penta", _PENTA_BOXES, _PENTA_LABELS),
    "dice-poker": Rules("dice-poker", _POKER_BOXES, _POKER_LABELS, upper_bonus_threshold=64),
    "yahtzee-official": Rules("yahtzee-official", _YAHTZEE_BOXES, _YAHTZEE_LABELS,
                              joker_when_scratched=True),
    "yahtzee-free-joker": Rules("yahtzee-free-joker", _YAHTZEE_BOXES, _YAHTZEE_LABELS,
                                joker="free", joker_when_scratched=True),
    "yahtzee-no-bonus": Rules("yahtzee-no-bonus", _YAHTZEE_BOXES, _YAHTZEE_LABELS,
                              five_kind_bonus=0, joker="none"),
    # Scandinavian Yatzy as Larsson & Sjoberg (KTH 2012) state its rules (docs/rules.md 1.7)
    "yatzy": Rules("yatzy", _YATZY_BOXES, _YATZY_LABELS, upper_bonus=50, small_straight=15,
                   large_straight=20, five_kind_bonus=0, joker="none", kind_scoring="matched",
                   full_house_scoring="sum", straights="sequences"),
    # OpenSpiel's yacht (open_spiel/games/yacht/yacht.cc; docs/rules.md 1.8)
    "yacht": Rules("yacht", _YACHT_BOXES, _YACHT_LABELS, upper_bonus=0, small_straight=30,
                   large_straight=30, five_kind_bonus=0, joker="none",
                   penta_counts_as_full=True, full_house_scoring="sum", straights="sequences"),
}


def coerce_rules(game: Any) -> Rules:
    """The :class:`Rules` of anything that names a scorecard game -- the one place a name is
    turned into rules.

    Takes a ``Rules`` (returned as is), a preset name (``"penta"``), a Gymnasium id of a
    scorecard env (``"dice_env/Penta-v0"``, ``"dice_env/PentaMatch-v0"``), a ``Rules.knobs()``
    dict (what a saved model records for rules that are no preset), or a resolved game that
    carries its rules (a :class:`~dice_env.families.GameRef` of the scorecard family, such as
    ``agents.games.Game``).  Raises ``ValueError`` naming the known presets otherwise.
    """
    if isinstance(game, Rules):
        return game
    from dice_env.families import GameRef, resolve_game

    if isinstance(game, str):  # parsed by the one parser of game names
        from dice_env import SCORECARD_MATCH_IDS

        try:
            ref = resolve_game(SCORECARD_MATCH_IDS.get(game, game))
        except ValueError:
            ref = None
        if ref is None or not isinstance(ref.rules, Rules):
            raise ValueError(f"unknown scorecard game {game!r}; known presets: "
                             f"{sorted(PRESETS)}")
        return ref.rules
    if isinstance(game, dict):
        return Rules(**{k: tuple(v) if isinstance(v, list) else v for k, v in game.items()})

    if isinstance(game, GameRef):
        if isinstance(game.rules, Rules):
            return game.rules
        raise ValueError(f"{game.name!r} is not a scorecard game")
    raise ValueError(f"not a scorecard game: {game!r}; known presets: {sorted(PRESETS)}")


def get_rules(name_or_rules: str | Rules, **overrides) -> Rules:
    """A preset by name (or a ``Rules`` as is), with optional knob overrides.

    Raises ``ValueError`` naming the known presets / knobs when a name is unknown.
    """
    if isinstance(name_or_rules, Rules):
        base = name_or_rules
    else:
        try:
            base = PRESETS[name_or_rules]
        except KeyError:
            raise ValueError(
                f"unknown scorecard game {name_or_rules!r}; known presets: {sorted(PRESETS)}"
            ) from None
    if not overrides:
        return base
    allowed = set(base.knobs()) - {"name"}
    bad = sorted(set(overrides) - allowed)
    if bad:
        raise ValueError(f"unknown rule knobs {bad}; known knobs: {sorted(allowed)}")
    knobs = base.knobs()
    knobs.update(overrides)
    knobs["boxes"] = tuple(knobs["boxes"])
    knobs["labels"] = tuple(knobs["labels"])
    return Rules(**knobs)


def _longest_run(counts: np.ndarray) -> np.ndarray:
    present = counts > 0
    best = np.zeros(len(counts), dtype=np.int64)
    run = np.zeros(len(counts), dtype=np.int64)
    for f in range(N_FACES):
        run = np.where(present[:, f], run + 1, 0)
        best = np.maximum(best, run)
    return best


class ScoreTables:
    """Numpy tables of one ``Rules``, indexed by sorted roll (see :mod:`dice_env.dice`).

    Attributes:
        score: ``(252, n_boxes)`` int16, the points of each roll in each box, no Joker.
        joker_score: ``(252, n_boxes)`` int16, the points under the Joker (only meaningful on
            five-of-a-kind rolls): the matching upper box the sum, other upper boxes 0,
            every lower box at full value (the full house's value, the straights' values, the
            kind boxes as if the roll fitted them -- the sum, or with ``kind_scoring=
            "matched"`` the two / four / three / four matched dice -- and Chance the sum).
        is_five_kind: ``(252,)`` bool; ``five_face_box``: ``(252,)`` the upper box index of a
            five-of-a-kind roll's face (-1 otherwise).
        is_upper, is_lower: ``(n_boxes,)`` bool masks of the two sections (the five-of-a-kind
            box counts as lower).
        upper_points: ``(252, n_boxes)`` the points a box adds to the upper total (0 for lower
            boxes).
    """

    def __init__(self, rules: Rules) -> None:
        counts = ROLL_COUNTS.astype(np.int64)
        total = ROLLS.astype(np.int64).sum(axis=1)
        max_count = counts.max(axis=1)
        n_pairs = (counts >= 2).sum(axis=1)
        has_three_two = ((counts == 3).any(axis=1) & (counts == 2).any(axis=1))
        run = _longest_run(counts)
        five = max_count == 5

        columns = {}
        for f, kind in enumerate(UPPER_KINDS):
            columns[kind] = counts[:, f] * (f + 1)
        faces = np.arange(1, N_FACES + 1, dtype=np.int64)
        # the highest face shown at least n times (0 if none), for the matched-dice scoring
        top_face = {n: np.max(np.where(counts >= n, faces, 0), axis=1) for n in (2, 3, 4)}
        pair_faces = np.where(counts >= 2, faces, 0)  # each face shown at least twice
        two_pairs = n_pairs >= 2
        four_as_two_pairs = (max_count >= 4) if rules.four_kind_is_two_pairs else False
        two_pairs = two_pairs | four_as_two_pairs
        full = has_three_two | (five if rules.penta_counts_as_full else False)
        if rules.kind_scoring == "matched":
            kinds = dict(
                pair=2 * top_face[2],
                two_pairs=np.where(n_pairs >= 2, 2 * pair_faces.sum(axis=1),
                                   np.where(four_as_two_pairs, 4 * top_face[4], 0)),
                three_kind=3 * top_face[3],
                four_kind=4 * top_face[4],
            )
            # a five of a kind under the Joker: the two / four / three / four matched dice
            joker_kinds = dict(pair=2 * top_face[2], two_pairs=4 * top_face[4],
                               three_kind=3 * top_face[3], four_kind=4 * top_face[4])
        else:
            kinds = dict(
                pair=np.where(max_count >= 2, total, 0),
                two_pairs=np.where(two_pairs, total, 0),
                three_kind=np.where(max_count >= 3, total, 0),
                four_kind=np.where(max_count >= 4, total, 0),
            )
            joker_kinds = dict(pair=total, two_pairs=total, three_kind=total, four_kind=total)
        full_value = total if rules.full_house_scoring == "sum" else rules.full_house
        if rules.straights == "sequences":
            small = np.all(counts == (1, 1, 1, 1, 1, 0), axis=1)
            large = np.all(counts == (0, 1, 1, 1, 1, 1), axis=1)
        else:
            small, large = run >= 4, run >= 5
        columns.update(
            kinds,
            full_house=np.where(full, full_value, 0),
            small_straight=np.where(small, rules.small_straight, 0),
            large_straight=np.where(large, rules.large_straight, 0),
            five_kind=np.where(five, rules.five_kind, 0),
            chance=total,
        )
        joker_columns = dict(
            columns,
            full_house=(total if rules.full_house_scoring == "sum"
                        else np.full(N_ROLLS, rules.full_house)),
            small_straight=np.full(N_ROLLS, rules.small_straight),
            large_straight=np.full(N_ROLLS, rules.large_straight),
            **joker_kinds,
        )
        self.rules = rules
        self.n_boxes = rules.n_boxes
        self.score = np.stack([columns[b] for b in rules.boxes], axis=1).astype(np.int16)
        self.joker_score = np.stack([joker_columns[b] for b in rules.boxes],
                                    axis=1).astype(np.int16)
        self.is_five_kind = five
        face = np.argmax(counts, axis=1)
        self.five_face_box = np.where(five, face, -1).astype(np.int8)
        self.is_upper = np.array([b in UPPER_KINDS for b in rules.boxes])
        self.is_lower = ~self.is_upper
        self.upper_points = np.where(self.is_upper[None, :], self.score, 0).astype(np.int16)
        # Boxes whose Joker value, under the "free" reading, needs the matching upper box filled.
        self.free_joker_needs_upper = np.array(
            [b in ("full_house", "small_straight", "large_straight") for b in rules.boxes]
        )
        for t in (self.score, self.joker_score, self.is_five_kind, self.five_face_box,
                  self.is_upper, self.is_lower, self.upper_points, self.free_joker_needs_upper):
            t.setflags(write=False)


def box_outcomes(
    rules: Rules,
    roll: np.ndarray,
    open_boxes: np.ndarray,
    five_state: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which boxes a roll may go in, what each scores, and the five-of-a-kind bonus earned.

    Args:
        rules: the game.
        roll: ``(N,)`` sorted-roll indices (a scalar is treated as a batch of one).
        open_boxes: ``(N, n_boxes)`` bool, True for a box still open.
        five_state: ``(N,)`` :data:`FIVE_OPEN` / :data:`FIVE_FIFTY` / :data:`FIVE_ZERO`.

    Returns:
        ``legal`` ``(N, n_boxes)`` bool -- the boxes the roll may be scored in (the Joker rule
        applied); ``points`` ``(N, n_boxes)`` int -- the box points of each box (0 where not
        legal); ``bonus`` ``(N,)`` int -- the five-of-a-kind bonus that scoring this roll earns
        in any legal box.  The upper bonus is not included (see :func:`upper_bonus_earned`).
    """
    t = rules.tables
    roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
    open_boxes = np.atleast_2d(np.asarray(open_boxes, dtype=bool))
    five_state = np.atleast_1d(np.asarray(five_state, dtype=np.int64))

    points = t.score[roll].astype(np.int64)
    legal = open_boxes.copy()
    five = t.is_five_kind[roll]
    bonus = np.where(five & (five_state == FIVE_FIFTY), rules.five_kind_bonus, 0)
    if rules.joker == "none":
        return legal, np.where(legal, points, 0), bonus

    joker_active = five & (
        (five_state == FIVE_FIFTY) | ((five_state == FIVE_ZERO) & rules.joker_when_scratched)
    )
    if not joker_active.any():
        return legal, np.where(legal, points, 0), bonus

    rows = np.flatnonzero(joker_active)
    face_box = t.five_face_box[roll[rows]].astype(np.int64)
    jpoints = t.joker_score[roll[rows]].astype(np.int64)
    jopen = open_boxes[rows]
    upper_open = jopen[np.arange(len(rows)), face_box]
    if rules.joker == "forced":
        only_upper = np.zeros_like(jopen)
        only_upper[np.arange(len(rows)), face_box] = True
        lower_open = jopen & t.is_lower[None, :]
        any_lower = lower_open.any(axis=1)
        jlegal = np.where(
            upper_open[:, None],
            only_upper,
            np.where(any_lower[:, None], lower_open, jopen & t.is_upper[None, :]),
        )
    else:  # "free": any open box; Full / straights at Joker value only if the upper box is filled
        jlegal = jopen
        normal = t.score[roll[rows]].astype(np.int64)
        use_normal = t.free_joker_needs_upper[None, :] & upper_open[:, None]
        jpoints = np.where(use_normal, normal, jpoints)
    legal[rows] = jlegal
    points[rows] = jpoints
    return legal, np.where(legal, points, 0), bonus


def upper_bonus_earned(rules: Rules, upper_before: np.ndarray, upper_added: np.ndarray):
    """The upper bonus earned by adding ``upper_added`` to an upper total of ``upper_before``
    (arrays; or two Python ints, one game, and then an int)."""
    if not (isinstance(upper_before, int) and isinstance(upper_added, int)):
        upper_before, upper_added = np.asarray(upper_before), np.asarray(upper_added)
    threshold = rules.upper_bonus_threshold
    crossed = (upper_before < threshold) & (upper_before + upper_added >= threshold)
    return crossed * rules.upper_bonus


def five_state_after(rules: Rules, five_state: np.ndarray, box: np.ndarray,
                     points: np.ndarray) -> np.ndarray:
    """The five-of-a-kind box state after scoring ``points`` in ``box``."""
    filled_now = np.asarray(box) == rules.five_kind_box
    new = np.where(np.asarray(points) > 0, FIVE_FIFTY, FIVE_ZERO)
    return np.where(filled_now, new, five_state)
