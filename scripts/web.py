"""Play Penta, Dice Poker and 5000 in the browser: start the web app (also ``dice-web``).

Examples::

    python scripts/web.py                          # http://127.0.0.1:8000/
    python scripts/web.py --port 8080 --auto-seconds 5
    python scripts/web.py --agent mine=runs/my_dqn.zip --agent my_bots.py:policy

The page plays a game alone or against up to five bots (every registered player, and the
agents given with ``--agent``), draws the dice and every scorecard, shows the optimal advisor's
values and the cost of each choice, and links to the inspect view.  Needs the ``web`` extra
(``pip install -e '.[web]'``).  The server binds 127.0.0.1 unless ``--host`` says otherwise.
"""

from __future__ import annotations

from agents.play.web.server import main

if __name__ == "__main__":
    raise SystemExit(main(prog="web.py"))
