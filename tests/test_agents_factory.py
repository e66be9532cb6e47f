"""agents.make: the common player interface, game resolution, the lazy registry, errors."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.families import family
from agents.games import resolve
from dice_env import SCORECARD_IDS
from dice_env.random_player import RandomPlayer as RandomAgent
from dice_env.scorecard.rules import PRESETS, get_rules


@pytest.mark.parametrize("game", sorted(PRESETS) + sorted(SCORECARD_IDS))
@pytest.mark.parametrize("name", ["random", "greedy", "heuristic"])
def test_make_builds_every_scorecard_bot_for_every_game(name, game):
    bot = agents.make(name, game)
    assert isinstance(bot, agents.Agent)
    assert callable(getattr(bot, "act_batch", None))
    bot.seed(3)
    if name != "random":
        assert bot.rules.name == SCORECARD_IDS.get(game, game)


def test_make_accepts_a_rules_object_and_options():
    rules = get_rules("penta", upper_bonus_threshold=70)
    bot = agents.make("heuristic", rules)
    assert bot.rules is rules
    assert agents.make("random", "penta", seed=5).act(None, np.array([0, 1, 1, 0])) in (1, 2)


def test_unknown_player_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown player 'genius'.*'greedy'.*'heuristic'"):
        agents.make("genius", "penta")
    with pytest.raises(ValueError, match=r"unknown player 'greedy'.*'threshold'"):
        agents.make("greedy", "fivethousand")


def test_unknown_game_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown game 'yahtzee'.*'penta'.*dice_env/Penta-v0"):
        agents.make("heuristic", "yahtzee")
    with pytest.raises(ValueError, match="unknown game"):
        agents.make("random", 42)


def test_unknown_option_lists_the_accepted_ones():
    with pytest.raises(ValueError, match=r"unknown options \['depth'\].*\['seed', 'weights'\]"):
        agents.make("heuristic", "penta", depth=2)
    with pytest.raises(ValueError, match=r"unknown options \['temperature'\].*\['seed'\]"):
        agents.make("random", "dice-poker", temperature=1.0)


def test_game_resolution():
    poker = resolve("dice_env/DicePoker-v0")
    assert (poker.family.name, poker.spec, poker.env_id) == ("scorecard", "dice-poker",
                                                             "dice_env/DicePoker-v0")
    assert resolve(poker) is poker  # resolved once, passed down as is
    assert (resolve("5000").family.name, resolve("5000").spec) == ("fivethousand", "fivethousand")
    solo = resolve("dice_env/FiveThousandSolo-v0")
    assert (solo.family.name, solo.spec) == ("fivethousand", "dice_env/FiveThousandSolo-v0")
    assert resolve("yahtzee-official").family is resolve("penta").family
    assert resolve("penta 2p").name == "penta"  # a report's label, by its first word
    assert resolve("penta").rules.name == "penta"
    custom = get_rules("penta", upper_bonus_threshold=60)
    assert resolve(custom).spec is custom and resolve(custom).env_id is None
    with pytest.raises(ValueError, match="unknown game 'chess'; known games"):
        resolve("chess")


def test_registry_lists_every_player():
    assert agents.available("penta") == ["greedy", "heuristic", "learned-value", "optimal", "ppo",
                                         "ppo-pure", "random", "win-value"]
    assert {"heuristic", "ppo", "random", "threshold"} <= set(agents.available("fivethousand"))
    assert {"scorecard", "fivethousand"} <= set(agents.available())


def test_a_registered_player_whose_module_is_missing_raises_import_error(monkeypatch):
    monkeypatch.setitem(family("scorecard").players, "ghost", "agents.no_such_module:Ghost")
    with pytest.raises(ImportError, match="agents.no_such_module"):
        agents.make("ghost", "penta")


def test_register_adds_a_lazily_imported_player(monkeypatch):
    monkeypatch.setattr(family("scorecard"), "players", dict(family("scorecard").players))
    agents.register("coin", "scorecard", "dice_env.random_player:RandomPlayer")
    assert isinstance(agents.make("coin", "penta", seed=0), RandomAgent)
    with pytest.raises(ValueError, match="already registered"):
        agents.register("coin", "scorecard", "agents.scorecard.heuristic:GreedyAgent")
    agents.register("coin", "scorecard", "agents.scorecard.heuristic:GreedyAgent", overwrite=True)
    assert type(agents.make("coin", "penta")).__name__ == "GreedyAgent"
    with pytest.raises(ValueError, match="unknown game family"):
        agents.register("coin", "chess", "dice_env.random_player:RandomPlayer")
    with pytest.raises(ValueError, match="module:Class"):
        agents.register("coin2", "scorecard", "dice_env.random_player")
    agents.register("ghost", "scorecard", "agents.no_such_module:Ghost")
    with pytest.raises(ImportError, match="no_such_module"):
        agents.make("ghost", "penta")
    agents.register("ghost2", "scorecard", "dice_env.random_player:Ghost")
    with pytest.raises(ImportError, match="has no 'Ghost'"):
        agents.make("ghost2", "penta")


def test_random_agent_is_seedable_uniform_and_generic():
    mask = np.zeros(40, dtype=np.int8)
    mask[[3, 17, 33]] = 1
    a, b = RandomAgent(seed=1), RandomAgent(seed=1)
    seq_a = [a.act(None, mask) for _ in range(300)]
    assert seq_a == [b.act(None, mask) for _ in range(300)]
    assert set(seq_a) == {3, 17, 33}
    counts = np.bincount(seq_a, minlength=40)[[3, 17, 33]]
    assert counts.min() > 70
    a.seed(1)
    assert a.act(None, mask) == seq_a[0]
    masks = np.zeros((500, 6), dtype=bool)
    masks[:, 2] = True
    masks[::2, 5] = True
    actions = a.act_batch(np.zeros((500, 3)), masks)
    assert masks[np.arange(500), actions].all() and (actions[::2] == 5).any()
    with pytest.raises(ValueError, match="no legal action"):
        a.act(None, np.zeros(5))
    with pytest.raises(ValueError, match="no legal action"):
        a.act_batch(None, np.zeros((2, 5)))


@pytest.mark.parametrize("game", ["yahtzee-official", "penta"])
def test_the_committed_pure_agents_play_whole_games(game):
    """``ppo-pure`` plays its committed models (Yahtzee's and its Penta twin) through whole
    games, every move legal (the regret evaluation asks it every decision)."""
    from agents.evaluation import optimality_gap

    gap = optimality_gap(agents.make("ppo-pure", game), game, games=4, seed=1, paired=False)
    assert 0.0 <= gap.gap < 60.0 and int(np.sum(gap.decisions)) > 4 * 13


def test_a_game_with_no_pure_model_says_what_is_missing():
    """Dice Poker has no committed pure model nor a config: a FileNotFoundError that names the
    model it looked for and the configs there are."""
    with pytest.raises(FileNotFoundError, match="dice-poker-pure.*penta-pure"):
        agents.make("ppo-pure", "dice-poker")
