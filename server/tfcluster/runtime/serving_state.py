"""Whether this process serves other processes' steps (a started task server). A step may
not end such a process: the Abort op refuses there instead of taking every client's
session down with it."""

from __future__ import annotations

import threading

_lock = threading.Lock()
_servers = 0


def server_started() -> None:
    global _servers
    with _lock:
        _servers += 1


def server_stopped() -> None:
    global _servers
    with _lock:
        _servers = max(0, _servers - 1)


def serving() -> bool:
    return _servers > 0
