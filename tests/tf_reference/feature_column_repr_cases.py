"""How TF 1.15 prints feature columns (a notebook cell that ends in `feature_columns` or a
`print(feature_columns)` shows them): each column's namedtuple repr, field by field, under
TF's class name, nested columns inside; and the identity column's `number_buckets` field.
Each case is `fn(tf) -> plain values`, run on TF 1.15 by record_feature_column_repr.py and on
tfcluster by tests/unit/test_feature_column_repr.py. Python 3.7 code."""

from __future__ import annotations

import re


def _shown(column):
    """The repr, with an initializer object's text (a module path and an address) left out."""
    return re.sub(r"initializer=<[^>]*>", "initializer=<initializer>", repr(column))


def column_reprs(tf):
    fc = tf.feature_column
    identity = fc.categorical_column_with_identity("i", 4)
    columns = {
        "numeric": fc.numeric_column("a"),
        "numeric_shaped": fc.numeric_column(
            "b", shape=(2,), default_value=(0.0, 1.0), dtype=tf.float64
        ),
        "bucketized": fc.bucketized_column(fc.numeric_column("a"), [1.0, 2.0]),
        "vocabulary_list": fc.categorical_column_with_vocabulary_list("s", ["x", "y"]),
        "vocabulary_file": fc.categorical_column_with_vocabulary_file(
            "f", "vocab.txt", vocabulary_size=3
        ),
        "hash_bucket": fc.categorical_column_with_hash_bucket("h", 10),
        "identity": identity,
        "crossed": fc.crossed_column(["a", "s"], 10),
        "indicator": fc.indicator_column(identity),
        "weighted": fc.weighted_categorical_column(identity, "w"),
        "embedding": fc.embedding_column(identity, 3),
        "sequence_identity": fc.sequence_categorical_column_with_identity("q", 5),
        "sequence_numeric": fc.sequence_numeric_column("sn"),
    }
    shared = fc.shared_embedding_columns([identity, fc.categorical_column_with_identity("j", 4)], 2)
    out = {name: _shown(c) for name, c in columns.items()}
    out["shared_embedding"] = [_shown(c) for c in shared]
    out["list_of_numeric"] = _shown([fc.numeric_column("x"), fc.numeric_column("y")])
    return out


def identity_buckets(tf):
    column = tf.feature_column.categorical_column_with_identity("i", 4, default_value=1)
    return {"number_buckets": column.number_buckets, "num_buckets": column.num_buckets}


CASES = {"column_reprs": column_reprs, "identity_buckets": identity_buckets}
