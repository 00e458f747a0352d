"""Per-TFCluster work in the event loop: one run at a time per cluster, many requests for it
gathered into one.

A hundred pods changing within ``delay`` cost one sync of their TFCluster, not a hundred; a
request that arrives while the cluster's sync runs schedules exactly one more after it (the
sync reads the children when it starts, so nothing is lost). Clusters run in parallel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

K = TypeVar("K")
ERROR_RETRY = 5.0


@dataclass
class _State:
    task: asyncio.Task[None] | None = None
    due: float = 0.0
    running: bool = False
    again: bool = False


class Coalescer(Generic[K]):
    def __init__(self, run: Callable[[K], Awaitable[float | None]], delay: float) -> None:
        """``run(key)`` does the work and returns seconds until it wants to run again (a
        retry), or None."""
        self._run = run
        self.delay = delay
        self._states: dict[K, _State] = {}

    def kick(self, key: K, delay: float | None = None) -> None:
        """Run ``key``'s work within ``delay`` seconds (default: the gathering delay)."""
        state = self._states.setdefault(key, _State())
        if state.running:
            state.again = True
            return
        loop = asyncio.get_running_loop()
        wait = self.delay if delay is None else delay
        if state.task is not None:
            if state.due <= loop.time() + wait:
                return  # already due sooner
            state.task.cancel()  # a retry far off: this comes first
        state.due = loop.time() + wait
        state.task = loop.create_task(self._later(key, state, wait))

    def forget(self, key: K) -> None:
        """Drop what is scheduled for ``key`` (a run in progress finishes)."""
        state = self._states.get(key)
        if state is not None and not state.running:
            if state.task is not None:
                state.task.cancel()
            del self._states[key]

    @property
    def scheduled(self) -> int:
        return sum(1 for s in self._states.values() if s.task is not None)

    async def close(self) -> None:
        tasks = [s.task for s in self._states.values() if s.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._states.clear()

    async def _later(self, key: K, state: _State, wait: float) -> None:
        await asyncio.sleep(wait)
        state.running = True
        retry: float | None
        try:
            retry = await self._run(key)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("work for %s failed; retrying in %.0f s", key, ERROR_RETRY)
            retry = ERROR_RETRY
        finally:
            state.running = False
            state.task = None
        if self._states.get(key) is not state:
            return  # forgotten meanwhile
        if state.again:
            state.again = False
            self.kick(key)
        elif retry is not None:
            self.kick(key, retry)
        else:
            del self._states[key]
