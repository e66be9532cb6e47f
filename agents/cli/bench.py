"""``dice-env bench WHAT``: the benchmarks -- ``env`` (env steps per second), ``trainer`` (the
PPO trainers' cost per step, with the roofline), ``web`` (a load test of the web app).

Each is also its own command (``dice-env bench-env``, ``bench-trainer``, ``web-load``), the
names of the documented ``scripts/`` entry points.

Example:
  dice-env bench env --ids dice_env/Penta-v0 --sizes 64
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: what ``dice-env bench`` runs: its name -> the subcommand
BENCHMARKS = {"env": "bench-env", "trainer": "bench-trainer", "web": "web-load"}


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run one benchmark; returns its exit status."""
    from agents.cli import run

    prog = prog or "dice-env bench"
    args = list(argv or [])
    if not args or args[0] in ("-h", "--help"):
        print(f"usage: {prog} {{{','.join(BENCHMARKS)}}} [ARGS...]\n\n{__doc__}")
        return 0 if args else 2
    if args[0] not in BENCHMARKS:
        print(f"{prog}: error: argument WHAT: unknown benchmark {args[0]!r} (choose from "
              f"{', '.join(BENCHMARKS)})", file=sys.stderr)
        return 2
    return run(BENCHMARKS[args[0]], args[1:])
