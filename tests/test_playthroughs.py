"""Golden playthroughs: seeded games written as readable transcripts, replayed and compared.

Regenerate after an intended change of behaviour with::

    DICE_ENV_UPDATE_PLAYTHROUGHS=1 pytest tests/test_playthroughs.py

and review the diff of ``tests/playthroughs/`` before committing it.
"""

import os
from pathlib import Path

import numpy as np
import pytest

from dice_env import dice as D
from dice_env.scorecard.env import ScorecardEnv, describe_action

HERE = Path(__file__).parent / "playthroughs"
CASES = [("penta", 0, "random"), ("penta", 7, "collector"), ("dice-poker", 3, "collector"),
         ("yahtzee-official", 11, "collector")]


def collector_policy(env, info, rng):
    """Hold the most common face (ties: the higher), score the best-paying box at the end."""
    state = env.get_state()
    mask = info["action_mask"]
    if state["rolls_left"] > 0 and rng.random() < 0.9:
        dice = state["dice"]
        face = max(set(dice), key=lambda f: (dice.count(f), f))
        hold = D.hold_bits(i for i, d in enumerate(dice) if d == face)
        if hold != 31 and mask[hold]:
            return hold
    points = np.where(mask[32:] > 0, info["box_points"], -1)
    return 32 + int(np.argmax(points))


def transcript(game, seed, policy):
    env = ScorecardEnv(game, render_mode="ansi")
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    lines = [f"# {game}, env seed {seed}, policy {policy}"]
    done = False
    while not done:
        state = env.get_state()
        if policy == "random":
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        else:
            action = collector_policy(env, info, rng)
        desc = describe_action(env.rules, action, state["dice"])
        flag = "  [must scratch]" if info["must_scratch"] else ""
        _, reward, done, _, info = env.step(action)
        lines.append(f"dice {state['dice']} rerolls {state['rolls_left']}: {desc} -> "
                     f"{reward:+g}{flag}")
    lines.append(f"score {info['score']}")
    lines.append(env.render())
    return "\n".join(lines)


@pytest.mark.parametrize("game,seed,policy", CASES)
def test_playthrough(game, seed, policy):
    path = HERE / f"{game}_seed{seed}_{policy}.txt"
    text = transcript(game, seed, policy)
    if os.environ.get("DICE_ENV_UPDATE_PLAYTHROUGHS") == "1":
        HERE.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing {path}; run with DICE_ENV_UPDATE_PLAYTHROUGHS=1"
    assert text == path.read_text()
