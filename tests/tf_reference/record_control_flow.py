"""Records TensorFlow's answers to the programs of control_flow_cases.py (TensorArray, map_fn,
scan, foldl/foldr, while_loop gradients over TensorArrays).

Run under TensorFlow 1.15 (the reference; Python 3.7), it writes data/control_flow.json:

    V/bin/python tests/tf_reference/record_control_flow.py

Under run.py's TensorFlow 2.x (tf.compat.v1 with v1 control flow) it writes
data/control_flow_tf2.json, which no test reads.
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from control_flow_cases import CASES
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "control_flow"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.disable_control_flow_v2()
    area = "control_flow_tf2"

record(Recorder(area), CASES, tf)
