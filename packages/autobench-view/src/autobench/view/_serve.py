"""Running the viewer: uvicorn on a loopback address unless told otherwise."""

from __future__ import annotations

import ipaddress
import socket
import threading
import webbrowser
from collections.abc import Callable, Sequence
from pathlib import Path

from autobench.abp import AutobenchError

LOOPBACK_WARNING = (
    "autobench view is serving on {host}, which is not a loopback address: anyone who can "
    "reach this machine on port {port} can read these records (inputs, outputs, traces). "
    "There is no authentication."
)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an IPv4/IPv6 address) only reaches this machine: a
    loopback address, or ``localhost``. Other names are not resolved and count as not
    loopback."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def announce(host: str, port: int) -> tuple[str, list[str]]:
    """The viewer's address on ``host``:``port`` and the lines that tell it: the warning
    first for a host that is not loopback."""
    bare = host.strip("[]")
    url = f"http://[{bare}]:{port}/" if ":" in bare else f"http://{bare}:{port}/"
    lines = [] if is_loopback(host) else [LOOPBACK_WARNING.format(host=host, port=port)]
    return url, [*lines, f"autobench view: {url} (Ctrl-C to stop)"]


def serve(
    directories: Sequence[Path],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    open_browser: bool = True,
    say: Callable[[str], None] = print,
) -> None:
    """Serve the viewer over ``directories`` until interrupted. ``port`` 0 picks a free
    port. ``say`` receives the address line and, for a non-loopback ``host``, the warning
    (:data:`LOOPBACK_WARNING`). The address is bound before the directories are walked, so
    a port in use is told at once. Raises :class:`~autobench.abp.AutobenchError` when the
    address cannot be bound (in use, not this machine's, a name that does not resolve)."""
    import uvicorn

    from autobench.view._app import create_app

    sock = _bound(host, port)
    say(f"autobench view: looking for experiments under {', '.join(map(str, directories))}")
    app = create_app(directories, preload=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", server_header=False)
    # Listening before the address is told: a browser or client that connects while uvicorn
    # is still starting waits in the backlog instead of being refused.
    sock.listen(config.backlog)
    bound = sock.getsockname()[1]
    url, lines = announce(host, bound)
    for line in lines:
        say(line)
    server = uvicorn.Server(config)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server.run(sockets=[sock])


def _bound(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (not yet listening)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        why = exc.strerror or str(exc)
        raise AutobenchError(
            f"autobench view cannot listen on {host} port {port}: {why} "
            "(--port 0 picks a free port; --host names an address of this machine)"
        ) from None
    return sock
