"""Trained MaskablePPO players (``agents.make("ppo", game)``).

The committed models live in ``results/models/<game>.zip`` (written by ``scripts/train.py``);
``model_path`` loads another one.  The player is deterministic by default (the most probable
legal action) and always passes the action mask, so it never returns an illegal action.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

MODELS_DIR = Path(__file__).resolve().parent.parent / "results" / "models"

#: model file stem of each game name the factory accepts
_MODEL_NAMES = {"fivethousand": "fivethousand", "5000": "fivethousand",
                "five-thousand": "fivethousand", "dice_env/FiveThousand-v0": "fivethousand"}


def default_model_path(game: Any) -> Path:
    """``results/models/<game>.zip`` for a preset name or env id."""
    from dice_env import SCORECARD_IDS

    name = getattr(game, "name", game)
    name = SCORECARD_IDS.get(name, name)
    name = _MODEL_NAMES.get(name, name)
    return MODELS_DIR / f"{name}.zip"


class PPOAgent:
    """A trained MaskablePPO policy as a player.

    Args:
        game: the game (preset name, env id or ``"fivethousand"``) -- picks the default model.
        model_path: a ``.zip`` saved by ``scripts/train.py`` (default: the committed model).
        deterministic: take the most probable legal action (default) or sample.
        seed: seeds torch's sampling when ``deterministic`` is False.
        device: torch device for inference (``"cpu"``).
    """

    def __init__(self, game: Any = "penta", model_path: str | os.PathLike | None = None,
                 deterministic: bool = True, seed: int | None = None,
                 device: str = "cpu") -> None:
        from sb3_contrib import MaskablePPO

        path = Path(model_path) if model_path is not None else default_model_path(game)
        if not path.exists():
            raise FileNotFoundError(f"no trained model at {path}; train one with "
                                    f"`python scripts/train.py {getattr(game, 'name', game)}` "
                                    "or pass model_path=")
        self.game = game
        self.model_path = path
        self.model = MaskablePPO.load(path, device=device)
        self.deterministic = deterministic
        self.seed(seed)

    @classmethod
    def from_model(cls, model: Any, game: Any, deterministic: bool = True) -> PPOAgent:
        """Wrap a live MaskablePPO model (no file), e.g. to evaluate it during training."""
        agent = cls.__new__(cls)
        agent.game, agent.model_path, agent.model = game, None, model
        agent.deterministic = deterministic
        return agent

    def seed(self, seed: int | None = None) -> None:
        """Seed the policy's sampling (only matters when not deterministic)."""
        if seed is not None:
            import torch

            torch.manual_seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action for one observation, restricted to the legal ones."""
        return int(self.act_batch(np.asarray(observation)[None],
                                  np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One legal action per row of ``observations`` / ``masks``."""
        masks = np.asarray(masks).astype(bool)
        actions, _ = self.model.predict(np.asarray(observations, dtype=np.float32),
                                        action_masks=masks, deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64)
