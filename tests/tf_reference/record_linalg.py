"""Records TensorFlow's values for the linear-algebra cases in cases_linalg.py."""

from __future__ import annotations

import cases_linalg
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("linalg")
for name, case in cases_linalg.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
