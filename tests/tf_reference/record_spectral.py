"""Records TensorFlow 1.15's values for the FFT cases in cases_spectral.py.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_spectral.py` (where 2.x differs: its RFFT also takes float64, 1.15's only float32)."""

from __future__ import annotations

import cases_spectral
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("spectral")
for name, case in cases_spectral.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
