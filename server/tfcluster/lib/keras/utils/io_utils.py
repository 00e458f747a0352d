"""tf.keras.utils.HDF5Matrix (TF 1.15): a dataset of an HDF5 file used like a numpy array
(rows [start, end), an optional normalizer applied to what is read)."""

from __future__ import annotations

from typing import Any

import numpy as np


class HDF5Matrix:
    refs: dict[str, Any] = {}

    def __init__(
        self,
        datapath: str,
        dataset: str,
        start: int = 0,
        end: int | None = None,
        normalizer: Any = None,
    ) -> None:
        try:
            import h5py  # type: ignore[import-untyped]
        except ImportError:
            raise ImportError("The use of HDF5Matrix requires HDF5 and h5py installed.") from None
        if datapath not in HDF5Matrix.refs:
            HDF5Matrix.refs[datapath] = h5py.File(datapath, "r")
        self.data = HDF5Matrix.refs[datapath][dataset]
        self.start = start
        self.end = self.data.shape[0] if end is None else end
        self.normalizer = normalizer
        if normalizer is not None:
            first = normalizer(self.data[0:1])
            self._base_shape = first.shape[1:]
            self._base_dtype = first.dtype
        else:
            self._base_shape = self.data.shape[1:]
            self._base_dtype = self.data.dtype

    def __len__(self) -> int:
        return self.end - self.start

    def __getitem__(self, key: Any) -> Any:
        idx: Any
        if isinstance(key, slice):
            start, stop = key.start, key.stop
            start = 0 if start is None else start
            stop = len(self) if stop is None else stop
            if stop + self.start <= self.end:
                idx = slice(start + self.start, stop + self.start)
            else:
                raise IndexError
        elif isinstance(key, (int, np.integer)):
            if key + self.start < self.end:
                idx = key + self.start
            else:
                raise IndexError
        elif isinstance(key, np.ndarray):
            if np.max(key) + self.start < self.end:
                idx = (self.start + key).tolist()
            else:
                raise IndexError
        else:
            if max(key) + self.start < self.end:
                idx = [x + self.start for x in key]
            else:
                raise IndexError
        values = self.data[idx]
        return self.normalizer(values) if self.normalizer is not None else values

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.end - self.start, *self._base_shape)

    @property
    def dtype(self) -> Any:
        return self._base_dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))
