"""Who sits at the table: the bots (built by name) and the optimal advisor, the log of the
advisor's verdicts on the human's decisions, and the refusal of a move the rules forbid."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.games import is_fivethousand


def unique_names(names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        candidate, i = name, 2
        while candidate in out:
            candidate, i = f"{name} {i}", i + 1
        out.append(candidate)
    return out


def load_fivethousand_optimal() -> Any | None:
    """The optimal 5000 player/advisor if this installation has one, else ``None``."""
    from agents.registry import make

    try:
        return make("optimal", "fivethousand")
    except (ValueError, ImportError):
        pass
    try:
        from agents.fivethousand.optimal import OptimalAgent
    except ImportError:
        return None
    try:
        agent = OptimalAgent("fivethousand")
    except Exception:  # a missing or broken solver must not stop a game  # noqa: BLE001
        return None
    return agent if callable(getattr(agent, "advise", None)) else None


def make_bot(name: str, game: str) -> Any:
    """A bot for ``game`` (``ValueError`` with a readable message when it does not exist)."""
    from agents.registry import available, make

    if is_fivethousand(game) and name == "optimal":
        bot = load_fivethousand_optimal()
        if bot is None:
            raise ValueError("the optimal 5000 player is not available in this installation; "
                             f"choose from {available('fivethousand')}")
        return bot
    try:
        return make(name, game)
    except ImportError as exc:
        raise ValueError(f"player {name!r} is not available: {exc}") from None


class IllegalMove(ValueError):
    """A move the rules refuse now: the message says why (a person reads it), ``legal`` lists
    the moves that are allowed, in words."""

    def __init__(self, message: str, legal: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.legal = list(legal)


@dataclass
class Seat:
    """One player of a scorecard game: a name and, for a bot, the bot."""

    name: str
    bot: Any | None


@dataclass
class AdviceLog:
    """The advisor's verdicts on the human's decisions."""

    lower_is_better: bool = False
    unit: str = "points"
    losses: list[float] = field(default_factory=list)

    @property
    def total(self) -> float:
        """Sum of the costs so far."""
        return float(sum(self.losses))
