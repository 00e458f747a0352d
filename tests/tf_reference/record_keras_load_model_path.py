"""Records TensorFlow 1.15's tf.keras.models.load_model on paths holding no model
(keras_load_model_path_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_load_model_path.py
"""

from __future__ import annotations

import tempfile

import tensorflow as tf
from keras_load_model_path_cases import CASES, run
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_keras_load_model_path.py records TensorFlow 1.15")

rec = Recorder("keras_load_model_path")
for case in sorted(CASES):
    with tempfile.TemporaryDirectory() as tmp:
        rec.add(case, **run(tf, case, tmp))
rec.save()
