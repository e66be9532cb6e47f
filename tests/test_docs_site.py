"""The documentation site (docs/, Sphinx + furo + myst-parser) covers what the code has.

* every registered ``dice_env/`` id has a page under docs/envs/ with Gymnasium's sections, and
  that page draws its spaces, actions, observation table, arguments and example from the code
  (the directives of docs/_ext/dice_env_docs.py);
* the observation tables cover every entry of each observation space, once, in order, with a
  meaning for every part (basic and ``"bonus"`` observations, 2 and more players);
* every argument of every env is described on its page (the page's ``{env-arguments}`` body);
* every results/*.md is included by a page of docs/results/, read at build time;
* the toctrees reach every env page, every results page, the guides, the rule book, the API
  reference and docs/architecture.md;
* the rule book translates every French box name of Penta.

The full build (``sphinx-build -W``) runs in .ci/run; these checks need no build.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import dice_env  # noqa: F401  (registers the ids)
from dice_env.scorecard.rules import PRESETS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ENVS = DOCS / "envs"


def _load_ext(name: str):
    """A module of docs/_ext (not a package) loaded from its file, leaving sys.path alone."""
    spec = importlib.util.spec_from_file_location(f"docs_ext_{name}", DOCS / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


T = _load_ext("env_tables")

IDS = [k for k in gym.registry if k.startswith("dice_env/")]
REQUIRED_HEADINGS = ("Description", "Action space", "Action masks", "Observation space",
                     "Rewards", "Starting state", "Episode end", "Arguments", "Example",
                     "Version history")


def page(env_id: str) -> Path:
    return ENVS / f"{T.page_name(env_id)}.md"


def headings(text: str) -> list[str]:
    return re.findall(r"^##\s+(.+?)\s*$", text, re.M)


def directive_bodies(text: str, name: str) -> list[tuple[str, list[str]]]:
    """``(argument, body lines)`` of every ```` ```{name} argument ```` block of a page."""
    blocks = re.findall(r"^```\{" + re.escape(name) + r"\}[ \t]*(.*?)\n(.*?)^```\s*$", text,
                        re.M | re.S)
    return [(arg.strip(), body.splitlines()) for arg, body in blocks]


def toctree_entries(text: str) -> list[str]:
    entries = []
    for _, body in directive_bodies(text, "toctree"):
        entries += [line.strip() for line in body if line.strip() and not line.startswith(":")]
    return entries


def test_the_ids_are_every_id_of_every_family():
    from dice_env.families import families

    expected = {i for f in families() for i in f.env_ids() + f.match_env_ids()}
    assert set(IDS) == expected, IDS
    assert expected >= set(dice_env.SCORECARD_IDS) | set(dice_env.SCORECARD_MATCH_IDS) | set(
        dice_env.FIVE_THOUSAND_IDS) | set(dice_env.PIG_IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_every_id_has_a_page_with_every_section(env_id):
    path = page(env_id)
    assert path.is_file(), f"{env_id}: no page {path.relative_to(ROOT)}"
    text = path.read_text(encoding="utf-8")
    missing = [h for h in REQUIRED_HEADINGS if h not in headings(text)]
    assert not missing, f"{path.name}: missing sections {missing}"
    assert text.startswith("# ")


@pytest.mark.parametrize("env_id", IDS)
def test_every_page_draws_its_tables_from_the_code(env_id):
    text = page(env_id).read_text(encoding="utf-8")
    for name in ("env-summary", "env-actions", "env-observation", "env-arguments"):
        assert env_id in [arg for arg, _ in directive_bodies(text, name)], (env_id, name)
    examples = directive_bodies(text, "run-python")
    assert any(f'gym.make("{env_id}"' in "\n".join(body) for _, body in examples), env_id
    example = section(text, "Example")
    assert "```{run-python}" in example and 'render_mode="ansi"' in example
    assert re.search(r"reset\(seed=\d+\)", example), "the example game needs a fixed seed"


def section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def observation_cases():
    for env_id in IDS:
        kind = T.family(env_id)
        yield env_id, "basic", None
        if kind == "scorecard":
            yield env_id, "bonus", None
        elif kind == "match":
            yield env_id, "basic", 4
        elif env_id == "dice_env/FiveThousand-v0":
            yield env_id, "basic", 5
        elif kind == "pig":
            yield env_id, "basic", 4


@pytest.mark.parametrize(("env_id", "observation", "num_players"), list(observation_cases()))
def test_the_observation_table_covers_the_observation_space(env_id, observation, num_players):
    kwargs = {}
    if observation != "basic":
        kwargs["observation"] = observation
    if num_players is not None:
        kwargs["num_players"] = num_players
    space = gym.make(env_id, **kwargs).observation_space
    rows = T.observation_rows(env_id, observation, num_players)
    T.check_rows(rows, space.shape[0])  # raises unless the rows tile [0, n) in order
    covered = sorted(i for r in rows for i in range(r.start, r.stop))
    assert covered == list(range(space.shape[0]))
    assert all(r.meaning.strip() and "{" not in r.meaning for r in rows), rows
    assert len({r.name for r in rows}) == len(rows), "a name appears twice"
    # the table as the page shows it: one row per part, each with its index range
    table = T.observation_markdown(env_id, observation, num_players)
    shown = [r for r in rows if observation == "basic" or r.name.startswith("bonus_")]
    for r in shown:
        assert any(line.startswith(f"| {r.index} | `{r.name}` |") for line in table), r


def test_check_rows_refuses_a_gap_an_overlap_and_a_short_table():
    rows = [T.Row(0, 5, "dice", "x"), T.Row(5, 11, "face_counts", "y")]
    T.check_rows(rows, 11)
    for bad, size in ([rows[0], T.Row(6, 11, "face_counts", "y")], 11), \
                     ([rows[0], T.Row(4, 11, "face_counts", "y")], 11), (rows, 12):
        with pytest.raises(ValueError):
            T.check_rows(bad, size)


def test_a_part_without_a_meaning_is_refused():
    with pytest.raises(ValueError, match="without a meaning"):
        T._from_slices({"dice": slice(0, 5), "new_part": slice(5, 6)}, T.SCORECARD_MEANINGS, {})


def argument_pages() -> list[tuple[str, Path, list[str]]]:
    out = []
    for path in sorted(ENVS.glob("*.md")):
        for arg, body in directive_bodies(path.read_text(encoding="utf-8"), "env-arguments"):
            out.append((arg, path, body))
    return out


@pytest.mark.parametrize(("target", "path", "body"), [
    pytest.param(*case, id=f"{case[1].name}:{case[0]}") for case in argument_pages()])
def test_every_argument_is_described(target, path, body):
    rows = T.argument_rows(target)
    described = T._split_items(body)
    names = [name for name, _, _ in rows]
    assert set(described) == set(names), (path.name, set(names) ^ set(described))
    assert all(text.strip() for text in described.values())
    T.arguments_markdown(target, body)  # what the page builds from it


def test_the_pettingzoo_page_describes_both_aec_envs():
    targets = [t for t, path, _ in argument_pages() if path.name == "pettingzoo.md"]
    assert targets == ["dice_env.scorecard.aec:ScorecardAECEnv",
                       "dice_env.fivethousand.aec:FiveThousandAECEnv",
                       "dice_env.pig.aec:PigAECEnv"]


def test_the_arguments_table_gives_the_registered_and_signature_defaults():
    rows = {name: (default, by_id) for name, default, by_id in
            T.argument_rows("dice_env/DicePoker-v0")}
    assert rows["game"] == ('"dice-poker"', True)
    assert rows["canonical_holds"] == ("True", False)
    assert rows["illegal_action"] == ('"penalize"', False)


def test_the_action_table_names_every_box():
    for env_id in T.env_ids():
        rows = T.action_rows(env_id)
        n = gym.make(env_id).action_space.n
        if T.family(env_id) in ("fivethousand", "pig"):
            assert [a for a, _ in rows] == [str(a) for a in range(n)]
            continue
        labels = T.make(env_id).rules.labels
        assert rows[0][0] == "0–31"
        assert [a for a, _ in rows[1:]] == [str(32 + k) for k in range(len(labels))]
        assert 32 + len(labels) == n
        assert all(f"**{label}**" in text for (_, text), label in zip(rows[1:], labels))


def test_every_results_file_is_included_by_a_results_page():
    included = {}
    for path in (DOCS / "results").glob("*.md"):
        for arg, body in directive_bodies(path.read_text(encoding="utf-8"), "include"):
            included[arg] = path
            assert ":relative-images:" in body, path.name  # their PNGs must show
    missing = [f.name for f in sorted((ROOT / "results").glob("*.md"))
               if f"../../results/{f.name}" not in included]
    assert not missing, f"results files no page of docs/results/ includes: {missing}"
    assert all((DOCS / "results" / target).resolve().is_file() for target in included)


def test_the_toctrees_reach_every_page():
    index = toctree_entries((DOCS / "index.md").read_text(encoding="utf-8"))
    for entry in ("guides/*", "envs/index", "rules", "results/index", "api/index",
                  "architecture"):
        assert entry in index, entry
    envs = toctree_entries((ENVS / "index.md").read_text(encoding="utf-8"))
    pages = sorted(p.stem for p in ENVS.glob("*.md") if p.stem != "index")
    assert sorted(envs) == pages
    assert {T.page_name(env_id) for env_id in IDS} | {"pettingzoo", "vector"} == set(pages)
    results = toctree_entries((DOCS / "results" / "index.md").read_text(encoding="utf-8"))
    assert sorted(results) == sorted(p.stem for p in (DOCS / "results").glob("*.md")
                                     if p.stem != "index")
    api = toctree_entries((DOCS / "api" / "index.md").read_text(encoding="utf-8"))
    assert sorted(api) == sorted(p.stem for p in (DOCS / "api").glob("*.md")
                                 if p.stem != "index")


def test_the_rule_book_translates_the_french_box_names():
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    french = text.split("#### The French box names of Penta", 1)[1].split("\n### ", 1)[0]
    english = set(PRESETS["dice-poker"].labels) | set(PRESETS["yahtzee-official"].labels)
    names = [label for label in PRESETS["penta"].labels if label not in english]
    assert names == ["Brelan", "Carré", "Full", "Petite suite", "Grande suite", "Penta"]
    rows = {line.split("|")[1].strip() for line in french.splitlines() if line.startswith("| ")}
    missing = [name for name in names if name not in rows]
    assert not missing, f"French box names the rule book does not translate: {missing}"


def test_ci_builds_the_site_with_warnings_as_errors():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"sphinx-build -W .*-b html docs ", ci)
    assert "docs]" in ci or ",docs" in ci  # the docs extra is installed
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extra = re.search(r"^docs = \[(.*?)\]", pyproject, re.M | re.S)
    assert extra and all(p in extra.group(1) for p in ("sphinx", "furo", "myst-parser"))
