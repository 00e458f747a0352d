"""Raw TensorFlow ops in functional Keras models against TF 1.15's recorded answers
(tests/tf_reference/record_keras_tf_op_layers.py): TensorFlowOpLayers for ops between Keras
tensors (layer inputs, model outputs, add_loss expressions) and the AddLoss layer, with TF's
layer names, the ops add_loss makes, the loss fit trains on, compile(loss=None)'s warning,
configs, a rebuilt and a loaded model keeping the added loss (load_model(compile=False) has no
optimizer), and a passed-through input's copy named inside its layer's scope."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_tf_op_layer_cases import CASES

AREA = "keras_tf_op_layers"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_raw_ops_and_added_losses_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
