"""Every layer, for every registered game family and each of its games, written once.

The games come from the family registry (:func:`dice_env.families.families`), so a new family
or preset is tested by these as soon as it is registered: the Gymnasium checker on each
single-agent and match env, the natively batched vector env, PettingZoo's ``api_test`` on the
AEC env, and the players every family provides (``random``, ``heuristic``, ``optimal``) with
the family's exact regret.  Family-specific behaviour stays in the family's own test files.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from conftest import need
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import agents
import dice_env  # noqa: F401  (registers the families)
from agents.evaluation.any_policy import regret_of_players
from agents.games import resolve
from dice_env.families import families

GAMES = [g for f in families() for g in f.games()]
ENV_IDS = [i for f in families() for i in f.env_ids()]
MATCH_IDS = [i for f in families() for i in f.match_env_ids()]


def test_no_branch_on_a_family_outside_its_own_folders():
    """Issue 44's rule: the shared layers ask the family object; a test of the family's name
    (``is_fivethousand``, ``family ==``) lives only in that family's own folders."""
    import re
    from pathlib import Path

    pattern = re.compile(r"is_fivethousand|family ?[!=]=")
    own = {f.name for f in families()}
    found = []
    for package in (Path(agents.__file__).parent, Path(dice_env.__file__).parent):
        for path in package.rglob("*.py"):
            parts = path.relative_to(package).parts
            if parts[0] in own:
                continue
            found += [f"{package.name}/{'/'.join(parts)}:{n}" for n, line in
                      enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []


def test_every_family_has_games_and_ids():
    for fam in families():
        assert fam.games(), fam
        assert fam.env_ids(), fam
        for g in fam.games():
            assert resolve(g).family.name == fam.name


@pytest.mark.parametrize("env_id", ENV_IDS + MATCH_IDS)
def test_gymnasium_checker(env_id):
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS + MATCH_IDS)
def test_an_episode_ends_with_a_legal_move_always_available(env_id):
    env = gym.make(env_id)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=1)
    for _ in range(5000):
        mask = np.asarray(info["action_mask"], dtype=bool)
        assert mask.any(), "an empty mask before the end"
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            break
    else:
        pytest.fail("the episode did not end")
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS + MATCH_IDS)
def test_vector_env_is_natively_batched_and_masked(env_id):
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point")
    assert not isinstance(envs, (gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv))
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    for _ in range(40):
        mask = np.asarray(info["action_mask"], dtype=bool)
        assert mask.shape[0] == 3 and mask.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, _, _, _, info = envs.step(actions)
    envs.close()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("num_players", [2, 3])
def test_pettingzoo_api(game, num_players):
    ref = resolve(game)
    env = ref.family.aec_env(ref, num_players)
    api_test(env, num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ["random", "heuristic", "optimal"])
def test_every_family_has_the_common_players_and_they_play_legally(game, name):
    g = resolve(game)
    player = agents.make(name, g)
    env = g.make_env()
    obs, info = env.reset(seed=3)
    done, steps = False, 0
    while not done:
        action = int(player.act(obs, info["action_mask"]))
        assert info["action_mask"][action], f"{name} chose an illegal action"
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    assert steps > 0
    env.close()


@pytest.mark.parametrize("game", GAMES)
def test_exact_regret_of_the_optimal_player_is_zero_and_the_random_players_positive(game):
    g = resolve(game)
    players = {"optimal": agents.make("optimal", g), "random": agents.make("random", g, seed=0)}
    optimal, rand = regret_of_players(players, g, games=4, seed=0, progress=False)
    assert optimal.gap == pytest.approx(0.0, abs=1e-9)
    assert rand.gap > 0


# -- the games people play: the terminal program and the web page, through the hooks ------------
def _families_with(hook: str) -> list:
    from agents.families import families as agent_families

    return [f for f in agent_families() if f.has_hook(hook)]


def _first_game(family, names) -> str:
    return next(n for n in names if resolve(n).family.name == family.name)


@pytest.mark.parametrize("family", _families_with("terminal_game"), ids=lambda f: f.name)
def test_a_terminal_game(family):
    """``dice-env play GAME`` starts the family's terminal game (its ``"terminal_game"``
    hook) against a bot: ``?`` shows the commands, ``q`` quits with the scores, exit 0."""
    import io

    from agents.play.terminal.cli import main, terminal_games

    game = _first_game(family, terminal_games())
    out = io.StringIO()
    code = main([game, "--seed", "1", "--opponents", "random", "--auto-seconds", "0"],
                stdin=io.StringIO("?\nq\n"), stdout=out)
    text = out.getvalue()
    assert code == 0 and "Commands" in text and "You quit the game." in text


#: the fields of every web view the Play page draws (agents/play/web/layout.py)
LAYOUT = ("names", "people", "you", "current", "your_turn", "turn_of", "over", "dice",
          "advisor", "advice", "verdict", "summary", "status", "status_data", "info",
          "turn_key", "dice_marks", "controls", "board")


def _check_layout(view: dict) -> None:
    missing = [k for k in LAYOUT if k not in view]
    assert not missing, missing
    assert view["status"].startswith(view["title"])
    assert len(view["dice_marks"]) in (0, len(view["dice"]))
    assert view["board"]["kind"] in ("card", "table")
    if view["board"]["kind"] == "table":
        assert len(view["board"]["rows"]) == len(view["names"])


@pytest.mark.parametrize("family", _families_with("web_game"), ids=lambda f: f.name)
def test_a_web_game(family):
    """The web app plays the family's web game (its ``"web_game"`` hook) against a bot: a new
    game and two presses of the buttons its view offers, each view carrying the page's
    layout."""
    need("starlette", "pip install -e '.[web]'")
    need("httpx", "pip install -e '.[web]'")
    import warnings

    from agents.play.web.app import create_app
    from agents.play.web.players import WEB_GAMES, allowed_agents

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    game = _first_game(family, WEB_GAMES)
    with TestClient(create_app(allowed_agents(), auto_seconds=0)) as client:
        r = client.post("/api/games", json={"game": game, "opponents": ["random"], "seed": 3})
        assert r.status_code == 201, r.text
        key, state = r.json()["id"], r.json()["state"]
        for _ in range(2):
            _check_layout(state)
            assert state["your_turn"] and not state["over"]
            pressed = next(b for b in state["controls"]["buttons"] if b["enabled"])
            move = dict(pressed["move"], **({pressed["picked"]: [0]} if pressed["picked"]
                                            else {}))
            answer = client.post(f"/api/games/{key}/move", json=move)
            assert answer.status_code == 200, answer.text
            for frame in answer.json()["frames"]:
                _check_layout(frame["view"])
            state = answer.json()["state"]
        _check_layout(state)
