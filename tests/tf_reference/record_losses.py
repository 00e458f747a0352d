"""Records TensorFlow's answers to the programs of losses_cases.py.

Run under TensorFlow 1.15 (the reference tfcluster follows; Python 3.7:
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/losses.json:

    V/bin/python tests/tf_reference/record_losses.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/losses_tf2.json; tests compare everything with the 1.15 file, and the values and error
classes with the 2.x file (2.x builds other graphs and words errors differently).
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from losses_cases import CASES
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "losses"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "losses_tf2"

tf.logging.set_verbosity(tf.logging.ERROR)
rec = Recorder(area)
record(rec, CASES, tf)
