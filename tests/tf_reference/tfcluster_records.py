"""Writes the TFRecord files that tfcluster makes for TensorFlow to read back
(record_records.py reads them in TF's venv). Run with tfcluster on the path, before the
recorder, whenever the cases change:

    PYTHONPATH=server python tests/tf_reference/tfcluster_records.py
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import records_cases as cases  # noqa: E402


def _feature(train, kind: str, values: list):  # type: ignore[no-untyped-def]
    if kind == "bytes":
        return train.Feature(bytes_list=train.BytesList(value=values))
    if kind == "float":
        return train.Feature(float_list=train.FloatList(value=values))
    return train.Feature(int64_list=train.Int64List(value=values))


def example(train, features: dict) -> bytes:  # type: ignore[no-untyped-def]
    feats = {k: _feature(train, kind, v) for k, (kind, v) in features.items()}
    return train.Example(features=train.Features(feature=feats)).SerializeToString()


def sequence_example(train, context: dict, lists: dict) -> bytes:  # type: ignore[no-untyped-def]
    ctx = {k: _feature(train, kind, v) for k, (kind, v) in context.items()}
    fl = {
        k: train.FeatureList(feature=[_feature(train, kind, v) for kind, v in steps])
        for k, steps in lists.items()
    }
    return train.SequenceExample(
        context=train.Features(feature=ctx), feature_lists=train.FeatureLists(feature_list=fl)
    ).SerializeToString()


def tfcluster_examples() -> list[bytes]:
    import tfcluster as tf

    return [example(tf.train, cases.example_features(i)) for i in range(cases.NUM_EXAMPLES)]


def tfcluster_sequences() -> list[bytes]:
    import tfcluster as tf

    return [
        sequence_example(tf.train, *cases.sequence_features(i)) for i in range(cases.NUM_SEQUENCES)
    ]


def write_all(directory: str) -> list[str]:
    import tfcluster as tf

    os.makedirs(directory, exist_ok=True)
    written = []
    for kind, name in cases.TFCLUSTER_WRITTEN.items():
        path = os.path.join(directory, name)
        with tf.python_io.TFRecordWriter(path, tf.python_io.TFRecordOptions(kind)) as w:
            for record in tfcluster_examples():
                w.write(record)
        written.append(path)
    path = os.path.join(directory, cases.TFCLUSTER_SEQUENCES_FILE)
    with tf.io.TFRecordWriter(path) as w:
        for record in tfcluster_sequences():
            w.write(record)
    written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all(cases.RECORDS_DIR):
        print(p, os.path.getsize(p))
