"""What keeps the web app available: requests from other sites refused, a bounded number of
requests at once, slow clients timed out.

* :class:`OriginGuard` -- every ``/api`` request but the health and readiness checks must come
  from this server's own pages: a browser says where a request comes from with
  ``Sec-Fetch-Site`` (``same-origin`` and ``none``, a typed URL, pass; ``same-site`` and
  ``cross-site`` are refused) and ``Origin`` (when present it must name this server's
  ``Host``).  So an ``<img src="http://127.0.0.1:8000/api/inspect/habits?...">`` on another
  site starts no work: a 403 with a JSON reason.  Tools that send neither header (curl, the
  tests) pass.
* :class:`RequestLimit` -- at most ``limit`` ``/api`` requests in progress; one more is a 503
  with ``Retry-After``.
* :class:`HttpVersionGuard` -- a request line of an HTTP version other than 1.0, 1.1 and 2
  (``HTTP/9.9``) is answered 505.
* :func:`timed_protocol` -- uvicorn's h11 protocol with a time limit on a request's head: a
  connection that has not sent a whole request head ``seconds`` after it opened (or after its
  last answer) is closed; and with ``max_connections``, the server's connection limit: past
  it, a request is answered 503 with ``Retry-After`` and a JSON reason (uvicorn's own limit
  answers every request, the health check included, with a plain-text 503), while the health
  and readiness checks (:data:`OPEN_PATHS`) are still answered.  Bodies have their own limit
  (:func:`agents.play.web.validation.read_json`); uvicorn closes idle keep-alive connections
  itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HTTP_VERSIONS", "OPEN_PATHS", "HttpVersionGuard", "OriginGuard", "RequestLimit",
           "cross_origin_reason", "timed_protocol"]

#: ``/api`` paths any client may call (liveness and readiness checks: they cost nothing)
OPEN_PATHS = ("/api/health", "/api/ready")
#: the HTTP versions answered (as ASGI spells them); another is a 505
HTTP_VERSIONS = ("1.0", "1.1", "2")
#: Retry-After of a 503 at the connection limit, in seconds
BUSY_RETRY_AFTER = 1
_ALLOWED_FETCH_SITES = ("same-origin", "none")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


async def _send_json(send: Send, status: int, body: dict[str, Any],
                     headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode("utf-8")
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"), *headers]})
    await send({"type": "http.response.body", "body": data})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _host_port(netloc: str, scheme: str) -> str:
    """``netloc`` lowercased, with the scheme's default port spelt out."""
    netloc = netloc.strip().lower()
    host, sep, port = netloc.rpartition(":")
    if sep and port.isdigit() and (not host.startswith("[") or host.endswith("]")):
        return netloc
    return f"{netloc}:{_DEFAULT_PORTS.get(scheme, '80')}"


def cross_origin_reason(scope: Scope) -> str | None:
    """Why this request comes from another site (a one-line reason), or None when it may be
    answered."""
    site = _header(scope, b"sec-fetch-site")
    if site is not None and site.strip().lower() not in _ALLOWED_FETCH_SITES:
        return (f"refused: this request comes from another site (Sec-Fetch-Site: "
                f"{site.strip()[:40]}); only this server's own pages may ask it to work")
    origin = _header(scope, b"origin")
    if origin is None:
        return None
    host = _header(scope, b"host") or ""
    scheme = scope.get("scheme", "http")
    try:
        parts = urlsplit(origin.strip())
        same = parts.scheme == scheme and bool(parts.netloc) and \
            _host_port(parts.netloc, parts.scheme) == _host_port(host, scheme)
    except ValueError:
        same = False
    if same:
        return None
    return (f"refused: the request's Origin {origin.strip()[:80]!r} is not this server "
            f"({host[:80]!r}); only this server's own pages may ask it to work")


class OriginGuard:
    """ASGI middleware: :func:`cross_origin_reason` checked on every ``/api`` request outside
    ``open_paths`` (403 with ``{"error": reason}``)."""

    def __init__(self, app: ASGIApp, open_paths: Sequence[str] = OPEN_PATHS) -> None:
        self.app = app
        self.open_paths = tuple(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope.get("path", "")
            if path.startswith("/api/") and path not in self.open_paths:
                reason = cross_origin_reason(scope)
                if reason is not None:
                    await _send_json(send, 403, {"error": reason})
                    return
        await self.app(scope, receive, send)


class RequestLimit:
    """ASGI middleware: at most ``limit`` ``/api`` requests in progress at once; another is
    answered 503 with ``Retry-After: retry_after`` at once (the health check always passes)."""

    def __init__(self, app: ASGIApp, limit: int = 128, retry_after: int = 1) -> None:
        self.app = app
        self.limit = int(limit)
        self.retry_after = int(retry_after)
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith("/api/") or path in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if self.in_flight >= self.limit:
            await _send_json(send, 503, {
                "error": f"the server is busy ({self.limit} requests in progress); try again "
                         f"in {self.retry_after} s"},
                [(b"retry-after", str(self.retry_after).encode())])
            return
        self.in_flight += 1  # the event loop runs one coroutine at a time: no lock needed
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


class HttpVersionGuard:
    """ASGI middleware: a request of an HTTP version outside :data:`HTTP_VERSIONS` is
    answered 505 with ``{"error": reason}`` (h11 parses any ``HTTP/d.d`` request line)."""

    def __init__(self, app: ASGIApp, versions: Sequence[str] = HTTP_VERSIONS) -> None:
        self.app = app
        self.versions = tuple(versions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            version = str(scope.get("http_version", "1.1"))
            if version not in self.versions:
                await _send_json(send, 505, {
                    "error": f"HTTP version {version[:10]} is not supported; use HTTP/1.1 "
                             "(or 1.0, or 2)"}, [(b"connection", b"close")])
                return
        await self.app(scope, receive, send)


class _ConnectionLimit:
    """The app of one connection past the server's connection limit: a 503 with
    ``Retry-After`` (the health and readiness checks pass)."""

    def __init__(self, app: ASGIApp, protocol: Any, limit: int) -> None:
        self.app = app
        self.protocol = protocol
        self.limit = int(limit)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        p = self.protocol
        over = len(p.connections) >= self.limit or len(p.tasks) > self.limit
        if over and scope["type"] == "http" and scope.get("path") not in OPEN_PATHS:
            await _send_json(send, 503, {
                "error": f"the server is busy ({len(p.connections)} connections open); try "
                         f"again in {BUSY_RETRY_AFTER} s"},
                [(b"retry-after", str(BUSY_RETRY_AFTER).encode()), (b"connection", b"close")])
            return
        await self.app(scope, receive, send)


def timed_protocol(seconds: float, max_connections: int | None = None) -> type:
    """uvicorn's h11 protocol class, closing a connection that has not sent a complete request
    head within ``seconds`` of opening or of its last answer (pass it as ``http=`` to
    ``uvicorn.Config``, without uvicorn's ``limit_concurrency``).  With ``max_connections``,
    a request that arrives while that many connections are open (or requests running) is
    answered 503 with ``Retry-After``, except the health and readiness checks."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadTimeoutProtocol(H11Protocol):
        """H11Protocol with a time limit on each request head (and the connection limit)."""

        head_seconds = float(seconds)
        _head_timer: Any = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if max_connections is not None:
                self.app = _ConnectionLimit(self.app, self, max_connections)

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(self.head_seconds, self._head_timeout)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            if self.cycle is not before:  # a request head arrived
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and (self.cycle is None
                                                    or self.cycle.response_complete):
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeadTimeoutProtocol
