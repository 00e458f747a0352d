"""tf.keras.preprocessing.text: Tokenizer (a word index by frequency, texts to id sequences or
matrices), text_to_word_sequence, one_hot and hashing_trick, as keras_preprocessing 1.1."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict, defaultdict
from typing import Any

import numpy as np

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(
    text: str, filters: str = _FILTERS, lower: bool = True, split: str = " "
) -> list[str]:
    if lower:
        text = text.lower()
    table: dict[str, str | int | None] = {c: split for c in filters}
    text = text.translate(str.maketrans(table))
    return [w for w in text.split(split) if w]


def hashing_trick(
    text: str,
    n: int,
    hash_function: Any = None,
    filters: str = _FILTERS,
    lower: bool = True,
    split: str = " ",
) -> list[int]:
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":

        def hash_function(w: str) -> int:
            return int(hashlib.md5(w.encode()).hexdigest(), 16)

    seq = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    return [(hash_function(w) % (n - 1) + 1) for w in seq]


def one_hot(
    text: str, n: int, filters: str = _FILTERS, lower: bool = True, split: str = " "
) -> list[int]:
    return hashing_trick(text, n, hash_function=hash, filters=filters, lower=lower, split=split)


class Tokenizer:
    def __init__(
        self,
        num_words: int | None = None,
        filters: str = _FILTERS,
        lower: bool = True,
        split: str = " ",
        char_level: bool = False,
        oov_token: Any = None,
        document_count: int = 0,
        **kwargs: Any,
    ) -> None:
        if "nb_words" in kwargs:
            num_words = kwargs.pop("nb_words")
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts: OrderedDict[str, int] = OrderedDict()
        self.word_docs: defaultdict[str, int] = defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs: defaultdict[int, int] = defaultdict(int)
        self.word_index: dict[str, int] = {}
        self.index_word: dict[int, str] = {}

    def _words(self, text: Any) -> Any:
        if self.char_level or isinstance(text, list):
            if self.lower:
                return [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts: Any) -> None:
        for text in texts:
            self.document_count += 1
            seq = self._words(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        counts = sorted(self.word_counts.items(), key=lambda x: x[1], reverse=True)
        vocabulary = [] if self.oov_token is None else [self.oov_token]
        vocabulary.extend(w for w, _ in counts)
        self.word_index = dict(zip(vocabulary, range(1, len(vocabulary) + 1)))
        self.index_word = {c: w for w, c in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences: Any) -> None:
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts: Any) -> list[list[int]]:
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts: Any) -> Any:
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for text in texts:
            vect = []
            for w in self._words(text):
                i = self.word_index.get(w)
                if i is not None:
                    if num_words and i >= num_words:
                        if oov_index is not None:
                            vect.append(oov_index)
                    else:
                        vect.append(i)
                elif self.oov_token is not None and oov_index is not None:
                    vect.append(oov_index)
            yield vect

    def sequences_to_texts(self, sequences: Any) -> list[str]:
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences: Any) -> Any:
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is not None:
                    if num_words and num >= num_words:
                        if oov_index is not None:
                            vect.append(self.index_word[oov_index])
                    else:
                        vect.append(word)
                elif self.oov_token is not None and oov_index is not None:
                    vect.append(self.index_word[oov_index])
            yield " ".join(vect)

    def texts_to_matrix(self, texts: Any, mode: str = "binary") -> np.ndarray:
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences: Any, mode: str = "binary") -> np.ndarray:
        if not self.num_words:
            if self.word_index:
                num_words = len(self.word_index) + 1
            else:
                raise ValueError(
                    "Specify a dimension (`num_words` argument), or fit on some text data first."
                )
        else:
            num_words = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts: defaultdict[int, int] = defaultdict(int)
            for j in seq:
                if j >= num_words:
                    continue
                counts[j] += 1
            for j, c in list(counts.items()):
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    tf = 1 + np.log(c)
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = tf * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def get_config(self) -> dict[str, Any]:
        return {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def tokenizer_from_json(json_string: str) -> Tokenizer:
    config = json.loads(json_string).get("config")
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = OrderedDict(word_counts)
    tokenizer.word_docs = defaultdict(int, word_docs)
    tokenizer.index_docs = defaultdict(int, index_docs)
    tokenizer.index_word = index_word
    tokenizer.word_index = word_index
    return tokenizer
