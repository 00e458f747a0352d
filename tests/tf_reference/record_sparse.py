"""Records TensorFlow's answers to the programs of sparse_cases.py (SparseTensor and the
tf.sparse basics).

Run under TensorFlow 1.15 (the reference; Python 3.7), it writes data/sparse.json:

    V/bin/python tests/tf_reference/record_sparse.py

Under run.py's TensorFlow 2.x (tf.compat.v1) it writes
data/sparse_tf2.json, which no test reads.
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from sparse_cases import CASES

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "sparse"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "sparse_tf2"

record(Recorder(area), CASES, tf)
