"""Pig, OpenSpiel's ``pig`` game: one die, 2 to 10 players, first to 100; a 1 loses the turn.

* :mod:`.rules` -- :class:`~dice_env.pig.rules.PigRules` and the rules as pure functions (one
  game) beside their batched twins; action ``0`` rolls, ``1`` holds (OpenSpiel's ids);
* :mod:`.observation` -- the envs' observation (and OpenSpiel's observation tensor);
* :mod:`.game` -- a move with its die throw, events, state dicts, text;
* :mod:`.bots` -- the hold-at-20 bot, the envs' default opponent;
* :mod:`.env` -- ``dice_env/Pig-v0`` (:class:`~dice_env.pig.env.PigEnv`), :mod:`.vector` --
  its natively batched twin, :mod:`.aec` -- the PettingZoo AEC env;
* :mod:`.registration` -- :func:`~dice_env.pig.registration.register_envs`.

Nothing heavy is imported here: ``import dice_env.pig`` loads no Gymnasium env.
"""
