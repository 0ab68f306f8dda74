"""The root of every error Autobench raises on purpose.

:class:`AutobenchError` is the first base of each public error class of every
distribution (a spec, pricing, record, resume, plugin, instrumentation or unit
error, ...); the builtin base each had before stays its second base, so
``except ValueError`` and ``except LookupError`` callers keep working while
``except AutobenchError`` catches everything Autobench reports. It lives in the
lowest distribution, ``autobench-abp``, so every other one can derive from it. The
CLI shows any of them as an error panel and exits 1.
"""

from __future__ import annotations


class AutobenchError(Exception):
    """Base of the errors Autobench raises on purpose (see the module docstring)."""
