"""Records TensorFlow 1.15's answers to the programs of keras_step_loop_cases.py (Keras's
step-wise loops): data/keras_step_loops.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_step_loops.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_step_loop_cases import CASES

record_tf115("keras_step_loops", CASES)
