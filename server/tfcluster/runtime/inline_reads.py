"""A step's thread reads the answers to its own receives, instead of a reader thread.

A receive asks a peer for a tensor over a call shared by the process's steps (a RecvTensors
call per peer). A reader thread that reads every answer and hands it to the step's thread
costs, per answer, a wake-up of the reader and one of the step's thread, and a hand-over of
the interpreter's lock between them: on a busy machine, more than reading the answer itself.
Yet the step's thread has nothing else to do while it waits. So, while a compiled step
(runtime/async_plan.py) waits, and every receive it waits for is an answer on such a call (a
Source), it takes the calls' reader role and reads their sockets itself, dispatching the
answers it reads (other steps' too) to their callbacks.

A Source keeps its own reader thread for the rest: for answers that nobody waiting reads (a
receive made outside a compiled step, a step that waits for something else too, the answers
still due when a waiting thread gives the role up while another step waits on the call), and,
through a guard that looks once a second, for a call whose answers wait unread while the step
that asked runs kernels for long (the peer's writer must not stall: it gives a silent reader
up after a few heartbeats).
"""

from __future__ import annotations

import contextlib
import queue
import select
import threading
import time
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

# The longest a waiting thread polls its sockets before it looks at what was handed to it.
_SLICE = 0.05


class Source(Protocol):
    """A call whose answers a waiting step's thread may read itself."""

    def claim(self, waiter: Waiter) -> bool:
        """Takes the reader role for `waiter` (False: another thread reads)."""
        ...

    def release(self, waiter: Waiter) -> None:
        """Gives the role up; answers others wait for go to the call's reader thread."""
        ...

    def owed_to(self, waiter: Waiter) -> int:
        """How many of the receives `waiter` made wait for their answers here."""
        ...

    def hand_over(self, waiter: Waiter) -> None:
        """`waiter` will not read: the call's reader thread reads what is owed to it."""
        ...

    def buffered(self) -> bool:
        """Bytes already read off the socket wait in this process (poll would not see them)."""
        ...

    def fileno(self) -> int: ...

    def read_some(self) -> None:
        """Reads what came (one answer, or a heartbeat) and dispatches it; with the role
        held. A failed call fails the answers owed."""
        ...

    def silence_left(self, now: float) -> float | None:
        """Seconds the peer may still stay silent (None: no limit)."""
        ...

    def expire(self) -> None:
        """The peer stayed silent too long: the call is lost, the answers owed fail."""
        ...


class Waiter:
    """One thread's reading of its answers, for one executor pass at a time."""

    def __init__(self) -> None:
        self._sources: list[Source] = []

    def expect(self, source: Source) -> None:
        """A receive of this pass waits for an answer from `source` (under its lock)."""
        if source not in self._sources:
            self._sources.append(source)

    def wait(self, done_q: queue.SimpleQueue[T], timeout: float | None, outstanding: int) -> T:
        """The next item of `done_q` (where the pass's asynchronous kernels put what they
        finished), reading the answers that complete it; `outstanding`: how many items are
        due. Raises queue.Empty after `timeout` seconds, as SimpleQueue.get."""
        end = None if timeout is None else time.monotonic() + timeout
        claimed: list[Source] = []
        try:
            while True:
                try:
                    return done_q.get_nowait()
                except queue.Empty:
                    pass
                owed = 0
                mine = []
                for s in self._sources:
                    n = s.owed_to(self)
                    if n:
                        owed += n
                        mine.append(s)
                if not mine or owed < outstanding or not _claim_all(self, mine, claimed):
                    # Something comes another way, or another thread reads one of the calls:
                    # the answers are handed to this thread.
                    self._release(claimed)
                    for s in mine:
                        s.hand_over(self)
                    left = None if end is None else max(0.0, end - time.monotonic())
                    return done_q.get(timeout=left)
                self._read(claimed, end)
        finally:
            self._release(claimed)

    def _release(self, claimed: list[Source]) -> None:
        while claimed:
            claimed.pop().release(self)

    def _read(self, sources: list[Source], end: float | None) -> None:
        """Reads from whichever of `sources` has something; waits at most until `end`, and
        for at most a slice of time: an answer another thread hands over (a receive that
        is cancelled, say) is seen within it."""
        for s in sources:
            if s.buffered():
                s.read_some()
                return
        now = time.monotonic()
        limit = _SLICE if end is None else min(_SLICE, end - now)
        for s in sources:
            left = s.silence_left(now)
            if left is not None:
                limit = min(limit, left)
        poller = select.poll()  # not select(): descriptors may be past 1024
        by_fd = {}
        for s in sources:
            fd = s.fileno()
            by_fd[fd] = s
            poller.register(fd, select.POLLIN)
        events = poller.poll(max(0, int(limit * 1000) + 1))
        if not events:
            now = time.monotonic()
            for s in sources:
                left = s.silence_left(now)
                if left is not None and left <= 0:
                    s.expire()
            if end is not None and now >= end:
                raise queue.Empty
            return
        for fd, _ in events:
            by_fd[fd].read_some()

    def finish(self) -> None:
        """The pass is over: answers still owed to it (it failed) go to the reader threads."""
        sources, self._sources = self._sources, []
        for s in sources:
            if s.owed_to(self):
                s.hand_over(self)


def _claim_all(waiter: Waiter, sources: list[Source], claimed: list[Source]) -> bool:
    for s in sources:
        if s in claimed:
            continue
        if not s.claim(waiter):
            return False
        claimed.append(s)
    return True


_local = threading.local()


def open_waiter() -> Waiter:
    """This thread's waiter for one pass (the one it keeps, unless a pass of its own is using
    it: an executor nested in a kernel)."""
    waiter: Waiter | None = getattr(_local, "idle", None)
    if waiter is None:
        return Waiter()
    _local.idle = None
    return waiter


def close_waiter(waiter: Waiter) -> None:
    waiter.finish()
    if getattr(_local, "idle", None) is None:
        _local.idle = waiter


class Guard:
    """Looks once a second at the sources it is given (weakly) and calls `check` on each:
    a call whose answers nobody has read for a while gets its reader thread."""

    def __init__(self, interval: float = 1.0) -> None:
        self._interval = interval
        self._lock = threading.Lock()
        self._sources: list[Any] = []  # weak references
        self._thread: threading.Thread | None = None

    def watch(self, ref: Any) -> None:
        """`ref()`: the source, or None once it is gone; it has a method check()."""
        with self._lock:
            self._sources.append(ref)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="inline-reads-guard", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self._interval)
            with self._lock:
                refs = list(self._sources)
            alive = []
            for ref in refs:
                source = ref()
                if source is None:
                    continue
                alive.append(ref)
                with contextlib.suppress(Exception):
                    source.check()
                del source
            with self._lock:
                gone = set(map(id, refs)) - set(map(id, alive))
                if gone:
                    self._sources = [r for r in self._sources if id(r) not in gone]


GUARD = Guard()
