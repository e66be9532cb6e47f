"""agents.load: registered names, stable-baselines3 model files, module:attr, objects, errors."""

from __future__ import annotations

import sys
import textwrap
import zipfile

import gymnasium as gym
import numpy as np
import pytest
from conftest import need

import agents
from agents.evaluation import play_scorecard_games
from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.paths import committed_models_dir
from agents.policies.committed import PPOAgent
from agents.policies.sb3_models import SB3Agent, detect_algorithm
from agents.policies.user_code import FunctionAgent

MODELS_DIR = committed_models_dir()

need("sb3_contrib", "pip install -e '.[train]'")

ALGOS = ["maskableppo", "ppo", "a2c", "dqn"]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Freshly built (untrained) tiny Penta models of each algorithm, saved as zips."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    from dice_env.sb3 import make_sb3_vec_env

    folder = tmp_path_factory.mktemp("models")
    venv = make_sb3_vec_env("dice_env/Penta-v0", num_envs=4, seed=0)
    small = {"net_arch": [16]}
    built = {
        "maskableppo": MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, seed=0,
                                   policy_kwargs=small),
        "ppo": PPO("MlpPolicy", venv, n_steps=8, batch_size=32, seed=0, policy_kwargs=small),
        "a2c": A2C("MlpPolicy", venv, n_steps=8, seed=0, policy_kwargs=small),
        "dqn": DQN("MlpPolicy", venv, buffer_size=100, learning_starts=10, seed=0,
                   policy_kwargs=small),
    }
    built["dqn"].exploration_rate = 0.5  # saved: epsilon-greedy when not deterministic
    paths = {}
    for name, model in built.items():
        paths[name] = folder / f"{name}.zip"
        model.save(paths[name])
    venv.close()
    return paths


def plays_legal_games(agent, game="penta", n=20):
    """``play_scorecard_games`` raises on an illegal action."""
    totals = play_scorecard_games(agent, game, n, seed=0)
    assert totals.shape == (n,)
    return totals


# -- stable-baselines3 models ----------------------------------------------------------------

@pytest.mark.parametrize("algo", ALGOS)
def test_a_model_file_loads_with_its_algorithm_detected_and_plays_legal_games(models, algo):
    agent = agents.load(models[algo], "penta")
    assert isinstance(agent, SB3Agent) and agent.algorithm == algo
    plays_legal_games(agent)
    env = gym.make("dice_env/Penta-v0")
    obs, info = env.reset(seed=0)
    action = agent.act(obs, info["action_mask"])
    assert isinstance(action, int) and info["action_mask"][action]
    batch = agent.act_batch(np.stack([obs, obs]), np.stack([info["action_mask"]] * 2))
    assert batch.dtype == np.int64 and batch.shape == (2,)


@pytest.mark.parametrize("algo", ["maskableppo", "a2c", "dqn"])
def test_sampling_models_stay_legal_and_seeded(models, algo):
    agent = agents.load(str(models[algo]), "dice_env/Penta-v0", deterministic=False, seed=1)
    first = plays_legal_games(agent, n=10)
    agent.seed(1)
    assert (plays_legal_games(agent, n=10) == first).all()


def test_an_algorithm_prefix_overrides_detection(models):
    agent = agents.load(f"A2C:{models['ppo']}", "penta")  # a PPO policy is an actor-critic too
    assert agent.algorithm == "a2c"
    plays_legal_games(agent, n=5)
    assert agents.load(f"maskableppo:{models['maskableppo']}").algorithm == "maskableppo"
    with pytest.raises(ValueError, match=r"as a DQN model.*looks like a PPO model.*'dqn:'"):
        agents.load(f"dqn:{models['ppo']}", "penta")


def test_detect_algorithm_refuses_other_algorithms():
    with pytest.raises(ValueError, match="TRPO; only MaskablePPO, PPO, A2C and DQN"):
        detect_algorithm({"policy_class": {}, "cg_max_steps": 15, "vf_coef": 0.5})
    with pytest.raises(ValueError, match="QR-DQN"):
        detect_algorithm({"policy_class": {"__module__": "sb3_contrib.qrdqn.policies"}})
    with pytest.raises(ValueError, match=r"cannot tell.*prefix the path.*'ppo:'"):
        detect_algorithm({"policy_class": {"__module__": "mine"}})


def test_a_model_for_another_game_is_refused_naming_both(models):
    with pytest.raises(ValueError, match=r"for dice-poker: .*shape \(45,\).*penta.*\(49,\)"):
        agents.load(models["ppo"], "dice-poker")
    with pytest.raises(ValueError, match=r"for fivethousand: .*penta.*shape \(20,\)"):
        agents.load(models["dqn"], "fivethousand")
    with pytest.raises(ValueError, match=r"penta.*dice-poker's env"):
        agents.make("ppo", "dice-poker", model_path=models["maskableppo"])
    with pytest.raises(ValueError, match=r"for dice-poker.*penta"):
        PPOAgent("dice-poker", model_path=models["maskableppo"])


def test_the_committed_ppo_models_still_load_and_play():
    penta = agents.make("ppo", "penta")
    assert isinstance(penta, SB3Agent) and penta.algorithm == "maskableppo"
    assert plays_legal_games(penta, n=10).mean() > 150
    plays_legal_games(agents.make("ppo", "dice-poker"), "dice-poker", n=5)
    ft = agents.make("ppo", "fivethousand")
    result = play_fivethousand_matches([ft, agents.make("random", "fivethousand", seed=0)], 10)
    assert result.winner.shape == (10,)
    with pytest.raises(ValueError, match=r"fivethousand\?.*for penta|for penta.*fivethousand"):
        agents.make("ppo", "penta", model_path=MODELS_DIR / "fivethousand.zip")


def test_from_model_wraps_a_live_model(models):
    from stable_baselines3 import PPO

    agent = PPOAgent.from_model(PPO.load(models["ppo"]), "penta")
    assert isinstance(agent, PPOAgent) and agent.algorithm == "ppo" and agent.model_path is None
    plays_legal_games(agent, n=5)


# -- module:attr and objects -----------------------------------------------------------------

BOTS = textwrap.dedent('''
    import numpy as np

    class FirstLegal:
        def __init__(self, game, seed=None):
            self.game, self.seeded = game, seed

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

        def seed(self, seed=None):
            self.seeded = seed

    class LastLegalBatch:
        """Only act_batch, and a constructor without the game."""

        def __init__(self, offset=0):
            self.offset = offset

        def act_batch(self, observations, masks):
            return np.array([np.flatnonzero(m)[-1] for m in masks])

    def policy(observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])

    def make_bot(game):
        return FirstLegal(game)

    def make_policy():
        return policy

    INSTANCE = FirstLegal("penta")
    NUMBER = 42

    def three(a, b, c):
        return 0
''')

ATTRS = ["FirstLegal", "LastLegalBatch", "policy", "make_bot", "make_policy", "INSTANCE"]


@pytest.fixture
def bots_dir(tmp_path, monkeypatch):
    name = "user_bots_for_loading_test"
    (tmp_path / f"{name}.py").write_text(BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path, name
    sys.modules.pop(name, None)


@pytest.mark.parametrize("form", ["dotted", "file"])
@pytest.mark.parametrize("attr", ATTRS)
def test_module_attr_specs_play_legal_games(bots_dir, form, attr):
    folder, name = bots_dir
    spec = f"{name}:{attr}" if form == "dotted" else f"{folder / name}.py:{attr}"
    agent = agents.load(spec, "penta")
    assert callable(agent.act) and callable(agent.seed)
    plays_legal_games(agent, n=5)
    if form == "file":
        assert name not in sys.modules  # loaded under a private module name


def test_module_attr_details(bots_dir):
    folder, name = bots_dir
    bot = agents.load(f"{name}:FirstLegal", "dice_env/DicePoker-v0", seed=7)
    assert bot.game.spec == "dice-poker" and bot.seeded == 7  # the resolved Game, options on
    assert bot.game.rules.name == "dice-poker" and bot.game.family.name == "scorecard"
    assert agents.load(f"{name}:LastLegalBatch", offset=2).offset == 2
    instance = agents.load(f"{name}:INSTANCE", seed=3)
    assert instance is sys.modules[name].INSTANCE and instance.seeded == 3
    assert isinstance(agents.load(f"{name}:policy"), FunctionAgent)
    with pytest.raises(ValueError, match=r"unknown options \['depth'\].*\['seed'\]"):
        agents.load(f"{name}:FirstLegal", depth=2)
    with pytest.raises(ValueError, match=r"options \['depth'\] cannot be given"):
        agents.load(f"{name}:policy", depth=2)


def test_objects_are_accepted_directly():
    from dice_env.random_player import RandomPlayer as RandomAgent

    bot = RandomAgent("penta")
    assert agents.load(bot, "penta") is bot
    fn = agents.load(lambda obs, mask: int(np.flatnonzero(mask)[0]), "penta")
    assert isinstance(fn, FunctionAgent)
    plays_legal_games(fn, n=5)
    assert type(agents.load(RandomAgent, "penta", seed=1)) is RandomAgent


def test_a_registered_name_is_made():
    from agents.scorecard.heuristic import HeuristicAgent

    assert isinstance(agents.load("heuristic", "penta"), HeuristicAgent)
    plays_legal_games(agents.load(" greedy ", "dice-poker"), "dice-poker", n=5)


def test_a_fivethousand_function_agent_plays_matches():
    bot = agents.load(lambda obs, mask: int(np.flatnonzero(mask)[-1]), "fivethousand")
    opponent = agents.load("random", "fivethousand", seed=0)
    result = play_fivethousand_matches([bot, opponent], 20, seed=0)
    assert result.winner.shape == (20,)


# -- bad specs -------------------------------------------------------------------------------

def test_bad_strings(tmp_path):
    with pytest.raises(ValueError, match=r"empty player spec.*'heuristic'.*module:attr"):
        agents.load("  ", "penta")
    with pytest.raises(FileNotFoundError, match="no such model file"):
        agents.load(str(tmp_path / "missing.zip"))
    with pytest.raises(FileNotFoundError, match="no such model file"):
        agents.load("models/missing")
    with pytest.raises(FileNotFoundError, match="no such model file"):
        agents.load("ppo:missing.zip")
    with pytest.raises(ValueError, match=r"unknown algorithm prefix 'ppo2'.*'maskableppo:'.*dqn"):
        agents.load("ppo2:models/my.zip")
    with pytest.raises(ValueError, match=r"unknown player 'genius'.*'greedy'.*'heuristic'"):
        agents.load("genius", "penta")
    with pytest.raises(ValueError, match=r"unknown player 'greedy'.*'threshold'"):
        agents.load("greedy", "fivethousand")
    with pytest.raises(ValueError, match="unknown game"):
        agents.load("heuristic", "yahtzee")


def test_bad_files(tmp_path):
    notes = tmp_path / "notes.zip"
    notes.write_text("not a zip")
    with pytest.raises(ValueError, match="not a zip file.*stable-baselines3"):
        agents.load(notes)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(ValueError, match="zip file but not a stable-baselines3 model"):
        agents.load(str(other))
    with pytest.raises(ValueError, match="is a directory"):
        agents.load(str(tmp_path))
    script = tmp_path / "bot.py"
    script.write_text("X = 1\n")
    with pytest.raises(ValueError, match=r"Python file: name the agent.*bot.py:MyBot"):
        agents.load(str(script))
    with pytest.raises(FileNotFoundError, match="no such Python file"):
        agents.load(f"{tmp_path / 'nobot.py'}:Bot")


def test_bad_modules_and_attributes(bots_dir, tmp_path):
    _, name = bots_dir
    with pytest.raises(ImportError, match=r"cannot import module 'no_such_module_xyz'.*\.py:Bot"):
        agents.load("no_such_module_xyz:Bot")
    broken = tmp_path / "broken_bot.py"
    broken.write_text("import no_such_dependency_xyz\n")
    with pytest.raises(ImportError, match="importing 'broken_bot'.*no_such_dependency_xyz"):
        agents.load("broken_bot:Bot")
    with pytest.raises(ImportError, match=r"has no attribute 'Missing'.*'FirstLegal'.*'policy'"):
        agents.load(f"{name}:Missing")
    with pytest.raises(ValueError, match=r"is an int \(42\), not an agent"):
        agents.load(f"{name}:NUMBER")
    with pytest.raises(ValueError, match=r"3 required arguments \['a', 'b', 'c'\]"):
        agents.load(f"{name}:three")
    with pytest.raises(ValueError, match="not an agent.*policy function"):
        agents.load(42, "penta")
    with pytest.raises(ValueError, match="factory .* returned"):
        agents.load(lambda: 42, "penta")


@pytest.mark.parametrize("spec", ["heuristic", str(MODELS_DIR / "penta.zip"),
                                  "agents.scorecard.heuristic:GreedyAgent"])
def test_load_parses_the_game_once(monkeypatch, spec):
    """agents.load resolves the game at the entry and passes the Game down (it was parsed five
    times on one call before).  resolve_game is the one parser of names: a model file's own
    saved rules name (the structured policy's ``rules="penta"``) goes through it too, once."""
    import dice_env.families as families

    calls = []
    parse = families.resolve_game
    monkeypatch.setattr(families, "resolve_game", lambda game: calls.append(game) or parse(game))
    agents.load(spec, "dice_env/Penta-v0")
    assert calls[0] == "dice_env/Penta-v0" and calls.count("dice_env/Penta-v0") == 1
    assert calls[1:] == (["penta"] if spec.endswith(".zip") else []), calls
