"""Messages a step's kernels send while the executor runs its ready nodes go out together.

A partition's receives all start at once (they wait for nothing), and each asks a peer for
a tensor. Sent one by one, every request is a system call here and a wake-up there; held
until the executor has run every node that is ready, and then written in one piece per peer,
they cost one of each. The executor flushes before it waits, so nothing waits on a message
that was held back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tfcluster.runtime.inline_reads import Waiter

# Writes several messages to one peer at once.
Writer = Callable[[list[Any]], None]

_local = threading.local()


class Outbox:
    """The messages held for one executor pass, by the writer that sends them."""

    __slots__ = ("_held", "waiter")

    def __init__(self) -> None:
        self._held: dict[Writer, list[Any]] = {}
        # The pass's thread reads the answers to its receives while it waits (see
        # runtime/inline_reads.py); None: their callbacks are called from elsewhere.
        self.waiter: Waiter | None = None

    def add(self, writer: Writer, message: Any) -> None:
        held = self._held.get(writer)
        if held is None:
            self._held[writer] = [message]
        else:
            held.append(message)

    def flush(self) -> None:
        """Sends what is held; a writer that fails has its own way to fail the waiters
        (their calls break), so the others still get their messages."""
        if not self._held:
            return
        held, self._held = self._held, {}
        for writer, messages in held.items():
            try:
                writer(messages)
            except Exception:
                continue


def current() -> Outbox | None:
    """The outbox of the executor pass running in this thread, if any."""
    return getattr(_local, "outbox", None)


def open_outbox() -> tuple[Outbox, Outbox | None]:
    """Starts holding this thread's messages; returns (the new outbox, the one it replaces)."""
    box = Outbox()
    previous = getattr(_local, "outbox", None)
    _local.outbox = box
    return box, previous


def close_outbox(box: Outbox, previous: Outbox | None) -> None:
    box.flush()
    _local.outbox = previous
