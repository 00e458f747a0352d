"""tf.keras.datasets.reuters: load_data and get_word_index as TF 1.15 (Keras 2.2.4-tf): the
same files from the same origin through get_file, one seeded shuffle, index shifting, maxlen
filter, vocabulary cut, then the test_split cut."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras.datasets import _sequences
from tfcluster.lib.keras.utils import get_file

_ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
# TF's hash of each file it fetches (sha256 for the data, md5 for the word index).
_FILE_HASHES = {
    "reuters.npz": "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
    "reuters_word_index.json": "4d44cc38712099c9e383dc6e5f11a921",
}


def load_data(
    path: str = "reuters.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    test_split: float = 0.2,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    num_words = _sequences.num_words_from(num_words, kwargs)
    path = get_file(
        path, origin=_ORIGIN_FOLDER + "reuters.npz", file_hash=_FILE_HASHES["reuters.npz"]
    )
    with np.load(path, allow_pickle=True) as f:
        xs, labels = f["x"], f["y"]
    np.random.seed(seed)
    indices = np.arange(len(xs))
    np.random.shuffle(indices)
    xs, labels = xs[indices], labels[indices]
    seqs, kept_labels = _sequences.shift_and_cut(
        [_sequences.word_ids(x) for x in xs],
        labels,
        num_words=num_words,
        skip_top=skip_top,
        maxlen=maxlen,
        start_char=start_char,
        oov_char=oov_char,
        index_from=index_from,
    )
    idx = int(len(seqs) * (1 - test_split))
    train = (_sequences.as_array(seqs[:idx]), np.array(kept_labels[:idx]))
    test = (_sequences.as_array(seqs[idx:]), np.array(kept_labels[idx:]))
    return train, test


def get_word_index(path: str = "reuters_word_index.json") -> dict[str, int]:
    return _sequences.load_word_index(
        path, _ORIGIN_FOLDER + "reuters_word_index.json", _FILE_HASHES["reuters_word_index.json"]
    )
