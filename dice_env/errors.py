"""Exceptions shared by every environment of the package."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state (the state is unchanged)."""


ILLEGAL_ACTION_MODES = ("raise", "penalize", "terminate")


def check_illegal_action_mode(mode: str) -> str:
    """Validate the ``illegal_action`` option of an env."""
    if mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {mode!r}")
    return mode
