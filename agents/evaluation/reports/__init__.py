"""The writers of ``results/``: markdown tables, JSON records and plots of the benchmark,
regret, optimal-play, threshold-sweep, seed-study and speed reports.

Each module formats what a run measured; the ``dice-env`` subcommands (:mod:`agents.cli`) call
them and write the files atomically (:mod:`dice_env.io`).  Nothing is imported here.
"""
