"""Records TensorFlow 1.15's answers to the tf.keras programs of keras_cases.py.

Run under TensorFlow 1.15 (Python 3.7; see README.md), it writes data/keras.json:

    /tmp/tf115/bin/python tests/tf_reference/record_keras.py

TensorFlow 2.x's tf.keras is Keras 3 (no graph-mode sessions), so only 1.15 is recorded.
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from keras_cases import CASES
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_keras.py needs TensorFlow 1.15 (tf.keras in graph mode)")
tf = real_tf.compat.v1
real_tf.logging.set_verbosity(real_tf.logging.ERROR)

rec = Recorder("keras")
record(rec, CASES, tf)
