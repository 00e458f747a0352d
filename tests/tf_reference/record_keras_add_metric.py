"""Records TensorFlow 1.15's answers to keras_add_metric_cases.py: data/keras_add_metric.json.

cd tests/tf_reference && /tmp/tf115/bin/python record_keras_add_metric.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_add_metric_cases import CASES

record_tf115("keras_add_metric", CASES)
