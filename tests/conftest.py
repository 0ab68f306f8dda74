"""Set-up for the whole suite.

A shell starts a background job (``pytest ... &``, ``nohup``) with SIGINT ignored, and
processes inherit an ignored signal across ``exec``: the ``autobench`` processes that the
Ctrl-C tests interrupt would then ignore the SIGINT they are sent and run to the end. The
suite gives SIGINT its default Python handler back, so the processes it starts get the
default disposition whatever shell started the suite.
"""

from __future__ import annotations

import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
