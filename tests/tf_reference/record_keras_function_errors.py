"""Records the errors TensorFlow 1.15's Keras backend functions raise (programs in
keras_function_error_cases.py): data/keras_function_errors.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_function_errors.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_function_error_cases import CASES

record_tf115("keras_function_errors", CASES)
