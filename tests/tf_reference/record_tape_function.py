"""Records TensorFlow 1.15's answers to the programs of tape_function_cases.py (GradientTape,
tf.function / autograph / wrap_function and tf.profiler in graph mode, whose graph-mode
behaviour changed in 2.x): data/tape_function.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tape_function.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from tape_function_cases import CASES

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_tape_function.py records TensorFlow 1.15 (see its docstring)")
tf = real_tf.compat.v1

rec = Recorder("tape_function")
record(rec, CASES, tf)
