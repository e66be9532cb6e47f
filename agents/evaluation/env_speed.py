"""Steps per second of the environments, random legal actions (what ``dice-env bench env``
measures).

For each env id: the single env in a Python loop as users get it from ``gymnasium.make`` (its
default wrappers included) and without them (``.unwrapped``), ``gymnasium.vector.SyncVectorEnv``
of the single env, and the natively batched env at several batch sizes; and the PettingZoo AEC
envs stepped through ``env.last()`` / ``env.step``.  ``CartPole-v1`` is measured alongside as
the reference: each env's single-env figure is also given as a multiple of CartPole's, the two
timed in turn (CartPole, the env, CartPole, ...) so that a change of load on a shared machine
hits both.  Each figure is the best of ``repeats`` timings; the per-core figures divide the
steps by the process's CPU time.  The report is written by
:mod:`agents.evaluation.reports.env_speed`.
"""

from __future__ import annotations

import importlib
import platform
import time
from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np

import dice_env  # noqa: F401  (registers the env ids)
from agents.progress import progress_bar, progress_note

REFERENCE_ID = "CartPole-v1"
DEFAULT_IDS = [REFERENCE_ID, "dice_env/Penta-v0", "dice_env/DicePoker-v0",
               "dice_env/FiveThousand-v0", "dice_env/FiveThousandSolo-v0"]
#: PettingZoo AEC envs: name on the command line (``--aec``) -> (label in the tables and the
#: keys of ``env_speed.json``, module, keyword arguments of ``env()``)
AEC_ENVS = {
    "penta-2p": ("scorecard_v0 (penta, 2 players)", "dice_env.multi.scorecard_v0",
                 {"game": "penta", "num_players": 2}),
    "fivethousand-2p": ("five_thousand_v0 (2 players)", "dice_env.multi.five_thousand_v0",
                        {"num_players": 2}),
}
DEFAULT_SIZES = [256, 1024, 4096]


def random_legal_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (ties of 8-bit keys aside)."""
    keys = np.frombuffer(rng.bytes(masks.size), dtype=np.uint8).reshape(masks.shape)
    return ((keys | 1) * masks.astype(bool)).argmax(axis=1)


def _best_rate(step_fn: Callable[[], object], steps_per_call: int, calls: int,
               repeats: int) -> tuple[float, float]:
    """``(steps per wall-clock second, steps per CPU second of this process)``, best of
    ``repeats`` timings."""
    best_wall = best_cpu = 0.0
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            step_fn()
        steps = steps_per_call * calls
        best_wall = max(best_wall, steps / (time.perf_counter() - wall))
        best_cpu = max(best_cpu, steps / max(time.process_time() - cpu, 1e-9))
    return best_wall, best_cpu


def _mask_of(info: dict, n_actions: int) -> np.ndarray:
    """The action mask of an info dict, or every action for an env without masks."""
    mask = info.get("action_mask")
    return np.ones(n_actions, dtype=np.int8) if mask is None else mask


def single_env_loop(env_id: str, seed: int = 0, unwrapped: bool = False) -> Callable[[], None]:
    """One step (an env step with a random legal action, a reset after the end) of one env, as
    ``gymnasium.make`` returns it (default wrappers included) or, with ``unwrapped``, bare."""
    env = gym.make(env_id)
    if unwrapped:
        env = env.unwrapped
    n_actions = int(env.action_space.n)
    rng = np.random.default_rng(seed)
    box = {"info": env.reset(seed=seed)[1]}

    def step():
        action = random_legal_actions(rng, _mask_of(box["info"], n_actions)[None])[0]
        _, _, terminated, truncated, box["info"] = env.step(action)
        if terminated or truncated:
            box["info"] = env.reset()[1]

    return step


def aec_env_loop(module: str, kwargs: dict, seed: int = 0) -> Callable[[], None]:
    """One decision of a PettingZoo AEC env (``module.env(**kwargs)``): a random legal action
    through ``env.last()`` / ``env.step``, a new game after each one ends."""
    env = importlib.import_module(module).env(**kwargs)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def step():
        observation, _, terminated, truncated, _ = env.last()
        while terminated or truncated:  # finished agents step with None, then a new game
            env.step(None)
            if not env.agents:
                env.reset()
            observation, _, terminated, truncated, _ = env.last()
        env.step(random_legal_actions(rng, observation["action_mask"][None])[0])

    return step


def interleaved_rates(step_fns: Sequence[Callable[[], object]], steps: int,
                      repeats: int) -> list[float]:
    """Steps/s of each loop, best of ``repeats`` timings taken in turn (one timing of each
    loop per round), so that the loops of one call see the same load."""
    best = [0.0] * len(step_fns)
    for _ in range(repeats):
        for k, step in enumerate(step_fns):
            best[k] = max(best[k], _best_rate(step, 1, steps, 1)[0])
    return best


def single_env_rate(env_id: str, steps: int, repeats: int, seed: int = 0,
                    unwrapped: bool = False) -> float:
    """Steps/s of one env in a Python loop (see :func:`single_env_loop`)."""
    return interleaved_rates([single_env_loop(env_id, seed, unwrapped)], steps, repeats)[0]


def vector_env_rate(env_id: str, num_envs: int, mode: str, steps: int, repeats: int,
                    seed: int = 0) -> tuple[float, float]:
    """``(steps/s, steps per CPU second)``, summed over the batch, of
    ``make_vec(env_id, num_envs, mode)``."""
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode)
    n_actions = int(env.single_action_space.n)
    rng = np.random.default_rng(seed)
    box = {"info": env.reset(seed=seed)[1]}

    def step():
        masks = box["info"].get("action_mask")
        if masks is None:
            masks = np.ones((num_envs, n_actions), dtype=np.int8)
        box["info"] = env.step(random_legal_actions(rng, masks))[4]

    calls = max(1, steps // num_envs)
    rates = _best_rate(step, num_envs, calls, repeats)
    env.close()
    return rates


def unknown_ids(ids: Sequence[str]) -> list[str]:
    """The ids of ``ids`` that no Gymnasium registration knows."""
    return [i for i in ids if i not in gym.registry]


def known_ids() -> list[str]:
    """The reference and every registered ``dice_env/`` id (to list in an error)."""
    return [REFERENCE_ID] + [i for i in gym.registry if i.startswith("dice_env/")]


def measure_env_speed(ids: Sequence[str] = DEFAULT_IDS, aec: Sequence[str] = tuple(AEC_ENVS),
                      sizes: Sequence[int] = DEFAULT_SIZES, steps: int = 400_000,
                      single_steps: int = 5_000, repeats: int = 3, seed: int = 0,
                      note: Callable[[str], object] = progress_note) -> dict:
    """Measure the envs ``ids`` (and always the reference) and the AEC envs ``aec`` (names
    of :data:`AEC_ENVS`); the results as ``env_speed.json`` holds them.  ``steps``: env steps
    per batched measurement; ``single_steps``: per single-env, AEC and SyncVectorEnv
    measurement; each env's figures are also said through ``note``."""
    sizes = list(sizes)
    sync_n = max(sizes)
    results = {"machine": f"{platform.machine()}, {platform.python_version()}",
               "repeats": repeats, "batch_sizes": sizes, "sync_num_envs": sync_n,
               "reference": REFERENCE_ID, "envs": {}, "aec": {}}
    ids = [REFERENCE_ID] + [i for i in dict.fromkeys(ids) if i != REFERENCE_ID]
    reference_loop = single_env_loop(REFERENCE_ID, seed)
    best_reference = 0.0

    def against_reference(loop) -> tuple[float, float]:
        """``(steps/s of loop, that / the reference's steps/s)``, timed in turn."""
        nonlocal best_reference
        reference, rate = interleaved_rates([reference_loop, loop], single_steps, repeats)
        best_reference = max(best_reference, reference)
        return rate, rate / reference

    for env_id in progress_bar(ids, desc="envs"):
        if env_id == REFERENCE_ID:
            single = single_env_rate(env_id, single_steps, repeats, seed)
            ratio = 1.0
            best_reference = max(best_reference, single)
        else:
            single, ratio = against_reference(single_env_loop(env_id, seed))
        raw = single_env_rate(env_id, single_steps, repeats, seed, unwrapped=True)
        sync = vector_env_rate(env_id, sync_n, "sync", single_steps, repeats, seed)[0]
        batched = {str(n): vector_env_rate(env_id, n, "vector_entry_point", steps, repeats,
                                           seed) for n in sizes}
        results["envs"][env_id] = {
            "single": round(single), "single_over_reference": round(ratio, 3),
            "single_unwrapped": round(raw), "sync": round(sync),
            "batched": {k: round(v[0]) for k, v in batched.items()},
            "batched_per_core": {k: round(v[1]) for k, v in batched.items()},
            "batched_over_sync": round(batched[str(sync_n)][0] / sync, 1),
        }
        if env_id != REFERENCE_ID:  # the reference's line waits for its last timing (below)
            note(env_line(env_id, results["envs"][env_id]))
    for name in dict.fromkeys(aec):
        label, module, kwargs = AEC_ENVS[name]
        rate, ratio = against_reference(aec_env_loop(module, kwargs, seed))
        results["aec"][label] = {"single": round(rate), "single_over_reference": round(ratio, 3)}
        note(f"{label:30s} single {rate:10,.0f} ({ratio:.3f}x)")
    # The reference's single-env figure is its best timing of the whole run (it is timed again
    # beside every env): the figure the report shows, and the one said here, once it is final.
    results["envs"][REFERENCE_ID]["single"] = round(best_reference)
    note(env_line(REFERENCE_ID, results["envs"][REFERENCE_ID])
         + "  (single: its best timing of the run)")
    return results


def env_line(env_id: str, figures: dict) -> str:
    """The line said for one env: the figures of ``env_speed.json`` (and of the report), as
    rounded there."""
    return (f"{env_id:30s} single {figures['single']:10,} "
            f"({figures['single_over_reference']:.3f}x)  "
            f"unwrapped {figures['single_unwrapped']:10,}  sync {figures['sync']:10,}  "
            + "  ".join(f"N={k}: {v:12,}" for k, v in figures["batched"].items()))
