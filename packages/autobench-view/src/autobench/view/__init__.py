"""``autobench view``: a local, read-only web viewer over record directories.

:func:`create_app` builds the ASGI application (Starlette) over directories;
:func:`serve` runs it with uvicorn. Nothing here writes under a record directory, serves a
file outside the directories it was given, or fetches anything from another machine.
"""

from autobench.view._app import create_app
from autobench.view._serve import is_loopback, serve

__all__ = ["create_app", "is_loopback", "serve"]
