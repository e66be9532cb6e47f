"""Pig as ``agents`` sees it: its players and the hooks of every layer (see
:mod:`agents.families`).  Every hook is Pig's own code, in this folder."""

from __future__ import annotations

from agents.families import AgentFamily
from dice_env.pig.family import FAMILY as RULES

__all__ = ["FAMILY"]

#: Pig's players and hooks
FAMILY = AgentFamily(
    RULES,
    title="Pig",
    outcome="win",
    seats_per_seed=2,
    players={
        "random": "dice_env.random_player:RandomPlayer",
        "hold-20": "agents.pig.bots:HoldAtAgent",
        "heuristic": "agents.pig.bots:HoldAtAgent",
        "optimal": "agents.pig.optimal:OptimalAgent",
        "ppo": "agents.policies.committed:PPOAgent",
    },
    hooks={
        "optimal_report": "agents.pig.report:optimal_report",
        "solvable_games": "agents.pig.solver:solvable_games",
        "solve_record": "agents.pig.solver:solve_record",
        "describe_solve": "agents.pig.solver:describe_record",
        "evaluate_players": "agents.pig.evaluation:evaluate_players",
        "regret": "agents.pig.evaluation:regret_of",
        "make_bot": "agents.pig.session:make_bot",
        "terminal_game": "agents.pig.terminal:start_game",
        "web_game": "agents.pig.web_view:new_web_game",
        "web_tables": "agents.pig.web_view:tables_needed",
        "web_moves": "agents.pig.web_view:MOVES",
        "ppo_evaluation": "agents.training.ppo.evaluation:win_rate",
    },
)
