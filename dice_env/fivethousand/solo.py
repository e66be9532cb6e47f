"""``dice_env/FiveThousandSolo-v0``: 5000 alone, reach the target exactly in as few turns as
possible (a planning benchmark)."""

from __future__ import annotations

from dice_env.fivethousand.base import FiveThousandBaseEnv
from dice_env.fivethousand.rules import FiveThousandRules

DEFAULT_MAX_TURNS = 200


class FiveThousandSoloEnv(FiveThousandBaseEnv):
    """5000 (docs/rules.md, section 2) for one player: reach exactly ``target`` in few turns.

    ## Description
    The rules of :class:`~dice_env.fivethousand.env.FiveThousandEnv` with a single player:
    throw, set the scoring dice aside, bank or roll on; busts lose the turn total, hot dice give
    all five dice back, no bank of a total ending in 50, entering needs ``entry`` in one turn.
    There is nobody to bump, and a bank that would pass the target has nobody to be gifted to:
    its points are lost (the score does not move).  A turn whose opening throw busts passes at
    once (it still costs a turn).

    ## Action Space
    As in ``FiveThousand-v0``: ``Discrete(2)`` (``0`` roll on, ``1`` bank), or ``Discrete(64)``
    with ``choose_scoring_dice`` (action ``2 * m + b``: set aside bitmask ``m``, then roll
    ``b = 0`` or bank ``b = 1``).  Masks in ``info["action_mask"]`` and :meth:`action_masks`.
    An action must be an integer (``int``, numpy integer, 0-d integer array; not a bool); any
    other value is an illegal action, as in ``FiveThousand-v0`` (see :mod:`dice_env.errors`).

    ## Observation Space
    ``Box(0, 1, (17,), float32)``, the layout of :mod:`dice_env.fivethousand.observation` for
    one player: ``0`` score / target, ``1`` entered, ``2`` to move (always 1 before the end),
    ``3`` turn total before this roll, ``4`` the roll's points, ``5`` turn total with every
    scoring die set aside, ``6`` dice thrown / 5, ``7 .. 12`` face counts / 5, ``13`` dice left
    / 5, ``14`` bank allowed, ``15`` bank would overshoot, ``16`` completed turns /
    ``max_turns`` (the time left, so that the truncation is observable).

    ## Rewards
    ``-1`` per turn: each step earns minus the number of turns that ended in it (a bank, a
    bust, and the opening busts that follow).  Turns that end inside :meth:`reset` (an opening
    bust before the first decision) are charged on the first step, so an episode's return is
    minus the number of turns it took.  An illegal action earns ``illegal_penalty``.

    ## Starting State
    Score 0 and a fresh throw of five dice; or ``reset(options={"state": d})`` (see
    :mod:`dice_env.fivethousand.state`, one player).

    ## Episode End
    Terminated when the score is exactly the target.  Truncated after ``max_turns`` turns
    (default 200, far beyond what a sensible policy needs -- the default threshold bot takes
    about 25 turns, a uniformly random legal player about 34 -- but a stop for a policy that
    never gets there) or ``max_steps`` steps.

    ## Arguments
    ``rules`` or the knobs ``target``, ``entry``, ``choose_scoring_dice``; ``render_mode``
    (``None``, ``"ansi"``, ``"human"``); ``illegal_action`` (``"penalize"`` by default, for the
    same reason as ``FiveThousand-v0``: ``check_env`` steps with unmasked random actions),
    ``illegal_penalty`` (-1.0, the price of one turn); ``max_turns`` (200); ``max_steps``
    (10,000).

    ## Version History
    * v0: initial version.
    """

    def __init__(
        self,
        rules: FiveThousandRules | dict | None = None,
        target: int | None = None,
        entry: int | None = None,
        choose_scoring_dice: bool | None = None,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_turns: int | None = DEFAULT_MAX_TURNS,
        max_steps: int | None = 10_000,
    ) -> None:
        super().__init__(1, rules, target, entry, choose_scoring_dice, render_mode,
                         illegal_action, illegal_penalty, max_turns, max_steps)

    def _player_names(self) -> list[str]:
        return ["you"]

    def _new_game(self) -> list[dict]:
        self.agent_seat = 0
        self._carried_turns = self._game.start(self.np_random)
        return [{"type": "bust", "player": 0, "lost": 0, "dice": None, "opening": True}
                for _ in range(self._carried_turns)]

    def _reward(self, turns_before: int) -> float:
        turns = self._agent_turns() - turns_before + self._carried_turns
        self._carried_turns = 0
        return -float(turns) if turns else 0.0  # not -0.0 for a step that ends no turn
