"""What the word-sequence datasets (imdb, reuters) share: Keras 2.2.4-tf's index shifting,
length filter and vocabulary cut, applied to lists of word ids exactly as TF 1.15 does."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tfcluster.lib.keras.utils import get_file
from tfcluster.lib.platform import tf_logging as logging


def num_words_from(num_words: int | None, kwargs: dict[str, Any]) -> int | None:
    """num_words, or the old `nb_words` spelling Keras still takes (with its warning); any
    other keyword is refused as Keras refuses it."""
    if "nb_words" in kwargs:
        logging.warning("The `nb_words` argument in `load_data` has been renamed `num_words`.")
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
    return num_words


def load_word_index(path: str, origin: str, file_hash: str) -> dict[str, int]:
    with open(get_file(path, origin=origin, file_hash=file_hash)) as f:
        return dict(json.load(f))


def shift_and_cut(
    xs: Any,
    labels: Any,
    *,
    num_words: int | None,
    skip_top: int,
    maxlen: int | None,
    start_char: int | None,
    oov_char: int | None,
    index_from: int,
) -> tuple[list[list[int]], Any]:
    """The sequences after start_char/index_from shifting, the maxlen filter (sequences of
    length >= maxlen dropped) and the [skip_top, num_words) cut (num_words defaults to the
    largest id, which is itself cut, as in Keras)."""
    if start_char is not None:
        seqs = [[start_char] + [w + index_from for w in x] for x in xs]
    elif index_from:
        seqs = [[w + index_from for w in x] for x in xs]
    else:
        seqs = [list(x) for x in xs]
    if maxlen:
        kept = [(x, y) for x, y in zip(seqs, labels) if len(x) < maxlen]
        seqs, labels = [x for x, _ in kept], [y for _, y in kept]
    if not num_words:
        num_words = max(max(x) for x in seqs)
    if oov_char is not None:
        seqs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in seqs]
    else:
        seqs = [[w for w in x if skip_top <= w < num_words] for x in seqs]
    return seqs, labels


def as_array(seqs: list[list[int]]) -> np.ndarray:
    """np.array(seqs) as numpy < 1.24 makes it (TF 1.15's): a 2-D int array when every
    sequence has the same length, else a 1-D object array of the lists."""
    lengths = {len(s) for s in seqs}
    if len(lengths) <= 1:
        return np.array(seqs)
    out = np.empty(len(seqs), dtype=object)
    out[:] = seqs
    return out


def word_ids(value: Any) -> list[int]:
    """A stored sequence as Python ints (the npz holds lists, or arrays after a round trip)."""
    return [int(w) for w in value]
