"""Records TensorFlow's answers to the programs of debugging_cases.py (tf.Print, tf.print,
asserts, check_numerics).

Run under TensorFlow 1.15 (the reference; Python 3.7), it writes data/debugging.json:

    V/bin/python tests/tf_reference/record_debugging.py

Under run.py's TensorFlow 2.x (tf.compat.v1) it writes
data/debugging_tf2.json, which no test reads.
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from debugging_cases import CASES
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "debugging"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "debugging_tf2"

record(Recorder(area), CASES, tf)
