"""Records TensorFlow's answers to the programs of summary_cases.py (tf.summary.image,
audio, tensor_summary and text).

Run under TensorFlow 1.15 (the reference; Python 3.7), it writes data/summaries.json:

    V/bin/python tests/tf_reference/record_summaries.py

Under run.py's TensorFlow 2.x (tf.compat.v1) it writes
data/summaries_tf2.json, which no test reads.
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from summary_cases import CASES

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "summaries"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "summaries_tf2"

record(Recorder(area), CASES, tf)
