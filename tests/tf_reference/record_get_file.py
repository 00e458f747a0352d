"""Records TensorFlow 1.15's tf.keras.utils.get_file on the failure cases of
get_file_cases.py (what it raises, prints and leaves in the cache). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_get_file.py
"""

from __future__ import annotations

import tempfile

import tensorflow as tf
from get_file_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_get_file.py records TensorFlow 1.15")

rec = Recorder("get_file")
for name, fn in sorted(CASES.items()):
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as served:
        rec.add(name, **fn(tf.keras.utils.get_file, cache, served))
rec.save()
