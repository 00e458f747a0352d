"""Records TensorFlow 1.15's values for the resource-variable cases in cases_resource_vars.py.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_resource_vars.py`."""

from __future__ import annotations

import cases_resource_vars
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("resource_vars")
for name, case in cases_resource_vars.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
