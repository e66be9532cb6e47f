"""The web app's games: a bounded store of games that expire, each behind its own lock.

Ids are unguessable (:func:`secrets.token_urlsafe`, 144 bits); at most ``max_games`` live at
once (:class:`StoreFull` beyond, with the seconds until a place frees).  A game nobody has
moved in is dropped ``unplayed_ttl`` seconds after its last request (a burst of creates does
not keep the store full for long); a game with a move is kept ``ttl`` seconds after its last
request.  Requests on one game are serialised by its lock, awaited in the event loop (a
waiting request holds no thread); different games never share state.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: the longest Retry-After a full store answers, in seconds
MAX_RETRY_AFTER = 300


class StoreFull(Exception):
    """No room for another game; ``retry_after``: seconds until one may free."""

    def __init__(self, message: str, retry_after: int = 60) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class Entry:
    """One live game."""

    game: Any
    last_used: float
    #: what it was created from (the checked request), if known
    spec: Any = None
    #: the person has made a move (the game then lives ``ttl``, else ``unplayed_ttl``)
    moved: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: requests waiting for the lock
    waiting: int = 0


class GameStore:
    """At most ``max_games`` games, each dropped ``ttl`` seconds after its last use
    (``unplayed_ttl`` while nobody has moved in it)."""

    def __init__(self, max_games: int = 100, ttl: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic,
                 unplayed_ttl: float | None = None) -> None:
        unplayed = ttl if unplayed_ttl is None else unplayed_ttl
        if max_games < 1 or ttl <= 0 or unplayed <= 0:
            raise ValueError("max_games must be at least 1 and the ttls positive")
        self.max_games = int(max_games)
        self.ttl = float(ttl)
        self.unplayed_ttl = float(min(unplayed, ttl))
        self._clock = clock
        self._games: dict[str, Entry] = {}
        self._lock = threading.Lock()

    def _lifetime(self, entry: Entry) -> float:
        return self.ttl if entry.moved else self.unplayed_ttl

    def _expired(self, entry: Entry, now: float) -> bool:
        return now - entry.last_used > self._lifetime(entry)

    def _purge(self, now: float) -> None:
        for key in [k for k, e in self._games.items() if self._expired(e, now)]:
            del self._games[key]

    def __len__(self) -> int:
        with self._lock:
            self._purge(self._clock())
            return len(self._games)

    def retry_after(self) -> int:
        """Whole seconds until the next game expires (1 to :data:`MAX_RETRY_AFTER`: a game
        may also be deleted sooner)."""
        with self._lock:
            now = self._clock()
            left = [e.last_used + self._lifetime(e) - now for e in self._games.values()]
        return min(MAX_RETRY_AFTER, max(1, math.ceil(min(left, default=1.0))))

    def _full(self) -> StoreFull:
        return StoreFull(f"too many games at once ({self.max_games}); try again later",
                         self.retry_after())

    def check_room(self) -> None:
        """``StoreFull`` if no game can be added now (checked before building one)."""
        if len(self) >= self.max_games:
            raise self._full()

    def add(self, game: Any, spec: Any = None) -> str:
        """Store ``game`` (created from ``spec``); its new id.  ``StoreFull`` when the store is
        full."""
        with self._lock:
            now = self._clock()
            self._purge(now)
            full = len(self._games) >= self.max_games
            if not full:
                key = secrets.token_urlsafe(18)
                self._games[key] = Entry(game, now, spec)
                return key
        raise self._full()

    def get(self, key: str) -> Entry | None:
        """The live game ``key`` (its use time renewed), or None."""
        with self._lock:
            now = self._clock()
            entry = self._games.get(key)
            if entry is None:
                return None
            if self._expired(entry, now):
                del self._games[key]
                return None
            entry.last_used = now
            return entry

    def remove(self, key: str) -> bool:
        """Drop game ``key``; whether it was there."""
        with self._lock:
            return self._games.pop(key, None) is not None
