"""Records TensorFlow 1.15's tf.zeros / tf.ones with a one-number shape on the cases of
fill_scalar_shape_cases.py. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_fill_scalar_shape.py
"""

from __future__ import annotations

import tensorflow as tf
from fill_scalar_shape_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_fill_scalar_shape.py records TensorFlow 1.15")

rec = Recorder("fill_scalar_shape")
for name, fn in sorted(CASES.items()):
    rec.add(name, **fn(tf))
rec.save()
