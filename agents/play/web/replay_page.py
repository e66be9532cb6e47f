"""The inspect page as one self-contained HTML file: a replay to share without a server.

:func:`replay_html` takes the page the server serves (``static/inspect.html``) and puts its
style, its script and the inspect data inline, so the file opens from a disk or a mail with
no request leaving it (a Content-Security-Policy forbids any).  The page's script finds the
data in ``<script type="application/json" id="replay-data">``.
"""

from __future__ import annotations

import json
from typing import Any

from agents.paths import package_data

__all__ = ["replay_html", "script_json"]

STATIC = package_data("play", "web", "static")
#: nothing may be fetched: inline style and script only, images as data: URLs
CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")
STYLE_LINK = '<link rel="stylesheet" href="/inspect/inspect.css">'
SCRIPT_TAG = '<script src="/inspect/inspect.js"></script>'


def script_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` escaped
    (so no ``</script>`` can end it early), no NaN or infinity."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _asset(name: str, closing: str) -> str:
    text = (STATIC / name).read_text(encoding="utf-8")
    if closing in text.lower():
        raise ValueError(f"{name} contains {closing!r}; it cannot be inlined")
    return text


def replay_html(data: dict[str, Any], title: str | None = None) -> str:
    """The self-contained replay page of an inspect payload (see
    :mod:`agents.evaluation.inspect.games`)."""
    page = (STATIC / "inspect.html").read_text(encoding="utf-8")
    for tag in (STYLE_LINK, SCRIPT_TAG):
        if page.count(tag) != 1:
            raise ValueError(f"inspect.html must hold {tag!r} exactly once")
    style = "<style>\n" + _asset("inspect.css", "</style") + "\n</style>"
    script = ('<script type="application/json" id="replay-data">' + script_json(data)
              + "</script>\n<script>\n" + _asset("inspect.js", "</script") + "\n</script>")
    csp = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    page = page.replace("<head>", "<head>\n" + csp, 1)
    page = page.replace(STYLE_LINK, style).replace(SCRIPT_TAG, script)
    if title:
        from html import escape

        page = page.replace("<title>Inspect", f"<title>{escape(title)} — Inspect", 1)
    return page
