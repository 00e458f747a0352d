"""tf.keras.preprocessing.sequence: pad_sequences (lists of ids to one [samples, maxlen] array,
padded/truncated before or after), make_sampling_table/skipgrams for word2vec-style pairs and
TimeseriesGenerator (windows of a series as a keras Sequence), as keras_preprocessing 1.1
computes them."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from tfcluster.lib.keras.utils.data_utils import Sequence


def pad_sequences(
    sequences: Any,
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)
    lengths = []
    sample_shape: tuple[int, ...] = ()
    found_shape = False
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError:
            raise ValueError(
                "`sequences` must be a list of iterables. Found non-iterable: " + str(x)
            ) from None
        if not found_shape and len(x):
            sample_shape = np.asarray(x).shape[1:]
            found_shape = True
    if maxlen is None:
        maxlen = int(np.max(lengths)) if lengths else 0
    is_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype is not object and not is_str:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\nYou should "
            "set `dtype=object` for variable length strings."
        )
    out = np.full((num_samples, maxlen, *sample_shape), value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            trunc = s[-maxlen:] if maxlen else s[:0]
        elif truncating == "post":
            trunc = s[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} is different "
                f"from expected shape {sample_shape}"
            )
        if not len(trunc):
            continue
        if padding == "post":
            out[idx, : len(trunc)] = trunc
        elif padding == "pre":
            out[idx, -len(trunc) :] = trunc
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> np.ndarray:
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.asarray(np.minimum(1.0, f / np.sqrt(f)))


def skipgrams(
    sequence: Any,
    vocabulary_size: int,
    window_size: int = 4,
    negative_samples: float = 1.0,
    shuffle: bool = True,
    categorical: bool = False,
    sampling_table: Any = None,
    seed: Any = None,
) -> tuple[list[Any], list[Any]]:
    couples: list[Any] = []
    labels: list[Any] = []
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < random.random():
            continue
        window_start = max(0, i - window_size)
        window_end = min(len(sequence), i + window_size + 1)
        for j in range(window_start, window_end):
            if j != i:
                wj = sequence[j]
                if not wj:
                    continue
                couples.append([wi, wj])
                labels.append([0, 1] if categorical else 1)
    if negative_samples > 0:
        num_negative = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [
            [words[i % len(words)], random.randint(1, vocabulary_size - 1)]
            for i in range(num_negative)
        ]
        labels += [[1, 0] if categorical else 0] * num_negative
    if shuffle:
        if seed is None:
            seed = random.randint(0, 10_000_000)
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


class TimeseriesGenerator(Sequence):
    """Batches of (window, target) from a series: the sample for the step at row r is
    data[r - length : r : sampling_rate], its target targets[r], for r from start_index +
    length to end_index (every `stride`-th row, or batch_size rows drawn with np.random when
    shuffled)."""

    def __init__(
        self,
        data: Any,
        targets: Any,
        length: int,
        sampling_rate: int = 1,
        stride: int = 1,
        start_index: int = 0,
        end_index: int | None = None,
        shuffle: bool = False,
        reverse: bool = False,
        batch_size: int = 128,
    ) -> None:
        if len(data) != len(targets):
            raise ValueError(
                "Data and targets have to be of same length. "
                f"Data length is {len(data)} while target length is {len(targets)}"
            )
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        # The first row with a whole window behind it (get_config reports this, as keras does).
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(
                f"`start_index+length={int(self.start_index)} > "
                f"end_index={int(self.end_index)}` is disallowed, as no part of the "
                "sequence would be left to be used as current step."
            )

    def __len__(self) -> int:
        span = self.batch_size * self.stride
        return (self.end_index - self.start_index + span) // span

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            last = min(first + self.batch_size * self.stride, self.end_index + 1)
            rows = np.arange(first, last, self.stride)
        windows = np.array([self.data[r - self.length : r : self.sampling_rate] for r in rows])
        targets = np.array([self.targets[r] for r in rows])
        return (windows[:, ::-1, ...], targets) if self.reverse else (windows, targets)

    def get_config(self) -> dict[str, Any]:
        """The generator's arguments, data and targets as JSON strings."""
        return {
            "data": _json_of("Data", self.data),
            "targets": _json_of("Targets", self.targets),
            "length": self.length,
            "sampling_rate": self.sampling_rate,
            "stride": self.stride,
            "start_index": self.start_index,
            "end_index": self.end_index,
            "shuffle": self.shuffle,
            "reverse": self.reverse,
            "batch_size": self.batch_size,
        }

    def to_json(self, **kwargs: Any) -> str:
        """{"class_name": ..., "config": get_config()} as JSON (kwargs go to json.dumps)."""
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def _json_of(what: str, value: Any) -> str:
    # A numpy array (not a list of them) is written as its nested lists.
    if type(value).__module__ == np.__name__:
        value = value.tolist()
    try:
        return json.dumps(value)
    except TypeError:
        raise TypeError(f"{what} not JSON Serializable:", value) from None
