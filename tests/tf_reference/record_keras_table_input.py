"""Records TensorFlow 1.15's tf.keras fit / evaluate / predict on DataFrame and Series inputs
(keras_table_input_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_table_input.py
"""

from __future__ import annotations

import tensorflow as tf
from keras_table_input_cases import run
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_keras_table_input.py records TensorFlow 1.15")

rec = Recorder("keras_table_input")
rec.add("regression", **run(tf))
rec.save()
