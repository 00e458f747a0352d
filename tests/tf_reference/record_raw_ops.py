"""Records TensorFlow 1.15's values for the tf.raw_ops cases in cases_raw_ops.py.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_raw_ops.py`."""

from __future__ import annotations

import cases_raw_ops
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("raw_ops")
for name, case in cases_raw_ops.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
