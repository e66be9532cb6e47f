"""The advisors of a human's game, built once per process and shared by its games.

The optimal players behind the advice are deterministic and read only their solved tables, so
one instance serves every game (the web app runs many games at once).  Building one may load
or, the first time on a machine, solve a table with numba's parallel kernels: builds are
serialised by one lock, so two games never solve at the same time.  Queries of one decision
run serial kernels and need no lock.  Each family's advisors live with its game model
(:mod:`.scorecard_session`, :mod:`.fivethousand_session`) and are cached here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

#: held while a player or an advisor is built (tables loaded or solved)
BUILD_LOCK = threading.RLock()
_CACHE: dict[tuple, Any] = {}


def cached(key: tuple, build: Callable[[], Any]) -> Any:
    """The advisor of ``key``, built by ``build()`` the first time (under
    :data:`BUILD_LOCK`) and shared by every later game of this process.  Each family's
    session builds its own (``scorecard_session``, ``fivethousand_session``)."""
    with BUILD_LOCK:
        if key not in _CACHE:
            _CACHE[key] = build()
        return _CACHE[key]
