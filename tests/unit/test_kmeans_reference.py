"""The clustering ops (NearestNeighbors, KmeansPlusPlusInitialization,
KMC2ChainInitialization), TF's k-means graph and tf.estimator.experimental.KMeans compute what
TF 1.15 computes: each program of tests/tf_reference/kmeans_cases.py runs here on tfcluster and
is compared with TF 1.15's recorded answers (record_sdca_kmeans.py); tfcluster restores the
model directory TF trained."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.compare import assert_same_answers
from tf_reference.kmeans_cases import CASES, RESTORE_CASES


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    assert_same_answers(got, recorded, where, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", sorted(CASES) + sorted(RESTORE_CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    program = CASES.get(name) or RESTORE_CASES[name]
    _assert_same(program(tf), reference.case("kmeans", name), name)


def test_mini_batch_estimator_trains_as_the_graph_tf_ran() -> None:
    """The estimator's mini-batch centers are the k-means graph's after as many steps; those
    are one of the answers TF 1.15 gave for that graph (graph_mini_batch)."""
    from tf_reference import kmeans_cases

    tf.reset_default_graph()
    tf.set_random_seed(1)
    init = kmeans_cases._points()[[0, 10, 20]]
    graph = kmeans_cases._train_graph(tf, init, "squared_euclidean", True, 3)
    recorded = reference.case("kmeans", "graph_mini_batch")["squared_euclidean_1"]["answers"]
    assert any(np.allclose(graph["centers"], r["centers"], atol=2e-5) for r in recorded)
    tf.reset_default_graph()
    est = kmeans_cases._estimator_run(tf, "mini_batch", initial_clusters=init)
    np.testing.assert_allclose(est["centers"], graph["centers"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(est["score"], np.sum(graph["scores"]), rtol=1e-5)


def test_a_session_keeps_working_after_bad_clustering_input() -> None:
    from tfcluster.ops import clustering_ops

    tf.reset_default_graph()
    p = tf.placeholder(tf.float32)
    idx, dist = clustering_ops.nearest_neighbors(p, [[0.0, 0.0], [1.0, 1.0]], 1)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="point_dimensions"):
            sess.run(idx, {p: [[1.0, 2.0, 3.0]]})
        got_idx, got_dist = sess.run([idx, dist], {p: [[0.9, 0.8]]})
    assert got_idx.tolist() == [[1]]
    np.testing.assert_allclose(got_dist, [[0.05]], rtol=1e-5)
