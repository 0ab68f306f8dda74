"""Reading files of a record directory for the viewer, never outside it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from autobench.view._discover import inside

TEXT_LIMIT = 1_000_000
"""Bytes of a text or JSON artifact shown inline; longer ones are offered as a download."""


def contained(root: Path, relative: str) -> Path | None:
    """``root / relative`` when it is a regular file whose real path (symbolic links
    resolved) lies under ``root``; ``None`` for anything else: an absolute path, ``..``
    parts (also percent-encoded, even twice), a link leading out, a directory, a missing file."""
    decoded = relative
    for _ in range(3):
        decoded = unquote(decoded)
    if "\x00" in decoded or decoded.startswith(("/", "\\")) or ".." in Path(decoded).parts:
        return None
    if "\\" in decoded:
        return None
    path = root / decoded
    if not inside(path, root) or not path.is_file():
        return None
    return path.resolve()


def is_textual(media_type: str) -> bool:
    """Whether an artifact of ``media_type`` is shown inline as text."""
    base = media_type.split(";")[0].strip().lower()
    return (
        base.startswith("text/")
        or base in ("application/json", "application/x-yaml", "application/yaml")
        or base.endswith(("+json", "+yaml"))
    )


IMAGES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
"""Raster images shown inline on a run page, by file extension. SVG is not among them: it
can carry script and markup, so it is only downloaded."""


def image_type(path: Path) -> str | None:
    """The media type an image file at ``path`` is served with inline, or ``None``."""
    return IMAGES.get(path.suffix.lower())
