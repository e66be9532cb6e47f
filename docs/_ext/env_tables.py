"""The parts of the environment pages that must keep in step with the code, made from the
code: the row builders and Markdown writers behind the directives of
:mod:`dice_env_docs` (docs/_ext/dice_env_docs.py).  Plain functions without Sphinx, so that
tests/test_docs_site.py checks them against the envs without building the site.

* observation tables: positions, sizes and names come from the code's observation layouts
  (``observation_slices`` of :mod:`dice_env.scorecard.observation`,
  :mod:`dice_env.scorecard.match.observation` and :mod:`dice_env.fivethousand.observation`;
  Pig's layout, :data:`PIG_LAYOUT`, is checked against its observation space);
  the meanings from the tables below.  A part the code adds without a meaning here, or rows
  that do not cover the observation space exactly, raise ``ValueError`` (the build fails);
* action tables: the reroll actions and one scoring action per box label of the rules; 5000's
  roll-on and bank; Pig's roll and hold;
* argument tables: every keyword argument of the env's class with its default (the signature,
  with the id's registered kwargs), each described by the page (``name: text`` items); an
  argument the page does not describe, or a described one the env does not take, raises;
* the summary box at the top of a page, the table of every id, and the example runner.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import re
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym

import dice_env
from dice_env.fivethousand import observation as five_obs
from dice_env.fivethousand.rules import BANK, ROLL, FiveThousandRules
from dice_env.pig import rules as pig_rules
from dice_env.scorecard import observation as card_obs
from dice_env.scorecard.game import N_HOLD_ACTIONS
from dice_env.scorecard.match import observation as match_obs
from dice_env.scorecard.rules import Rules

# -- what the code does not say: the meaning of each part of the observations ----------------

#: scorecard envs: name of :func:`dice_env.scorecard.observation.observation_slices` -> meaning
SCORECARD_MEANINGS = {
    "dice": "the five dice, sorted ascending: (face − 1) / 5",
    "face_counts": "how many dice show 1, 2, …, 6; / 5",
    "rolls_left": "one-hot of the rerolls left (0 … {last_reroll})",
    "open": "1 for each open box, in scorecard order: {labels}",
    "box_points": "what the dice would score in each box now (Joker applied; 0 where the box "
                  "may not take them), capped at 50; / 50; same box order",
    "upper_progress": "upper total, capped at the bonus threshold; / {threshold}",
    "five_state": "one-hot: the {five} box is open / holds 50 / holds 0",
    "turn": "boxes filled / {n_boxes}",
}

#: the entries ``observation="bonus"`` appends (:func:`dice_env.scorecard.observation.
#: bonus_features`), in order: name, size, meaning.  ``signed(x)`` is
#: ``0.5 + 0.5 * clip(x / threshold, -1, 1)``.
BONUS_LAYOUT = (
    ("bonus_need", 1, "points the upper section still needs (threshold − capped upper "
                      "total); / {threshold}"),
    ("bonus_par", 1, "par of the open upper boxes (three of each face), / {threshold}, "
                     "capped at 1"),
    ("bonus_slack", 1, "`signed(par − need)`: above 0.5 the bonus is on par"),
    ("bonus_secured", 1, "1 when nothing more is needed"),
    ("bonus_reachable", 1, "1 when five of a face in every open upper box still reach it"),
    ("bonus_slack_after", 6, "per upper box (Aces … Sixes): signed slack after scoring the "
                             "current dice there; 0 for a filled box"),
)

#: match envs: the parts of :func:`~dice_env.scorecard.match.observation.
#: match_observation_slices` besides ``card`` (a scorecard observation) and ``opponents``
MATCH_MEANINGS = {
    "to_move": "1 when the observer is the player to move",
    "own_total": "the observer's TOTAL, capped at {scale:g}; / {scale:g}",
}

#: one opponent's block of a match observation, in order: name, size, meaning
OPPONENT_BLOCK = (
    ("total", 1, "their TOTAL, capped at {scale:g}; / {scale:g}"),
    ("upper_progress", 1, "their upper total, capped at the bonus threshold; / {threshold}"),
    ("five_state", 3, "one-hot: their {five} box is open / holds 50 / holds 0"),
    ("open", None, "1 for each of their open boxes (scorecard order)"),  # None: n_boxes
)

#: 5000 envs: name of :func:`dice_env.fivethousand.observation.observation_slices` -> meaning
FIVE_THOUSAND_MEANINGS = {
    "score": "each player's score / {target}: the observer first, then turn order",
    "entered": "1 if that player has entered (score > 0); same order",
    "to_move": "one-hot: the player whose decision it is (all 0 once the game is over); "
               "same order",
    "turn_before": "points set aside this turn before the current roll / {target}",
    "roll_points": "the current roll's best score / {target}",
    "turn_total": "`turn_before + roll_points`: what a bank adds (every scoring die set "
                  "aside) / {target}",
    "dice_thrown": "dice in the current roll / 5",
    "face_counts": "dice of the current roll showing 1, 2, …, 6; / 5",
    "dice_left": "dice a roll-on throws after setting every scoring die aside (5 on hot "
                 "dice) / 5",
    "can_bank": "1 if the player to move may bank `turn_total` now",
    "overshoot": "1 if that bank would take the player to move above the target",
    "progress": "the observer's completed turns / `max_turns` (0 without a cap; {max_turns})",
}

#: Pig envs (:mod:`dice_env.pig.observation`), in order: name, size (None: one per player),
#: meaning
PIG_LAYOUT = (
    ("scores", None, "each player's score / {win_score}, clipped at 1: the observer first, "
                     "then turn order"),
    ("turn_total", 1, "the turn total / {win_score}, clipped at 1"),
    ("to_move", None, "one-hot: the player to move (all 0 once the game is over); same order"),
    ("moves", 1, "moves taken, rolls and holds of all players, / `horizon` ({horizon}): the "
                 "time left before a draw"),
)


# -- the row builders ------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One row of an observation table: entries ``[start, stop)``."""

    start: int
    stop: int
    name: str
    meaning: str

    @property
    def index(self) -> str:
        return str(self.start) if self.stop - self.start == 1 else f"{self.start}–{self.stop - 1}"


def env_ids() -> list[str]:
    """Every registered id of the package (``dice_env/...``)."""
    return [k for k in gym.registry if k.startswith("dice_env/")]


def page_name(env_id: str) -> str:
    """The page of an id under docs/envs/: ``dice_env/PentaMatch-v0`` -> ``penta-match``."""
    name = env_id.split("/", 1)[1].rsplit("-v", 1)[0]
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def family(env_id: str) -> str:
    """``"scorecard"``, ``"match"``, ``"fivethousand"`` or ``"pig"``."""
    if env_id in dice_env.SCORECARD_IDS:
        return "scorecard"
    if env_id in dice_env.SCORECARD_MATCH_IDS:
        return "match"
    if env_id in dice_env.FIVE_THOUSAND_IDS:
        return "fivethousand"
    if env_id in dice_env.PIG_IDS:
        return "pig"
    raise ValueError(f"{env_id!r} is not an id of dice_env (known: {env_ids()})")


def make(env_id: str, **kwargs):
    """The unwrapped env of ``env_id`` (no render mode)."""
    return gym.make(env_id, **kwargs).unwrapped


def _card_words(rules: Rules) -> dict:
    """What the scorecard meanings name: box labels, threshold, five-of-a-kind box, ..."""
    return {"labels": ", ".join(rules.labels), "threshold": rules.upper_bonus_threshold,
            "five": rules.labels[rules.five_kind_box], "n_boxes": rules.n_boxes,
            "last_reroll": rules.rolls_per_turn - 1, "scale": match_obs.TOTAL_SCALE}


def _from_slices(slices: dict[str, slice], meanings: dict[str, str], words: dict,
                 prefix: str = "") -> list[Row]:
    """The rows of the code's ``name -> slice`` layout; a name without a meaning raises."""
    missing = [name for name in slices if name not in meanings]
    if missing:
        raise ValueError(f"observation parts without a meaning in docs/_ext: {missing}")
    return [Row(s.start, s.stop, prefix + name, meanings[name].format(**words))
            for name, s in slices.items()]


def _from_layout(layout, words: dict, start: int, prefix: str = "",
                 n_boxes: int = 0) -> list[Row]:
    """The rows of a ``(name, size, meaning)`` layout from ``start`` (size None: n_boxes)."""
    rows = []
    for name, size, meaning in layout:
        size = n_boxes if size is None else size
        rows.append(Row(start, start + size, prefix + name, meaning.format(**words)))
        start += size
    return rows


def observation_rows(env_id: str, observation: str = "basic",
                     num_players: int | None = None) -> list[Row]:
    """Every part of ``env_id``'s observation, in order (see the module doc)."""
    kind = family(env_id)
    kwargs = {} if num_players is None else {"num_players": num_players}
    if kind == "scorecard":
        env = make(env_id, observation=observation)
    else:
        env = make(env_id, **kwargs)
    if kind in ("scorecard", "match"):
        rules = env.rules
        words = _card_words(rules)
        rows = _from_slices(card_obs.observation_slices(rules), SCORECARD_MEANINGS, words,
                            prefix="card." if kind == "match" else "")
        if kind == "scorecard" and observation == "bonus":
            layout_size = sum(size for _, size, _ in BONUS_LAYOUT)
            if layout_size != card_obs.N_BONUS_FEATURES:
                raise ValueError(f"the bonus layout of docs/_ext has {layout_size} entries, "
                                 f"the code {card_obs.N_BONUS_FEATURES}")
            rows += _from_layout(BONUS_LAYOUT, words, rows[-1].stop)
        if kind == "match":
            slices = match_obs.match_observation_slices(rules, env.num_players)
            rest = {k: v for k, v in slices.items() if k not in ("card", "opponents")}
            rows += _from_slices(rest, MATCH_MEANINGS, words)
            block = match_obs.opponent_block_size(rules)
            sizes = sum(rules.n_boxes if size is None else size for _, size, _ in OPPONENT_BLOCK)
            if sizes != block:
                raise ValueError(f"the opponent block of docs/_ext has {sizes} entries, the "
                                 f"code {block}")
            start = slices["opponents"].start
            for k in range(env.num_players - 1):
                rows += _from_layout(OPPONENT_BLOCK, words, start + k * block,
                                     prefix=f"opponent {k + 1}.", n_boxes=rules.n_boxes)
        return rows
    if kind == "pig":
        words = {"win_score": env.rules.win_score, "horizon": env.rules.horizon}
        return _from_layout(PIG_LAYOUT, words, 0, n_boxes=env.num_players)
    cap = ("no cap by default" if env.max_turns is None
           else f"`max_turns` is {env.max_turns} by default")
    words = {"target": env.rules.target, "max_turns": cap}
    return _from_slices(five_obs.observation_slices(env.num_players), FIVE_THOUSAND_MEANINGS,
                        words)


def check_rows(rows: list[Row], size: int) -> None:
    """Raise ``ValueError`` unless ``rows`` cover ``[0, size)`` once, in order."""
    at = 0
    for row in rows:
        if row.start != at or row.stop <= row.start:
            raise ValueError(f"observation row {row.name} starts at {row.start}, expected {at}")
        at = row.stop
    if at != size:
        raise ValueError(f"the observation rows cover {at} entries, the space has {size}")


def action_rows(env_id: str) -> list[tuple[str, str]]:
    """``(actions, what they do)`` of the env's action space (default arguments)."""
    env = make(env_id)
    if family(env_id) == "pig":
        return [(str(pig_rules.ROLL), "roll the die: a 1 loses the turn total and passes the "
                                      "die, another face adds to the turn total (masked when "
                                      "the score plus the turn total reaches `win_score`)"),
                (str(pig_rules.HOLD), "hold: bank the turn total and pass the die (always "
                                      "legal, also with a turn total of 0)")]
    if family(env_id) == "fivethousand":
        return [(str(ROLL), "roll on: set the scoring dice of this roll aside and throw the "
                            "others (all five after hot dice)"),
                (str(BANK), "bank the turn total (masked when the rules forbid it)")]
    rows = [(f"0–{N_HOLD_ACTIONS - 1}",
             "reroll: keep die `i` of the sorted dice when bit `i` of the action is set, "
             "throw the others (`0` rerolls all five, `3` keeps the two lowest dice, `28` "
             "the three highest; `31`, keeping all five, is never legal). With "
             "`canonical_holds=True` (default) one action per kept multiset is legal: the one "
             "that keeps the leftmost dice of each face")]
    rows += [(str(N_HOLD_ACTIONS + k), f"score the dice in **{label}**")
             for k, label in enumerate(env.rules.labels)]
    return rows


def _literal(value) -> str:
    """A Python literal as users write it: strings in double quotes."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def argument_rows(env_id: str) -> list[tuple[str, str, bool]]:
    """``(name, default, set by the id)`` of every keyword argument of ``env_id``'s env;
    ``env_id`` may also be a class, ``"module:Class"`` (the PettingZoo and batched envs)."""
    if ":" in env_id:
        creator, registered = gym.envs.registration.load_env_creator(env_id), {}
    else:
        spec = gym.spec(env_id)
        creator = gym.envs.registration.load_env_creator(spec.entry_point)
        registered = spec.kwargs
    rows = []
    for p in inspect.signature(creator.__init__).parameters.values():
        if p.name == "self":
            continue
        if p.kind is p.VAR_KEYWORD:
            rows.append((f"**{p.name}", "", False))
        elif p.name in registered:
            rows.append((p.name, _literal(registered[p.name]), True))
        else:
            rows.append((p.name, _literal(p.default), False))
    return rows


def _knob_defaults(env_id: str) -> str:
    """The rule knobs an env takes as keywords, with this id's values."""
    if ":" in env_id or family(env_id) == "fivethousand":
        return ""
    rules = make(env_id).rules
    knobs = [f"`{f.name}={_literal(getattr(rules, f.name))}`" for f in dataclasses.fields(Rules)
             if f.default is not dataclasses.MISSING and not f.name.startswith("_")]
    return " This id's values: " + ", ".join(knobs) + "."


# -- Markdown writers: what the directives parse -----------------------------------------------

def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a Markdown pipe table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def summary_markdown(env_id: str) -> list[str]:
    """The box at the top of an env page: spaces, make lines, masks, render modes, classes."""
    env = gym.make(env_id)
    spec = gym.spec(env_id)
    module, _, cls = spec.entry_point.partition(":")
    vmodule, _, vcls = (spec.vector_entry_point or "").partition(":")
    items = [
        ("Action space", f"`{env.action_space}`"),
        ("Observation space", f"`{env.observation_space}`"),
        ("Import", f'`gym.make("{env_id}")` (after `import dice_env`)'),
        ("Batched", f'`gym.make_vec("{env_id}", num_envs=N, '
                    f'vectorization_mode="vector_entry_point")`'),
        ("Action masks", '`info["action_mask"]` (int8), `env.unwrapped.action_masks()` (bool)'),
        ("Render modes", ", ".join(f'`"{m}"`' for m in env.metadata["render_modes"])),
        ("Class", f"{{py:class}}`{module}.{cls}`"
                  + (f"; batched {{py:class}}`{vmodule}.{vcls}`" if vcls else "")),
    ]
    if spec.kwargs:
        items.append(("Registered with", ", ".join(f"`{k}={_literal(v)}`"
                                                   for k, v in spec.kwargs.items())))
    lines = ["```{list-table}", ":class: env-summary", ":widths: 22 78", ""]
    for label, text in items:
        lines += [f"* - **{label}**", f"  - {text}"]
    return lines + ["```"]


def table_markdown(pages: Path, batched: bool = False) -> list[str]:
    """Every registered id: its page (titled as the page in folder ``pages``), its spaces, or
    with ``batched`` its batched class."""
    rows = []
    for env_id in env_ids():
        env = gym.make(env_id)
        page = pages / f"{page_name(env_id)}.md"
        title = page.read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        row = [f"[{title}]({page.name})", f"`{env_id}`"]
        if batched:
            vector = (gym.spec(env_id).vector_entry_point or "").replace(":", ".")
            row.append(f"{{py:class}}`~{vector}`" if vector else "—")
        else:
            space = env.observation_space
            row += [f"`{env.action_space}`", f"`{space.shape}` {space.dtype}"]
        rows.append(row)
    header = ["game", "id"] + (["batched class"] if batched
                               else ["action space", "observation"])
    return markdown_table(header, rows)


def actions_markdown(env_id: str) -> list[str]:
    """The table of :func:`action_rows`."""
    return markdown_table(["action", "what it does"], [list(r) for r in action_rows(env_id)])


def observation_markdown(env_id: str, observation: str, num_players: int | None) -> list[str]:
    """The observation table of an env page, checked against the space; with
    ``observation="bonus"`` only the entries the bonus observation appends."""
    kwargs = {"observation": observation} if family(env_id) == "scorecard" else (
        {} if num_players is None else {"num_players": num_players})
    space = gym.make(env_id, **kwargs).observation_space
    rows = observation_rows(env_id, observation, num_players)
    check_rows(rows, space.shape[0])
    intro = (f"`{space}`: {space.shape[0]} entries, each a {space.dtype} in "
             f"[{space.low.min():g}, {space.high.max():g}].")
    if observation == "bonus":  # the entries it appends; the basic ones are shown apart
        bonus = {name for name, _, _ in BONUS_LAYOUT}
        rows = [r for r in rows if r.name in bonus]
        intro = (f"`{space}`: entries {rows[0].start} to {rows[-1].stop - 1}, each a "
                 f"{space.dtype} in [{space.low.min():g}, {space.high.max():g}].")
    return [intro, ""] + markdown_table(["index", "entry", "size", "meaning"],
                                [[r.index, f"`{r.name}`", str(r.stop - r.start), r.meaning]
                                 for r in rows])


def _split_items(lines: list[str]) -> dict[str, str]:
    """``name: text`` items (continuation lines join the text before them)."""
    items: dict[str, str] = {}
    name = None
    for line in lines:
        m = re.match(r"^(\*{0,2}[A-Za-z_]\w*):\s*(.*)$", line)
        if m:
            name = m.group(1)
            items[name] = m.group(2)
        elif line.strip() and name is not None:
            items[name] += " " + line.strip()
    return items


def arguments_markdown(env_id: str, body: list[str]) -> list[str]:
    """The arguments table of an env page: :func:`argument_rows` described by ``body``'s
    ``name: text`` lines; a missing or unknown name raises ``ValueError``."""
    described = _split_items(body)
    rows = argument_rows(env_id)
    names = [name for name, _, _ in rows]
    missing = [n for n in names if n not in described]
    unknown = [n for n in described if n not in names]
    if missing or unknown:
        raise ValueError(f"{env_id}: arguments not described: {missing}; described but not "
                         f"taken: {unknown}")
    table = []
    for name, default, by_id in rows:
        text = described[name]
        if name.startswith("**"):
            text += _knob_defaults(env_id)
            default = "—"
        else:
            default = f"`{default}`" + (" (set by the id)" if by_id else "")
            knobs = PIG_KNOBS if "pig" in env_id.lower() else FIVE_THOUSAND_KNOBS
            if default == "`None`" and name in knobs:
                default += f" (the rules': `{_literal(knobs[name])}`)"
        table.append([f"`{name}`", default, text])
    return markdown_table(["argument", "default", "description"], table)


#: the knobs of 5000 an env takes as keywords, with their defaults
FIVE_THOUSAND_KNOBS = {f.name: f.default for f in dataclasses.fields(FiveThousandRules)}
#: the knobs of Pig an env takes as keywords, with their defaults
PIG_KNOBS = {f.name: f.default for f in dataclasses.fields(pig_rules.PigRules)}


def run_python(code: str) -> str:
    """What ``code`` prints, run in a fresh namespace."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<docs example>", "exec"), {"__name__": "__docs_example__"})
    return out.getvalue()
