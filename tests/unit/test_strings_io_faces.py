"""tf.io / tf.data.experimental faces: the iterator-checkpointing names say why they are
missing, and tf.io.write_graph writes the graph as tf.train.write_graph does."""

from __future__ import annotations

import os

import tfcluster as tf
from tfcluster.protos import graph_pb2


def test_io_write_graph_is_train_write_graph_and_writes_the_graph(tmp_path: object) -> None:
    assert tf.io.write_graph is tf.train.write_graph
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="one")
    path = tf.io.write_graph(graph, str(tmp_path), "g.pb", as_text=False)
    assert os.path.basename(path) == "g.pb"
    graph_def = graph_pb2.GraphDef()
    with open(path, "rb") as f:
        graph_def.ParseFromString(f.read())
    assert [n.name for n in graph_def.node] == ["one"]
