"""Records TensorFlow 1.15's values for the cases in cases_linear_operators.py.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_linear_operators.py`."""

from __future__ import annotations

import cases_linear_operators
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("linear_operators")
for name, case in cases_linear_operators.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
