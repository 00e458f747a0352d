"""LMDB databases (the `lmdb` package): LMDBDataset / ExperimentalLMDBDataset (the (key,
value) pairs of each database in key order, database after database) and the LMDBReader
queue reader (the pairs of each database a queue hands it). A path may be a database's
directory or its data file, opened read-only without a lock file, as TF opens it."""

from __future__ import annotations

import itertools
import os
from collections.abc import Generator
from typing import Any

import lmdb
import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels import readers
from tfcluster.kernels.registry import CPU_ONLY, kernel

Pairs = Generator[tuple[bytes, bytes], None, None]


def _open(path: str) -> lmdb.Environment:
    try:
        return lmdb.open(
            path,
            subdir=not os.path.isfile(path),
            readonly=True,
            lock=False,
            create=False,
            max_readers=1,
        )
    except lmdb.Error as e:
        # TF's message is mdb_strerror's: the error text without lmdb's path prefix.
        text = str(e).split(": ", 1)[-1] if isinstance(e, lmdb.InvalidError) else str(e)
        if "No such file" in text:
            text = "No such file or directory"
        raise errors.InvalidArgumentError(None, None, text) from None


def _pairs(env: lmdb.Environment) -> Pairs:
    try:
        with env.begin(buffers=False) as txn:
            yield from txn.cursor().iternext(keys=True, values=True)
    finally:
        env.close()


# ---- the dataset ---------------------------------------------------------------------------
_PAIR = [base.LeafSpec(base.DENSE, dtypes.string, TensorShape([]))] * 2


class _Lmdb(base.Dataset):
    def __init__(self, files: list[str]) -> None:
        super().__init__(_PAIR)
        self.files = files

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _LmdbIterator(self.files)


class _LmdbIterator(base.ElementIterator):
    """A database that fails to open fails every read until the iterator is reset, as TF's
    (the iterator stays on it)."""

    def __init__(self, files: list[str]) -> None:
        self._files = iter(files)
        self._path: str | None = None
        self._current: Pairs | None = None

    def next(self) -> base.Element | None:
        while True:
            if self._current is None:
                if self._path is None:
                    self._path = next(self._files, None)
                    if self._path is None:
                        return None
                self._current = _pairs(_open(self._path))
            pair = next(self._current, None)
            if pair is not None:
                return (base.as_array(pair[0]), base.as_array(pair[1]))
            self._current = self._path = None

    def next_columns(self, n: int) -> list[Any]:
        """Up to n pairs as a column of keys and one of values ([] at the end): what a
        batch takes."""
        pairs: list[tuple[bytes, bytes]] = []
        while len(pairs) < n:
            if self._current is None:
                if self._path is None:
                    self._path = next(self._files, None)
                    if self._path is None:
                        break
                self._current = _pairs(_open(self._path))
            got = list(itertools.islice(self._current, n - len(pairs)))
            pairs += got
            if len(got) < n - len(pairs) + len(got):
                self._current.close()
                self._current = self._path = None
        if not pairs:
            return []
        keys = np.empty(len(pairs), dtype=object)
        values = np.empty(len(pairs), dtype=object)
        keys[:], values[:] = zip(*pairs)
        return [keys, values]

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None


def lmdb_dataset(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        names = np.asarray(ins[0], dtype=object)
        if names.ndim > 1:
            raise errors.InvalidArgumentError(
                None, None, "`filenames` must be a scalar or a vector."
            )
        files = [
            f.decode("utf-8", "surrogateescape") if isinstance(f, bytes) else str(f)
            for f in names.reshape(-1)
        ]
        return (_Lmdb(files),)

    return compute


kernel("LMDBDataset", devices=CPU_ONLY)(lmdb_dataset)
kernel("ExperimentalLMDBDataset", devices=CPU_ONLY)(lmdb_dataset)


# ---- the queue reader ----------------------------------------------------------------------
class LMDBReaderResource(readers.ReaderResource):
    kind = "LMDBReader"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._pairs: Pairs | None = None

    def on_work_started(self) -> None:
        self._pairs = _pairs(_open(self.work.decode("utf-8", "surrogateescape")))

    def on_work_finished(self) -> None:
        if self._pairs is not None:
            self._pairs.close()
            self._pairs = None

    def read_one(self) -> readers.Record | None:
        return None if self._pairs is None else next(self._pairs, None)


kernel("LMDBReader", devices=CPU_ONLY)(
    readers._reader_kernel(lambda node, name: LMDBReaderResource(name))
)
