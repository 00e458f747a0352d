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


# Set when the interpreter exits with servers started (their stop cancels the steps they run).
_exiting = threading.Event()


def interpreter_exiting() -> None:
    _exiting.set()


def wait_out_exit_in_daemon_thread() -> None:
    """A daemon thread whose step failed while the interpreter exits (the process's servers
    stopped under it) waits for the end instead of reporting the error: in TF its call stays
    blocked until the process is gone, so a queue runner or supervisor service says nothing."""
    if _exiting.is_set() and threading.current_thread().daemon:
        threading.Event().wait()
