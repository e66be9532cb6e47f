"""A roofline of the lean trainer (``dice-env bench trainer --roofline``): how many FLOPs an env
step costs, how fast this machine multiplies matrices of the trainer's own shapes, and how close
each phase comes to that.

:func:`record_matmuls` runs a piece of the trainer under a torch dispatch mode that writes down
every matrix product (``mm``, ``addmm``, ``mv``, ``addmv``, ``bmm``, their shapes and dtype) --
the rollout's forward pass on one step's observations, and one minibatch's loss forward and
backward of the update.  :func:`time_matmuls` then times exactly those products alone, in
float32 and in bfloat16, in the same run: the sum is the time the phase would take if it did
nothing but its matrix products at the speed this machine reaches at those shapes.  The ratio
of that bound to the phase's measured time is its efficiency; the rest of the phase is the
work that is not a matrix product (gathers of the per-action rows, elementwise functions,
scatter-adds of the backward pass), which moves memory rather than computes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = ["MatmulCall", "op_shares", "record_matmuls", "roofline", "time_matmuls"]

_OPS = {"mm", "addmm", "mv", "addmv", "bmm", "baddbmm"}

#: a recorded product: (op, shape of the left operand, shape of the right operand)
MatmulCall = tuple[str, tuple[int, ...], tuple[int, ...]]


class _Recorder(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[MatmulCall, torch.dtype]] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = func.overloadpacket.__name__
        if name in _OPS:
            left, right = (args[1], args[2]) if name.startswith(("add", "badd")) else args[:2]
            self.calls.append(((name, tuple(left.shape), tuple(right.shape)), left.dtype))
        return func(*args, **(kwargs or {}))


def record_matmuls(work: Callable[[], Any]) -> list[tuple[MatmulCall, torch.dtype]]:
    """The matrix products ``work()`` runs (eager torch; a compiled graph hides them)."""
    recorder = _Recorder()
    with recorder:
        work()
    return recorder.calls


def flops(call: MatmulCall) -> float:
    """Multiply-adds times two of one product."""
    _, left, right = call
    if len(left) == 3:  # batched
        return 2.0 * left[0] * left[1] * left[2] * right[-1]
    if len(right) == 1:  # matrix-vector
        return 2.0 * left[0] * left[1]
    return 2.0 * left[0] * left[1] * right[1]


def time_matmuls(calls: list[MatmulCall], dtype: torch.dtype, repeats: int = 3) -> float:
    """Seconds to run ``calls`` once each in ``dtype`` (operands made beforehand; the best of
    ``repeats`` passes after a warm-up)."""
    operands = []
    for _, left, right in calls:
        operands.append((torch.randn(left).to(dtype), torch.randn(right).to(dtype)))

    def one_pass() -> None:
        for (_, left, right), (a, b) in zip(calls, operands, strict=True):
            if len(left) == 3:
                torch.bmm(a, b)
            elif len(right) == 1:
                torch.mv(a, b)
            else:
                torch.mm(a, b)

    one_pass()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        one_pass()
        best = min(best, time.perf_counter() - start)
    return best


def _phase(calls: list[tuple[MatmulCall, torch.dtype]], steps: float, seconds: float) -> dict:
    """FLOPs and the matmul bound of one phase, per env step, against its measured time."""
    shapes = [call for call, _ in calls]
    total = sum(flops(c) for c in shapes)
    fp32 = time_matmuls(shapes, torch.float32)
    bf16 = time_matmuls(shapes, torch.bfloat16)
    return {"flops_per_step": total / steps, "measured_us": 1e6 * seconds / steps,
            "matmul_fp32_us": 1e6 * fp32 / steps, "matmul_bf16_us": 1e6 * bf16 / steps,
            "fp32_gflops": total / fp32 / 1e9, "bf16_gflops": total / bf16 / 1e9,
            "achieved_gflops": total / seconds / 1e9,
            "bf16_share": sum(flops(c) for c, d in calls if d == torch.bfloat16) / total}


def op_shares(trainer: Any, batch: dict) -> dict[str, float]:
    """Where one real update of ``trainer`` (every epoch and minibatch, as it trains:
    compiled or not) spends its CPU time, by torch's profiler: the shares of the self time in
    ``"matrix products"`` (the matmul kernels, also those a compiled graph calls), in
    ``"minibatch gathers"`` (selecting each minibatch's rows and per-action features), in
    ``"optimizer"`` (Adam and the gradient clipping) and in ``"the rest of the loss"`` (its
    elementwise functions, the per-action gathers and scatter-adds, forward and backward:
    fused into compiled kernels with ``lean.compile``)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        trainer.update(batch)
    events = [e for e in prof.events() if e.device_type.name == "CPU"]
    shares = dict.fromkeys(("matrix products", "minibatch gathers", "optimizer",
                            "the rest of the loss"), 0.0)
    optimizer_ids: set[int] = set()
    for e in events:  # the ops inside the optimizer's step and the gradient clipping
        if e.name.startswith("Optimizer.") or e.name.startswith("aten::linalg_vector_norm"):
            optimizer_ids.add(id(e))
            stack = list(e.cpu_children)
            while stack:
                child = stack.pop()
                optimizer_ids.add(id(child))
                stack.extend(child.cpu_children)
    total = 0.0
    for e in events:
        self_us = e.self_cpu_time_total
        total += self_us
        name = e.name.removeprefix("aten::")
        if name in _OPS:
            shares["matrix products"] += self_us
        elif id(e) in optimizer_ids or name in ("_foreach_norm", "clamp_max", "_foreach_mul_"):
            shares["optimizer"] += self_us
        elif name in ("index_select", "repeat_interleave", "cumsum", "arange", "randperm"):
            shares["minibatch gathers"] += self_us
        else:
            shares["the rest of the loss"] += self_us
    return {k: v / total for k, v in shares.items()} if total else shares


def roofline(trainer: Any, phase_seconds: dict[str, float]) -> dict[str, dict]:
    """The roofline of a lean ``trainer`` (one warm-up iteration done): for ``"rollout"`` (the
    forward pass per step; the env's own step is not a matrix product) and ``"update"`` (the
    loss's forward and backward of every epoch's minibatches), the FLOPs per env step, the
    measured microseconds per env step (``phase_seconds``: seconds per env step of each phase,
    measured on the trainer as it trains), the time its matrix products alone take in float32
    and in bfloat16 at this machine's speed, the GFLOP/s of each, and the share of its FLOPs
    the trainer runs in bfloat16; the update also its profiled time shares
    (:func:`op_shares`)."""
    batch = trainer.collect()
    n_envs = trainer.venv.num_envs
    prepared = batch.get("prepared")
    obs, mask = batch["obs"][:n_envs], batch["mask"][:n_envs]
    first = prepared.select(torch.arange(n_envs)) if prepared is not None else None
    with torch.no_grad():
        rollout = record_matmuls(lambda: trainer._forward(obs, mask, first))
    size = min(int(trainer.ppo["batch_size"]), len(batch["action"]))
    idx = torch.randperm(len(batch["action"]))[:size]
    chosen = prepared.select(idx) if prepared is not None else None
    p = trainer.ppo

    def step() -> None:
        loss = trainer._losses(batch["obs"][idx], batch["mask"][idx], chosen,
                               batch["action"][idx], batch["logp"][idx], batch["adv"][idx],
                               batch["ret"][idx], float(p["clip_range"]), float(p["ent_coef"]),
                               float(p["vf_coef"]))[0]
        trainer.optimizer.zero_grad()
        loss.backward()

    update = record_matmuls(step)
    epochs = int(p["n_epochs"])
    out = {"rollout": _phase(rollout, n_envs, phase_seconds["rollout"] * n_envs),
           "update": _phase(update, size / epochs, phase_seconds["update"] * size / epochs)}
    out["update"]["time_shares"] = op_shares(trainer, batch)
    return out
