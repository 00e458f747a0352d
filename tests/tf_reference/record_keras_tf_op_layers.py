"""Records TensorFlow 1.15's answers to the programs of keras_tf_op_layer_cases.py (raw TF
ops and add_loss in functional Keras models): data/keras_tf_op_layers.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_tf_op_layers.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_tf_op_layer_cases import CASES

record_tf115("keras_tf_op_layers", CASES)
