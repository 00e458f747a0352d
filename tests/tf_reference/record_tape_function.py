"""Records TensorFlow 1.15's answers to the programs of tape_function_cases.py (GradientTape,
tf.function / autograph / wrap_function and tf.profiler in graph mode, whose graph-mode
behaviour changed in 2.x): data/tape_function.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tape_function.py
"""

from __future__ import annotations

from case_tools import record_tf115
from tape_function_cases import CASES

record_tf115("tape_function", CASES)
