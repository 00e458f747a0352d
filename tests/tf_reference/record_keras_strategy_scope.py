"""Records TensorFlow 1.15's tf.keras model compiled, fitted, saved, loaded and evaluated in a
MirroredStrategy's scope (keras_strategy_scope_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_strategy_scope.py
"""

from __future__ import annotations

import tempfile

import tensorflow as tf
from keras_strategy_scope_cases import run
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_keras_strategy_scope.py records TensorFlow 1.15")

rec = Recorder("keras_strategy_scope")
with tempfile.TemporaryDirectory() as folder:
    rec.add("mirrored_one_replica", **run(tf, folder))
rec.save()
