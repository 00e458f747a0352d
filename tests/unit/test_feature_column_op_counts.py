"""Feature columns build TF 1.15's ops in its order and under its names (the vocabulary
lookup's index table, the out-of-vocabulary buckets, to_sparse_input's ignore_value, the
one-column concat), so the op count after input_layer is TF's and the DNN layers an estimator
makes after it draw TF's initial weights. Recorded under TF 1.15:
tests/tf_reference/record_feature_column_op_counts.py.
"""

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.feature_column_op_count_cases import CASES

# safe_embedding_lookup_sparse still builds other ops than TF 1.15's (its weights are TF's:
# they are made before the lookup).
_EMBEDDING_LOOKUP_OPS_DIFFER = {"vocabulary_list_oov_embedding"}


def _params() -> list:
    return [
        pytest.param(
            name,
            marks=[pytest.mark.xfail(strict=True, reason="embedding lookup ops")]
            if name in _EMBEDDING_LOOKUP_OPS_DIFFER
            else [],
        )
        for name in sorted(CASES)
    ]


@pytest.mark.parametrize("name", _params())
def test_columns_build_tf_ops_and_draw_tf_numbers_after(name: str) -> None:
    actual = CASES[name](tf)
    expected = reference.case("feature_column_op_counts", name)
    assert [tuple(op) for op in actual["ops"]] == [tuple(op) for op in expected["ops"]]
    assert actual["op_count"] == expected["op_count"]
    np.testing.assert_allclose(actual["value"], expected["value"], rtol=1e-6)
    np.testing.assert_allclose(actual["after"], expected["after"], rtol=1e-6)


def test_embedding_weights_drawn_before_the_lookup_are_tf_numbers() -> None:
    actual = CASES["vocabulary_list_oov_embedding"](tf)
    expected = reference.case("feature_column_op_counts", "vocabulary_list_oov_embedding")
    np.testing.assert_allclose(actual["value"], expected["value"], rtol=1e-6)
