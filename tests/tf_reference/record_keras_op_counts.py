"""Records TensorFlow 1.15's op counts, ops and seeded draws after each stage of the tf.keras
programs of keras_op_count_cases.py (compile, first fit, evaluate, predict, Dropout after
compile): data/keras_op_counts.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_op_counts.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_op_count_cases import CASES

record_tf115("keras_op_counts", CASES)
