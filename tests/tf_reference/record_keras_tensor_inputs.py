"""Records TensorFlow 1.15's answers to the programs of keras_tensor_input_cases.py (Keras
models fed by their own tensors): data/keras_tensor_inputs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_tensor_inputs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_tensor_input_cases import CASES

record_tf115("keras_tensor_inputs", CASES)
