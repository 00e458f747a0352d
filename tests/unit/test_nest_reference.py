"""tf.nest gives TF 1.15's values, error classes and messages (recorded by
tests/tf_reference/record_nest_lookup.py under TF 1.15)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.nest_lookup_cases import nest_cases, run_nest_cases

OUTCOMES = run_nest_cases(tf)


@pytest.mark.parametrize("name", sorted(nest_cases(tf)))
def test_nest_matches_tf115(name: str) -> None:
    assert OUTCOMES[name] == reference.case("nest_lookup", "nest_" + name)


def test_nest_expand_composites_splits_a_sparse_tensor_and_rebuilds_it() -> None:
    with tf.Graph().as_default():
        sp = tf.SparseTensor(indices=[[0, 1]], values=[3.0], dense_shape=[2, 2])
        assert tf.nest.flatten([sp]) == [sp]
        parts = tf.nest.flatten([sp], expand_composites=True)
        assert len(parts) == 3
        back = tf.nest.pack_sequence_as([sp], parts, expand_composites=True)
        with tf.Session() as sess:
            value = sess.run(tf.sparse.to_dense(back[0]))
    np.testing.assert_array_equal(value, [[0.0, 3.0], [0.0, 0.0]])
