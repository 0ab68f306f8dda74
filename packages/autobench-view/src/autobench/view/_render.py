"""What every page of the viewer shares: its security headers and the Jinja2 templates it
is rendered from (autoescaped, strict about missing values)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from pydantic import BaseModel
from starlette.responses import HTMLResponse

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@cache
def templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pretty"] = _pretty
    env.filters["clip"] = clip
    return env


def compile_templates() -> None:
    """Compile every template now (a few tens of milliseconds), not while the first request
    for a page waits."""
    env = templates()
    for name in env.list_templates(extensions=["html"]):
        env.get_template(name)


VALUE_LIMIT = 200_000
"""Characters of one recorded value (an input, output, traceback, output diff line) written
into a page; the rest is left out with a note (the run file has it whole)."""


def clip(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` when it has at most ``limit`` characters; else its first ``limit`` followed
    by a line saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters, not shown (the run file has them)"


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(value, indent=2, default=str, ensure_ascii=False)


def page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
    """The template ``name`` rendered with ``values``, with :data:`HEADERS`."""
    html = templates().get_template(name).render(**values)
    return HTMLResponse(html, status_code=status, headers=HEADERS)
