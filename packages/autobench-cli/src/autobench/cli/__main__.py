"""``python -m autobench.cli``: the same as the ``autobench`` command."""

from autobench.cli._app import main

main()
