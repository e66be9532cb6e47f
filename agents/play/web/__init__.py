"""The web front-end: a Starlette app for playing, and the inspect view of games.

Started by ``dice-env web`` / ``dice-web`` (:mod:`.server`).
The modules:

* :mod:`.app` -- :func:`~.app.create_app`, the routes of the Play page and its JSON API;
* :mod:`.jobs` -- long work (solving tables, inspections) in worker processes, with progress;
  :mod:`.tables` -- the solved tables a request needs, ready or being built;
* :mod:`.guard` -- other sites refused, requests bounded, slow clients timed out;
* :mod:`.players` -- the players a server may seat (registered names, ``--agent`` specs);
* :mod:`.sessions` -- the bounded store of games that expire;
* :mod:`.validation` -- every request body, checked;
* :mod:`.scorecard_view`, :mod:`.fivethousand_view` -- a game model
  (:mod:`agents.play.scorecard_session`, :mod:`agents.play.fivethousand_session`) as the JSON
  the page draws, and the page's moves played on it (each family's web hooks);
  :mod:`.layout` -- what every view sends so that the page draws it without knowing the game;
* :mod:`.inspect_routes` -- the inspect view's page and API; :mod:`.inspect_work` -- its
  inspections, cached per seed;
  :mod:`.replay_page` -- that page as one self-contained HTML file;
* :mod:`.load` -- the load test of ``dice-env bench web``; :mod:`.load_worst` -- its worst
  case (a cold build and an inspection behind the games, then SIGTERM);
  :mod:`.screenshot` -- the pictures of the pages in ``docs/`` (``dice-env report screenshots``);
* ``static/`` -- the pages, their scripts and styles (plain HTML, CSS, JS; no build step).
"""
