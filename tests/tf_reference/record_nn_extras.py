"""Records TensorFlow's values for cases_nn_extras.py (CTC, morphology, small losses).

Run under TensorFlow 1.15 (Python 3.7), the reference these ops follow, it writes
data/nn_extras.json:

    /tmp/tf115/bin/python tests/tf_reference/record_nn_extras.py

Under run.py's TensorFlow 2.x it writes data/nn_extras_tf2.json (not compared by the tests:
2.x's compat.v1 CTC kernels check labels differently)."""

from __future__ import annotations

import cases_nn_extras
import tensorflow as real_tf
from casebook import run_case
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "nn_extras"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "nn_extras_tf2"

rec = Recorder(area)
for name, case in cases_nn_extras.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
