"""Records TensorFlow 1.15's answers to keras_estimator_subclassed_cases.py:
data/keras_estimator_subclassed.json.

cd tests/tf_reference && /tmp/tf115/bin/python record_keras_estimator_subclassed.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_estimator_subclassed_cases import CASES

record_tf115("keras_estimator_subclassed", CASES)
