"""tf.keras.datasets.imdb: load_data and get_word_index as TF 1.15 (Keras 2.2.4-tf): the
same files from the same origin through get_file (cached in ~/.keras/datasets, hash checked),
the same seeded shuffle, index shifting, maxlen filter and vocabulary cut."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras.datasets import _sequences
from tfcluster.lib.keras.utils import get_file

_ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
# TF's hash of each file it fetches (sha256 for the data, md5 for the word index).
_FILE_HASHES = {
    "imdb.npz": "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
    "imdb_word_index.json": "bfafd718b763782e994055a2d397834f",
}


def load_data(
    path: str = "imdb.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    num_words = _sequences.num_words_from(num_words, kwargs)
    path = get_file(path, origin=_ORIGIN_FOLDER + "imdb.npz", file_hash=_FILE_HASHES["imdb.npz"])
    with np.load(path, allow_pickle=True) as f:
        x_train, labels_train = f["x_train"], f["y_train"]
        x_test, labels_test = f["x_test"], f["y_test"]
    # One seeded global stream shuffles train then test, as Keras does.
    np.random.seed(seed)
    indices = np.arange(len(x_train))
    np.random.shuffle(indices)
    x_train, labels_train = x_train[indices], labels_train[indices]
    indices = np.arange(len(x_test))
    np.random.shuffle(indices)
    x_test, labels_test = x_test[indices], labels_test[indices]
    xs = [_sequences.word_ids(x) for x in x_train] + [_sequences.word_ids(x) for x in x_test]
    labels = np.concatenate([labels_train, labels_test])
    seqs, kept_labels = _sequences.shift_and_cut(
        xs,
        labels,
        num_words=num_words,
        skip_top=skip_top,
        maxlen=maxlen,
        start_char=start_char,
        oov_char=oov_char,
        index_from=index_from,
    )
    if maxlen and not seqs:
        raise ValueError(
            f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was "
            "kept. Increase maxlen."
        )
    # Keras splits at the unfiltered train length, even after the maxlen filter.
    idx = len(x_train)
    train = (_sequences.as_array(seqs[:idx]), np.array(kept_labels[:idx]))
    test = (_sequences.as_array(seqs[idx:]), np.array(kept_labels[idx:]))
    return train, test


def get_word_index(path: str = "imdb_word_index.json") -> dict[str, int]:
    return _sequences.load_word_index(
        path, _ORIGIN_FOLDER + "imdb_word_index.json", _FILE_HASHES["imdb_word_index.json"]
    )
