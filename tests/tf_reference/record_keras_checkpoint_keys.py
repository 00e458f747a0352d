"""Records TensorFlow 1.15's answers to keras_checkpoint_key_cases.py (save_weights' keys for
RNNs, wrappers, stacked cells, nested models): data/keras_checkpoint_keys.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_checkpoint_keys.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_checkpoint_key_cases import CASES

record_tf115("keras_checkpoint_keys", CASES)
