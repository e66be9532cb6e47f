"""What a new user types wrong, and what the commands answer (issue 35).

* every number any subcommand takes has a checked ``type``: ``-1`` and ``abc`` are one-line
  errors (exit status 2) naming the option -- checked by walking every parser, so a new
  argument without a checked type fails here;
* every ``--set KEY=VALUE`` (and every entry of a config file) is checked against the config's
  schema: its type, its range, and unknown keys (named with the known ones);
* a run its arguments reject creates nothing (no empty run folder);
* an output path in a folder that is not there: the folder is made, and the command says so;
  a path that cannot be made is a one-line error before any work;
* the summary of a stopped ``dice-env train`` shows the last evaluation of a trained policy;
* no progress bar when the output is not a terminal;
* a benchmark row that beats the optimum carries a note saying why that can happen;
* ``play --seed S`` deals the dice of ``evaluate --seed S`` (and, alone, of ``replay --seed S``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import agents.cli
from agents.cli import main as dice_env_main
from agents.cli.args import OUTPUT_TYPES, output_file, output_path

DICE_ENV = str(Path(sys.executable).with_name("dice-env"))
TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "trainer": "lean", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "policy_kwargs": {"net_arch": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 1,
                "gamma": 1.0},
        "eval": {"every_timesteps": 256, "games": 10, "seed": 1},
        "checkpoint_every_timesteps": 256}


def command_parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """``(module name, parser)`` of every module of ``agents.cli`` with a ``build_parser``
    (the subcommands, and the parsers they hand over to, such as ``train-learned-value
    fivethousand``'s)."""
    parsers = []
    for info in pkgutil.iter_modules(agents.cli.__path__):
        module = importlib.import_module(f"agents.cli.{info.name}")
        if hasattr(module, "build_parser"):
            parsers.append((info.name, module.build_parser(f"dice-env {info.name}")))
    return parsers


def parse_error(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[object, str]:
    """``(exit status, stderr)`` of ``parser.parse_args(argv)`` (status 0: it parsed)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(argv)
            return 0, ""
        except SystemExit as exc:
            return exc.code, err.getvalue()


def unchecked_numbers(parser: argparse.ArgumentParser) -> list[str]:
    """The options of ``parser`` whose numbers are not checked: a bare ``int`` / ``float``
    type, a number default without a type, or a type that takes ``-1`` or ``abc`` or whose
    error is not one line naming the option."""
    problems = []
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0:
            continue
        name = "/".join(action.option_strings)
        kind = action.type
        if kind in (int, float):
            problems.append(f"{name}: bare {kind.__name__} (use a checked type of "
                            "agents/cli/args.py)")
            continue
        if kind in (None, str, Path, *OUTPUT_TYPES):
            if isinstance(action.default, (int, float)) and not isinstance(action.default, bool):
                problems.append(f"{name}: a number default without a checked type")
            continue
        for bad in ("-1", "abc"):
            status, err = parse_error(parser, [action.option_strings[-1], bad])
            if status != 2 or err.count("\n") != 1 or f"argument {name}: " not in err:
                problems.append(f"{name} {bad}: exit {status}, {err.strip()!r}")
    return problems


# -- 1. every number is checked ------------------------------------------------------------------

def test_every_number_of_every_subcommand_has_a_checked_type():
    parsers = command_parsers()
    walked = {f"agents.cli.{name}" for name, _ in parsers}
    assert {c.module for c in agents.cli.COMMANDS} <= walked
    problems = {name: p for name, parser in parsers if (p := unchecked_numbers(parser))}
    assert not problems, problems


def test_the_number_check_finds_an_unchecked_argument():
    """The walk above can fail: a bare int, a float default without a type, a type taking -1."""
    parser = agents.cli.args.OneLineParser(prog="x")
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--rate", default=0.5)
    parser.add_argument("--seed", type=agents.cli.args.at_least(-5), default=0)
    parser.add_argument("--games", type=agents.cli.args.at_least(1), default=1)
    problems = unchecked_numbers(parser)
    assert [p.split(":")[0].split()[0] for p in problems] == ["--count", "--rate", "--seed"]


@pytest.mark.parametrize(("command", "args", "message"), [
    ("play", ["penta", "--seed", "-1"], "argument --seed: must be at least 0, got -1"),
    ("play", ["penta", "--auto-seconds", "-1"], "argument --auto-seconds: must be 0 (off) or"),
    ("play", ["penta", "--auto-seconds", "nan"], "argument --auto-seconds: "),
    ("train learned-value", ["fivethousand", "--players", "-1"], "argument --players: must be"),
    ("train learned-value", ["fivethousand", "--players", "9"],
     "argument --players: must be at most 6, got 9"),
    ("replay", ["--agent", "greedy", "--game", "penta", "--seed", "-3", "--out", "r.html"],
     "argument --seed: must be at least 0, got -3"),
])
def test_bad_numbers_are_one_line_errors_naming_the_argument(command, args, message, capsys):
    assert dice_env_main([*command.split(), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def config_leaves(config: dict, prefix: str = "") -> list[tuple[str, object]]:
    """``(dotted key, value)`` of every entry of ``config`` that is not a section."""
    leaves = []
    for key, value in config.items():
        if isinstance(value, dict) and value:
            leaves += config_leaves(value, f"{prefix}{key}.")
        elif not key.startswith("_"):
            leaves.append((f"{prefix}{key}", value))
    return leaves


def bad_values(key: str, value: object) -> list[str]:
    """JSON texts ``--set KEY=...`` must refuse, given the committed value ``value``."""
    from agents.training.ppo.config import SCHEMA

    if isinstance(value, bool):
        return ['"abc"', "3"]
    if isinstance(value, (int, float)):
        bad = ['"abc"', "true", "[1]"]
        entry = SCHEMA.get(key)
        if entry is not None and not entry.ok(-1):
            bad.append("-1")
        if isinstance(value, int) and entry is not None and entry.what.startswith("an integer"):
            bad.append("2.5")
        return bad
    if isinstance(value, str):
        return ["3", "true"]
    if isinstance(value, list):
        return ['"abc"', "[-1]"] if all(isinstance(v, int) for v in value) else ['"abc"']
    return []


def committed_cases() -> list[tuple[str, str, str]]:
    from agents.training.ppo.config import CONFIG_DIR

    cases = []
    for game in ("penta", "penta-structured", "fivethousand", "fivethousand-structured"):
        config = json.loads((CONFIG_DIR / f"{game}.json").read_text())
        for key, value in config_leaves(config):
            cases += [(game, key, bad) for bad in bad_values(key, value)]
    return cases


@pytest.mark.parametrize(("game", "key", "bad"), committed_cases())
def test_every_set_value_is_checked_for_type_and_range(game, key, bad):
    """Every entry of the committed configs, given a value of the wrong type or out of its
    range: one line naming ``--set`` and the entry."""
    from agents.training.ppo.session import checked_config

    checked_config(game)  # the committed config itself is fine
    with pytest.raises(ValueError) as info:
        checked_config(game, overrides=[f"{key}={bad}"])
    message = str(info.value)
    assert message.startswith("argument --set: ") and "\n" not in message, message
    assert key.rpartition(".")[2] in message, message


@pytest.mark.parametrize(("override", "message"), [
    ("ppo.gamma=0", "ppo.gamma must be a number above 0 and at most 1, got 0"),
    ("ppo.gae_lambda=1.5", "ppo.gae_lambda must be a number from 0 to 1, got 1.5"),
    ("ppo.batch_size=1", "ppo.batch_size must be an integer of at least 2, got 1"),
    ("ppo.learning_rate_schedule=\"cosine\"", "one of ['constant', 'linear'], got 'cosine'"),
    ("ppo.lr=0.1", "unknown config entry 'ppo.lr'; known in ppo: ['learning_rate', "),
    ("learning_rate=0.1", "unknown config entry 'learning_rate'; known: ['game', 'env_id'"),
    ("env_kwargs.observation=\"x\"", "env_kwargs: unknown observation kind 'x'"),
    ("env_kwargs.canonical_holds=3", "env_kwargs.canonical_holds must be true or false, got 3"),
    ("env_kwargs.nonesuch=1", "env_kwargs: unknown rule knobs ['nonesuch']"),
    ("policy_kwargs.net_arch=[0]", "policy_kwargs.net_arch must be hidden sizes"),
    ("env_id=\"dice_env/FiveThousand-v0\"", "is not a game of family 'scorecard'"),
])
def test_set_refuses_ranges_unknown_keys_and_env_options(override, message):
    from agents.training.ppo.session import checked_config

    with pytest.raises(ValueError, match=None) as info:
        checked_config("penta", overrides=[override])
    assert str(info.value) == f"argument --set: {message}" or message in str(info.value), \
        str(info.value)


def test_a_config_file_is_checked_like_set(tmp_path):
    from agents.training.ppo.session import checked_config

    path = tmp_path / "mine.json"
    path.write_text(json.dumps({**TINY, "ppo": {**TINY["ppo"], "gamma": 0}}))
    with pytest.raises(ValueError, match=r"^config .*mine\.json: ppo\.gamma must be a number "
                                         r"above 0 and at most 1, got 0$"):
        checked_config("penta", path)
    path.write_text(json.dumps({**TINY, "total_steps": 5}))
    with pytest.raises(ValueError, match="unknown config entry 'total_steps'; known: "):
        checked_config("penta", path)
    path.write_text(json.dumps(TINY))
    assert checked_config("penta", path)["ppo"]["gamma"] == 1.0


def test_the_recipes_stages_and_ablations_pass_the_checks():
    """What the committed recipes set is valid (the check refuses nothing that trains)."""
    from agents.training.ppo.session import checked_config
    from agents.training.ppo.stages import check_stage_configs, load_stages
    from agents.training.studies.ablations import VARIANTS

    for game, stages in load_stages().items():
        check_stage_configs(game, stages)
    for _, overrides in VARIANTS.values():
        checked_config("penta", overrides=overrides)


# -- 2. a rejected run creates nothing ------------------------------------------------------------

@pytest.fixture
def no_training(monkeypatch):
    """Any training or Ray start fails the test (the arguments should have been refused)."""
    def refuse(*args, **kwargs):
        raise AssertionError("started work for a run its arguments should refuse")

    import agents.training.ppo.session as session
    import agents.training.ray.tune as tune

    monkeypatch.setattr(session, "_build", refuse)
    monkeypatch.setattr(tune, "require_ray", refuse)
    monkeypatch.setattr("agents.training.learned_value.scorecard.train", refuse)
    monkeypatch.setattr("agents.training.studies.ppo_recipe.run_recipe_seeds", refuse)


@pytest.mark.parametrize(("command", "args", "message"), [
    ("train", ["penta", "--run-dir", "a/run", "--set", "ppo.n_steps=-4"],
     "argument --set: ppo.n_steps must be an integer of at least 1, got -4"),
    ("train", ["penta", "--run-dir", "a/run", "--set", "env_kwargs.nonesuch=1"],
     "argument --set: env_kwargs: unknown rule knobs"),
    ("train", ["penta", "--run-dir", "a/run", "--export", "a/b/m.zip", "--set", "ppo.x=1"],
     "unknown config entry 'ppo.x'"),
    ("train stages", ["penta", "--run-root", "a/runs", "--stages", "stages.json"],
     "penta stage 2: argument --set: ppo.gamma must be a number above 0"),
    ("report recipe-seeds", ["--games", "penta", "--stages", "stages.json", "--run-root",
                          "a/runs", "--out", "a/table"],
     "penta stage 2: argument --set: ppo.gamma must be a number above 0"),
    ("train tune", ["penta", "--out", "a/tune", "--grid", "ppo.gamma=0.9,abc"],
     "argument --grid: ppo.gamma must be"),
    ("train tune", ["penta", "--out", "a/tune", "--set", "ppo.n_epochs=0"],
     "argument --set: ppo.n_epochs must be an integer of at least 1, got 0"),
    ("train rllib", ["penta", "--out", "a/rllib", "--set", "num_envs=0"],
     "argument --set: num_envs must be an integer of at least 1, got 0"),
    ("train learned-value", ["penta", "--out", "a/lv", "--refine-passes", "2",
                             "--refine-games", "0"], "refinement passes need"),
    ("report ablations", ["penta", "--out", "a/abl", "--variants", "nope"], "unknown variants"),
])
def test_a_rejected_run_creates_nothing(command, args, message, tmp_path, monkeypatch, capsys,
                                        no_training):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stages.json").write_text(json.dumps({"penta": [
        {"timesteps": 1000}, {"timesteps": 2000, "set": {"ppo.gamma": 0}}]}))
    assert dice_env_main([*command.split(), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stages.json"]


# -- 3. output paths ----------------------------------------------------------------------------

#: the options that name what a command writes
OUTPUT_OPTIONS = {"out", "out_dir", "export", "run_dir", "run_root", "inspect_out", "cache_dir"}


def output_actions() -> list[tuple[str, argparse.ArgumentParser, argparse.Action]]:
    return [(name, parser, action) for name, parser in command_parsers()
            for action in parser._actions
            if action.dest in OUTPUT_OPTIONS and action.nargs != 0]


def test_every_output_path_is_checked_and_its_folder_made():
    """Each output path has a checked type, and its command makes the folder it needs (and
    says so) with make_output_folders, once the arguments are checked."""
    actions = output_actions()
    assert len(actions) >= 25
    untyped = [f"{n} {a.option_strings}" for n, _, a in actions if a.type not in OUTPUT_TYPES]
    assert not untyped, untyped
    for name in {n for n, _, _ in actions}:
        source = Path(importlib.import_module(f"agents.cli.{name}").__file__).read_text()
        assert "make_output_folders(parser, args" in source, name


def test_an_output_path_that_cannot_be_made_is_a_one_line_error(tmp_path):
    """Every output option: a path through a file is refused at once, naming the option."""
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    for name, parser, action in output_actions():
        option = action.option_strings[-1]
        status, err = parse_error(parser, [option, str(blocker / "sub" / "x.out")])
        assert status == 2 and err.count("\n") == 1, (name, option, err)
        assert f"argument {'/'.join(action.option_strings)}: " in err, (name, err)
        assert f"{blocker} is a file, not a folder" in err, (name, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_output_types_refuse_a_folder_for_a_file_and_a_file_for_a_folder(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(argparse.ArgumentTypeError, match="is a folder; name the file"):
        output_file(str(tmp_path))
    with pytest.raises(argparse.ArgumentTypeError, match="is a file, not a folder"):
        output_path(str(tmp_path / "f"))
    assert output_path(str(tmp_path / "new" / "deeper")) == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()  # checking makes nothing


def test_replay_into_a_missing_folder_makes_it_and_says_so(tmp_path, capsys):
    out = tmp_path / "new" / "deeper" / "r.html"
    assert dice_env_main(["replay", "--agent", "greedy", "--game", "penta", "--seed", "1",
                          "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"dice-env replay: created folder {out.parent} for --out" in err, err
    assert "Content-Security-Policy" in out.read_text(encoding="utf-8")


def test_evaluate_into_a_missing_folder_makes_it_and_says_so(tmp_path, capsys):
    out = tmp_path / "a" / "b"
    dice_env_main(["evaluate", "--agent", "random", "--games", "4", "--out", str(out)])
    assert f"created folder {out} for --out" in capsys.readouterr().err
    assert json.loads((out / "evaluation.json").read_text())[0]["agent"] == "random"


# -- 4. the stop summary -------------------------------------------------------------------------

def stopped_run(tmp_path, monkeypatch, every: int, rollouts: int) -> tuple[dict, Path]:
    """A tiny lean run stopped (as by Ctrl-C) before its rollout ``rollouts + 1``; returns its
    summary and run folder."""
    import agents.training.ppo.session as session
    from agents.training.ppo.runs import StopRequest

    class StopAfter(StopRequest):
        calls = 0

        def __call__(self) -> bool:
            StopAfter.calls += 1
            if StopAfter.calls > rollouts:
                self.reason = "SIGINT"
            return self.reason is not None

    monkeypatch.setattr(session, "StopRequest", StopAfter)
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "eval": {**TINY["eval"], "every_timesteps": every}}))
    run_dir = tmp_path / "run"
    options = session.TrainOptions(game="penta", config=config, run_dir=run_dir,
                                   progress=False, threads=1)
    return session.open_session(options).run(), run_dir


def test_a_stopped_run_shows_its_last_real_evaluation(tmp_path, monkeypatch):
    from agents.training.ppo.checkpoints import read_learning_curve

    summary, run_dir = stopped_run(tmp_path, monkeypatch, every=256, rollouts=2)
    assert summary["stopped"] == "SIGINT" and summary["timesteps"] == 512
    curve = read_learning_curve(run_dir / "eval.csv")
    assert [r["timesteps"] for r in curve] == [0, 256, 512]
    assert summary["last_eval"] == curve[-1] and "last_eval_note" not in summary


def test_a_run_stopped_before_its_first_evaluation_says_so(tmp_path, monkeypatch):
    summary, run_dir = stopped_run(tmp_path, monkeypatch, every=100_000, rollouts=2)
    assert summary["stopped"] == "SIGINT" and summary["timesteps"] == 512
    assert summary["last_eval"] is None
    assert "no evaluation since training began" in summary["last_eval_note"]
    assert "every 100,000 timesteps (eval.every_timesteps), next at 100,000" in \
        summary["last_eval_note"]
    assert (run_dir / "eval.csv").read_text().splitlines()[1].startswith("0,")


# -- 5. progress bars -----------------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bars_draw_only_on_a_terminal():
    from agents.progress import on_terminal, progress_bar

    piped, terminal = io.StringIO(), _Terminal()
    assert not on_terminal(piped) and on_terminal(terminal)
    for stream in (piped, terminal):
        for _ in progress_bar(range(3), file=stream, desc="x", mininterval=0):
            pass
    assert piped.getvalue() == "" and "\r" in terminal.getvalue()
    quiet = _Terminal()
    for _ in progress_bar(range(3), file=quiet, enabled=False):
        pass
    assert quiet.getvalue() == ""


def test_every_progress_bar_goes_through_the_helper():
    """No module but agents/progress.py imports tqdm (the web app's worker stand-in and its
    table-preparation bars, which check the terminal themselves, aside)."""
    root = Path(agents.cli.__file__).parent.parent
    allowed = {"progress.py", "play/web/job_worker.py", "play/web/server.py"}
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if str(p.relative_to(root)) not in allowed
                 and any(line.lstrip().startswith(("import tqdm", "from tqdm"))
                         for line in p.read_text().splitlines())]
    assert not offenders, offenders


def test_no_progress_bar_through_a_pipe(tmp_path):
    """``dice-env bench env`` (a bar over the envs) with its output piped: no carriage return,
    no escape code."""
    result = subprocess.run([DICE_ENV, "bench", "env", "--ids", "dice_env/Penta-v0", "--aec",
                             "--sizes", "4", "--steps", "64", "--single-steps", "16",
                             "--repeats", "1", "--out", str(tmp_path / "b")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for text in (result.stdout, result.stderr):
        assert "\r" not in text and "\x1b" not in text, text[:300]
    assert "created folder" in result.stderr


# -- 6. a row that beats the optimum ---------------------------------------------------------------

def _row(agent: str, diff: float, low: float, high: float) -> dict:
    return {"game": "dice-poker", "agent": agent, "opponent": "", "games": 2000, "mean": 315.0,
            "std": 65.0, "sem": 1.45, "diff_to_optimal": diff, "diff_ci_low": low,
            "diff_ci_high": high}


def test_a_row_above_the_optimum_gets_a_note_under_its_table():
    from agents.evaluation.reports.benchmark import benchmark_markdown, evaluation_line

    rows = [_row("optimal", 0.0, 0.0, 0.0), _row("learned-value", 0.85, 0.07, 1.62),
            _row("heuristic", -12.0, -13.0, -11.0)]
    text = benchmark_markdown(rows, "cmd", {"dice-poker": 314.9}, None)
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("| learned-value"))
    assert lines[row].endswith("+0.85 [+0.07, +1.62] † |")
    note = lines[row + 3]  # the heuristic row, a blank line, then the note
    assert note.startswith("† learned-value scores above the optimal player on these games")
    assert "maximizes the *expected* result" in note and "cannot be negative" in note
    assert "dice-env evaluate --agent learned-value --game dice-poker --regret" in note
    assert "†" not in text.replace(lines[row], "").replace(note, "")
    assert "--regret gives the exact gap" in evaluation_line("dice-poker", rows[1])
    assert "--regret" not in evaluation_line("dice-poker", rows[2])


def test_no_note_when_the_ci_includes_the_optimum_and_one_for_5000():
    from agents.evaluation.reports.benchmark import benchmark_markdown

    fine = benchmark_markdown([_row("ppo", 0.4, -0.2, 1.0)], "cmd", {}, None)
    assert "†" not in fine
    five = [{"game": "fivethousand", "agent": "learned-value", "opponent": "optimal",
             "games": 4000, "win_rate": 0.53, "ci_low": 0.515, "ci_high": 0.545}]
    text = benchmark_markdown(five, "cmd", {}, None)
    assert "| 0.530 † |" in text and "wins more than half of its games against the optimal" \
        in text


# -- 7. the same seed, the same dice ---------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 7, 123])
def test_play_seed_deals_the_dice_of_evaluate_and_replay(seed):
    """``play penta --opponents heuristic --seed S``, the person playing as the heuristic does:
    seat k's game is game k of ``evaluate --seed S``; the person's is the game of ``replay
    --seed S`` (the regret tools' ``game_seeds=[S]``)."""
    from agents.evaluation.scorecard_games import play_scorecard_games, run_scorecard_games
    from agents.play.scorecard_session import ScorecardSession
    from agents.registry import make
    from dice_env.scorecard.rules import get_rules

    rules = get_rules("penta")
    person = make("heuristic", "penta")
    session = ScorecardSession(rules, ["heuristic"], seed=seed)
    while not session.over():
        if session.human_to_move():
            session.play(person.act(session.table.observation(), session.table.mask))
        else:
            session.bot_step()
    evaluated = play_scorecard_games(person, "penta", 2, seed=seed).tolist()
    replayed = run_scorecard_games(person, rules, 1, game_seeds=[seed]).total.tolist()
    assert session.totals() == evaluated and session.totals()[0] == replayed[0]
