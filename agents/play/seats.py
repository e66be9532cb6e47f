"""Who sits at the table: the people (checked names) and the bots (built by name), the log of
the advisor's verdicts on a person's decisions, the standings at the end (a shared top as
docs/rules.md, section 1.6, counts it) and the refusal of a move the rules forbid."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.families import IllegalMove as IllegalMove  # (re-exported: defined below the families)
from agents.games import resolve
from agents.people import MAX_NAME as MAX_NAME  # (re-exported: the names' one check)
from agents.people import YOU as YOU
from agents.people import check_people as check_people
from agents.people import unique_names as unique_names


def check_seats(people: int, bots: int, most: int) -> None:
    """``ValueError`` unless ``people`` (at least one) and ``bots`` make at most ``most``
    seats."""
    if people < 1:
        raise ValueError("a game needs at least one person")
    if people + bots > most:
        raise ValueError(f"this game seats at most {most} players; {people} "
                         f"{'person' if people == 1 else 'people'} and {bots} "
                         f"{'bot' if bots == 1 else 'bots'} make {people + bots}")


@dataclass(frozen=True)
class Standing:
    """One player's place at the end (or where the game stands)."""

    seat: int
    name: str
    #: the TOTAL (scorecard games) or the score (5000)
    total: int
    #: 1 for the top; players level share a place (1, 1, 3)
    place: int
    #: another player has the same place
    shared: bool
    #: a person at the screen (else a bot)
    person: bool


def standings(names: Sequence[str], totals: Sequence[int], people: Sequence[int],
              winner: int | None = None) -> list[Standing]:
    """Every player, best first: the highest total on top, players level sharing a place
    (``winner``: the seat that won outright -- 5000's, who reached the target -- placed first
    whatever its score)."""
    def key(seat: int) -> tuple[int, int]:
        return (0 if seat == winner else 1, -int(totals[seat]))

    order = sorted(range(len(names)), key=lambda i: (key(i), i))
    places = {i: 1 + sum(key(j) < key(i) for j in order) for i in order}
    return [Standing(i, names[i], int(totals[i]), places[i],
                     sum(places[j] == places[i] for j in order) > 1, i in people)
            for i in order]


def result_line(table: Sequence[Standing]) -> str:
    """The outcome in words: ``Winner: Ann`` for a sole top, else ``Tie: Ann, Bob share the
    top with 230: nobody wins`` (docs/rules.md, 1.6: a shared top is no win)."""
    top = [s for s in table if s.place == 1]
    if len(top) == 1:
        return f"Winner: {top[0].name}"
    return (f"Tie: {', '.join(s.name for s in top)} share the top with {top[0].total}: "
            "nobody wins")


def standings_line(table: Sequence[Standing]) -> str:
    """``Standings: 1. Ann 230 | 1. Bob 230 | 3. heuristic 190``."""
    return "Standings: " + " | ".join(f"{s.place}. {s.name} {s.total}" for s in table)


def registered_bot(name: str, game: Any) -> Any:
    """The registered player ``name`` of ``game`` (:func:`agents.registry.make`); a
    ``ValueError`` with a readable message when it does not exist or cannot be built here."""
    from agents.registry import make

    try:
        return make(name, game)
    except ImportError as exc:
        raise ValueError(f"player {name!r} is not available: {exc}") from None


def make_bot(name: str, game: Any) -> Any:
    """A bot for a person's game of ``game`` (a name or a resolved game): its family's
    ``"make_bot"`` hook where it has one, else :func:`registered_bot` (``ValueError`` with a
    readable message when it does not exist)."""
    g = resolve(game)
    if g.family.has_hook("make_bot"):
        return g.family.hook("make_bot")(name, g)
    return registered_bot(name, g)


@dataclass
class Seat:
    """One player: a name and, for a bot, the bot (``None``: a person at the screen)."""

    name: str
    bot: Any | None

    @property
    def person(self) -> bool:
        """A person plays this seat."""
        return self.bot is None


@dataclass
class AdviceLog:
    """The advisor's verdicts on one person's decisions."""

    lower_is_better: bool = False
    unit: str = "points"
    losses: list[float] = field(default_factory=list)

    @property
    def total(self) -> float:
        """Sum of the costs so far."""
        return float(sum(self.losses))


class PeopleAtTable:
    """What both game sessions say of their people: ``names`` (every seat), ``people`` (the
    people's seats, first) and ``logs`` (each person's :class:`AdviceLog`, by seat)."""

    names: list[str]
    people: list[int]
    logs: dict[int, AdviceLog]

    @property
    def log(self) -> AdviceLog:
        """The advice log of the first person (the only one of a one-person game)."""
        return self.logs[self.people[0]]

    @property
    def unnamed(self) -> bool:
        """One person whom nobody named: the screens speak to them as "you"."""
        return self.names[:len(self.people)] == [YOU]


@dataclass(frozen=True)
class PersonResult:
    """One person's game as the advisor judged it."""

    seat: int
    name: str
    #: the total expected loss of the decisions it judged, None if it judged none
    loss: float | None
    decisions: int

    @classmethod
    def of(cls, seat: int, name: str, log: AdviceLog) -> PersonResult:
        """The result of seat ``seat`` from its advice log."""
        return cls(seat, name, log.total if log.losses else None, len(log.losses))
