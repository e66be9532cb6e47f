"""A stand-in random generator that throws chosen dice, for tests, tutorials and replays."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


class ScriptedDice:
    """Plays the role of ``np.random.Generator`` for :func:`.rules.throw_dice`.

    Each throw takes the next entry of ``throws`` (the faces of the dice thrown, in any
    order; a game throwing ``n`` dice uses the first ``n`` faces).  Put it in an env with
    ``env.unwrapped.np_random = ScriptedDice([...])`` after :meth:`reset`.  Any other draw
    (e.g. seeds for opponents) returns zeros.  Running out of throws raises ``RuntimeError``.
    """

    def __init__(self, throws: Iterable[Sequence[int]]) -> None:
        self.throws = [list(t) for t in throws]
        self.used = 0

    @property
    def remaining(self) -> int:
        return len(self.throws) - self.used

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        is_throw = (low == 1 and high == 7 and isinstance(size, tuple) and len(size) == 2
                    and size[1] == 5)
        if not is_throw:
            return np.zeros(size, dtype=dtype) if size is not None else dtype(0)
        n = size[0]
        out = np.full(size, 6, dtype=dtype)
        for i in range(n):
            if self.used >= len(self.throws):
                raise RuntimeError(f"ScriptedDice ran out of throws after {self.used}")
            faces = self.throws[self.used]
            self.used += 1
            out[i, :len(faces)] = faces
        return out
