"""The web app's games: a bounded store of games that expire, each behind its own lock.

Ids are unguessable (:func:`secrets.token_urlsafe`, 144 bits); a game not used for ``ttl``
seconds is dropped; at most ``max_games`` live at once (:class:`StoreFull` beyond).  Requests
on one game are serialised by its lock; different games never share state.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class StoreFull(Exception):
    """No room for another game."""


@dataclass
class Entry:
    """One live game."""

    game: Any
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class GameStore:
    """At most ``max_games`` games, each dropped ``ttl`` seconds after its last use."""

    def __init__(self, max_games: int = 100, ttl: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if max_games < 1 or ttl <= 0:
            raise ValueError("max_games must be at least 1 and ttl positive")
        self.max_games = int(max_games)
        self.ttl = float(ttl)
        self._clock = clock
        self._games: dict[str, Entry] = {}
        self._lock = threading.Lock()

    def _purge(self, now: float) -> None:
        for key in [k for k, e in self._games.items() if now - e.last_used > self.ttl]:
            del self._games[key]

    def __len__(self) -> int:
        with self._lock:
            self._purge(self._clock())
            return len(self._games)

    def check_room(self) -> None:
        """``StoreFull`` if no game can be added now (checked before building one)."""
        if len(self) >= self.max_games:
            raise StoreFull(f"too many games at once ({self.max_games}); try again later")

    def add(self, game: Any) -> str:
        """Store ``game``; its new id.  ``StoreFull`` when the store is full."""
        with self._lock:
            now = self._clock()
            self._purge(now)
            if len(self._games) >= self.max_games:
                raise StoreFull(f"too many games at once ({self.max_games}); try again later")
            key = secrets.token_urlsafe(18)
            self._games[key] = Entry(game, now)
            return key

    def get(self, key: str) -> Entry | None:
        """The live game ``key`` (its use time renewed), or None."""
        with self._lock:
            now = self._clock()
            entry = self._games.get(key)
            if entry is None:
                return None
            if now - entry.last_used > self.ttl:
                del self._games[key]
                return None
            entry.last_used = now
            return entry

    def remove(self, key: str) -> bool:
        """Drop game ``key``; whether it was there."""
        with self._lock:
            return self._games.pop(key, None) is not None
