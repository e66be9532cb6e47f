"""``dice-env``: one command, with a subcommand for each thing users do.

Each subcommand lives in its own module of this package and exposes
``main(argv=None, *, prog=None)``; it parses its arguments, resolves the game once, calls the
library and prints -- nothing else.  Modules are imported only when their subcommand runs, so
``dice-env --help`` starts at once.  ``scripts/<name>.py`` are thin entry points to the same
``main`` functions (the documented reproduction commands), and ``dice-play`` / ``dice-web`` are
names for ``dice-env play`` / ``dice-env web``.

    dice-env --help
    dice-env evaluate --agent ppo --game penta --regret --games 200
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["COMMANDS", "Command", "main", "version"]


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, the module holding its ``main``, a one-line summary, and the
    group ``dice-env --help`` lists it under."""

    name: str
    module: str
    summary: str
    group: str = "main"


_MAIN, _REPORTS, _MORE = "main", "reports", "more"
#: every subcommand, in the order ``dice-env --help`` lists them
COMMANDS: tuple[Command, ...] = (
    Command("play", "agents.cli.play", "play a game in the terminal, alone or against bots"),
    Command("web", "agents.cli.web", "serve the web page: play, get advice, inspect agents"),
    Command("solve", "agents.cli.solve", "solve a game exactly and print its optimal value"),
    Command("evaluate", "agents.cli.evaluate",
            "play agents against each other, or measure their exact gap (--regret)"),
    Command("replay", "agents.cli.replay", "write one game's replay as a self-contained HTML"),
    Command("train", "agents.cli.train", "train a PPO agent (stop any time, --resume)"),
    Command("train-stages", "agents.cli.train_stages",
            "train a PPO recipe's stages, each from the last one's model"),
    Command("tune", "agents.cli.tune", "search PPO hyperparameters with Ray Tune"),
    Command("reproduce", "agents.cli.reproduce",
            "reproduce the benchmark tables (quick by default, --full)"),
    Command("bench", "agents.cli.bench", "benchmarks: env speed, trainer speed, web load"),
    Command("regret-report", "agents.cli.regret_report",
            "the exact-regret report of every player (results/regret.md)", _REPORTS),
    Command("optimal-report", "agents.cli.optimal_report",
            "the optimal players' report (results/optimal.md)", _REPORTS),
    Command("yahtzee-report", "agents.cli.yahtzee_report",
            "standard Yahtzee beside the published agents (results/yahtzee.md)", _REPORTS),
    Command("win-report", "agents.cli.win_report",
            "playing to win against optimal fields (results/win.md)", _REPORTS),
    Command("sweep-thresholds", "agents.cli.sweep_thresholds",
            "5000 threshold bots against each other (results/threshold_sweep.md)", _REPORTS),
    Command("plot-results", "agents.cli.plot_results",
            "the learning-curve and score plots of results/", _REPORTS),
    Command("ppo-seeds", "agents.cli.ppo_seeds",
            "a PPO config across training seeds (results/ppo_seeds.md)", _REPORTS),
    Command("ppo-recipe-seeds", "agents.cli.ppo_recipe_seeds",
            "the committed PPO recipe across seeds; exports the median", _REPORTS),
    Command("recipe-variants", "agents.cli.recipe_variants",
            "variants of the PPO recipe by exact gap (results/recipe_variants.md)", _REPORTS),
    Command("scaling", "agents.cli.scaling",
            "structured PPO's exact gap against steps, to 10x (results/scaling.md)", _REPORTS),
    Command("learned-value-seeds", "agents.cli.learned_value_seeds",
            "the learned-value trainer across seeds (results/learned_value.md)", _REPORTS),
    Command("ablations", "agents.cli.ablations",
            "what each part of the structured policy buys (results/ablations.md)", _REPORTS),
    Command("train-learned-value", "agents.cli.train_learned_value",
            "train a learned-value player (no DP tables)", _MORE),
    Command("train-win-value", "agents.cli.train_win_value",
            "train a win-value player (plays to win against a field)", _MORE),
    Command("train-rllib", "agents.cli.train_rllib", "train RLlib's PPO on a game", _MORE),
    Command("bench-env", "agents.cli.bench_env",
            "env steps per second (results/env_speed.md)", _MORE),
    Command("bench-trainer", "agents.cli.bench_trainer",
            "the PPO trainers' speed (results/trainer_speed.md)", _MORE),
    Command("web-load", "agents.cli.web_load", "a load test of the web app", _MORE),
    Command("web-screenshot", "agents.cli.web_screenshot",
            "screenshots of the web page (docs/)", _MORE),
)
_BY_NAME = {c.name: c for c in COMMANDS}
_GROUPS = {_MAIN: "commands", _REPORTS: "reports and studies (write results/)",
           _MORE: "more"}


def version() -> str:
    """The installed package's version (``0+unknown`` when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("dice-env")
    except PackageNotFoundError:
        return "0+unknown"


def find(name: str) -> Command | None:
    """The subcommand called ``name`` (underscores read as hyphens: ``regret_report``)."""
    return _BY_NAME.get(name.replace("_", "-"))


def usage() -> str:
    """What ``dice-env --help`` prints."""
    width = max(len(c.name) for c in COMMANDS) + 2
    lines = ["usage: dice-env [--version] [--help] COMMAND [ARGS...]", "",
             "Dice games for reinforcement learning: Penta, Dice Poker, 5000 and the Yahtzee",
             "presets, with exact optimal players, bots and trained agents."]
    for group, title in _GROUPS.items():
        lines += ["", f"{title}:"]
        lines += [f"  {c.name:<{width}}{c.summary}" for c in COMMANDS if c.group == group]
    lines += ["", "`dice-env COMMAND --help` tells more, and ends with an example:", "",
              "  dice-env play penta --advise",
              "  dice-env evaluate --agent ppo --game penta --regret --games 200"]
    return "\n".join(lines)


def run(name: str, argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run subcommand ``name`` with ``argv`` (its usage and errors say ``prog``, by default
    ``dice-env NAME``); returns its exit status."""
    command = find(name)
    if command is None:
        raise KeyError(name)
    module = importlib.import_module(command.module)
    result = module.main(list(argv or []), prog=prog or f"dice-env {command.name}")
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


def script_main(name: str) -> None:
    """What ``scripts/<name>.py`` runs: subcommand ``name`` with the script's arguments, its
    messages naming the script (``python scripts/evaluate.py ...`` keeps working as before)."""
    import os

    raise SystemExit(run(name, sys.argv[1:], prog=os.path.basename(sys.argv[0])))


def main(argv: Sequence[str] | None = None) -> int:
    """The ``dice-env`` command; returns the exit status (2 for a bad command line)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        if len(args) > 1 and args[0] == "help" and find(args[1]):
            return run(args[1], ["--help"])
        print(usage())
        return 0 if args else 2
    if args[0] in ("-V", "--version"):
        print(f"dice-env {version()}")
        return 0
    if find(args[0]) is None:
        close = [c.name for c in COMMANDS if c.name.startswith(args[0][:3])]
        hint = f" (did you mean {', '.join(close)}?)" if close and args[0][:3] else ""
        print(f"dice-env: error: unknown command {args[0]!r}{hint}; `dice-env --help` lists "
              "them", file=sys.stderr)
        return 2
    try:
        return run(args[0], args[1:])
    except SystemExit as exc:  # argparse's --help (0) and errors (2)
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        print("dice-env: interrupted", file=sys.stderr)
        return 130


def entry_point() -> None:
    """The console script: ``raise SystemExit(main())``.

    Output piped into a program that stops reading (``dice-env --help | head``) ends quietly,
    as other command-line tools do, instead of with a ``BrokenPipeError`` traceback.
    """
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        import os

        # Python flushes stdout again at exit; point it at devnull so that flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    raise SystemExit(code)
