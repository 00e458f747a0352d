"""Records TensorFlow 1.15's attribute access on tf.keras optimizers
(keras_optimizer_attribute_cases.py): data/keras_optimizer_attributes.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_optimizer_attributes.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_optimizer_attribute_cases import CASES

record_tf115("keras_optimizer_attributes", CASES)
