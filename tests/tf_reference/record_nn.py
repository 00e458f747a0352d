"""Records TensorFlow's values for the nn cases in cases_nn.py (normalisation, statistics,
activations, losses)."""

from __future__ import annotations

import cases_nn
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("nn")
for name, case in cases_nn.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
