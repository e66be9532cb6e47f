"""A human plays Penta, Dice Poker or 5000, alone or against bots, in a terminal or a browser.

Two front-ends drive the same game models: the terminal program (:mod:`.terminal`) and the
web app (:mod:`.web`).  A human's game is one model (:mod:`.scorecard_session`,
:mod:`.fivethousand_session`), without input or output; the screen differs, the game does not.

The terminal program is started by ``python -m dice_env.play GAME``, the ``dice-play`` console
script (both call :func:`agents.play.terminal.cli.main`) or ``dice-env play``.  It lives in
``agents`` rather than ``dice_env`` because it seats bots and asks the optimal advisor:
``dice_env`` never imports ``agents``, except :mod:`dice_env.play`, which imports
:mod:`.terminal.cli` lazily, inside its ``main`` (an import declared in the import-linter
contracts of ``pyproject.toml``).

Scorecard games (Penta, Dice Poker, the Yahtzee presets): every player -- you and each bot --
has a scorecard of their own, on the multi-player match core (:mod:`dice_env.scorecard.match`,
what the ``scorecard_v0`` AEC env plays) and the players take whole turns in seat order, you
first; the highest TOTAL wins.  On your turn type
``h 1 3 4`` (or just ``1 3 4``) to hold the dice at those positions and reroll the others,
``r`` to reroll all five, ``s Fours`` / ``s 4`` to score a box, ``?`` for help, ``q`` to quit.
As in the apps, after the last roll the computer's choice
(:func:`agents.scorecard.heuristic.computer_choice`) is scored for you if you type nothing within
``--auto-seconds`` seconds.  Typing stops that timer: a half-typed line (even one left
without Enter) is never overruled, and if you erase it the timer starts again.  On a terminal,
keys typed before a prompt appears are discarded, so they never answer it; this needs
keystroke-at-a-time input, so on a terminal the timed prompt does its own echo and line
editing (Backspace, Ctrl-U, Ctrl-W, Ctrl-D) and restores the terminal's settings afterwards.
With input from a pipe or a file (a script of moves), a partial line also stops the timer, but
nothing is discarded: the lines read ahead are the script's next moves.

5000: you sit at seat 0 against the bots, one decision at a time on the one-game core (a seed
deals the game :class:`~dice_env.fivethousand.env.FiveThousandEnv` deals with ``agent_seat=0``;
alone, the solo env's game); ``r`` rolls on, ``b`` banks; what the bots did between your
decisions (banks, busts, bumps, gifts) is printed.

``--advise`` shows, before each of your decisions, the optimal player's value of each option
(expected final score; win probability in 5000 -- expected turns when alone), after it the
cost of your choice, and at the end the total expected loss of your game.

The web app (:mod:`.web`, ``dice-web`` / ``dice-env web``) plays the same games in a
browser.

The modules, one responsibility each:

* :mod:`.scorecard_session`, :mod:`.fivethousand_session` -- the game models, without input or
  output: seats and bots, whose turn, the human's moves checked, the advisor (and its
  verdict on each choice), the computer's auto-score choice, the summary;
* :mod:`.scorecard_table` -- the cards of a scorecard game on the match core;
* :mod:`.advisors` -- the cache that builds each advisor once per process and shares it;
* :mod:`.seats` -- the bots by name (a family's own through its ``"make_bot"`` hook), the log
  of the advisor's verdicts, a refused move;
* :mod:`.terminal` -- the terminal program: its command line (:mod:`.terminal.cli`), the game
  loops over the models (:mod:`.terminal.scorecard_game`, :mod:`.terminal.fivethousand_game`:
  the screen, the prompts, the auto-score timer), the text screen
  (:mod:`.terminal.scorecard_screen`), what the human types (:mod:`.terminal.commands`) and
  the timed line input (:mod:`.terminal.line_input`);
* :mod:`.web` -- the web app (Starlette): its server, routes, views of the models, static page.

Nothing shared here asks which game family it plays: the terminal program starts the family's
game (its ``"terminal_game"`` hook), the web app its view (``"web_game"``, ``"web_tables"``,
``"web_moves"``), and the page draws the layout the view sends (:mod:`.web.layout`).
"""
