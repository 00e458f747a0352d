"""Records TensorFlow 1.15's values for the cases in cases_distributions.py.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_distributions.py` (tf.distributions is TF 1.15's own library; 2.x's compat.v1 copy
is deprecated and prints differently in places)."""

from __future__ import annotations

import cases_distributions
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
rec = Recorder("distributions")
for name, case in cases_distributions.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
