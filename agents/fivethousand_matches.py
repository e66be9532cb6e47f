"""Moved to :mod:`agents.evaluation.fivethousand_matches`; this path keeps old imports working."""

from agents.evaluation.fivethousand_matches import MatchResult, play_fivethousand_matches

__all__ = ["MatchResult", "play_fivethousand_matches"]
