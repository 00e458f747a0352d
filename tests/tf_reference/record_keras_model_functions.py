"""Records TensorFlow 1.15's answers to the programs of keras_model_functions_cases.py (a
Keras model's train_function, test_function and predict_function):
data/keras_model_functions.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_model_functions.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_model_functions_cases import CASES

record_tf115("keras_model_functions", CASES)
