"""The inputs of the TFRecord / Example reference cases, shared by the recorder (TensorFlow's
venv) and the tests: plain Python values only, so both sides build the same protos."""

from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS_DIR = os.path.join(HERE, "data", "records")
# Written by TensorFlow (record_records.py); read by tfcluster's tests.
TF_WRITTEN = {
    "": "examples.tfrecord",
    "GZIP": "examples.tfrecord.gz",
    "ZLIB": "examples.tfrecord.zlib",
}
SEQUENCES_FILE = "sequences.tfrecord"
CORRUPT_FILE = "corrupt.tfrecord"
TRUNCATED_FILE = "truncated.tfrecord"
# Written by tfcluster (tests/unit/test_tfrecord_tf_files.py regenerates and compares them);
# record_records.py reads them back with TensorFlow.
TFCLUSTER_WRITTEN = {
    "": "tfcluster_examples.tfrecord",
    "GZIP": "tfcluster_examples.tfrecord.gz",
    "ZLIB": "tfcluster_examples.tfrecord.zlib",
}
TFCLUSTER_SEQUENCES_FILE = "tfcluster_sequences.tfrecord"


def example_features(i: int) -> dict[str, tuple[str, list]]:
    """Example i's features: name -> (kind, values), kind one of bytes/float/int64. Every
    feature kind, lists short and long (long ones take the kernels' bulk path), missing
    features and empty lists."""
    out: dict[str, tuple[str, list]] = {
        "label": ("int64", [i % 3]),
        "weights": ("float", [0.5 * i, -1.25, 3.0e-3 * i]),
        "image_raw": ("bytes", [bytes((i * 7 + k) % 256 for k in range(6))]),
        "name": ("bytes", [f"example-{i}".encode()]),
        "tags": ("bytes", [f"t{k}".encode() for k in range(i % 4)]),
        "ids": ("int64", [k * 10 - 5 for k in range(i % 3)]),
        "scores": ("float", [0.25 * k for k in range((i + 1) % 3)]),
        "big": ("float", [float(k) / 7.0 + i for k in range(40)]),
        "bigints": (
            "int64",
            [(-1) ** k * (k + i) * 123456789 for k in range(40)] + [2**62, -(2**63)],
        ),
        "pairs": ("int64", list(range(2 * (i % 3)))),
    }
    if i % 2 == 0:
        out["opt"] = ("float", [float(i)])
    if i == 3:
        out["empty"] = ("float", [])
    return out


NUM_EXAMPLES = 6


def sequence_features(
    i: int,
) -> tuple[dict[str, tuple[str, list]], dict[str, list[tuple[str, list]]]]:
    """SequenceExample i: (context features, feature lists: name -> steps of (kind, values))."""
    steps = i + 1
    context = {
        "length": ("int64", [steps]),
        "title": ("bytes", [f"seq-{i}".encode()]),
        "ctx_tags": ("bytes", [b"a", b"b"][: i % 3]),
    }
    lists: dict[str, list[tuple[str, list]]] = {
        "tokens": [("int64", [10 * i + t]) for t in range(steps)],
        "vecs": [("float", [0.5 * t, -0.5 * t - i]) for t in range(steps)],
        "words": [("bytes", [f"w{t}".encode()] * (t % 3)) for t in range(steps)],
    }
    if i % 2:
        lists["sometimes"] = [("float", [1.5 * t]) for t in range(steps)]
    return context, lists


NUM_SEQUENCES = 4
