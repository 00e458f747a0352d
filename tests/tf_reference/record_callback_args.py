"""Records what TensorFlow's Python callbacks get for tensors (callback_arg_cases.py).

Run under TensorFlow 1.15 (the reference tfcluster follows; needs Python 3.7:
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/callback_args.json:

    V/bin/python tests/tf_reference/record_callback_args.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/callback_args_tf2.json (not committed: the test compares with the 1.15 file).
"""

from __future__ import annotations

import tensorflow as real_tf
from callback_arg_cases import CASES
from case_tools import record
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "callback_args"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "callback_args_tf2"

rec = Recorder(area)
record(rec, CASES, tf)
