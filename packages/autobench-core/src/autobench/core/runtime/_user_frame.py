"""The innermost frame of the user's own code in an exception's traceback.

A task that fails inside ``json.loads`` or an SDK call is best traced from the user's
line that made the call, not from the library's frame that raised. A frame is the
user's when its file is a real file outside Autobench's packages, the environment's
installed distributions (site-packages) and the standard library: the places
:mod:`autobench.core.runtime._portable` names ``<autobench>``, ``<site-packages>`` and
``<stdlib>``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import traceback

from autobench.core.runtime._portable import interpreter_places, spellings
from autobench.records import ErrorLocation

_FOREIGN = ("<autobench>", "<site-packages>", "<stdlib>")
_CHAIN_LIMIT = 8


@functools.cache
def _foreign_prefixes() -> tuple[str, ...]:
    """Every spelling of the directories whose files are not the user's, with a trailing
    separator."""
    prefixes = {
        name + os.sep
        for directory, placeholder in interpreter_places()
        if placeholder in _FOREIGN
        for name in spellings(directory)
    }
    return tuple(sorted(prefixes))


@functools.lru_cache(maxsize=1024)
def _is_users(filename: str) -> bool:
    if not filename or filename.startswith("<"):  # <frozen ...>, <string>, <stdin>
        return False
    names = {os.path.abspath(filename)}
    with contextlib.suppress(OSError):
        names.add(os.path.realpath(filename))
    return not any(name.startswith(_foreign_prefixes()) for name in names)


def user_location(error: BaseException) -> ErrorLocation | None:
    """The innermost frame of the user's code ``error``'s traceback passed through, with
    the file as the frame names it (absolute, usually; records make it portable). When
    ``error``'s own traceback has none, its cause (or the exception it was raised while
    handling) is looked at, up to a few links; ``None`` when no link has one."""
    current: BaseException | None = error
    for _ in range(_CHAIN_LIMIT):
        if current is None:
            return None
        for frame in reversed(traceback.extract_tb(current.__traceback__)):
            if frame.lineno is not None and _is_users(frame.filename):
                return ErrorLocation(file=frame.filename, line=frame.lineno, function=frame.name)
        current = current.__cause__ or current.__context__
    return None
