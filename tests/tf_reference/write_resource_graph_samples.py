"""Writes the resource-variable graphs tfcluster makes, for record_resource_graphs.py to load
in TF 1.15 (data/resource_graphs/tfcluster/): a MetaGraph of the resource raw ops, and the
get_variable(use_resource=True) program (resource_graph_cases.py) trained 3 steps and saved.

    PYTHONPATH=server python tests/tf_reference/write_resource_graph_samples.py
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import tfcluster as tf
from resource_graph_cases import data, get_variable_model

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "data", "resource_graphs", "tfcluster"
)


def raw_ops_graph() -> None:
    with tf.Graph().as_default():
        raw = tf.raw_ops
        h = raw.VarHandleOp(dtype=tf.float32, shape=[3], shared_name="v", name="v")
        raw.AssignVariableOp(resource=h, value=tf.constant([1.0, 2.0, 3.0]), name="init")
        raw.ReadVariableOp(resource=h, dtype=tf.float32, name="read")
        raw.ResourceApplyGradientDescent(
            var=h, alpha=tf.constant(0.5), delta=tf.constant([1.0, -1.0, 0.5]), name="train"
        )
        raw.VariableShape(input=h, name="shape")
        raw.VarIsInitializedOp(resource=h, name="is_initialized")
        tf.train.export_meta_graph(os.path.join(OUT, "raw_resource_ops.meta"))


def trained_program(optimizer_name: str) -> None:
    x, y = data(1)
    with tf.Graph().as_default():
        xs, ys, _, _, train_op, step = get_variable_model(tf, optimizer_name)
        tf.add_to_collection("train_op", train_op)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train_op, {xs: x, ys: y})
            folder = os.path.join(OUT, "get_variable_" + optimizer_name)
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            saver.save(sess, os.path.join(folder, "model"), global_step=step)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    np.random.seed(0)
    raw_ops_graph()
    for name in ("adam", "momentum"):
        trained_program(name)
