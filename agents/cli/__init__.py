"""``dice-env``: one command, grouped by what users do.

The commands a user meets first stand at the top (``play``, ``web``, ``solve``, ``evaluate``,
``replay``, ``train``, ``reproduce``, and ``rules``, ``models``, ``examples``); the rest sit
under three nouns: ``train ppo|stages|variants|learned-value|win-value|rllib|tune``, ``report
...`` (every table and figure of ``results/``, and the studies that train many seeds to write
one) and ``bench env|trainer|web|tables``.  ``dice-env train GAME ...`` is ``dice-env train ppo GAME
...``.  ``dice-env NOUN --help`` lists a noun's commands.

Each command lives in its own module of this package and exposes ``main(argv=None, *,
prog=None)``; it parses its arguments, resolves the game once, calls the library and prints --
nothing else.  Modules are imported only when their command runs, so ``dice-env --help``
starts at once.  The names of earlier versions (``regret-report``, ``bench-env``, ...) keep
working as hidden aliases (:data:`ALIASES`) that say the new name on stderr, and
``scripts/<name>.py`` (the reproduction commands of older results) run the same commands.
``dice-play`` / ``dice-web`` are names for ``dice-env play`` / ``dice-env web``.

    dice-env --help
    dice-env report --help
    dice-env evaluate --agent ppo --game penta --regret --games 200
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ALIASES", "COMMANDS", "NOUNS", "Command", "Noun", "find", "main", "resolve", "run",
           "script_main", "usage", "version"]


@dataclass(frozen=True)
class Command:
    """A command: its full name (``"play"``, ``"report regret"``), the module holding its
    ``main``, and a one-line summary."""

    name: str
    module: str
    summary: str

    @property
    def noun(self) -> str | None:
        """The noun it sits under (``"report"``), or None for a top-level command."""
        head, _, rest = self.name.partition(" ")
        return head if rest else None

    @property
    def leaf(self) -> str:
        """Its name under its noun (``"regret"``), or its whole name."""
        return self.name.rpartition(" ")[2]


@dataclass(frozen=True)
class Noun:
    """A noun that groups commands (``train``, ``report``, ``bench``): a one-line summary, what
    ``dice-env NOUN --help`` says of it, and the example that help ends with."""

    name: str
    summary: str
    description: str
    example: str
    #: the command run when the first word after the noun is none of its commands
    default: str | None = None


#: every command, in the order the help lists them
COMMANDS: tuple[Command, ...] = (
    Command("play", "agents.cli.play", "play a game in the terminal, alone or against bots"),
    Command("web", "agents.cli.web", "serve the web page: play, get advice, inspect agents"),
    Command("rules", "agents.cli.rules", "print a game's rules"),
    Command("models", "agents.cli.models",
            "where the committed models are and which name plays each"),
    Command("examples", "agents.cli.examples", "list the examples, or copy them: --copy DIR"),
    Command("solve", "agents.cli.solve", "solve a game exactly and print its optimal value"),
    Command("evaluate", "agents.cli.evaluate",
            "play agents against each other, or measure their exact gap (--regret)"),
    Command("replay", "agents.cli.replay", "write one game's replay as a self-contained HTML"),
    Command("reproduce", "agents.cli.reproduce",
            "reproduce the benchmark tables (quick by default, --full)"),
    Command("train ppo", "agents.cli.train", "train a PPO agent (stop any time, --resume)"),
    Command("train stages", "agents.cli.train_stages",
            "train a PPO recipe's stages, each from the last one's model"),
    Command("train variants", "agents.cli.recipe_variants",
            "train variants of the PPO recipe, by exact gap (results/recipe_variants.md)"),
    Command("train learned-value", "agents.cli.train_learned_value",
            "train a learned-value player (no DP tables)"),
    Command("train win-value", "agents.cli.train_win_value",
            "train a win-value player (plays to win against a field)"),
    Command("train rllib", "agents.cli.train_rllib", "train RLlib's PPO on a game"),
    Command("train tune", "agents.cli.tune", "search PPO hyperparameters with Ray Tune"),
    Command("report regret", "agents.cli.regret_report",
            "the exact regret of every player (results/regret.md)"),
    Command("report optimal", "agents.cli.optimal_report",
            "the optimal players' report (results/optimal.md)"),
    Command("report yahtzee", "agents.cli.yahtzee_report",
            "standard Yahtzee beside the published agents (results/yahtzee.md)"),
    Command("report win", "agents.cli.win_report",
            "playing to win against optimal fields (results/win.md)"),
    Command("report thresholds", "agents.cli.sweep_thresholds",
            "5000 threshold bots against each other (results/threshold_sweep.md)"),
    Command("report plots", "agents.cli.plot_results",
            "the learning-curve and score plots of results/"),
    Command("report ppo-seeds", "agents.cli.ppo_seeds",
            "trains a PPO config across seeds (results/ppo_seeds.md)"),
    Command("report recipe-seeds", "agents.cli.ppo_recipe_seeds",
            "trains the PPO recipe across seeds (results/ppo_recipe_seeds.md)"),
    Command("report learned-value-seeds", "agents.cli.learned_value_seeds",
            "trains learned-value players across seeds (results/learned_value.md)"),
    Command("report scaling", "agents.cli.scaling",
            "trains structured PPO to 10x its steps (results/scaling.md)"),
    Command("report ablations", "agents.cli.ablations",
            "trains without each part of structured PPO (results/ablations.md)"),
    Command("report screenshots", "agents.cli.web_screenshot",
            "screenshots of the web page for the docs (docs/)"),
    Command("bench env", "agents.cli.bench_env", "env steps per second (results/env_speed.md)"),
    Command("bench trainer", "agents.cli.bench_trainer",
            "the PPO trainers' speed (results/trainer_speed.md)"),
    Command("bench web", "agents.cli.web_load", "a load test of the web app"),
    Command("bench tables", "agents.cli.bench_tables",
            "seconds of a game's DP and score-spread tables from nothing"),
)

#: the nouns, by name
NOUNS: dict[str, Noun] = {n.name: n for n in (
    Noun("train", "train agents: ppo, stages, variants, learned-value, win-value, rllib, tune",
         "Train an agent. `dice-env train GAME ...` is `dice-env train ppo GAME ...`.",
         "dice-env train penta --max-minutes 30", default="ppo"),
    Noun("report", "the tables and figures of results/, and the studies that write them",
         "Write a page of results/: each report plays its games (the studies train their seeds "
         "first) and writes its Markdown table. A smaller run than the documented one writes "
         "runs/ instead.",
         "dice-env report regret --games 200 --fivethousand-games 0"),
    Noun("bench", "benchmarks: env speed, trainer speed, web load, table builds",
         "Measure speed: env steps per second, the PPO trainers' cost per step, the web app "
         "under load, the seconds of a game's solved tables.",
         "dice-env bench env --ids dice_env/Penta-v0 --sizes 64"),
)}

#: the sections of ``dice-env --help``: a title and the top-level names under it
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("play and learn the games", ("play", "web", "rules", "models", "examples")),
    ("solve and measure", ("solve", "evaluate", "replay", "reproduce")),
    ("train, report, benchmark", ("train", "report", "bench")),
)

#: the names of earlier versions -> the command each now is (hidden: not in ``--help``)
ALIASES: dict[str, str] = {
    "train-stages": "train stages",
    "recipe-variants": "train variants",
    "train-learned-value": "train learned-value",
    "train-win-value": "train win-value",
    "train-rllib": "train rllib",
    "tune": "train tune",
    "regret-report": "report regret",
    "optimal-report": "report optimal",
    "yahtzee-report": "report yahtzee",
    "win-report": "report win",
    "sweep-thresholds": "report thresholds",
    "plot-results": "report plots",
    "ppo-seeds": "report ppo-seeds",
    "ppo-recipe-seeds": "report recipe-seeds",
    "learned-value-seeds": "report learned-value-seeds",
    "scaling": "report scaling",
    "ablations": "report ablations",
    "web-screenshot": "report screenshots",
    "bench-env": "bench env",
    "bench-trainer": "bench trainer",
    "web-load": "bench web",
}

_BY_NAME = {c.name: c for c in COMMANDS}
_HELP = ("-h", "--help", "help")


def version() -> str:
    """The installed package's version (``0+unknown`` when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("dice-env")
    except PackageNotFoundError:
        return "0+unknown"


def find(name: str) -> Command | None:
    """The command called ``name``: its full name (``"report regret"``), an earlier name
    (``"regret-report"``; underscores read as hyphens, so a script's name works too), or a noun
    that runs a command by default (``"train"``: ``train ppo``)."""
    name = " ".join(name.split())
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name in NOUNS and NOUNS[name].default:
        return _BY_NAME[f"{name} {NOUNS[name].default}"]
    key = name.replace("_", "-")
    if key in ALIASES:
        return _BY_NAME[ALIASES[key]]
    return _BY_NAME.get(key)


def resolve(words: Sequence[str]) -> tuple[Command | None, list[str], str | None]:
    """``(command, its arguments, the earlier name used or None)`` of a command line without
    the leading ``dice-env``: ``["report", "regret", "--games", "9"]``, ``["train", "penta"]``
    (the noun's default: ``train ppo``) or ``["regret-report", ...]``.  The command is None when
    the words name none (a noun alone, or an unknown name)."""
    words = list(words)
    if not words:
        return None, [], None
    head, rest = words[0], words[1:]
    noun = NOUNS.get(head)
    if noun is not None:
        if rest and f"{head} {rest[0]}" in _BY_NAME:
            return _BY_NAME[f"{head} {rest[0]}"], rest[1:], None
        if noun.default and rest and rest[0] not in _HELP:
            return _BY_NAME[f"{head} {noun.default}"], rest, None
        return None, rest, None
    if head in _BY_NAME:
        return _BY_NAME[head], rest, None
    key = head.replace("_", "-")
    if key in ALIASES:
        return _BY_NAME[ALIASES[key]], rest, key
    return None, rest, None


def _top_entries() -> list[tuple[str, str]]:
    """``(name, summary)`` of every top-level entry, in help order."""
    summaries = {**{c.name: c.summary for c in COMMANDS if c.noun is None},
                 **{n.name: n.summary for n in NOUNS.values()}}
    return [(name, summaries[name]) for _, names in SECTIONS for name in names]


def usage() -> str:
    """What ``dice-env --help`` prints."""
    width = max(len(name) for name, _ in _top_entries()) + 2
    summaries = dict(_top_entries())
    lines = ["usage: dice-env [--version] [--help] COMMAND [ARGS...]", "",
             "Dice games for reinforcement learning: Penta, Dice Poker, 5000 and the Yahtzee",
             "presets, with exact optimal players, bots and trained agents."]
    for title, names in SECTIONS:
        lines += ["", f"{title}:"]
        lines += [f"  {name:<{width}}{summaries[name]}" for name in names]
    lines += ["", "`dice-env COMMAND --help` tells more, and ends with an example; "
              "`dice-env train --help`,", "`dice-env report --help` and `dice-env bench --help` "
              "list their commands.", "",
              "Examples:", "  dice-env play penta --advise",
              "  dice-env evaluate --agent ppo --game penta --regret --games 200"]
    return "\n".join(lines)


def noun_usage(noun: Noun) -> str:
    """What ``dice-env NOUN --help`` prints: its commands, one line each, and an example."""
    commands = [c for c in COMMANDS if c.noun == noun.name]
    width = max(len(c.leaf) for c in commands) + 2
    word = "COMMAND"
    lines = [f"usage: dice-env {noun.name} {word} [ARGS...]"
             + (f"\n       dice-env {noun.name} GAME [ARGS...]   (= dice-env {noun.name} "
                f"{noun.default} GAME ...)" if noun.default else ""), "",
             *textwrap.wrap(noun.description, 92, break_on_hyphens=False), "", "commands:"]
    lines += [f"  {c.leaf:<{width}}{c.summary}" for c in commands]
    lines += ["", f"`dice-env {noun.name} {word} --help` tells more.", "", "Example:",
              f"  {noun.example}"]
    return "\n".join(lines)


def run(name: str, argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run command ``name`` (see :func:`find`) with ``argv`` (its usage and errors say ``prog``,
    by default ``dice-env NAME`` with the command's full name); returns its exit status."""
    command = find(name)
    if command is None:
        raise KeyError(name)
    module = importlib.import_module(command.module)
    result = module.main(list(argv or []), prog=prog or f"dice-env {command.name}")
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


def script_main(name: str) -> None:
    """What ``scripts/<name>.py`` runs: command ``name`` (the script's name, an earlier name of
    the command) with the script's arguments.  Its usage, its errors and the commands it prints
    name the command as it is now (``dice-env report regret: error: ...``)."""
    command = find(name)
    if command is None:
        raise KeyError(name)
    prog = f"dice-env {name}" if name in NOUNS else None  # scripts/train.py: `dice-env train`
    raise SystemExit(run(command.name, sys.argv[1:], prog=prog))


def _unknown(words: list[str]) -> int:
    """The one-line error for a command line that names no command; returns 2."""
    noun = NOUNS.get(words[0])
    if noun is not None:
        choices = [c.leaf for c in COMMANDS if c.noun == noun.name]
        print(f"dice-env {noun.name}: error: unknown command {words[1]!r} (choose from "
              f"{', '.join(choices)}); `dice-env {noun.name} --help` lists them",
              file=sys.stderr)
        return 2
    start = words[0].replace("_", "-")[:3]
    names = {**{name: name for name, _ in _top_entries()}, **ALIASES,
             **{c.leaf: c.name for c in COMMANDS}}
    close = list(dict.fromkeys(full for name, full in names.items()
                               if start and name.startswith(start)))
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    print(f"dice-env: error: unknown command {words[0]!r}{hint}; `dice-env --help` lists "
          "them", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """The ``dice-env`` command; returns the exit status (2 for a bad command line)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in _HELP:
        if len(args) > 1 and args[0] == "help":  # dice-env help report regret
            return main([*args[1:], "--help"])
        print(usage())
        return 0 if args else 2
    if args[0] in ("-V", "--version"):
        print(f"dice-env {version()}")
        return 0
    command, rest, old = resolve(args)
    if command is None:
        noun = NOUNS.get(args[0])
        if noun is not None and (not rest or rest[0] in _HELP):
            print(noun_usage(noun))
            return 0 if rest else 2
        return _unknown(args)
    if old is not None:
        print(f"dice-env: note: `{old}` is now `dice-env {command.name}`", file=sys.stderr)
    # `dice-env train GAME` keeps its own name in its messages (and the commands it prints)
    shorthand = command.noun is not None and args[1:2] != [command.leaf] and old is None
    prog = f"dice-env {command.noun}" if shorthand else f"dice-env {command.name}"
    try:
        return run(command.name, rest, prog=prog)
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
