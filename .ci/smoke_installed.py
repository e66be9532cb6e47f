"""The installed-wheel smoke test: what a user gets from ``pip install dice-env``.

Run by ``.ci/run`` with the Python of a fresh virtual environment that has the wheel installed
(no editable install), from an empty working directory outside the checkout:

    python smoke_installed.py README.md

It checks that the package is the installed one (not a checkout on ``sys.path``), then:
every registered player of every game plays one game through ``agents.make``; the
``dice-env`` commands of the issue (solve, evaluate --regret, replay, web's /api/health,
--help of every subcommand); and the Python snippets of the README and of the guides
(``docs/guides/*.md``, found beside the README), extracted and run in order, in one namespace
per file (a block after a ``<!-- not run: REASON -->`` line is skipped), with the examples in
``examples/`` of the working directory, copied there from the installed package by ``dice-env
examples --copy examples`` as a user does (the guides name ``examples/my_bot.py``); one of
them runs from that copy, and ``dice-env models`` and ``dice-env rules`` answer from the
installed package data.
Prints one line per check with its time; exits 1 on the first failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.executable).parent
DICE_ENV = str(BIN / "dice-env")
T0 = time.perf_counter()
#: players whose first use builds a cache the test suite has not built (the smoke test reuses
#: the suite's cache of solved tables): what they need, and why they are not played here
SLOW_FIRST_USE = {
    ("win-value", "dice-poker"): "its first use computes the score-spread table of Dice Poker "
                                 "(about 4 s on 2 idle cores with the kernels compiled, `dice-env "
                                 "bench tables`; Penta's is played above)",
}
#: players whose committed models exist for some games only (the others name the training
#: command); Yahtzee's are played below
SOME_GAMES_MODELS = {"ppo-pure": {"yahtzee-official", "penta"}}


def check(name: str):
    """``with check("what"):`` prints one line: ok or FAIL, the seconds, what was checked."""

    class _Timer:
        def __enter__(self):
            self.t = time.perf_counter()

        def __exit__(self, kind, exc, tb):
            took = time.perf_counter() - self.t
            print(f"{'ok  ' if kind is None else 'FAIL'} {took:7.1f} s  {name}", flush=True)
            return False

    return _Timer()


def run(*args: str, timeout: float = 600) -> str:
    proc = subprocess.run([DICE_ENV, *args], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"dice-env {' '.join(args)} exited {proc.returncode}:\n"
                         f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def installed_not_checkout() -> None:
    import agents
    import dice_env

    for module in (agents, dice_env):
        where = Path(module.__file__).resolve()
        assert "site-packages" in where.parts, f"{module.__name__} imported from {where}"
    assert not Path("pyproject.toml").exists(), "run from outside the checkout"


def package_files() -> set[str]:
    """Every file of the installed packages."""
    import agents
    import dice_env

    return {str(p) for module in (agents, dice_env)
            for p in Path(module.__file__).parent.rglob("*") if p.is_file()}


def play_one(agent, env) -> float:
    obs, info = env.reset(seed=1)
    total, done = 0.0, False
    while not done:
        action = agent.act(obs, info["action_mask"])
        assert info["action_mask"][action], f"{agent!r} chose an illegal action {action}"
        obs, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        done = terminated or truncated
    return total


def every_player_plays() -> None:
    import gymnasium as gym

    import agents
    import dice_env  # noqa: F401  (registers the ids)

    players = agents.available()
    for game, env_id in (("penta", "dice_env/Penta-v0"), ("dice-poker", "dice_env/DicePoker-v0")):
        for name in players["scorecard"]:
            if (name, game) in SLOW_FIRST_USE:
                print(f"skip          agents.make({name!r}, {game!r}): "
                      f"{SLOW_FIRST_USE[name, game]}")
                continue
            if name in SOME_GAMES_MODELS and game not in SOME_GAMES_MODELS[name]:
                with check(f"agents.make({name!r}, {game!r}) names its training command"):
                    try:
                        agents.make(name, game)
                    except FileNotFoundError as exc:
                        assert "dice-env train" in str(exc), exc
                    else:
                        raise AssertionError(f"a committed {name} model for {game} appeared; "
                                             "play it here")
                continue
            with check(f"agents.make({name!r}, {game!r}) plays a game"):
                if name == "win-value":
                    match = {"penta": "dice_env/PentaMatch-v0",
                             "dice-poker": "dice_env/DicePokerMatch-v0"}[game]
                    env = gym.make(match, opponents=["heuristic"])
                    agent = agents.make(name, game, num_players=2)
                else:
                    env = gym.make(env_id)
                    agent = agents.make(name, game)
                agent.seed(0)
                play_one(agent, env)
    for name in ("ppo", "learned-value", "ppo-pure"):  # the committed models of Yahtzee
        with check(f"agents.make({name!r}, 'yahtzee-official') plays a game"):
            agent = agents.make(name, "yahtzee-official")
            agent.seed(0)
            play_one(agent, gym.make("dice_env/YahtzeeOfficial-v0"))
    for name in players["fivethousand"]:
        with check(f"agents.make({name!r}, 'fivethousand') plays a game"):
            agent = agents.make(name, "fivethousand")
            agent.seed(0)
            play_one(agent, gym.make("dice_env/FiveThousand-v0", opponents=["heuristic"]))
    with check("agents.make('learned-value', 'fivethousand', num_players=3) plays a game"):
        agent = agents.make("learned-value", "fivethousand", num_players=3)
        play_one(agent, gym.make("dice_env/FiveThousand-v0", num_players=3,
                                 opponents=["heuristic", "threshold"]))
    from agents.games import resolve
    from dice_env.families import families

    for game in [g for family in families() for g in family.games()]:  # every registered game
        for name in ("heuristic", "optimal"):
            with check(f"agents.make({name!r}, {game!r}) plays a game"):
                agent = agents.make(name, game)
                agent.seed(0)
                play_one(agent, resolve(game).make_env())
    with check("a model that is not there: a clear error naming the path"):
        try:
            agents.make("ppo", "penta", model_path="nowhere/penta.zip")
        except FileNotFoundError as exc:
            assert "nowhere/penta.zip" in str(exc), exc
        else:
            raise AssertionError("no error for a missing model")


def commands() -> None:
    with check("dice-env --help / --version / every subcommand's --help ends with an example"):
        listing = run("--help")
        names = re.findall(r"^  ([a-z][a-z-]+)  ", listing, flags=re.M)
        assert len(names) >= 9, listing
        assert run("--version").startswith("dice-env ")
        for name in names:
            text = run(name, "--help")
            tail = text.strip().splitlines()[-3:]
            assert any("dice-env" in line for line in tail), (name, tail)
    with check("dice-env solve penta --json"):
        record = json.loads(run("solve", "penta", "--json").strip().splitlines()[-1])
        assert abs(record["expected_score"] - 254.4848) < 1e-3, record  # results/optimal.md
    with check("dice-env solve pig --json: 0.5306 (Neller & Presser)"):
        record = json.loads(run("solve", "pig", "--json").strip().splitlines()[-1])
        assert round(record["first_player_win_probability"], 4) == 0.5306, record
    with check("dice-env evaluate --agent ppo --game penta --regret --games 200"):
        out = run("evaluate", "--agent", "ppo", "--game", "penta", "--regret", "--games", "200")
        assert "gap" in out.lower(), out
    with check("dice-env replay --agent ppo --game penta --seed 3 --out r.html"):
        run("replay", "--agent", "ppo", "--game", "penta", "--seed", "3", "--out", "r.html")
        assert Path("r.html").stat().st_size > 10_000
    with check("dice-env web answers /api/health"):
        web_health()


def web_health() -> None:
    proc = subprocess.Popen([DICE_ENV, "web", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://([\d.]+):(\d+)/", line)
        assert match, f"no address in {line!r}"
        url = f"http://{match.group(1)}:{match.group(2)}/api/health"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    assert resp.status == 200
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


#: a ```python block, with the not-run marker that may stand on the line before it (the
#: pattern of tests/test_guides.py)
BLOCK = re.compile(r"(?:<!-- not run:([^>]*)-->[ \t]*\n)?```python\n(.*?)^```", re.S | re.M)


def markdown_snippets(path: Path, label: str) -> int:
    """Run the Python blocks of one Markdown file in order, in one namespace; how many ran."""
    blocks = BLOCK.findall(path.read_text(encoding="utf-8"))
    namespace: dict = {"__name__": "__snippets__"}
    ran = 0
    for i, (skip, code) in enumerate(blocks, 1):
        if skip:
            print(f"skip          {label} snippet {i}: not run: {skip.strip()}")
            continue
        first = code.strip().splitlines()[0]
        with check(f"{label} snippet {i}: {first[:60]}"):
            exec(compile(code, f"{label} snippet {i}", "exec"), namespace)
        ran += 1
    return ran


def installed_data() -> None:
    """The examples, the committed models and the rule book, as the installed package gives
    them: ``dice-env examples --copy``, then an example run from the copy; ``dice-env models
    --path``; ``dice-env rules``."""
    import agents

    package = Path(agents.__file__).resolve().parent
    with check("dice-env examples --copy examples: the checkout's examples, from the package"):
        run("examples", "--copy", "examples")
        copied = sorted(p.name for p in Path("examples").glob("*.py"))
        assert "my_bot.py" in copied and len(copied) >= 4, copied
        again = subprocess.run([DICE_ENV, "examples", "--copy", "examples"],
                               capture_output=True, text=True, timeout=120)
        assert again.returncode == 2 and "--force" in again.stderr, again  # never overwrites
    with check("python examples/my_bot.py --games 20, from the copy"):
        proc = subprocess.run([sys.executable, "examples/my_bot.py", "--games", "20"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert proc.stdout.startswith("policy on penta: 20 games"), proc.stdout[-2000:]
    if importlib.util.find_spec("ray") is None:
        with check("python examples/rllib_run.py without Ray: one line saying what to install"):
            proc = subprocess.run([sys.executable, "examples/rllib_run.py"],
                                  capture_output=True, text=True, timeout=120)
            assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
            assert 'pip install "dice-env[ray]"' in proc.stderr, proc.stderr
    with check("dice-env models --path penta: the installed committed model"):
        path = Path(run("models", "--path", "penta").strip())
        assert path == package / "models" / "penta.zip" and path.is_file(), path
        assert "agents.make(\"ppo\", \"penta\")" in run("models")
    with check("dice-env rules penta / 5000: the installed rule book"):
        assert "1.4 Five of a kind" in run("rules", "penta")
        assert "2.3 When you may bank" in run("rules", "5000")
        assert Path(run("rules", "--path").strip()) == package / "rules.md"


def documentation_snippets(readme: Path) -> None:
    """The README's snippets, then each guide's (docs/guides/ beside the README), with the
    examples copied into ``examples/`` (:func:`installed_data`)."""
    assert Path("examples/my_bot.py").is_file(), "run installed_data() first"
    assert markdown_snippets(readme, "README"), "no Python snippet of the README ran"
    guides = sorted((readme.parent / "docs" / "guides").glob("*.md"))
    assert guides, f"no guides in {readme.parent / 'docs' / 'guides'}"
    ran = sum(markdown_snippets(guide, f"docs/guides/{guide.name}") for guide in guides)
    assert ran >= 10, f"only {ran} Python snippets of the guides ran"


def main() -> int:
    readme = Path(sys.argv[1]).resolve()
    os.environ.setdefault("MPLBACKEND", "Agg")
    with check("imported from site-packages, outside the checkout"):
        installed_not_checkout()
    before = package_files()
    every_player_plays()
    commands()
    installed_data()
    documentation_snippets(readme)
    with check("nothing was written into the installed package"):
        after = package_files()
        assert after == before, f"new files in site-packages: {sorted(after - before)[:10]}"
    print(f"smoke test passed in {time.perf_counter() - T0:.0f} s")
    shutil.rmtree("runs", ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
