"""Keras's data feeding helpers (TF 1.15): Sequence (batches by index, safe to use with many
workers) and the enqueuers that draw batches from a Sequence or a generator. Here batches are
drawn in the calling thread (workers/use_multiprocessing are accepted and not used), in the
order Keras's enqueuers give them."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import random
import signal
import time
import weakref
from collections.abc import Iterator
from typing import Any


class Sequence:
    """Subclass with __getitem__(index) -> a batch and __len__() -> batches per epoch."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def on_epoch_end(self) -> None:
        """Called at the end of every epoch (shuffle here)."""

    def __iter__(self) -> Iterator[Any]:
        yield from (self[i] for i in range(len(self)))


class SequenceEnqueuer:
    def __init__(self, sequence: Any, use_multiprocessing: bool = False) -> None:
        self.sequence = sequence
        self.use_multiprocessing = use_multiprocessing
        self.workers = 0
        self._running = False

    def is_running(self) -> bool:
        return self._running

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        self.workers = workers
        self._running = True

    def stop(self, timeout: Any = None) -> None:
        self._running = False

    def get(self) -> Iterator[Any]:
        raise NotImplementedError


class OrderedEnqueuer(SequenceEnqueuer):
    """A Sequence's batches in order (shuffled per epoch if asked), epoch after epoch."""

    def __init__(
        self, sequence: Any, use_multiprocessing: bool = False, shuffle: bool = False
    ) -> None:
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle

    def get(self) -> Iterator[Any]:
        while self.is_running():
            order = list(range(len(self.sequence)))
            if self.shuffle:
                random.shuffle(order)
            for i in order:
                if not self.is_running():
                    return
                yield self.sequence[i]
            self.sequence.on_epoch_end()


class GeneratorEnqueuer(SequenceEnqueuer):
    """A generator's items, as they come."""

    def __init__(
        self,
        generator: Any,
        use_multiprocessing: bool = False,
        random_seed: Any = None,
        wait_time: Any = None,
    ) -> None:
        super().__init__(generator, use_multiprocessing)
        self.random_seed = random_seed

    def get(self) -> Iterator[Any]:
        for item in self.sequence:
            if not self.is_running():
                return
            yield item


# Multiprocessing pools Keras made for data loading, and the ids of their worker processes.
# tfcluster's enqueuers draw batches in the calling thread, so nothing registers here today;
# the cleanup below still ends whatever is registered, as TF 1.15's does.
_DATA_POOLS: weakref.WeakSet[Any] = weakref.WeakSet()
_WORKER_IDS: set[Any] = set()


def terminate_keras_multiprocessing_pools(
    grace_period: float = 0.1, use_sigkill: bool = False
) -> list[str]:
    """Ends Keras's data-loading pools and their workers (never other processes); returns
    human-readable notes on what could not be ended (empty when all went)."""
    problems: list[str] = []
    gc.collect()
    pools = list(_DATA_POOLS)
    for pool in pools:
        pool.close()
        pool.terminate()  # not joined: a stuck worker would block forever
    del pools
    if _DATA_POOLS:
        time.sleep(grace_period)
    ended = set()
    passes = ["terminate", "SIGTERM"] + (["SIGKILL"] if use_sigkill else []) + ["log"]
    for step in passes:
        gc.collect()
        acted = False
        for worker in multiprocessing.active_children():
            if worker.ident not in _WORKER_IDS or not worker.is_alive():
                continue
            with contextlib.suppress(OSError):  # it may have exited meanwhile
                if step == "terminate":
                    worker.terminate()
                    worker.join(timeout=grace_period)
                    ended.add(worker.ident)
                    acted = True
                elif step in ("SIGTERM", "SIGKILL"):
                    sig = signal.SIGKILL if step == "SIGKILL" else signal.SIGTERM
                    os.kill(worker.pid or 0, sig)
                    acted = True
                else:
                    problems.append(
                        f"worker still alive: {worker.name}, pid={worker.pid}, hash={hash(worker)}"
                    )
        if acted:
            time.sleep(grace_period)
    _WORKER_IDS.difference_update(ended)
    gc.collect()
    problems.extend(f"pool still exists: {pool}, hash={hash(pool)}" for pool in _DATA_POOLS)
    return problems
