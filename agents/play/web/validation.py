"""Every request body of the web app, read and checked before anything changes.

A body must be a JSON object (``Content-Type: application/json``, at most :data:`MAX_BODY`
bytes arriving within :data:`BODY_SECONDS`, no duplicate keys, no NaN, no number longer than
:data:`MAX_NUMBER_CHARS` characters) with exactly the keys its request allows, each of the right
type (a JSON ``true`` is not the integer 1) and every number within its bounds.  Anything else
raises :class:`ApiError` with a 4xx status and a one-line message, which the app answers as
``{"error": message}``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from agents.play.seats import MAX_NAME, check_people

#: the largest request body read, in bytes
MAX_BODY = 16_384
#: seconds a request body may take to arrive (a slow client gets a 408)
BODY_SECONDS = 10.0
#: the longest number a body may hold, in characters (a seed has at most 19 digits)
MAX_NUMBER_CHARS = 24
#: seeds are integers in [0, MAX_SEED]
MAX_SEED = 2**63 - 1
MAX_OPPONENTS = 5
#: people at one screen (each game model also checks its own number of seats)
MAX_PEOPLE = 8
#: the longest name of a person: the games' own limit (:data:`agents.play.seats.MAX_NAME`)
MAX_NAME_CHARS = MAX_NAME


class ApiError(Exception):
    """A request refused: an HTTP status, a one-line message, extra JSON fields and, for a
    503, the seconds after which to try again (``Retry-After``)."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None,
                 **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = " ".join(str(message).split())
        self.retry_after = retry_after
        self.extra = extra


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ApiError(400, f"duplicate key {key!r} in the JSON body")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ApiError(400, f"{name} is not a number JSON allows")


def _bounded_number(kind: type):
    """A JSON number parser that refuses numbers longer than :data:`MAX_NUMBER_CHARS`
    (Python refuses to convert integers of more than 4300 digits with a ``ValueError``)."""
    def parse(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            raise ApiError(400, f"a number in the body has {len(text)} characters; at most "
                                f"{MAX_NUMBER_CHARS} are allowed")
        return kind(text)

    return parse


async def _read_body(request: Request, max_body: int) -> bytearray:
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > max_body:
            raise ApiError(413, f"the body is larger than {max_body} bytes")
    return data


async def read_json(request: Request, max_body: int = MAX_BODY,
                    seconds: float | None = None) -> dict:
    """The request's body as a JSON object, or ``ApiError`` (400, 408, 413 or 415); the body
    must arrive within ``seconds`` (default :data:`BODY_SECONDS`)."""
    seconds = BODY_SECONDS if seconds is None else seconds
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError(415, "send the body as JSON with Content-Type: application/json")
    length = request.headers.get("content-length")
    if length is not None and not (length.isascii() and length.isdigit()
                                   and len(length) <= 12):
        raise ApiError(400, "the Content-Length header is not a number of bytes")
    if length is not None and int(length) > max_body:
        raise ApiError(413, f"the body is larger than {max_body} bytes")
    try:
        async with asyncio.timeout(seconds):
            data = await _read_body(request, max_body)
    except TimeoutError:
        raise ApiError(408, f"the body took longer than {seconds:g} s to arrive") from None
    if not data.strip():
        return {}
    try:
        body = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates,
                          parse_constant=_no_constant, parse_int=_bounded_number(int),
                          parse_float=_bounded_number(float))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(body).__name__}")
    return body


def _keys(body: Mapping, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(400, f"unknown keys {unknown}; allowed: {list(allowed)}")
    missing = [k for k in required if k not in body]
    if missing:
        raise ApiError(400, f"missing keys {missing}")


def _int(value: Any, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ApiError(400, f"{what} must be an integer from {low} to {high}, got {value!r}"[:200])
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ApiError(400, f"{what} must be true or false, got {value!r}"[:200])
    return value


@dataclass(frozen=True)
class NewGame:
    """A checked ``POST /api/games`` body."""

    game: str
    opponents: tuple[str, ...]
    seed: int | None
    advisor: bool
    #: the people at the screen (pass and play), empty for one person
    people: tuple[str, ...] = ()


def parse_new_game(body: Mapping, games: Mapping[str, Any], bots: Mapping[str, list[str]]
                   ) -> NewGame:
    """``{"game": "penta", "opponents": ["heuristic"], "seed": 7, "advisor": true, "people":
    ["Ann", "Bob"]}`` (only ``game`` required; each name as the games check it:
    :func:`~agents.play.seats.check_people`, at most :data:`MAX_NAME_CHARS` characters; the
    game model checks the number of seats); ``games``: the game names; ``bots``: game ->
    allowed bot names."""
    _keys(body, ("game", "opponents", "seed", "advisor", "people"), ("game",))
    game = body["game"]
    if not isinstance(game, str) or game not in games:
        raise ApiError(400, f"game must be one of {list(games)}, got {game!r}"[:200])
    opponents = body.get("opponents", [])
    if not isinstance(opponents, list) or len(opponents) > MAX_OPPONENTS:
        raise ApiError(400, f"opponents must be a list of at most {MAX_OPPONENTS} player names")
    allowed = bots[game]
    for name in opponents:
        if not isinstance(name, str) or name not in allowed:
            shown = name if isinstance(name, str) else type(name).__name__
            raise ApiError(400, f"unknown player {shown[:60]!r} for {game}; allowed: "
                                f"{', '.join(allowed)}")
    people = body.get("people", [])
    if not isinstance(people, list) or len(people) > MAX_PEOPLE or not all(
            isinstance(p, str) for p in people):
        raise ApiError(400, f"people must be a list of at most {MAX_PEOPLE} names of at most "
                            f"{MAX_NAME_CHARS} characters")
    long = next((p for p in people if len(" ".join(p.split())) > MAX_NAME_CHARS), None)
    if long is not None:
        raise ApiError(400, f"the name {' '.join(long.split())[:MAX_NAME_CHARS]!r}... has "
                            f"{len(' '.join(long.split()))} characters; a name has at most "
                            f"{MAX_NAME_CHARS}")
    try:
        check_people(people)
    except ValueError as exc:
        raise ApiError(400, f"people: {exc}") from None
    seed = body.get("seed")
    if seed is not None:
        seed = _int(seed, "seed", 0, MAX_SEED)
    return NewGame(game, tuple(opponents), seed, _bool(body.get("advisor", False), "advisor"),
                   tuple(people))


def parse_move(body: Mapping, kinds: Sequence[str], n_boxes: int = 0) -> dict:
    """A checked move of one of ``kinds`` (the game's moves, its family's ``"web_moves"``):
    ``{"kind": "hold", "positions": [0, 2]}`` (0-based dice positions), ``{"kind": "score",
    "box": 3}`` (0-based box, below ``n_boxes``); any other kind alone, ``{"kind": "roll"}``
    (``"auto"``: the computer's choice, when the auto-score timer ran out; ``"bank"`` ...)."""
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in kinds:
        raise ApiError(400, f"kind must be one of {list(kinds)}, got {kind!r}"[:200])
    if kind == "hold":
        _keys(body, ("kind", "positions"), ("positions",))
        positions = body["positions"]
        if not isinstance(positions, list) or len(positions) > 5:
            raise ApiError(400, "positions must be a list of dice positions 0 to 4")
        checked = [_int(p, "each position", 0, 4) for p in positions]
        if len(set(checked)) != len(checked):
            raise ApiError(400, "positions lists a die twice")
        return {"kind": kind, "positions": checked}
    if kind == "score":
        _keys(body, ("kind", "box"), ("box",))
        return {"kind": kind, "box": _int(body["box"], "box", 0, n_boxes - 1)}
    _keys(body, ("kind",))
    return {"kind": kind}


def parse_advisor(body: Mapping) -> bool:
    """``{"on": true}`` or ``{"on": false}``."""
    _keys(body, ("on",), ("on",))
    return _bool(body["on"], "on")
