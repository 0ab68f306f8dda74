"""Hook implementations of the import direction (see ``_plugin``); none yet."""

from __future__ import annotations

__all__: list[str] = []
