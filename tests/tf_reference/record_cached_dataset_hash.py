"""Records TensorFlow 1.15's tf.keras.datasets loaders on a cached file whose hash is not the
real dataset's, offline (cases in cached_dataset_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_cached_dataset_hash.py
"""

from __future__ import annotations

import tempfile

import tensorflow as tf
from cached_dataset_cases import CASES, offline_urlretrieve, run
from recorder import Recorder
from tensorflow.python.keras.utils import data_utils

if not tf.__version__.startswith("1."):
    raise SystemExit("record_cached_dataset_hash.py records TensorFlow 1.15")

data_utils.urlretrieve = offline_urlretrieve
rec = Recorder("cached_dataset_hash")
for case in sorted(CASES):
    with tempfile.TemporaryDirectory() as home:
        rec.add(case, **run(case, tf.keras.datasets, home))
rec.save()
