"""Scaling out on Ray (the optional ``ray`` extra): Ray Tune sweeps of the lean PPO trainer and
RLlib's PPO with action masks.

* :mod:`.grid` -- the sweep's grid of config overrides (``--grid KEY=V1,V2``);
* :mod:`.trial` -- one Tune trial: a lean run that hands its checkpoints to Tune and resumes
  from them when its worker dies;
* :mod:`.tune` -- the sweep: plan the trials, run them on Tune, summarize (``dice-env train tune``);
* :mod:`.rllib` -- RLlib's PPO on a game's env, timed against the lean trainer
  (``dice-env train rllib``).

Their tables are written by :mod:`agents.evaluation.reports.tune` and
:mod:`~agents.evaluation.reports.rllib`.  Nothing is imported here (``import ray`` is slow, and
optional): ``ray`` below always means the installed Ray package, never this one.
"""
