"""Trained MaskablePPO players (``agents.make("ppo", game)``, ``agents.make("ppo-pure", game)``).

The committed models ship inside the package (:func:`agents.paths.committed_model`:
``agents/models/<game>.zip`` in a checkout, written by ``dice-env train --export``);
``model_path`` loads another one.  The player is deterministic by default (the most probable
legal action) and always passes the action mask, so it never returns an illegal action.
:class:`PPOAgent` is an :class:`~agents.policies.sb3_models.SB3Agent` (what :func:`agents.load`
builds for a model file) that finds the committed model of its game.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agents.games import resolve
from agents.paths import committed_model, package_data
from agents.policies.sb3_models import SB3Agent


def _config_names() -> list[str]:
    """The PPO training configs' names (data files of agents.training.ppo, read here only to
    name one in a hint; this module does not import the trainer, a layer above the players)."""
    return sorted(p.stem for p in package_data("training", "ppo", "configs").glob("*.json"))


def _recipe_games() -> list[str]:
    """The games with a PPO recipe in the stages file (data of agents.training.ppo, read here
    only to name its command in a hint)."""
    import json

    try:
        stages = json.loads(package_data("training", "ppo", "stages.json").read_text())
    except (OSError, ValueError):
        return []
    return sorted(k for k in stages if not k.startswith("_"))


def default_model_path(game: Any, suffix: str = "") -> Path:
    """The committed ``<stem><suffix>.zip`` of a game (any name :func:`agents.games.resolve`
    takes; ``suffix`` ``"-pure"`` for the pure model-free agent's)."""
    return committed_model(f"{resolve(game).model_name}{suffix}.zip")


def training_hint(game: Any, suffix: str = "") -> str:
    """How to train a model for ``game``: its config's command, or how to write a config."""
    path = default_model_path(game, suffix)
    name = path.stem
    if name in _recipe_games():
        return (f"train its recipe's seeds and commit the median with `dice-env report "
                f"recipe-seeds --games {name} --export` (or one seed: `dice-env train stages "
                f"{name} --export`)")
    known = _config_names()
    if name in known:
        return f"train one with `dice-env train {name} --export {path.name}`"
    return (f"there is no training config for {name!r} (configs: {known}); copy one, set its "
            "env_id, and train with `dice-env train GAME --config FILE`")


class PPOAgent(SB3Agent):
    """A trained MaskablePPO policy as a player (an :class:`~agents.policies.sb3_models.SB3Agent`).

    The model's spaces are checked against the game's env when it is loaded, so a model
    trained for another game is refused with a message naming both games.  Any model
    :class:`~agents.policies.sb3_models.SB3Agent` loads (PPO, A2C, DQN) works too.

    Args:
        game: the game (preset name, env id or ``"fivethousand"``) -- picks the default model.
        model_path: a ``.zip`` saved by ``dice-env train`` (default: the committed model).
        deterministic: take the most probable legal action (default) or sample.
        seed: seeds torch's sampling when ``deterministic`` is False.
        device: torch device for inference (``"cpu"``).
    """

    #: what the committed model's file name adds to the game's (``<game><suffix>.zip``)
    suffix = ""

    def __init__(self, game: Any = "penta", model_path: str | os.PathLike | None = None,
                 deterministic: bool = True, seed: int | None = None,
                 device: str = "cpu") -> None:
        resolved = resolve(game)  # once, for the default path, the hint and the space check
        path = (Path(model_path) if model_path is not None
                else default_model_path(resolved, self.suffix))
        if not path.exists():
            raise FileNotFoundError(f"no trained model at {path}; "
                                    f"{training_hint(resolved, self.suffix)}, or pass model_path=")
        super().__init__(resolved, path, deterministic=deterministic, seed=seed, device=device)


class PurePPOAgent(PPOAgent):
    """The pure model-free PPO player (issue 45): its network sees only what a player sees at the
    table -- the dice, the rolls left, the scorecard (open boxes, the upper total, the
    five-of-a-kind box) and what the current dice score in each open box -- nothing computed
    from the dice's probabilities, no hand-made feature of the dice or the bonus, no lookahead
    (:class:`~agents.policies.structured.features.PureActionFeatures`).  Its model is
    ``agents/models/<game>-pure.zip``, trained by ``dice-env train <game>-pure``; the package
    commits ``yahtzee-official``'s and Penta's."""

    suffix = "-pure"
