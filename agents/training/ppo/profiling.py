"""Where a lean-trainer iteration's time goes (``dice-env bench trainer --profile``).

:func:`phase_profile` times one rollout and one update of a :class:`~.lean.LeanTrainer` by
phase -- the env's steps and masks, the network's forward passes in the rollout, the rest of
the rollout (sampling, buffers, GAE), the forward passes of the update, the optimizer steps and
the rest of the update (mostly the backward passes) -- and, for the structured policy, how much
of the forward passes is the per-action features.  It wraps the trainer's own methods for one
iteration and puts them back, so what is timed is the trainer as it trains.
:func:`op_profile` is torch's profiler over one update: the operators that take the time.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["PHASES", "op_profile", "phase_profile"]

#: the phases of :func:`phase_profile`, in order (``features`` are part of the forward passes)
PHASES = ("env step", "rollout forward", "rollout other", "update forward", "update backward "
          "and other", "optimizer step", "features (in the forwards)")


@contextmanager
def _timed(clock: dict, owner: Any, name: str, label: Callable[[], str],
           before: Callable[[], None] | None = None) -> Iterator[None]:
    """Time every call of ``owner.name`` into ``clock[label()]`` while inside (calling
    ``before()`` first, if given)."""
    original = getattr(owner, name)
    shadowed = name in vars(owner)  # an instance attribute already (put it back as it was)

    def timed(*args: Any, **kwargs: Any) -> Any:
        if before is not None:
            before()
        key = label()
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            clock[key] += time.perf_counter() - start

    setattr(owner, name, timed)
    try:
        yield
    finally:
        if shadowed:
            setattr(owner, name, original)
        else:
            delattr(owner, name)


def phase_profile(trainer: Any) -> dict[str, float]:
    """Microseconds per env step of each of :data:`PHASES` over one iteration (rollout +
    update) of ``trainer``, and ``"total"``."""
    clock: dict[str, float] = defaultdict(float)
    where = {"phase": "rollout"}

    def entering(phase: str) -> Callable[[], None]:
        return lambda: where.update(phase=phase)

    net = trainer.net
    features = getattr(getattr(net, "mlp_extractor", None), "features", None)
    wraps = [(trainer, "collect", lambda: "collect", entering("rollout")),
             (trainer, "update", lambda: "update", entering("update")),
             (trainer.venv, "step", lambda: "env step", None),
             (trainer.venv, "action_masks", lambda: "env step", None),
             (net, "forward", lambda: f"{where['phase']} forward", None),
             (trainer.optimizer, "step", lambda: "optimizer step", None)]
    if features is not None:
        wraps += [(features, name, lambda: "features", None)
                  for name in ("hold_features", "box_features")]
    with _all_timed(clock, wraps):
        start = time.perf_counter()
        batch = trainer.collect()
        trainer.update(batch)
        total = time.perf_counter() - start
    steps = len(batch["action"])
    out = {"env step": clock["env step"], "rollout forward": clock["rollout forward"],
           "rollout other": clock["collect"] - clock["env step"] - clock["rollout forward"],
           "update forward": clock["update forward"],
           "update backward and other": clock["update"] - clock["update forward"]
           - clock["optimizer step"],
           "optimizer step": clock["optimizer step"],
           "features (in the forwards)": clock["features"], "total": total}
    return {k: 1e6 * v / steps for k, v in out.items()}


@contextmanager
def _all_timed(clock: dict, wraps: list) -> Iterator[None]:
    if not wraps:
        yield
        return
    (owner, name, label, before), *rest = wraps
    with _timed(clock, owner, name, label, before), _all_timed(clock, rest):
        yield


def op_profile(trainer: Any, rows: int = 12) -> str:
    """Torch profiler's table of the ``rows`` operators with the most self CPU time over one
    rollout's update of ``trainer`` (the rollout itself is not profiled)."""
    from torch.profiler import ProfilerActivity, profile

    batch = trainer.collect()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        trainer.update(batch)
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows)
