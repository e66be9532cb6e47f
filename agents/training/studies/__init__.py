"""Studies of trainers: a recipe or config trained from several seeds, ablations, and the
median seed picked for the committed models (what ``dice-env ppo-seeds``, ``ppo-recipe-seeds``,
``learned-value-seeds``, ``ablations`` and ``win-report`` run).  Their tables are written by
:mod:`agents.evaluation.reports`.  Nothing is imported here.
"""
