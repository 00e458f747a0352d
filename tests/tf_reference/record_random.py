"""Records TensorFlow's values for the tf.random and tf.bitwise cases in cases_random.py."""

from __future__ import annotations

import cases_random
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("random")
for name, case in cases_random.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
