"""Saves tfcluster's trained keras_models_cases.py models as HDF5 files into
data/keras_models/tfcluster/ for record_keras_models.py to load with TensorFlow 1.15:

    PYTHONPATH=server python tests/tf_reference/write_keras_models.py
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tfcluster as tf  # noqa: E402
from keras_models_cases import MODELS, trained  # noqa: E402

OUT = os.path.join(HERE, "data", "keras_models", "tfcluster")

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name in sorted(MODELS):
        m, _, _ = trained(tf, name)
        m.save(os.path.join(OUT, name + ".h5"))
        print("wrote", name)
