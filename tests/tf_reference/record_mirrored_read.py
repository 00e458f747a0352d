"""Records TensorFlow 1.15's reads of MirroredVariables in cross-replica context
(mirrored_read_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_mirrored_read.py
"""

from __future__ import annotations

import tensorflow as tf
from mirrored_read_cases import run
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_mirrored_read.py records TensorFlow 1.15")

rec = Recorder("mirrored_read")
rec.add("keras_model_built_in_scope", **run(tf))
rec.save()
