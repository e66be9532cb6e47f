"""PettingZoo's AEC loop on the multi-player games, the action masks read from the observations.

    python examples/pettingzoo_loop.py

Three players of Penta (``scorecard_v0``: a heuristic bot and two random players) and three of
5000 (``five_thousand_v0``: random players). In an AEC env one agent acts at a time, and the
same agent acts several times in a row (every throw of a turn is a decision);
``env.agent_iter()`` hands out the turns. Each observation is a dict
``{"observation": vector, "action_mask": int8 vector}``.
"""

from __future__ import annotations

import numpy as np

import agents
from dice_env.multi import five_thousand_v0, scorecard_v0
from dice_env.scorecard.match.observation import match_observation_slices
from dice_env.scorecard.rules import PRESETS


def play(env, choose, seed: int) -> tuple[dict[str, float], dict]:
    """Play one match; ``choose(agent, observation, mask)`` picks each action. Returns each
    agent's reward over the match (+1 to a sole winner, -1 to the others) and the last info."""
    env.reset(seed=seed)
    returns = dict.fromkeys(env.agents, 0.0)
    last_info: dict = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        last_info = info
        if terminated or truncated:
            action = None  # PettingZoo's action for an agent that is done
        else:
            action = choose(agent, obs["observation"], obs["action_mask"])
        env.step(action)
    return returns, last_info


def main() -> None:
    """One match of each game, printed."""
    rng = np.random.default_rng(0)

    def random_choice(agent, observation, mask):
        return int(rng.choice(np.flatnonzero(mask)))  # a legal action, uniformly

    penta = scorecard_v0.env(game="penta", num_players=3)
    bot = agents.make("heuristic", "penta")
    bot.seed(0)
    card = match_observation_slices(PRESETS["penta"], 3)["card"]  # the agent's own card

    def penta_choice(agent, observation, mask):
        if agent == "player_0":  # the bot reads a single-player observation: its own card
            return bot.act(observation[card], mask)
        return random_choice(agent, observation, mask)

    returns, info = play(penta, penta_choice, seed=0)
    print("penta rewards:", returns)
    print("penta totals: ", [s["total"] for s in info["scores"]], "winners:", info["winners"])

    five = five_thousand_v0.env(num_players=3)
    returns, _ = play(five, random_choice, seed=0)
    print("5000 rewards: ", returns)


if __name__ == "__main__":
    main()
