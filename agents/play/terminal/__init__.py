"""The terminal program (``dice-play``, ``python -m dice_env.play``, ``dice-env play``).

* :mod:`.cli` -- the command line (``main``, ``build_parser``);
* :mod:`.scorecard_game`, :mod:`.fivethousand_game` -- the terminal's game loops over the
  shared game models (:mod:`agents.play.scorecard_session`,
  :mod:`agents.play.fivethousand_session`): the screen, the prompts, the auto-score timer;
* :mod:`.scorecard_screen` -- the cards, totals and dice drawn as text;
* :mod:`.commands` -- what the human types, parsed (pure functions), and the help texts;
* :mod:`.line_input` -- reading a line from the terminal with a timeout that typing stops.
"""
