"""The scorecard family (Penta, Dice Poker, the Yahtzee presets ...) as ``agents`` sees it:
its players and the hooks of every layer (see :mod:`agents.families`).

The hooks name the family's code in each layer; nothing outside them tests for this family.
"""

from __future__ import annotations

from agents.families import AgentFamily
from dice_env.scorecard.family import FAMILY as RULES

__all__ = ["FAMILY"]

#: the scorecard games' players and hooks
FAMILY = AgentFamily(
    RULES,
    title="the scorecard games",
    outcome="score",
    players={
        "random": "dice_env.random_player:RandomPlayer",
        "greedy": "agents.scorecard.heuristic:GreedyAgent",
        "heuristic": "agents.scorecard.heuristic:HeuristicAgent",
        "optimal": "agents.scorecard.optimal:OptimalAgent",
        "ppo": "agents.policies.committed:PPOAgent",
        "ppo-pure": "agents.policies.committed:PurePPOAgent",
        "learned-value": "agents.scorecard.learned_value:LearnedValueAgent",
        "win-value": "agents.scorecard.win_value:WinValueAgent",
    },
    hooks={
        "solvable_games": "agents.solvers.scorecard_record:solvable_presets",
        "solve_record": "agents.solvers.scorecard_record:solve_scorecard_record",
        "describe_solve": "agents.solvers.scorecard_record:describe_scorecard",
        "evaluate_players": "agents.evaluation.scorecard_hooks:evaluate_players",
        "regret": "agents.evaluation.scorecard_hooks:regret_of",
        "inspection": "agents.evaluation.inspect.scorecard:ScorecardInspection",
        "terminal_game": "agents.play.terminal.scorecard_game:start_game",
        "web_game": "agents.play.web.scorecard_view:new_web_game",
        "web_tables": "agents.play.web.scorecard_view:tables_needed",
        "web_moves": "agents.play.web.scorecard_view:MOVES",
        "observation_adapter": "agents.policies.sb3_models:bonus_observation_adapter",
        "structured_heads": "agents.policies.structured.network:StructuredHeads",
        "structured_defaults": "agents.policies.structured.network:DEFAULTS",
        "train_learned_value": "agents.training.learned_value.scorecard:train_seed",
        "structured_rules": "agents.policies.structured.network:rules_spec",
        "ppo_evaluation": "agents.training.ppo.evaluation:mean_score",
    },
)
