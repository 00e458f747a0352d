"""tf.keras.preprocessing.sequence: pad_sequences (lists of ids to one [samples, maxlen] array,
padded/truncated before or after) and make_sampling_table/skipgrams for word2vec-style pairs,
as keras_preprocessing 1.1 computes them."""

from __future__ import annotations

import random
from typing import Any

import numpy as np


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
