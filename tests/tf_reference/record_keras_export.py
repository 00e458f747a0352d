"""Writes a Keras model's SavedModel with TF 1.15's tf.keras.experimental.export_saved_model
into data/keras_export/tf115_sequential (the model of later_names_cases._keras_export_model)
and its predictions into data/keras_export.json: tests/unit/test_keras_export_saved_model.py
loads it with tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_export.py
"""

import os
import shutil

import numpy as np
import tensorflow as tf
from later_names_cases import _keras_export_model
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_keras_export.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "data", "keras_export", "tf115_sequential")
shutil.rmtree(path, ignore_errors=True)
model = _keras_export_model(tf)
tf.keras.experimental.export_saved_model(model, path)
x = np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32)
rec = Recorder("keras_export")
rec.add("tf115_sequential", x=x, predictions=model.predict(x))
rec.save()
