"""Records TensorFlow 1.15's whole-model files and answers for keras_models_cases.py:
each model's config, weights, optimizer state and predictions after training; its HDF5 file
(data/keras_models/tf/<model>.h5); and what TF makes of the files tfcluster wrote
(data/keras_models/tfcluster/<model>.h5, from write_keras_models.py: run that first).

    PYTHONPATH=<dir with h5py for Python 3.7> /tmp/tf115/bin/python record_keras_models.py

TensorFlow 2.x's tf.keras is Keras 3 (no graph-mode sessions), so only 1.15 is recorded.
"""

from __future__ import annotations

import os

import tensorflow as real_tf
from keras_models_cases import MODELS, describe, trained
from recorder import DATA_DIR, Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_keras_models.py needs TensorFlow 1.15 (tf.keras in graph mode)")
tf = real_tf.compat.v1
real_tf.logging.set_verbosity(real_tf.logging.ERROR)
FILES = os.path.join(DATA_DIR, "keras_models")

rec = Recorder("keras_models")
for name in sorted(MODELS):
    m, x, y = trained(tf, name)
    m.save(os.path.join(FILES, "tf", name + ".h5"))
    rec.add(name, x=x, **describe(m, x))
    ours = os.path.join(FILES, "tfcluster", name + ".h5")
    if os.path.exists(ours):
        tf.keras.backend.clear_session()
        loaded = tf.keras.models.load_model(ours)
        rec.add("tf_loads_tfcluster_" + name, **describe(loaded, x))
rec.save()
