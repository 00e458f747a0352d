"""Writes tfcluster's GraphDefs of the datasets of dataset_form_ops_cases.DATASET_GRAPHS
(DatasetToGraph) into data/dataset_form_graphs/tfcluster/, for TF 1.15 to run with
DatasetFromGraph (record_dataset_form_graphs.py). Run with tfcluster's Python first:

    PYTHONPATH=server python tests/tf_reference/write_dataset_form_graphs.py
"""

from __future__ import annotations

import os
import sys

import tfcluster as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dataset_form_ops_cases import DATASET_GRAPHS, snapshot_input  # noqa: E402

OUT = os.path.join(HERE, "data", "dataset_form_graphs", "tfcluster")


SNAPSHOT = os.path.join(HERE, "data", "dataset_form_graphs", "tfcluster_snapshot")


def write_snapshot() -> None:
    """A finished snapshot of snapshot_input(tf, scale=10) (TF 1.15 reads its records)."""
    import shutil

    shutil.rmtree(SNAPSHOT, ignore_errors=True)
    with tf.Graph().as_default():
        source = snapshot_input(tf, scale=10)
        made = tf.raw_ops.SnapshotDataset(
            input_dataset=tf.data.experimental.to_variant(source),
            path=SNAPSHOT,
            output_types=[tf.int64, tf.float32],
            output_shapes=[[], [2]],
        )
        handle = tf.raw_ops.IteratorV2(
            shared_name="",
            container="",
            output_types=[tf.int64, tf.float32],
            output_shapes=[[], [2]],
        )
        init = tf.raw_ops.MakeIterator(dataset=made, iterator=handle)
        nxt = tf.raw_ops.IteratorGetNext(
            iterator=handle, output_types=[tf.int64, tf.float32], output_shapes=[[], [2]]
        )
        with tf.Session() as sess:
            sess.run(init)
            while True:
                try:
                    sess.run(nxt)
                except tf.errors.OutOfRangeError:
                    break


def main() -> None:
    write_snapshot()
    os.makedirs(OUT, exist_ok=True)
    for name, build in sorted(DATASET_GRAPHS.items()):
        with tf.Graph().as_default():
            graph = tf.raw_ops.DatasetToGraph(input_dataset=build(tf)._variant_tensor)
            with tf.Session() as sess:
                data = sess.run(graph)
        with open(os.path.join(OUT, name + ".dataset_graph"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
