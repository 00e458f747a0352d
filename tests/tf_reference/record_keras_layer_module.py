"""Records TensorFlow 1.15's Keras layers as tf.Modules (keras_layer_module_cases.py):
data/keras_layer_module.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_layer_module.py
"""

from __future__ import annotations

import sys

import tensorflow as tf
from case_tools import record
from keras_layer_module_cases import CASES, PROGRAMS, warning_lines
from recorder import Recorder

if not tf.__version__.startswith("1.15"):
    raise SystemExit("record_keras_layer_module.py records TensorFlow 1.15")
rec = Recorder("keras_layer_module")
for name in sorted(PROGRAMS):
    rec.add(name, lines=warning_lines(sys.executable, "tensorflow", name))
record(rec, CASES, tf.compat.v1)
