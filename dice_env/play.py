"""Play Penta, Dice Poker or 5000 in the terminal: ``python -m dice_env.play GAME`` (``dice-play``).

This module is only the entry point.  The program itself lives in :mod:`agents.play.terminal`,
because it seats bots and asks the optimal advisor, and the package layers run
rules -> envs -> agents -> scripts: ``dice_env`` must not import ``agents`` at import time.
This is the one place in ``dice_env`` allowed to import ``agents``, and it does so lazily,
inside :func:`main`, so ``import dice_env`` (and ``import dice_env.play``) never loads a player.

Run ``python -m dice_env.play --help`` for the options.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the interactive player (:func:`agents.play.terminal.cli.main`); returns the exit
    status."""
    from agents.play.terminal.cli import main as _main  # lazy on purpose: see the module docstring

    return _main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
