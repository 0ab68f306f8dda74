"""The plotly.js bundle the HTML report embeds: plotly's published ``basic`` partial bundle
(bar, pie and scatter traces, about 1.2 MB against 4.8 MB for the full one), copied unedited
from the npm package :data:`PLOTLY_PACKAGE` at :data:`PLOTLY_VERSION` by
``tools/update_plotly_bundle.py`` (MIT licence, beside it as ``plotly-LICENSE``)."""

from __future__ import annotations

from pathlib import Path

PLOTLY_PACKAGE = "plotly.js-basic-dist-min"
PLOTLY_VERSION = "4.1.1"
PLOTLY_FILE = "plotly-basic.min.js"
PLOTLY_SHA256 = "99784e3abfb07b142a15e521a439e6d9addceadb3f79553fd24c72774f0649ba"
"""SHA-256 of :data:`PLOTLY_FILE` as published; a test checks the shipped file against it."""
STATIC = Path(__file__).with_name("static")


def plotly_js() -> str:
    """The bundle's text (UTF-8), to inline in a ``<script>`` element."""
    return (STATIC / PLOTLY_FILE).read_text(encoding="utf-8")
