"""tfcluster's BoostedTrees raw ops compute what TF 1.15's compute: each program of
tests/tf_reference/boosted_trees_cases.py (statistics, split finding, growing with each pruning
mode, training-time and plain prediction, serialized ensemble bytes, quantile summaries and
boundaries, bucketizing, and the errors of bad input) runs here and is compared with TF 1.15's
recorded answers (record_boosted_trees.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.boosted_trees_cases import CASES


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, np.ndarray) and recorded.dtype.kind in "fc":
        reference.assert_close(got, recorded, rtol=1e-5, atol=1e-6)
    elif isinstance(recorded, np.ndarray):
        np.testing.assert_array_equal(np.asarray(got), recorded, err_msg=where)
        assert np.asarray(got).shape == recorded.shape, where
    elif isinstance(recorded, (float, np.floating)):
        assert got == pytest.approx(recorded, rel=1e-5), where
    else:
        assert got == recorded, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    got = CASES[name](tf)
    recorded = reference.case("boosted_trees", name)
    assert sorted(got) == sorted(recorded)
    for key in sorted(recorded):
        _assert_same(got[key], recorded[key], f"{name}.{key}")


def _raises(sess: Any, fetch: Any, error: type) -> None:
    with pytest.raises(error):
        sess.run(fetch)


def test_bad_input_tf_aborts_on_is_a_clear_error_and_the_session_goes_on() -> None:
    """Where TF 1.15 aborts the process (epsilon 0: a CHECK) or writes outside a tensor
    (negative node or bucket ids), tfcluster answers InvalidArgumentError and keeps going."""
    tf.reset_default_graph()
    raw = tf.raw_ops
    g = np.ones((3, 1), np.float32)
    handle = raw.BoostedTreesEnsembleResourceHandleOp(shared_name="after_errors")
    create = raw.BoostedTreesCreateEnsemble(
        tree_ensemble_handle=handle, stamp_token=0, tree_ensemble_serialized=""
    )
    states = raw.BoostedTreesGetEnsembleStates(tree_ensemble_handle=handle)
    with tf.Session() as sess:
        sess.run(create)
        _raises(
            sess,
            raw.BoostedTreesMakeQuantileSummaries(
                float_values=[[1.0, 2.0, 3.0]], example_weights=[1.0], epsilon=0.0
            ),
            tf.errors.InvalidArgumentError,
        )
        _raises(
            sess,
            raw.BoostedTreesAggregateStats(
                node_ids=[0, -1, 0],
                gradients=g,
                hessians=g,
                feature=[[0], [1], [2]],
                max_splits=2,
                num_buckets=3,
            ),
            tf.errors.InvalidArgumentError,
        )
        _raises(
            sess,
            raw.BoostedTreesMakeStatsSummary(
                node_ids=[0, 0, 1],
                gradients=g,
                hessians=g,
                bucketized_features_list=[[0, -2, 1]],
                max_splits=2,
                num_buckets=3,
            ),
            tf.errors.InvalidArgumentError,
        )
        _raises(
            sess,
            raw.BoostedTreesMakeStatsSummary(
                node_ids=[0, 0],
                gradients=g,
                hessians=g,
                bucketized_features_list=[[0, 1]],
                max_splits=2,
                num_buckets=3,
            ),
            tf.errors.InvalidArgumentError,
        )
        missing = raw.BoostedTreesEnsembleResourceHandleOp(shared_name="not_there")
        _raises(
            sess,
            raw.BoostedTreesPredict(
                tree_ensemble_handle=missing, bucketized_features=[[0, 1]], logits_dimension=1
            ),
            tf.errors.NotFoundError,
        )
        assert int(sess.run(states).num_trees) == 0
