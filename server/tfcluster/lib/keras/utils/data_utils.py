"""Keras's data feeding helpers (TF 1.15): Sequence (batches by index, safe to use with many
workers) and the enqueuers that draw batches from a Sequence or a generator. Here batches are
drawn in the calling thread (workers/use_multiprocessing are accepted and not used), in the
order Keras's enqueuers give them."""

from __future__ import annotations

import random
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
