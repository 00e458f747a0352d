"""RecordInput (TF's record_input_op and RecordYielder, used by TF's CNN benchmarks): a batch
of records from the TFRecord files matching a pattern, epoch after epoch.

Each epoch shuffles the files (seeded by file_random_seed and the epoch, then rotated by
file_shuffle_shift_ratio) and reads them with file_parallelism threads into a buffer of
file_buffer_size records; a batch takes records from the buffer at random. An epoch ends
only when its buffer is drained, so every run of as many records as the files hold is
one whole epoch, as in TF. The threads belong to the kernel and stop when it is dropped.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import POLL_SECS, wait_until
from tfcluster.lib.io.file_match import match
from tfcluster.lib.io.os_errors import as_tf_error
from tfcluster.lib.io.tfrecord import RecordReader

_READ_BATCH = 256


class RecordYielder:
    def __init__(self, node: Any) -> None:
        a = node.attrs
        pattern = a["file_pattern"]
        self.pattern = pattern.decode() if isinstance(pattern, bytes) else str(pattern)
        self.seed = int(a.get("file_random_seed", 301))
        self.shift_ratio = float(a.get("file_shuffle_shift_ratio", 0.0))
        self.buffer_size = max(int(a.get("file_buffer_size", 10000)), 1)
        self.parallelism = max(int(a.get("file_parallelism", 16)), 1)
        compression_type = a.get("compression_type") or ""
        self.compression = (
            compression_type.decode() if isinstance(compression_type, bytes) else compression_type
        )
        self._cond = threading.Condition()
        self._buf: list[bytes] = []
        self._epoch_done = False
        self._error: errors.OpError | None = None
        self._stopped = False
        self._started = False
        self._rng = np.random.default_rng(self.seed)
        self._picks: list[float] = []

    # ---- the readers ----------------------------------------------------------------------
    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def _start(self) -> None:
        files = match(self.pattern)
        if not files:
            raise errors.NotFoundError(None, None, f"Found no files at {self.pattern}")
        self._started = True
        threading.Thread(
            target=self._main_loop, args=(sorted(files),), name="RecordInput", daemon=True
        ).start()

    def _main_loop(self, files: list[str]) -> None:
        epoch = 0
        while True:
            order = list(files)
            np.random.default_rng([self.seed, epoch]).shuffle(order)
            shift = int(self.shift_ratio * len(order)) % len(order)
            order = order[shift:] + order[:shift]
            shards = [order[i :: self.parallelism] for i in range(self.parallelism)]
            readers = [
                threading.Thread(target=self._read_shard, args=(s,), daemon=True)
                for s in shards
                if s
            ]
            for t in readers:
                t.start()
            for t in readers:
                t.join()
            with self._cond:
                self._epoch_done = True
                self._cond.notify_all()
                # The next epoch starts once this one is drained.
                while self._buf and not self._stopped:
                    self._cond.wait(POLL_SECS)
                if self._stopped or self._error is not None:
                    return
                self._epoch_done = False
            epoch += 1

    def _read_shard(self, paths: list[str]) -> None:
        try:
            for path in paths:
                with RecordReader(path, self.compression) as reader:
                    while True:
                        records = reader.read_batch(_READ_BATCH)
                        if not records:
                            break
                        with self._cond:
                            while len(self._buf) >= self.buffer_size and not self._stopped:
                                self._cond.wait(POLL_SECS)
                            if self._stopped:
                                return
                            self._buf.extend(records)
                            self._cond.notify_all()
        except errors.OpError as e:
            self._fail(e)
        except OSError as e:
            self._fail(as_tf_error(e, path))

    def _fail(self, error: errors.OpError) -> None:
        with self._cond:
            self._error = error
            self._cond.notify_all()

    # ---- the batches ----------------------------------------------------------------------
    def _pick(self) -> int:
        if not self._picks:
            self._picks = self._rng.random(1024).tolist()
        return int(self._picks.pop() * len(self._buf))

    def batch(self, ctx: Any, size: int) -> np.ndarray:
        out = np.empty(size, dtype=object)
        with self._cond:
            if not self._started:
                self._start()
            for i in range(size):
                wait_until(
                    self._cond,
                    lambda: (
                        self._error is not None
                        or len(self._buf) >= self.buffer_size
                        or (self._epoch_done and bool(self._buf))
                    ),
                    ctx,
                )
                if self._error is not None:
                    raise self._error
                buf = self._buf
                j = self._pick()
                buf[j], buf[-1] = buf[-1], buf[j]
                out[i] = buf.pop()
            self._cond.notify_all()
        return out


@kernel("RecordInput", devices=CPU_ONLY)
def record_input(node: Any, xp: Any) -> Any:
    yielder = RecordYielder(node)
    batch_size = int(node.attrs.get("batch_size", 32))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (yielder.batch(ctx, batch_size),)

    # The reading threads end with the kernel (TF's RecordInputOp deletes its yielder).
    weakref.finalize(compute, yielder.stop)
    return compute
