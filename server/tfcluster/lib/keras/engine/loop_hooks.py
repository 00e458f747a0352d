"""A Keras loop's calls to its callbacks in one mode (train, test or predict), as TF 1.15's
model_iteration makes them: on_<mode>_begin, each batch's begin with {batch, size} and end
with the batch's results added to that same dict, then on_<mode>_end."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import callbacks as cbks


class LoopHooks:
    def __init__(self, callbacks: cbks.CallbackList | None, mode: str) -> None:
        self._callbacks = callbacks if callbacks is not None and callbacks.callbacks else None
        self._mode = mode
        self._logs: dict[str, Any] = {}

    def begin(self) -> None:
        if self._callbacks is not None:
            self._callbacks.on_mode_begin(self._mode)

    def batch_begin(self, batch: int, size: int) -> None:
        if self._callbacks is not None:
            self._logs = {"batch": batch, "size": size}
            self._callbacks.on_mode_batch(self._mode, "begin", batch, self._logs)

    def batch_end(self, batch: int, results: dict[str, Any]) -> None:
        if self._callbacks is not None:
            self._logs.update(results)
            self._callbacks.on_mode_batch(self._mode, "end", batch, self._logs)

    def end(self) -> None:
        if self._callbacks is not None:
            self._callbacks.on_mode_end(self._mode)
