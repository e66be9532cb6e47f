"""Torch's thread count, set so that it stays set.

numba's OpenMP threading layer, when its threads first start (the first parallel kernel the
process runs: the 5000 optimal opponents' at the training env's first reset, the solvers'),
sets OpenMP's thread count -- which torch's intra-op pool shares once it has started -- to
numba's, every core.  A ``torch.set_num_threads(1)`` made before that is silently undone: with
two runs side by side on the 2-core machine, 5000 PPO training against the optimal player
(``--threads 1``) ran 3.7 times slower than with the one thread it asked for (131k steps: 53 s
against 14 s, same run).  :func:`set_torch_threads` starts numba's threads first, so the setting
sticks.
"""

from __future__ import annotations

import numba
import torch


@numba.njit(parallel=True, cache=True)
def _parallel_sum(n: int) -> int:
    total = 0
    for i in numba.prange(n):
        total += i
    return total


def set_torch_threads(threads: int) -> None:
    """Use ``threads`` torch intra-op threads for the rest of the process, whatever numba
    starts later."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    _parallel_sum(2)  # numba's threading layer starts here, not after the setting
    torch.set_num_threads(threads)
