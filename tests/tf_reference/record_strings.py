"""Records TensorFlow's answers to the programs of string_cases.py (the tf.strings ops and
their top-level names).

Run under TensorFlow 1.15 (the reference; Python 3.7), it writes data/strings.json:

    V/bin/python tests/tf_reference/record_strings.py

Under run.py's TensorFlow 2.x (tf.compat.v1) it writes
data/strings_tf2.json, which no test reads.
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from string_cases import CASES

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "strings"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "strings_tf2"

record(Recorder(area), CASES, tf)
