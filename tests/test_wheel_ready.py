"""What a user of the installed wheel meets, with no checkout beside it (issue 46, item 4).

* ``dice-env models`` lists every committed model with the player that plays it, and
  ``--path`` prints one path (for ``--init-from`` in a shell);
* ``dice-env examples`` lists the examples, ``--copy DIR`` copies them and never overwrites
  without ``--force``;
* ``dice-env rules GAME`` prints one game's sections of the rule book;
* the examples and the rule book are found inside the package when installed (setup.py copies
  them in; ``agents.paths.shipped``), else in the checkout;
* one-line errors: ``plot-results --results nosuchdir``, the RLlib example without Ray (or
  without torch);
* ``replay --help`` says one thing about ``--out``'s folder;
* ``bench env`` says the figures it writes;
* the terminal's help and the messages fixed here name commands, not checkout paths.

The installed wheel itself is checked by ``.ci/check_wheel.py`` (what it holds) and
``.ci/smoke_installed.py`` (``dice-env examples --copy``, then an example from the copy).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import examples as examples_cli
from agents.cli import models as models_cli
from agents.cli import plot_results as plot_results_cli
from agents.cli import replay as replay_cli
from agents.cli import rules as rules_cli

ROOT = Path(__file__).resolve().parents[1]


def run_main(module, argv: list[str], capsys) -> tuple[int, str, str]:
    """``module.main(argv)`` as the command runs it: (exit status, stdout, stderr)."""
    try:
        status = module.main(argv, prog=f"dice-env {module.__name__.rsplit('.', 1)[-1]}")
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return (0 if status is None else status), out, err


def one_line_error(status: int, err: str, *needles: str) -> None:
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error: " in lines[0] and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], (needle, err)


# -- dice-env models -------------------------------------------------------------------------


def test_models_lists_every_committed_model_with_a_registered_player(capsys):
    import agents
    from agents.paths import committed_models_dir

    folder = committed_models_dir()
    files = sorted(p.name for p in folder.iterdir() if p.suffix in (".zip", ".pt"))
    assert len(files) >= 10, files
    models = models_cli.committed_models()
    assert sorted(m.path.name for m in models) == files  # none left out, none made up
    for model in models:
        assert model.player in agents.available(model.game), model
        assert model.curves, f"no learning curve beside {model.path.name}"
    status, out, _ = run_main(models_cli, [], capsys)
    assert status == 0 and str(folder) in out
    for model in models:
        assert model.path.name in out and model.make_call() in out
    assert 'agents.make("ppo", "penta")' in out
    assert 'agents.make("ppo-pure", "yahtzee-official")' in out
    assert 'agents.make("learned-value", "fivethousand", num_players=3)' in out
    status, out, _ = run_main(models_cli, ["--json"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["file"] for r in records] == files
    assert all(Path(r["path"]).is_file() for r in records)


def test_the_model_names_follow_the_players_default_paths():
    """The player named for a file is the one that loads that file by default."""
    from agents.games import resolve
    from agents.paths import committed_model

    by_file = {m.path.name: m for m in models_cli.committed_models()}
    for name, model in by_file.items():
        if model.player in ("ppo", "ppo-pure"):  # agents/policies/committed.py
            suffix = "-pure" if model.player == "ppo-pure" else ""
            expected = f"{resolve(model.game).model_name}{suffix}.zip"
        elif "num_players" in model.options:  # agents/fivethousand/learned_value/n_player.py
            expected = f"learned-value-fivethousand-{model.options['num_players']}p.pt"
        else:  # learned_value.py / win_value.py: <player>-<rules name>.pt
            expected = f"{model.player}-{resolve(model.game).name}.pt"
        assert expected == name and committed_model(expected).is_file()


def test_models_path_prints_one_path_and_refuses_an_unknown_name(capsys):
    from agents.paths import committed_model, committed_models_dir

    for name in ("penta", "penta.zip"):
        status, out, _ = run_main(models_cli, ["--path", name], capsys)
        assert status == 0 and out == f"{committed_model('penta.zip')}\n"
    status, out, _ = run_main(models_cli, ["--path", "penta.eval.csv"], capsys)
    assert out.strip() == str(committed_model("penta.eval.csv"))
    status, out, _ = run_main(models_cli, ["--path"], capsys)
    assert out.strip() == str(committed_models_dir())
    status, _, err = run_main(models_cli, ["--path", "nosuchmodel"], capsys)
    one_line_error(status, err, "argument --path", "'nosuchmodel'", "learned-value-penta")


def test_describe_model_reads_the_file_names():
    describe = models_cli.describe_model
    assert describe(Path("x/notes.txt")) is None
    assert describe(Path("x/penta.eval.csv")) is None
    assert describe(Path("x/something.pt")) is None  # not a player's file name
    model = describe(Path("x/learned-value-fivethousand-4p.pt"))
    assert (model.player, model.game, model.options) == ("learned-value", "fivethousand",
                                                         {"num_players": 4})
    assert describe(Path("x/win-value-dice-poker.pt")).make_call() == \
        'agents.make("win-value", "dice-poker")'


# -- dice-env examples -----------------------------------------------------------------------


def test_examples_lists_each_example_with_its_summary(capsys):
    status, out, _ = run_main(examples_cli, [], capsys)
    assert status == 0
    names = sorted(p.name for p in (ROOT / "examples").glob("*.py"))
    for name in names:
        line = next(line for line in out.splitlines() if line.strip().startswith(name))
        summary = line.split(name, 1)[1].strip()
        assert len(summary) > 20 and not summary.startswith(":"), line
    assert "my_bot.py" in names and "dice-env examples --copy" in out


def test_examples_copy_copies_and_never_overwrites_without_force(tmp_path, capsys):
    target = tmp_path / "new" / "examples"
    status, out, err = run_main(examples_cli, ["--copy", str(target)], capsys)
    assert status == 0 and "created folder" in err, err
    for source in (ROOT / "examples").glob("*.py"):
        assert (target / source.name).read_bytes() == source.read_bytes()
    mine = target / "my_bot.py"
    mine.write_text("# my edits\n")
    status, _, err = run_main(examples_cli, ["--copy", str(target)], capsys)
    one_line_error(status, err, "argument --copy", "my_bot.py", "--force")
    assert mine.read_text() == "# my edits\n"  # refused before anything was copied
    status, out, _ = run_main(examples_cli, ["--copy", str(target), "--force", "my_bot"], capsys)
    assert status == 0 and "copied 1 example " in out
    assert mine.read_bytes() == (ROOT / "examples" / "my_bot.py").read_bytes()


@pytest.mark.parametrize(("argv", "needles"), [
    (["nosuch", "--copy", "x"], ("argument EXAMPLE", "'nosuch'", "my_bot.py")),
    (["my_bot"], ("argument EXAMPLE", "--copy")),
    (["--force"], ("argument --force",)),
])
def test_examples_bad_arguments_are_one_line_errors(argv, needles, tmp_path, monkeypatch,
                                                    capsys):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_main(examples_cli, argv, capsys)
    one_line_error(status, err, *needles)
    assert not list(tmp_path.iterdir())  # nothing made


def test_an_example_copied_out_runs_where_it_was_copied(tmp_path, capsys):
    """The documented route from the wheel: copy the examples, run one from the copy."""
    assert run_main(examples_cli, ["--copy", str(tmp_path / "examples")], capsys)[0] == 0
    proc = subprocess.run([sys.executable, "examples/my_bot.py", "--games", "4"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("policy on penta: 4 games"), proc.stdout


# -- the examples and the rule book, shipped inside the package ------------------------------


def test_shipped_finds_the_installed_copy_first_then_the_checkout(tmp_path, monkeypatch):
    from agents import paths

    assert paths.shipped("examples") == ROOT / "examples"  # a checkout (editable install)
    assert paths.shipped("rules.md") == ROOT / "docs" / "rules.md"
    (tmp_path / "examples").mkdir()
    (tmp_path / "rules.md").write_text("# rules\n")
    monkeypatch.setattr(paths, "package_data", lambda *parts: tmp_path.joinpath(*parts))
    assert paths.shipped("examples") == tmp_path / "examples"  # an installed wheel
    assert paths.shipped("rules.md") == tmp_path / "rules.md"
    with pytest.raises(ValueError, match="unknown shipped file"):
        paths.shipped("README.md")


class _FakeDistribution:
    def __init__(self, record: dict | None) -> None:
        self.record = record

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.record is None else json.dumps(self.record)


@pytest.mark.parametrize(("record", "checkout"), [
    ({"url": "file:///somewhere/dice-env", "dir_info": {"editable": True}},
     Path("/somewhere/dice-env")),
    ({"url": "file:///tmp/dist/dice_env-0.1.0-py3-none-any.whl", "archive_info": {}}, None),
    ({"url": "file:///somewhere/dice-env", "dir_info": {}}, None),  # pip install . (a wheel)
    (None, None),  # installed without a record
])
def test_the_checkout_is_the_one_an_editable_install_recorded(record, checkout, tmp_path,
                                                              monkeypatch):
    import importlib.metadata

    from agents import paths

    # run from a checkout, its build's egg-info (no record) comes first on the path
    monkeypatch.setattr(importlib.metadata, "distributions",
                        lambda name: [_FakeDistribution(None), _FakeDistribution(record)])
    assert paths.editable_checkout() == checkout
    monkeypatch.setattr(paths, "package_data", lambda *parts: tmp_path.joinpath(*parts))
    if checkout is None:  # nothing installed, no checkout: a clear error, not a wrong path
        with pytest.raises(FileNotFoundError, match="reinstall dice-env"):
            paths.shipped("rules.md")


def test_this_checkout_is_an_editable_install():
    """The suite runs on ``pip install -e`` (.ci/run), whose record names this checkout."""
    from agents.paths import editable_checkout

    assert editable_checkout() == ROOT


def test_setup_py_ships_what_agents_paths_looks_for():
    """setup.py copies into the wheel exactly what :func:`agents.paths.shipped` finds there."""
    from agents.paths import SHIPPED

    tree = ast.parse((ROOT / "setup.py").read_text())
    assigned = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                    and any(getattr(t, "id", None) == "SHIPPED" for t in node.targets))
    setup_shipped = ast.literal_eval(assigned)
    assert setup_shipped == {str(source): f"agents/{name}" for name, source in SHIPPED.items()}
    for source in setup_shipped:
        assert (ROOT / source).exists(), source
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert "recursive-include examples *.py" in manifest  # the sdist builds the same wheel
    assert "recursive-include docs *.md" in manifest


# -- dice-env rules --------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "present", "absent"), [
    ("penta", ["1.1 A turn", "1.4 Five of a kind", "The French box names", "1.6 Several"],
     ["1.7 Yatzy", "1.8 Yacht", "2. 5000", "7. Pig"]),
    ("dice_env/DicePoker-v0", ["1.2 The boxes", "1.3 The upper bonus"], ["1.7 Yatzy"]),
    ("yatzy", ["1.1 A turn", "1.7 Yatzy", "1.6 Several"], ["1.2 The boxes", "1.8 Yacht"]),
    ("yacht", ["1.8 Yacht", "1.1 A turn"], ["1.4 Five of a kind", "1.7 Yatzy"]),
    ("5000", ["2.1 Scoring a throw", "2.3 When you may bank", "2.5 Players"],
     ["1.1 A turn", "3. Rule knobs", "7. Pig"]),
    ("pig", ["7.1 A turn", "7.4 Neller"], ["2. 5000", "1.1 A turn"]),
])
def test_rules_prints_the_sections_of_one_game(game, present, absent, capsys):
    status, out, _ = run_main(rules_cli, [game], capsys)
    assert status == 0
    for heading in present:
        assert heading in out, heading
    for heading in absent:
        assert heading not in out, heading
    assert "](" not in out and "**" not in out  # Markdown links and bold are gone
    assert str(ROOT / "docs" / "rules.md") in out.splitlines()[0]


def test_rules_knows_every_game_it_lists(capsys):
    for game in rules_cli.game_names():
        assert rules_cli.rules_text(game).count("\n") > 20, game


def test_rules_errors_and_path(capsys):
    status, _, err = run_main(rules_cli, ["chess"], capsys)
    one_line_error(status, err, "argument GAME", "'chess'", "penta", "5000", "pig")
    status, _, err = run_main(rules_cli, [], capsys)
    one_line_error(status, err, "argument GAME", "penta")
    status, out, _ = run_main(rules_cli, ["--path"], capsys)
    assert status == 0 and out.strip() == str(ROOT / "docs" / "rules.md")


def test_rule_book_tables_are_lined_up_where_they_fit():
    table = ["| a | long cell |", "|---|---:|", "| bbb | c |"]
    assert rules_cli.aligned_table(table, max_width=80) == [
        "| a   | long cell |", "|-----|-----------|", "| bbb | c         |"]
    assert rules_cli.aligned_table(table, max_width=10) == table


# -- one-line errors and help texts ----------------------------------------------------------


def test_plot_results_refuses_a_results_folder_that_is_not_there(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_main(plot_results_cli, ["--results", "nosuchdir"], capsys)
    one_line_error(status, err, "argument --results", "nosuchdir")
    assert not (tmp_path / "nosuchdir").exists()  # no empty plot drawn
    (tmp_path / "afile").write_text("x")
    status, _, err = run_main(plot_results_cli, ["--results", "afile"], capsys)
    one_line_error(status, err, "argument --results", "afile is a file")


def test_replay_help_says_one_thing_about_the_out_folder(tmp_path, capsys):
    text = replay_cli.build_parser("dice-env replay").format_help()
    assert "never a new one" not in text and "existing folder" not in text
    assert "folder is made if missing" in text and "missing is made" in " ".join(text.split())
    # and so it is: a missing folder of --out passes the command line
    args = replay_cli.build_parser().parse_args(
        ["--agent", "heuristic", "--game", "penta", "--seed", "1",
         "--out", str(tmp_path / "new" / "r.html")])
    assert args.out == tmp_path / "new" / "r.html"


BLOCK_MODULE = ("import runpy, sys; sys.modules[{name!r}] = None; sys.argv = ['rllib_run.py']; "
                "runpy.run_path({path!r}, run_name='__main__')")


@pytest.mark.parametrize(("module", "extra"), [("ray", "ray"), ("torch", "train")])
def test_the_rllib_example_says_what_to_install(module, extra, tmp_path):
    """Without Ray (or torch) the example says which extra to install, in one line, exit 2."""
    code = BLOCK_MODULE.format(name=module, path=str(ROOT / "examples" / "rllib_run.py"))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f'pip install "dice-env[{extra}]"' in lines[0] and repr(module) in lines[0], lines
    assert proc.stdout == ""


def test_bench_env_says_the_figures_it_writes(monkeypatch):
    """The reference's line is said once its figure is final: the one the report writes (it
    used to be said after its first timing, the report holding its best of the run)."""
    from agents.evaluation import env_speed

    calls = iter(range(1, 10_000))

    def rising_rate(step_fn, steps_per_call, calls_, repeats):  # each timing faster
        return float(next(calls) * 1000), float(next(calls) * 1000)

    monkeypatch.setattr(env_speed, "_best_rate", rising_rate)
    said: list[str] = []
    results = env_speed.measure_env_speed(["dice_env/Pig-v0"], ["penta-2p"], sizes=[2],
                                          steps=4, single_steps=4, repeats=2, note=said.append)
    for env_id, figures in results["envs"].items():
        line = next(s for s in said if s.startswith(env_id + " "))
        assert f"single {figures['single']:10,}" in line, (line, figures)
        assert f"unwrapped {figures['single_unwrapped']:10,}" in line
    # the reference was timed again beside Pig and the AEC env: its figure is its best timing
    assert said[-1].startswith(env_speed.REFERENCE_ID + " ") and "best timing" in said[-1]


def test_the_terminal_help_points_to_dice_env_rules(capsys):
    from agents.games import known_games
    from agents.pig.terminal import HELP as PIG_HELP
    from agents.play.terminal.commands import FIVE_THOUSAND_HELP, SCORECARD_HELP

    for text, game in ((SCORECARD_HELP, "penta"), (FIVE_THOUSAND_HELP, "5000"),
                       (PIG_HELP, "pig")):
        assert "docs/rules.md" not in text and "repository" not in text
        assert f"dice-env rules {game}" in text and game in known_games()


#: the modules whose messages this issue fixed: none names a checkout's file as what to run
FIXED_MODULES = ["agents/cli/models.py", "agents/cli/examples.py", "agents/cli/rules.py",
                 "agents/cli/replay.py", "agents/cli/plot_results.py",
                 "agents/evaluation/env_speed.py", "agents/play/terminal/commands.py",
                 "agents/pig/terminal.py", "agents/training/ppo/runs.py",
                 "agents/policies/sb3_models.py", "examples/rllib_run.py"]


@pytest.mark.parametrize("path", FIXED_MODULES)
def test_messages_name_commands_not_checkout_paths(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    for needle in ("scripts/", "docs/rules.md in", "dice-env repository"):
        assert needle not in text, (path, needle)


def test_the_guides_send_wheel_users_to_installed_files():
    guides = {p.name: p.read_text(encoding="utf-8")
              for p in (ROOT / "docs" / "guides").glob("*.md")}
    assert not [n for n, t in guides.items() if "--init-from agents/models/" in t]
    assert not [n for n, t in guides.items() if "--agent agents/models/" in t]
    assert "dice-env examples --copy examples" in guides["training.md"]
    assert "dice-env examples\n--copy examples" in guides["evaluate-your-agent.md"]
    training = guides["training.md"]
    assert training.index("--max-minutes 2") < training.index("## Threads")  # a command first
