"""5000 as ``agents`` sees it: its players and the hooks of every layer (see
:mod:`agents.families`).

The hooks name the family's code in each layer; nothing outside them tests for this family.
"""

from __future__ import annotations

from agents.families import AgentFamily
from dice_env.families import GameRef
from dice_env.fivethousand.family import DEFAULT_ENV_ID, NAMES
from dice_env.fivethousand.family import FAMILY as RULES

__all__ = ["FAMILY", "FiveThousandFamily"]


class FiveThousandFamily(AgentFamily):
    """5000's players and hooks; its committed models are named for the env they play."""

    def model_name(self, game: GameRef) -> str:
        return NAMES[0] if game.env_id == DEFAULT_ENV_ID else "fivethousand-solo"


#: 5000's players and hooks
FAMILY = FiveThousandFamily(
    RULES,
    title="5000",
    outcome="win",
    seats_per_seed=2,
    players={
        "random": "dice_env.random_player:RandomPlayer",
        "threshold": "agents.fivethousand.bots:ThresholdAgent",
        "heuristic": "agents.fivethousand.bots:HeuristicAgent",
        "optimal": "agents.fivethousand.optimal:OptimalAgent",
        "ppo": "agents.policies.committed:PPOAgent",
        "learned-value": "agents.fivethousand.learned_value:LearnedValueAgent",
    },
    hooks={
        "optimal_report": "agents.evaluation.fivethousand_report:fivethousand_report",
        "solvable_games": "agents.solvers.fivethousand_vi.summary:solvable_games",
        "solve_record": "agents.solvers.fivethousand_vi.summary:solve_record",
        "describe_solve": "agents.solvers.fivethousand_vi.summary:describe_fivethousand",
        "evaluate_players": "agents.evaluation.fivethousand_hooks:evaluate_players",
        "regret": "agents.evaluation.fivethousand_hooks:regret_of",
        "inspection": "agents.evaluation.inspect.fivethousand:FiveThousandInspection",
        "make_bot": "agents.play.fivethousand_session:make_bot",
        "terminal_game": "agents.play.terminal.fivethousand_game:start_game",
        "web_game": "agents.play.web.fivethousand_view:new_web_game",
        "web_tables": "agents.play.web.fivethousand_view:tables_needed",
        "web_moves": "agents.play.web.fivethousand_view:MOVES",
        "structured_heads": "agents.policies.structured.fivethousand_network:FiveThousandHeads",
        "structured_defaults":
            "agents.policies.structured.fivethousand_network:FIVETHOUSAND_DEFAULTS",
        "train_learned_value": "agents.training.learned_value.fivethousand:train_seed",
        "structured_rules": "agents.policies.structured.fivethousand_network:rules_spec",
        "ppo_evaluation": "agents.training.ppo.evaluation:win_rate",
    },
)
