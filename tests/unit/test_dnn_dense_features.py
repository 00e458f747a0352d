"""The canned DNN estimators build a v2 feature columns' input layer as TF 1.15's
DenseFeatures: every embedding column's weights first (resource variables, columns in order
of their names), then the columns' tensors reading them (ResourceGather), so the variables,
the input layer's ops, the op seeds after it and the losses are TF's; shared embedding
columns (v1 columns) keep input_layer's ref variables. The linear estimators (and
DNNLinearCombined's linear part) build TF's LinearModel over v2 columns the same way.
tf.keras.layers.DenseFeatures makes the same variables once and leaves TF's op count.
Recorded under TF 1.15: tests/tf_reference/record_dnn_dense_features.py.
"""

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.dnn_dense_features_cases import CASES

# TF 1.15 knows the batch size of an embedding lookup's result and of a crossed column's
# indicator and folds their tf.shape calls into Consts; tfcluster makes Shape ops (one op
# each: the op count is the same).
_FOLDABLE_SHAPE = ("/Shape", "/Shape_1")


def _ops(ops: list[str]) -> list[str]:
    out = []
    for op in ops:
        name, kind = op.rsplit(" ", 1)
        if name.endswith("/SparseReshape/Const"):
            # tfcluster knows the static dense shape of a column's ids in linear_model
            # (TF 1.15 does not evaluate a strided slice of a shape) and makes it a Const.
            continue
        if name.endswith(_FOLDABLE_SHAPE) and kind == "Shape":
            kind = "Const"
        out.append(f"{name} {kind}")
    return out


_ESTIMATOR_CASES = sorted(name for name in CASES if not name.startswith("dense_features"))


@pytest.mark.parametrize("name", _ESTIMATOR_CASES)
def test_dnn_input_layer_makes_tf_variables_ops_and_losses(name: str) -> None:
    actual = CASES[name](tf)
    expected = reference.case("dnn_dense_features", name)
    assert actual["variables"] == expected["variables"]
    assert actual["model_variables"] == expected["model_variables"]
    if "ops" in expected:
        assert _ops(actual["ops"]) == _ops(expected["ops"])
    np.testing.assert_allclose(actual["losses"], expected["losses"], rtol=1e-5)


def test_dense_features_layer_makes_its_variables_once_and_tf_op_count() -> None:
    actual = CASES["dense_features_layer"](tf)
    expected = reference.case("dnn_dense_features", "dense_features_layer")
    assert actual["variables"] == expected["variables"]
    assert actual["trainable_weights"] == expected["trainable_weights"]
    assert actual["op_count"] == expected["op_count"]
    np.testing.assert_allclose(actual["value"], expected["value"], rtol=1e-6)
    np.testing.assert_allclose(actual["after"], expected["after"], rtol=1e-6)


def test_dense_features_refuses_shared_embedding_columns() -> None:
    actual = CASES["dense_features_refuses_shared_embeddings"](tf)
    expected = reference.case("dnn_dense_features", "dense_features_refuses_shared_embeddings")
    assert actual == expected
