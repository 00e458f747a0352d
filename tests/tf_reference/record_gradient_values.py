"""Records TensorFlow 1.15's values and gradients for the cases in cases_gradient_values.py.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_gradient_values.py` writes data/gradient_values.json (tf.contrib not loaded)."""

from __future__ import annotations

import cases_gradient_values
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("gradient_values")
for name, case in cases_gradient_values.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
