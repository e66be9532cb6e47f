"""The one handler of illegal actions, for every env of every family (single, match, AEC,
vector).

Every env takes ``illegal_action`` (one of :data:`~dice_env.errors.ILLEGAL_ACTION_MODES`,
checked by :func:`~dice_env.errors.check_illegal_action_mode`) and ``illegal_penalty``, and
keeps them as attributes of those names.  An action that is not an integer in range allowed by
the mask (the action rule of :mod:`dice_env.errors`) is then handled here:

* ``"raise"``: :class:`~dice_env.errors.IllegalActionError` naming the action and the legal
  ones; nothing changes, the step counter included;
* ``"penalize"``: the state is untouched, the reward is ``illegal_penalty`` and
  ``info["illegal_action"]`` is True (the step counts: a long run of them truncates);
* ``"terminate"``: the same, and the episode ends.

An env says what varies in one :class:`IllegalAction` (how it names an action, the legal
list) and calls the entry point of its kind:

* a Gymnasium env: :func:`illegal_step` returns what ``step`` returns (``steps`` names the
  attribute that counts its steps);
* a PettingZoo AEC env: :func:`illegal_turn` sets ``rewards``, ``infos`` and
  ``terminations``;
* a batched ``VectorEnv``: :func:`check_batch` raises for the first illegal sub-env before
  any game moves, :func:`penalize_batch` sets the rewards and the ends, :func:`flag_batch`
  the info keys.

A new family's env, for example::

    def step(self, action):
        a = as_action(action, self.action_space.n)
        if a is None or not self._mask[a]:
            return illegal_step(self, IllegalAction(action, self.legal_actions(),
                                                    self.action_space.n, describe_action),
                                observation=self._observation, info=self._info,
                                out_of_time=self._out_of_time)
        self._steps += 1
        ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_env.errors import IllegalActionError, as_int, describe_non_action


@dataclass(frozen=True)
class IllegalAction:
    """An illegal action and how its env names actions, for the handler's messages.

    Attributes:
        action: the value the agent gave (any object).
        legal: the legal actions in the current state.
        n_actions: the size of the ``Discrete`` action space.
        describe: names an action, e.g. ``32 -> "32 (score Aces)"``; also used for the legal
            ones.
        reason: why an action in range is illegal, in words (``""`` when there is nothing to
            add); None: no reasons.
        describe_out_of_range: whether an integer outside ``[0, n_actions)`` is named by
            ``describe`` too (the scorecard envs: ``"45 (out of range)"``) rather than by
            :func:`~dice_env.errors.describe_non_action` (``"not an action of Discrete(n)"``).
    """

    action: Any
    legal: Sequence[int]
    n_actions: int
    describe: Callable[[int], str]
    reason: Callable[[int], str] | None = None
    describe_out_of_range: bool = False

    @property
    def what(self) -> str:
        """How a message names the action (with its reason, when there is one)."""
        a = as_int(self.action)
        if a is None or not (self.describe_out_of_range or 0 <= a < self.n_actions):
            return describe_non_action(self.action, self.n_actions)
        why = self.reason(a) if self.reason is not None else ""
        return self.describe(a) + (f" ({why})" if why else "")

    def error(self, *, agent: str | None = None, sub_env: int | None = None,
              name_legal: bool = True) -> IllegalActionError:
        """``[sub-env i: ]illegal action <what>[ by <agent>]; legal actions: [..][ (<names>)]``.

        ``name_legal``: follow the legal actions with their names (``describe``)."""
        legal = [int(x) for x in self.legal]
        where = f"sub-env {sub_env}: " if sub_env is not None else ""
        by = f" by {agent}" if agent is not None else ""
        names = f" ({', '.join(self.describe(x) for x in legal)})" if name_legal else ""
        return IllegalActionError(f"{where}illegal action {self.what}{by}; legal actions: "
                                  f"{legal}{names}")


def illegal_step(env: Any, illegal: IllegalAction, *, observation: Callable[[], Any],
                 info: Callable[[], dict], out_of_time: Callable[[], bool],
                 steps: str | None = "_steps") -> tuple:
    """Handle an illegal action in a Gymnasium env's ``step``, called before the step counts.

    ``"raise"``: raises ``illegal.error()``, nothing changed.  Otherwise counts the step (adds
    one to the attribute ``steps`` of ``env``; None: no counter), ends the episode under
    ``"terminate"`` or when ``out_of_time()`` says so (truncated), sets ``env._done``, and
    returns ``step``'s ``(observation(), illegal_penalty, terminated, truncated, info())``
    with ``info["illegal_action"] = True``.
    """
    if env.illegal_action == "raise":
        raise illegal.error()
    if steps is not None:
        setattr(env, steps, getattr(env, steps) + 1)
    terminated = env.illegal_action == "terminate"
    truncated = not terminated and out_of_time()
    env._done = terminated or truncated
    extra = info()
    extra["illegal_action"] = True
    return observation(), env.illegal_penalty, terminated, truncated, extra


def illegal_turn(env: Any, agent: str, illegal: IllegalAction) -> bool:
    """Handle ``agent``'s illegal action in a PettingZoo AEC env's ``step``.

    ``"raise"``: raises ``illegal.error(agent=agent)``, nothing changed.  Otherwise the step's
    rewards are ``illegal_penalty`` for ``agent`` and 0 for the others (accumulated),
    ``infos[agent]["illegal_action"]`` is True, and under ``"terminate"`` every agent
    terminates.  Returns whether the game ended (the env then empties its action mask).
    """
    if env.illegal_action == "raise":
        raise illegal.error(agent=agent)
    env._cumulative_rewards[agent] = 0.0
    env.rewards = dict.fromkeys(env.agents, 0.0)
    env.rewards[agent] = env.illegal_penalty
    env.infos[agent] = dict(env.infos[agent], illegal_action=True)
    over = env.illegal_action == "terminate"
    if over:
        for other in env.agents:
            env.terminations[other] = True
    env._accumulate_rewards()
    return over


def check_batch(env: Any, illegal: np.ndarray, at: Callable[[int], IllegalAction], *,
                name_legal: bool = True) -> None:
    """In a batched env under ``"raise"``: the error of the first sub-env where ``illegal``
    (bool ``(N,)``) holds, ``at(i)`` describing it; called before any game moves."""
    if env.illegal_action == "raise" and illegal.any():
        i = int(np.flatnonzero(illegal)[0])
        raise at(i).error(sub_env=i, name_legal=name_legal)


def penalize_batch(env: Any, illegal: np.ndarray, rewards: np.ndarray,
                   terminated: np.ndarray) -> None:
    """In a batched env: ``illegal_penalty`` in ``rewards`` where ``illegal``, and under
    ``"terminate"`` those games in ``terminated`` (both in place)."""
    rewards[illegal] = env.illegal_penalty
    if env.illegal_action == "terminate":
        terminated |= illegal


def flag_batch(info: dict, illegal: np.ndarray, rows: np.ndarray) -> None:
    """``info["illegal_action"]`` (with its ``_illegal_action`` key ``rows``) of a batched
    env's info dict, when some sub-env acted illegally."""
    if illegal.any():
        info["illegal_action"], info["_illegal_action"] = illegal & rows, rows
