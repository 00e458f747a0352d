"""The first (string ref handle) versions of TF's queue, reader, stack and table ops, the
mutable tables and the resource accumulator compute what TF 1.15 computes: each program of
tests/tf_reference/stateful_ops_cases.py runs here on tfcluster and is compared with TF 1.15's
recorded answers (record_stateful_ops.py): values, static shapes and dtypes, and the classes
of the errors (closed and empty queues, timeouts, bad keys and shapes)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.stateful_ops_cases import CASES, build_dense_hash_table

# Where TF 1.15 itself cannot run the program and tfcluster does what the op means instead.
_TF_FAILS = {
    # TF's kernel asks for an `encoding` attr the first FixedLengthRecordReader op never had.
    ("readers_v1", "fixed"): [b"abcd", b"efgh", b"ijkl"],
}


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, dict):
        assert sorted(got) == sorted(recorded), where
        for k in recorded:
            _assert_same(got[k], recorded[k], f"{where}.{k}")
    elif isinstance(recorded, list):
        assert isinstance(got, list) and len(got) == len(recorded), f"{where}: {got!r}"
        for i, (g, r) in enumerate(zip(got, recorded)):
            _assert_same(g, r, f"{where}[{i}]")
    elif isinstance(recorded, np.ndarray):
        reference.assert_close(got, recorded, rtol=1e-6, atol=1e-6)
    else:
        assert got == recorded, f"{where}: {got!r} != TF's {recorded!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    got = decode(encode(CASES[name](tf)))
    recorded = dict(reference.case("stateful_ops", name))
    for (case, key), value in _TF_FAILS.items():
        if case == name:
            assert recorded[key] == "NotFoundError"
            recorded[key] = value
    _assert_same(got, recorded, name)


def test_v1_input_pipeline_graph_def_written_by_tf_imports_and_runs() -> None:
    """A GraphDef TF 1.15 ran (producer version 21: FIFOQueue, TFRecordReader, ReaderRead,
    HashTable, InitializeTable, LookupTableFind, RandomShuffleQueue, QueueDequeueMany) imports
    and yields the same examples, labels and end-of-input errors."""
    recorded = reference.case("stateful_ops", "v1_input_pipeline")
    folder = os.path.join(reference.DATA_DIR, "stateful_ops")
    graph_def = tf.GraphDef()
    with open(os.path.join(folder, "v1_input_pipeline.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    assert sorted({n.op for n in graph_def.node}) == recorded["ops"]
    paths = [os.path.join(folder, name) for name in recorded["files"]]
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            sess.run("init_labels")
            sess.run("enqueue_filenames", {"filenames:0": paths})
            sess.run("close_filenames")
            for _ in range(12):
                sess.run("enqueue_example")
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run("enqueue_example")
            assert reference.error_class(recorded["end_of_files"]) == "OutOfRangeError"
            batches = [sess.run(["batch:0", "batch:1"]) for _ in range(2)]
            _assert_same(sess.run("examples_size:0"), recorded["left_before_close"], "left")
            sess.run("close_examples")
            batches.append(sess.run(["batch:0", "batch:1"]))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run("batch:0")
            assert reference.error_class(recorded["after_close"]) == "OutOfRangeError"
    records = np.concatenate([b[0] for b in batches])
    labels = np.concatenate([b[1] for b in batches])
    order = np.argsort(records)
    _assert_same(records[order], recorded["records"], "records")
    _assert_same(labels[order], recorded["labels"], "labels")


def test_dense_hash_table_restores_a_checkpoint_tf_saved() -> None:
    """tf.lookup.experimental.DenseHashTable restores the bucket arrays TF 1.15's Saver wrote
    (`MutableDenseHashTable-keys` / `-values`) and looks up what TF looked up."""
    recorded = reference.case("stateful_ops", "dense_checkpoint")
    path = os.path.join(reference.DATA_DIR, "stateful_ops", "dense_table", "model")
    with tf.Graph().as_default():
        table = build_dense_hash_table(tf)
        found = table.lookup(tf.constant([19, 3, 2], tf.int64))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, path)
            _assert_same(sess.run(found), recorded["found"], "found")
            _assert_same(sess.run(table.size()), recorded["size"], "size")
