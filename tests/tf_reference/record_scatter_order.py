"""Records TensorFlow 1.15's values for the repeated-row scatter cases in cases_scatter_order.py.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_scatter_order.py`."""

from __future__ import annotations

import cases_scatter_order
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("scatter_order")
for name, case in cases_scatter_order.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
