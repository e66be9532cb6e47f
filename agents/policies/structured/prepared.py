"""A batch's per-action features, computed once and reused (torch only).

The structured networks score each action from features read off the rules' tables
(:mod:`.features`, :mod:`.fivethousand_features`).  Those features depend on the observation
alone, never on the weights, so a trainer computes them once per rollout -- in the rollout's own
forward passes -- and hands them back to the update's forward passes of every epoch and
minibatch (:meth:`Prepared.select`), instead of decoding the observations again each time.

:class:`Listed` holds one kind of ragged per-action rows (the listed holds, the open boxes,
5000's set-asides): ``counts[i]`` rows for observation ``i``, in observation order.
:class:`Prepared` holds a batch's groups of them and any per-observation tensors, and selects a
minibatch or joins the rollout's steps.  The numbers are the same ones the network would compute
itself, so a forward pass given them returns exactly what it returns without.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

__all__ = ["Listed", "Prepared"]


@dataclass(frozen=True)
class Listed:
    """Ragged rows of one kind of action: ``rows`` ``(M,)`` the observation of each (ascending),
    ``index`` ``(M,)`` which action it is, ``counts`` ``(N,)`` how many each observation has,
    ``features`` ``(M, ...)`` their features."""

    rows: torch.Tensor
    index: torch.Tensor
    counts: torch.Tensor
    features: torch.Tensor

    def select(self, idx: torch.Tensor) -> Listed:
        """The rows of observations ``idx`` (in that order), renumbered ``0..len(idx)-1``."""
        counts = self.counts[idx]
        ends = torch.cumsum(counts, 0)  # where each selected observation's rows end
        total = int(ends[-1]) if len(ends) else 0
        starts = torch.cumsum(self.counts, 0) - self.counts  # (cheap: one per observation)
        spread = {"repeats": counts, "output_size": total}
        rows = torch.repeat_interleave(torch.arange(len(idx)), **spread)
        flat = torch.repeat_interleave(starts[idx] - (ends - counts), **spread)
        flat += torch.arange(total)  # runs of consecutive rows: a fast gather
        return Listed(rows, self.index.index_select(0, flat), counts,
                      self.features.index_select(0, flat))

    @staticmethod
    def cat(parts: Sequence[Listed], into: Listed | None = None) -> Listed:
        """The rows of consecutive batches, as one batch (observations numbered on); ``into``:
        an earlier result whose memory is written over (see :meth:`Prepared.cat`)."""
        shift, rows = 0, []
        for part in parts:
            rows.append(part.rows + shift)
            shift += len(part.counts)
        return Listed(_join(rows, getattr(into, "rows", None)),
                      *(_join([getattr(p, name) for p in parts], getattr(into, name, None))
                        for name in ("index", "counts", "features")))


def _join(tensors: Sequence[torch.Tensor], out: torch.Tensor | None) -> torch.Tensor:
    """``torch.cat(tensors)``, written into ``out``'s memory when given (grown if short)."""
    if out is None:
        return torch.cat(tensors)
    return torch.cat(tensors, out=out.resize_(0))


@dataclass(frozen=True)
class Prepared:
    """A batch's features: named :class:`Listed` groups and per-observation tensors (first
    dimension the batch)."""

    listed: dict[str, Listed]
    per_row: dict[str, torch.Tensor]

    def select(self, idx: torch.Tensor) -> Prepared:
        """The minibatch of observations ``idx``."""
        return Prepared({k: v.select(idx) for k, v in self.listed.items()},
                        {k: v.index_select(0, idx) for k, v in self.per_row.items()})

    @staticmethod
    def cat(parts: Sequence[Prepared], into: Prepared | None = None) -> Prepared:
        """Consecutive batches (a rollout's steps) as one.  ``into``: an earlier result no
        longer needed, whose memory is written over -- a rollout's features are a few hundred
        MB, and memory the process already holds is written several times faster than fresh
        memory (no page faults)."""
        first = parts[0]
        return Prepared({k: Listed.cat([p.listed[k] for p in parts],
                                       into.listed.get(k) if into else None)
                         for k in first.listed},
                        {k: _join([p.per_row[k] for p in parts],
                                  into.per_row.get(k) if into else None)
                         for k in first.per_row})
