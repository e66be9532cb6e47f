"""Exceptions and input rules shared by every environment of the package.

**The action rule.**  Every env (single, batched and PettingZoo AEC) reads an action with
:func:`as_int`: an action is an *integer* -- a Python ``int``, a numpy integer scalar
(``np.int64(3)``, ``np.uint8(3)``, ...) or a 0-d numpy integer array (``np.array(3)``), which
is what Gymnasium's ``Discrete.contains`` accepts -- in ``[0, n_actions)`` that the action
mask allows.  Booleans are not integers here (``Discrete.contains`` happens to accept a Python
``True`` but not ``np.True_``; neither is an action).  Anything else -- floats, even whole
ones (``1.0``), ``inf`` and ``nan``, strings (``"3"``), ``None``, lists and arrays of other
shapes (``np.array([3])``) -- is never converted: it is an illegal action, handled like any
other under the env's ``illegal_action`` mode (``"penalize"``: the state is untouched, the
reward is the penalty and ``info["illegal_action"]`` is set; ``"raise"``:
:class:`IllegalActionError` naming the value and the legal actions; ``"terminate"``), by the
one handler of :mod:`dice_env.illegal`.

The batched envs read their actions with :func:`as_actions`: ``np.asarray(actions)`` must hold
one entry per sub-env (otherwise ``ValueError``: the entries cannot be dealt out); with an
integer dtype each entry is the action of its sub-env, an ``object`` array is read entry by
entry with the rule above, and any other dtype (float, bool, str) holds no integers, so every
entry is an illegal action.  (A Python list is converted by ``np.asarray`` first: one float in
it makes the whole batch a float array.)

State dicts follow the same rule for their integer fields (:func:`as_int`), and accept a list,
a tuple or a 1-d numpy array where they expect a list (:func:`as_list`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

#: numpy dtype kinds that hold integers (signed, unsigned; not bool 'b' nor timedelta 'm').
_INTEGER_KINDS = "iu"


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state (the state is unchanged)."""


ILLEGAL_ACTION_MODES = ("raise", "penalize", "terminate")


def reset_options(options: Any, known: tuple[str, ...], unknown: str = "raise") -> dict:
    """The ``options`` of a ``reset`` call as a dict (``None`` is ``{}``).

    Not a dict: ``ValueError``.  Keys outside ``known``: ``ValueError`` naming them and the
    known ones, or (``unknown="warn"``, the PettingZoo envs) a warning, and they are ignored.
    """
    options = options or {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict, got {type(options).__name__}")
    extra = sorted(set(options) - set(known))
    if extra:
        if unknown == "warn":
            warnings.warn(f"ignoring unknown reset options {extra}; known: {list(known)}",
                          stacklevel=3)
        else:
            raise ValueError(f"unknown reset options {extra}; known: {list(known)}")
    return options


def check_illegal_action_mode(mode: str) -> str:
    """Validate the ``illegal_action`` option of an env."""
    if mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {mode!r}")
    return mode


def as_int(value: Any) -> int | None:
    """``value`` as a Python ``int`` when it is an integer, else ``None``.

    Integers are Python ``int`` (not ``bool``), numpy integer scalars and 0-d numpy integer
    arrays.  Nothing is converted: ``1.0``, ``"1"``, ``True`` and ``np.array([1])`` give
    ``None``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, (np.generic, np.ndarray)) and value.dtype.kind in _INTEGER_KINDS:
        if value.shape == ():
            return int(value)
    return None


def as_action(value: Any, n_actions: int) -> int | None:
    """``value`` as an action of ``Discrete(n_actions)``: an integer (see :func:`as_int`) in
    ``[0, n_actions)``, else ``None``.  Whether the mask allows it is the caller's check."""
    a = as_int(value)
    return a if a is not None and 0 <= a < n_actions else None


def as_list(value: Any) -> list | None:
    """A list, tuple or 1-d numpy array as a list (numpy scalars become Python ones), else
    ``None``.  What the state dicts accept where they expect a list."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value.tolist()
    return None


def as_actions(actions: Any, num_envs: int,
               n_actions: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The actions of a batch of ``num_envs`` sub-envs: ``(ints, valid, raw)``.

    ``raw`` is ``np.asarray(actions)`` as a ``(num_envs,)`` array (for messages); ``valid`` is
    True where the entry is an action of ``Discrete(n_actions)`` (see the module docstring for
    the rule); ``ints`` holds those actions as int64 and 0 elsewhere (safe to index a mask with).
    Raises ``ValueError`` when ``actions`` does not hold exactly one entry per sub-env.
    """
    try:
        raw = np.asarray(actions)
    except (TypeError, ValueError, OverflowError):  # e.g. ragged nested sequences
        raise ValueError(f"expected {num_envs} actions (one per sub-env), got {actions!r}"
                         ) from None
    if raw.size != num_envs:
        raise ValueError(f"expected {num_envs} actions (one per sub-env), got shape "
                         f"{raw.shape}")
    raw = raw.reshape(num_envs)
    if raw.dtype.kind in _INTEGER_KINDS:
        valid = (raw >= 0) & (raw < n_actions)
        ints = raw.astype(np.int64, copy=False)
        if not valid.all():
            ints = np.where(valid, ints, 0)
        return ints, valid, raw
    if raw.dtype == object:
        read = [as_action(x, n_actions) for x in raw]
        valid = np.array([a is not None for a in read], dtype=bool)
        ints = np.array([0 if a is None else a for a in read], dtype=np.int64)
        return ints, valid, raw
    return np.zeros(num_envs, dtype=np.int64), np.zeros(num_envs, dtype=bool), raw


def describe_non_action(value: Any, n_actions: int) -> str:
    """How an error message names a value that is not an action of ``Discrete(n_actions)``."""
    a = as_int(value)
    if a is None:
        return (f"{value!r} (not an integer; an action is an int, a numpy integer or a 0-d "
                f"integer array in [0, {n_actions}))")
    return f"{a} (not an action of Discrete({n_actions}))"


def warn_unsupported_render_mode(mode: str | None, supported: list[str]) -> None:
    """The warning of a ``render()`` call in an env built with an unsupported ``render_mode``.

    The envs accept such a mode without an error (stable-baselines3's ``make_vec_env`` asks
    every env for ``"rgb_array"`` and only falls back on a ``TypeError``; ``gym.make`` has
    already warned about it), but turn rendering off: their ``render_mode`` is ``None``, the
    mode asked for is kept in ``unsupported_render_mode`` and ``render()`` returns ``None``.
    ``mode`` None (no mode was asked for) warns nothing.
    """
    if mode is not None:
        import gymnasium

        gymnasium.logger.warn(f"render_mode {mode!r} is not supported (choose from "
                              f"{list(supported)}); rendering is off and render() returns None")
