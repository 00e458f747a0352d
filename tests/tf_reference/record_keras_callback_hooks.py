"""Records TensorFlow 1.15's answers to the programs of keras_callback_hook_cases.py (which
hooks Keras's loops call, and how): data/keras_callback_hooks.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_callback_hooks.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_callback_hook_cases import CASES

record_tf115("keras_callback_hooks", CASES)
