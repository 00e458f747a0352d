"""Records TensorFlow's values for the math-op cases in cases_mathops.py (segments, scatters,
partition/stitch, ordering, counting, special functions)."""

from __future__ import annotations

import cases_mathops
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("mathops")
for name, case in cases_mathops.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
