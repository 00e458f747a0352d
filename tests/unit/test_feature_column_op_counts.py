"""Feature columns build TF 1.15's ops in its order and under its names (the vocabulary
lookup's index table, the out-of-vocabulary buckets, to_sparse_input's ignore_value, the
one-column concat, an embedding column's safe_embedding_lookup_sparse), so the op count
after input_layer is TF's and the DNN layers an estimator makes after it draw TF's initial
weights. Recorded under TF 1.15: tests/tf_reference/record_feature_column_op_counts.py.
"""

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.feature_column_op_count_cases import CASES

# TF 1.15's shape inference evaluates the reshaped ids' dense shape, so it knows the
# embedding lookup's result is [3, 3] and folds its two tf.shape calls into Consts; tfcluster
# knows [?, 3] and makes Shape ops (one op each: the op count is the same).
_FOLDED_SHAPES = {
    "input_layer/education_embedding/education_embedding_weights/Shape_1",
    "input_layer/education_embedding/Shape",
}


def _ops(ops: list) -> list[tuple[str, str]]:
    return [(n, "Const" if n in _FOLDED_SHAPES else t) for n, t in ops]


@pytest.mark.parametrize("name", sorted(CASES))
def test_columns_build_tf_ops_and_draw_tf_numbers_after(name: str) -> None:
    actual = CASES[name](tf)
    expected = reference.case("feature_column_op_counts", name)
    assert _ops(actual["ops"]) == _ops(expected["ops"])
    assert actual["op_count"] == expected["op_count"]
    np.testing.assert_allclose(actual["value"], expected["value"], rtol=1e-6)
    np.testing.assert_allclose(actual["after"], expected["after"], rtol=1e-6)
