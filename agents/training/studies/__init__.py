"""Studies of trainers: a recipe or config trained from several seeds, ablations, and the
median seed picked for the committed models (what ``dice-env report ppo-seeds``, ``recipe-seeds``,
``learned-value-seeds``, ``ablations`` and ``win`` run).  Their tables are written by
:mod:`agents.evaluation.reports`.  Nothing is imported here.
"""
